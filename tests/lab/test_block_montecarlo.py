"""The exact Monte Carlo of block verification: its exact marginals and its draws against them."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from specviz import theory
from specviz.lab import block_montecarlo as bm
from specviz.lab import montecarlo as mc
from specviz.playground import presets
from specviz.playground.presets import preset_scenario
from specviz.scenario import Scenario, Table

EXAMPLE = Scenario(vocab=("a", "b"), target=Table((1, 2)), draft=Table((2, 1)), depth=2, verification="block")


@pytest.mark.parametrize("name", list(presets.PRESETS))
@pytest.mark.parametrize("markov", [False, True])
def test_marginals_equal_the_enumeration(name, markov):
    scenario = preset_scenario(name, 4, 3, markov).with_changes(verification="block")
    blocks = theory.block_distribution(scenario)
    first, lengths = bm.block_marginals(scenario)
    assert first == theory.first_token_marginal(blocks, 4)
    assert lengths == theory.length_distribution(blocks, 3)


@pytest.mark.parametrize("force_python", [False, True])
def test_rounds_match_the_exact_law(force_python):
    scenario = preset_scenario("stop-heavy", 4, 3, True).with_changes(verification="block")
    sim = mc.MonteCarlo(scenario, seed=3, force_python=force_python)
    assert sim.method.startswith("block verification") and sim.vectorized is not force_python
    n = 4000 if force_python else 100_000
    counts = sim.run(n)
    law = mc.exact_law(scenario)
    blocks = law.blocks
    assert set(counts.blocks) <= {b for b, p in blocks.items() if p}
    for fit in (mc.goodness_of_fit(counts.first, law.first), mc.goodness_of_fit(counts.length[1:], law.length[1:])):
        assert fit.impossible == 0
        assert np.all(np.abs(fit.frequencies - [float(p) for p in fit.exact]) <= 4.5 * fit.error_bars(1.0) + 1e-12)


def test_mean_accepted_drafts_of_the_paper_example():
    tokens = mc.MonteCarlo(EXAMPLE, seed=0).tokens(200_000)
    # a round keeps tau drafts and adds one token (no stops here): tau = committed length - 1
    accepted = (tokens >= 0).sum(axis=1) - 1
    assert abs(accepted.mean() - 11 / 9) < 4 * accepted.std() / 200_000**0.5
    assert bm.block_marginals(EXAMPLE)[1] == [0, F(1, 3), F(1, 9), F(5, 9)]


def test_tables_hold_the_exact_stop_probabilities():
    t = bm.build_block_tables(EXAMPLE)
    # from the start: drafting a gives w_1 = 1/2 and h_1 = 0; drafting b gives w_1 = 1 and h_1 = 1
    assert (t.h_num[0], t.h_den[0]) == ([0, 1], [1, 1])
    after_a = t.child[0][0]
    assert [F(n, d) for n, d in zip(t.h_num[after_a], t.h_den[after_a], strict=True)] == [F(1, 4), 1]
    assert t.fits_int64


def test_large_scenarios_use_the_node_recursion_and_huge_tickets_fall_back_to_python():
    scenario = preset_scenario("close", 8, 5, False).with_changes(verification="block")
    law = mc.exact_law(scenario, max_blocks=1000)
    assert law.blocks is None and sum(law.first) == 1 and sum(law.length) == 1
    p = scenario.processor()((), scenario.target_model()(()))
    assert law.first == [p.prob(x) for x in range(8)]  # exactness: the first token is distributed as p
    tiny = Scenario(vocab=("a", "b", "c"), target=Table((1.0, 1e-40, 2.0)), draft=Table((1.0, 1.0, 1e-44)),
                    depth=2, fp32=True, verification="block")
    sim = mc.MonteCarlo(tiny, seed=1)
    assert not sim.vectorized
    assert (sim.tokens(50) >= 0).sum(axis=1).min() >= 1
