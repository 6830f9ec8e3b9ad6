"""specviz.lab.montecarlo: exact vectorized rounds agree with the exact law and with the core."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specviz import theory
from specviz.lab import montecarlo as mc
from specviz.playground.presets import preset_scenario
from specviz.scenario import Scenario, Table

MARKOV = Scenario(vocab=("a", "b", "c"), target=Table((3, 2, 1), ((1, 1, 1), (4, 1, 1), (1, 0, 5))),
                  draft=Table((1, 1, 1), ((2, 1, 1), (1, 1, 1), (1, 3, 1))), depth=3, draft_topk=2,
                  stop_ids=frozenset({2}))


def test_vectorized_rounds_match_the_exact_law():
    law = mc.exact_law(MARKOV)
    counts = mc.MonteCarlo(MARKOV, seed=3).run(200_000)
    assert counts.rounds == 200_000 and counts.first.sum() == 200_000
    for observed, exact in ((counts.first, law.first), (counts.length, law.length)):
        fit = mc.goodness_of_fit(observed, exact)
        assert fit.impossible == 0
        assert fit.p_value > 1e-4, fit
        assert fit.total_variation < 0.01
    # every simulated block is possible, and the block law fits too
    assert all(law.blocks.get(b, 0) > 0 for b in counts.blocks)
    tv = sum(abs(counts.blocks.get(b, 0) / counts.rounds - float(law.blocks.get(b, 0)))
             for b in set(counts.blocks) | set(law.blocks)) / 2
    assert tv < 0.02


def test_stop_tokens_end_blocks():
    tokens = mc.MonteCarlo(MARKOV, seed=1).tokens(20_000)
    for row in tokens:
        committed = [t for t in row if t >= 0]
        assert all(t != 2 for t in committed[:-1])
        assert (row >= 0).sum() == len(committed) and all(row[len(committed):] == -1)


def test_python_integer_path_matches_and_is_used_for_huge_tickets():
    huge = Scenario(vocab=("a", "b", "c"), target=Table((0.1, 0.7, 1e-300)), draft=Table((0.3, 0.3, 0.4)), depth=2)
    sim = mc.MonteCarlo(huge, seed=0)
    assert not sim.vectorized and "Python" in sim.method
    law = mc.exact_law(huge)
    counts = sim.run(20_000)
    assert mc.goodness_of_fit(counts.first, law.first).p_value > 1e-4
    forced = mc.MonteCarlo(MARKOV, seed=5, force_python=True)
    assert not forced.vectorized
    c = forced.run(20_000)
    assert mc.goodness_of_fit(c.length, mc.exact_law(MARKOV).length).p_value > 1e-4


def test_prefix_sets_the_start_state():
    law = mc.exact_law(MARKOV, (1,))
    assert law.first == theory.first_token_marginal(theory.block_distribution(MARKOV, (1,)), 3)
    counts = mc.MonteCarlo(MARKOV, (1,), seed=2).run(50_000)
    assert mc.goodness_of_fit(counts.first, law.first).p_value > 1e-4


def test_reference_loop_agrees():
    ref = mc.reference_counts(MARKOV, 2_000, seed=4)
    law = mc.exact_law(MARKOV)
    assert ref.rounds == 2_000 and all(law.blocks.get(b, 0) > 0 for b in ref.blocks)
    assert mc.goodness_of_fit(ref.first, law.first).p_value > 1e-4


def test_chunked_runs_merge_and_stop_early():
    sim = mc.MonteCarlo(MARKOV, seed=0)
    seen = []
    total = sim.run_chunked(10_000, chunk=3_000, on_chunk=lambda c: seen.append(c.rounds))
    assert total.rounds == 10_000 and seen == [3_000, 6_000, 9_000, 10_000]
    stopped = sim.run_chunked(10_000, chunk=3_000, on_chunk=lambda c: True)
    assert stopped.rounds == 3_000
    assert total.length.sum() == 10_000 and sum(total.blocks.values()) == 10_000


def test_goodness_of_fit_flags_impossible_observations():
    fit = mc.goodness_of_fit([5, 5, 1], [F(1, 2), F(1, 2), F(0)])
    assert fit.impossible == 1 and fit.p_value == 0.0 and fit.chi2 == float("inf")
    fit = mc.goodness_of_fit([50, 50], [F(1, 2), F(1, 2)])
    assert fit.total_variation == 0 and fit.p_value == pytest.approx(1.0)
    assert np.allclose(fit.error_bars(), 1.96 * 0.05)


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["close", "far apart", "stop-heavy", "q zero where p is not", "p zero where q is not"]),
       st.integers(2, 5), st.integers(1, 3), st.booleans())
def test_state_recursion_equals_enumeration(name, v, depth, markov):
    scenario = preset_scenario(name, v, depth, markov)
    blocks = theory.block_distribution(scenario)
    first, length = mc._marginals(scenario, ())
    assert first == theory.first_token_marginal(blocks, v)
    assert length == theory.length_distribution(blocks, depth)


def test_large_preset_uses_marginals_only():
    scenario = preset_scenario("close", 8, 5, True)
    law = mc.exact_law(scenario, max_blocks=1000)
    assert law.blocks is None and sum(law.first) == 1 and sum(law.length) == 1


# a target row of zeros after a masked-out mode: the core refuses every round that reaches token 1
REFUSED = Scenario(vocab=("a", "b", "c"), target=Table((1, 1, 1), ((1, 1, 1), (0, 0, 5), (1, 1, 1))),
                   draft=Table((1, 1, 1)), target_mask=(True, True, False), depth=2)


def _core_message(scenario: Scenario) -> str:
    from specviz.scenario import play

    messages = set()
    for seed in range(300):
        try:
            play(scenario.with_changes(seed=seed), 1)
        except ValueError as error:
            messages.add(str(error))
    assert len(messages) == 1  # the core refuses some of these rounds, always with one message
    return messages.pop()


@pytest.mark.parametrize("prefix", [(), (1,), (0,)])
def test_monte_carlo_refuses_what_the_core_refuses_before_running(prefix):
    from specviz.core import SupportError

    message = _core_message(REFUSED)
    with pytest.raises(SupportError) as info:
        mc.MonteCarlo(REFUSED, prefix)
    assert str(info.value) == message
    with pytest.raises(SupportError):
        mc._marginals(REFUSED, prefix)


def test_states_no_round_can_reach_need_not_be_valid():
    unreachable = REFUSED.with_changes(draft=Table((1, 0, 1)))  # the draft never proposes 'b'
    counts = mc.MonteCarlo(unreachable, seed=1).run(20_000)
    law = mc.exact_law(unreachable)
    assert law.first[1] > 0  # 'b' comes only as a correction, which ends the round: p after it is never read
    assert mc.goodness_of_fit(counts.first, law.first).p_value > 1e-4
    assert law.first == mc._marginals(unreachable, ())[0]


def test_monte_carlo_refuses_a_bad_depth_stop_id_or_prefix_with_the_cores_words():
    from specviz.core import BlockError, TokenError

    with pytest.raises(BlockError):
        mc.MonteCarlo(MARKOV.with_changes(depth=9))
    with pytest.raises(TokenError):
        mc.MonteCarlo(MARKOV.with_changes(stop_ids=frozenset({7})))
    with pytest.raises(TokenError):
        mc.MonteCarlo(MARKOV, (5,))


def test_goodness_of_fit_pools_bins_below_the_float_range():
    tiny = F(1, 2**2000)
    fit = mc.goodness_of_fit([600, 400, 0], [F(3, 5), F(2, 5) - tiny, tiny], ["a", "b", "c"])
    assert np.isfinite(fit.chi2) and np.isfinite(fit.p_value)
    assert fit.chi2 == pytest.approx(0.0, abs=1e-12) and fit.dof == 1
    assert fit.merged == ("c",) and "below the float range" in fit.note
    skewed = mc.goodness_of_fit([500, 500, 0], [F(3, 5), F(2, 5) - tiny, tiny])
    assert skewed.p_value < 1e-6 and np.isfinite(skewed.chi2)
    assert mc.goodness_of_fit([50, 50], [F(1, 2), F(1, 2)]).note == ""


def test_monte_carlo_fits_a_scenario_with_a_weight_below_the_float_range():
    scenario = Scenario(vocab=("a", "b", "c"), target=Table((1, 1, F(1, 2**2000))), draft=Table((1, 2, 1)), depth=1)
    law = mc.exact_law(scenario)
    counts = mc.MonteCarlo(scenario, seed=0).run(5_000)
    fit = mc.goodness_of_fit(counts.first, law.first)
    assert np.isfinite(fit.p_value) and fit.merged == ("2",)
