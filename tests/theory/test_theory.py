"""specviz.theory: closed forms, and the exact enumeration of one round against the target's law."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction as F

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from specviz import theory
from specviz.core import Categorical, SupportError
from specviz.scenario import Scenario, Table, play_round

# --- closed forms ------------------------------------------------------------------------------


def test_alpha_is_sum_of_min():
    p = Categorical.dense([F(1, 2), F(1, 3), F(1, 6)])
    q = Categorical.dense([F(1, 6), F(1, 2), F(1, 3)])
    assert theory.alpha(p, q) == F(1, 6) + F(1, 3) + F(1, 6)
    assert theory.alpha(p, p) == 1
    assert theory.alpha(Categorical.dense([1, 0]), Categorical.dense([0, 1])) == 0


def test_expected_tokens_types_and_limits():
    assert theory.expected_tokens(F(4, 5), 5) == (1 - F(4, 5) ** 6) / F(1, 5)
    assert isinstance(theory.expected_tokens(F(1, 2), 2), F)
    assert theory.expected_tokens(F(1), 4) == 5
    assert theory.expected_tokens(1, 4) == F(5)
    assert theory.expected_tokens(1.0, 4) == 5.0
    assert theory.expected_tokens(0, 7) == 1
    value = theory.expected_tokens(0.8, 5)
    assert isinstance(value, float) and abs(value - 3.68928) < 1e-12
    with pytest.raises(ValueError):
        theory.expected_tokens(1.5, 2)
    with pytest.raises(ValueError):
        theory.expected_tokens(0.5, -1)


def test_leviathan_table1_from_the_formula():
    # alpha = 0.8, g = 5, c = 0: 3.69 tokens per round (Leviathan, Kalman and Matias 2023)
    assert round(theory.speedup(0.8, 5, 0), 2) == 3.69
    assert theory.speedup(F(4, 5), 5, 0) == theory.expected_tokens(F(4, 5), 5)
    grid = {(row["alpha"], row["g"]): row["tokens"] for row in theory.table_grid()}
    assert round(float(grid[(F(4, 5), 5)]), 2) == 3.69
    assert len(grid) == 5 * 8
    # g = 1 at alpha 0.5 commits 1.5 tokens
    assert grid[(F(1, 2), 1)] == F(3, 2)


def test_speedup_and_optimal_depth():
    assert theory.speedup(F(1, 2), 2, F(1, 10)) == (1 - F(1, 8)) / F(1, 2) / F(12, 10)
    assert theory.optimal_depth(0.8, 0.0, max_depth=8) == 8  # free drafts: draft as deep as allowed
    assert theory.optimal_depth(0.0, 0.5) == 1  # nothing is ever accepted: shortest
    g = theory.optimal_depth(0.8, 0.1)
    assert all(theory.speedup(0.8, g, 0.1) >= theory.speedup(0.8, h, 0.1) for h in range(1, 9))
    assert theory.optimal_depth(F(4, 5), F(1, 10)) == g
    with pytest.raises(ValueError):
        theory.speedup(0.5, 2, -1)


def test_vectorized_expected_tokens():
    import numpy as np

    values = theory.expected_tokens(np.array([0.0, 0.8, 1.0]), 5)
    assert values[0] == 1.0 and abs(values[1] - 3.68928) < 1e-12 and values[2] == 6.0


def test_leviathan_reference_alphas_present():
    pairs = {(d, t): a for _, d, t, a in theory.LEVIATHAN_ALPHAS}
    assert pairs[("T5-small", 0.0)] == 0.75 and pairs[("T5-small", 1.0)] == 0.62


# --- enumeration ---------------------------------------------------------------------------------

SIMPLE = Scenario(vocab=("a", "b", "c"), target=Table((F(1, 2), F(1, 3), F(1, 6))),
                  draft=Table((F(1, 6), F(1, 2), F(1, 3))), depth=3)


def test_block_distribution_sums_to_one_and_matches_target():
    blocks = theory.block_distribution(SIMPLE)
    assert sum(blocks.values()) == 1
    report = theory.exactness_report(SIMPLE)
    assert report.exact and report.max_abs_difference == 0
    assert all(r.difference == 0 for r in report.sequences)
    assert all(line.endswith("difference 0") for line in report.lines(SIMPLE.vocab))


def test_expected_tokens_matches_enumeration_when_alpha_is_position_independent():
    a = theory.alpha(SIMPLE.target_model()(()), SIMPLE.draft_model()(()))
    for depth in (1, 2, 3, 4):
        blocks = theory.block_distribution(SIMPLE.with_changes(depth=depth))
        assert theory.mean_length(blocks) == theory.expected_tokens(a, depth)
    analysis = theory.analyze_round(SIMPLE)
    assert analysis.position_alphas == [a, a, a]


def test_models_interface_matches_scenario():
    models = dict(draft=SIMPLE.draft_model(), depth=2)
    assert theory.block_distribution(SIMPLE.target_model(), **models) == \
        theory.block_distribution(SIMPLE.with_changes(depth=2))


def test_enumeration_agrees_with_the_core_round_by_round():
    """Every block the core commits has positive enumerated probability; frequencies are close."""
    scenario = SIMPLE.with_changes(draft_topk=2, stop_ids=frozenset({2}), target=Table(
        (F(1, 2), F(1, 3), F(1, 6)), ((1, 1, 1), (3, 1, 0), (1, 2, 3))), draft=Table(
        (1, 2, 1), ((1, 3, 1), (1, 1, 1), (2, 1, 0)))).with_changes(depth=2)
    blocks = theory.block_distribution(scenario, (0,))
    verifier = scenario.verifier((0,))
    counts: Counter = Counter()
    n = 3000
    for round_id in range(n):
        verifier.reset((0,))
        tokens = play_round(scenario, verifier, round_id).result.tokens
        assert blocks.get(tokens, 0) > 0, tokens
        counts[tokens] += 1
    tv = sum(abs(counts[s] / n - float(blocks.get(s, 0))) for s in set(counts) | set(blocks)) / 2
    assert tv < 0.06


def test_mask_removing_every_token_raises():
    scenario = SIMPLE.with_changes(target_mask=(False, False, False))
    with pytest.raises(SupportError):
        theory.block_distribution(scenario)


# --- hypothesis properties ------------------------------------------------------------------------

WEIGHTS_EXACT = st.sampled_from([0, 0, 1, 2, 3, F(1, 3), F(5, 7)])
WEIGHTS_FLOAT = st.sampled_from([0.0, 0.1, 0.25, 1.0, 3.0, 1e-30, 1e-45, 2.5e-40])


@st.composite
def scenarios(draw):
    v = draw(st.integers(2, 4))
    depth = draw(st.integers(1, 3))
    fp32 = draw(st.booleans())
    weights = WEIGHTS_FLOAT if fp32 else WEIGHTS_EXACT

    def row():
        r = draw(st.lists(weights, min_size=v, max_size=v))
        assume(any(r))
        return tuple(r)

    markov = draw(st.booleans())
    target = Table(row(), tuple(row() for _ in range(v)) if markov else None)
    draft = Table(row(), tuple(row() for _ in range(v)) if markov else None)
    mask = draw(st.none() | st.lists(st.booleans(), min_size=v, max_size=v).map(tuple))
    if mask is not None:
        for r in (target.start, *(target.rows or ())):
            assume(any(w and m for w, m in zip(r, mask, strict=True)))
    scenario = Scenario(
        vocab=tuple("abcd"[:v]), target=target, draft=draft, depth=depth, fp32=fp32,
        draft_topk=draw(st.none() | st.integers(1, v)),
        target_mask=mask,
        target_top_k=draw(st.none() | st.integers(1, v)),
        target_top_p=draw(st.sampled_from([None, None, 0.5, 0.9])),
        target_temperature=draw(st.sampled_from([1.0, 1.0, 1.0, 0.5, 2.0])),
        stop_ids=frozenset(draw(st.sets(st.integers(0, v - 1), max_size=2))),
    )
    # FP32 quantization can zero a whole row (1e-46 rounds to 0): such scenarios are refused
    try:
        for prefix in [()] + [(x,) for x in range(v)]:
            scenario.target_model()(prefix)
            scenario.draft_model()(prefix)
            scenario.processor()(prefix, scenario.target_model()(prefix))
    except SupportError:
        assume(False)
    return scenario


PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])


@PROPERTY
@given(scenarios(), st.sampled_from([(), (0,), (1,)]))
def test_block_law_equals_target_law(scenario, prefix):
    report = theory.exactness_report(scenario, prefix)
    assert sum(report.blocks.values()) == 1
    assert report.exact, [line for line in report.lines() if not line.endswith("difference 0")]


@PROPERTY
@given(scenarios())
def test_first_committed_token_is_distributed_as_p(scenario):
    blocks = theory.block_distribution(scenario)
    p = scenario.processor()((), scenario.target_model()(()))
    marginal = theory.first_token_marginal(blocks, scenario.vocab_size)
    assert marginal == [p.prob(x) for x in range(scenario.vocab_size)]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from([0, 1, 2, 5, F(1, 3)]), min_size=3, max_size=3).filter(any),
       st.lists(st.sampled_from([0, 1, 2, 5, F(1, 3)]), min_size=3, max_size=3).filter(any),
       st.integers(1, 4))
def test_expected_tokens_property(target, draft, depth):
    scenario = Scenario(vocab=("a", "b", "c"), target=Table(tuple(target)), draft=Table(tuple(draft)), depth=depth)
    a = theory.alpha(scenario.target_model()(()), scenario.draft_model()(()))
    blocks = theory.block_distribution(scenario)
    assert theory.mean_length(blocks) == theory.expected_tokens(a, depth)
    assert theory.length_distribution(blocks, depth)[depth + 1] == a**depth
