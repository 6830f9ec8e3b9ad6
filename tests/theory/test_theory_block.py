"""Block verification in the theory: the paper's example, exactness by enumeration on random scenarios,
never fewer accepted drafts than tokenwise verification, and the enumeration against the core's draws."""

from __future__ import annotations

import random
from fractions import Fraction as F

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from specviz import theory
from specviz.core import Categorical, SpecvizError, VerificationError
from specviz.scenario import Scenario, ScenarioError, Table, play_round, scenario_from_dict, scenario_to_dict

P = Categorical.dense([1, 2])
Q = Categorical.dense([2, 1])
EXAMPLE = Scenario(vocab=("a", "b"), target=Table((1, 2)), draft=Table((2, 1)), depth=2)


def test_the_paper_example():
    assert theory.expected_accepted_drafts(P, Q, 2, "token") == F(10, 9)
    assert theory.expected_accepted_drafts(P, Q, 2, "block") == F(11, 9)
    assert theory.ideal_accepted_drafts(P, Q, 2) == F(12, 9)
    block = theory.analyze_round(EXAMPLE, verification="block")
    assert block.expected_accepted == F(11, 9)
    assert theory.analyze_round(EXAMPLE).expected_accepted == F(10, 9)
    # P(tau = 0, 1, 2): (a, a) keeps 0 drafts w.p. 3/4, (b, a) keeps 1 w.p. 1/2
    taus = {}
    for outcome, prob in block.outcomes.items():
        taus[outcome.accepted] = taus.get(outcome.accepted, 0) + prob
    assert taus == {0: F(1, 3), 1: F(1, 9), 2: F(5, 9)}
    assert theory.exactness_report(EXAMPLE, verification="block").exact


def test_tokenwise_closed_form_and_argument_checks():
    a = theory.alpha(P, Q)
    for g in range(1, 5):
        assert theory.expected_accepted_drafts(P, Q, g) == sum(a**k for k in range(1, g + 1))
    with pytest.raises(VerificationError):
        theory.expected_accepted_drafts(P, Q, 2, "blockwise")
    with pytest.raises(ValueError, match="depth"):
        theory.expected_accepted_drafts(P, Q, 0, "block")
    with pytest.raises(ValueError, match="share one vocabulary"):
        theory.expected_accepted_drafts(P, Categorical.dense([1, 1, 1]), 2)
    with pytest.raises(TypeError):
        theory.expected_accepted_drafts([1, 2], Q, 2)


def test_scenario_verification_field():
    block = EXAMPLE.with_changes(verification="block")
    assert type(block.verifier()).__name__ == "BlockVerifier" and type(EXAMPLE.verifier()).__name__ == "Verifier"
    assert scenario_from_dict(scenario_to_dict(block)) == block
    assert "verification" not in scenario_to_dict(EXAMPLE)  # absent means tokenwise
    assert scenario_from_dict(scenario_to_dict(EXAMPLE)) == EXAMPLE
    with pytest.raises(ScenarioError, match="verification"):  # the document's field is named
        scenario_from_dict({**scenario_to_dict(EXAMPLE), "verification": "joint"})
    # everything built on the scenario follows it
    assert theory.analyze_round(block).expected_accepted == F(11, 9)
    assert theory.round_expectation(block).accepted_drafts == F(11, 9)
    assert theory.analyze_round(block, verification="token").expected_accepted == F(10, 9)


# --- random small scenarios ------------------------------------------------------------------------

WEIGHTS = [0, 0, 1, 2, 3, 5, F(1, 3), F(5, 7)]
FLOAT_WEIGHTS = [0.0, 0.1, 0.25, 1.0, 3.0, 1e-30, 2.5e-40]  # FP32 scenarios: tiny and subnormal weights too


def random_scenario(rng: random.Random) -> Scenario:
    """A small scenario the core accepts: fixed or Markov, with masks, top-k drafts and stops at random."""
    while True:
        v = rng.randint(2, 4)
        fp32 = rng.random() < 0.25
        weights = FLOAT_WEIGHTS if fp32 else WEIGHTS

        def row(v: int = v, weights: list = weights) -> tuple:
            r = tuple(rng.choice(weights) for _ in range(v))
            return r if any(r) else row()

        markov = rng.random() < 0.5
        target = Table(row(), tuple(row() for _ in range(v)) if markov else None)
        draft = Table(row(), tuple(row() for _ in range(v)) if markov else None)
        mask = tuple(rng.random() < 0.75 for _ in range(v)) if rng.random() < 0.4 else None
        scenario = Scenario(
            vocab=tuple("abcd"[:v]), target=target, draft=draft, depth=rng.randint(1, 3), target_mask=mask,
            draft_topk=rng.randint(1, v) if rng.random() < 0.4 else None,
            target_top_k=rng.randint(1, v) if rng.random() < 0.2 else None, fp32=fp32,
            target_temperature=rng.choice([1.0, 1.0, 1.0, 0.5, 2.0]), target_top_p=rng.choice([None, None, 0.9]),
            stop_ids=frozenset(rng.sample(range(v), rng.randint(0, 2))) if rng.random() < 0.5 else frozenset(),
            verification="block",
        )
        try:
            theory.round_models(scenario)
            for prefix in [()] + [(x,) for x in range(v)]:
                scenario.processor()(prefix, scenario.target_model()(prefix))
                scenario.draft_model()(prefix)
        except SpecvizError:
            continue  # e.g. a mask that leaves a row without support: refused, draw another
        return scenario


SCENARIOS = [random_scenario(random.Random(seed)) for seed in range(60)]


def test_the_random_scenarios_cover_every_feature():
    assert sum(s.target.rows is not None for s in SCENARIOS) >= 15
    assert sum(s.target.rows is None for s in SCENARIOS) >= 15
    assert sum(s.target_mask is not None for s in SCENARIOS) >= 10
    assert sum(s.draft_topk is not None for s in SCENARIOS) >= 10
    assert sum(bool(s.stop_ids) for s in SCENARIOS) >= 15
    assert sum(s.fp32 for s in SCENARIOS) >= 8
    assert sum(s.target_temperature != 1 or s.target_top_p is not None for s in SCENARIOS) >= 10


@pytest.mark.parametrize("index", range(len(SCENARIOS)))
def test_block_verification_is_exact_on_random_scenarios(index):
    scenario = SCENARIOS[index]
    for prefix in [(), (0,)]:
        report = theory.exactness_report(scenario, prefix)
        assert sum(report.blocks.values()) == 1
        assert report.exact, [line for line in report.lines() if not line.endswith("difference 0")]
    block = theory.analyze_round(scenario)
    token = theory.analyze_round(scenario, verification="token")
    assert block.expected_accepted >= token.expected_accepted
    # the recursion without sequences agrees with the enumeration
    for verification, analysis in (("block", block), ("token", token)):
        expectation = theory.round_expectation(scenario, verification=verification)
        assert expectation.accepted_drafts == analysis.expected_accepted
        assert expectation.tokens == theory.mean_length(analysis.blocks)


@st.composite
def small_pairs(draw):
    v = draw(st.integers(2, 4))
    weights = st.lists(st.sampled_from(WEIGHTS), min_size=v, max_size=v).filter(any)
    p, q = draw(weights), draw(weights)
    markov = draw(st.booleans())
    rows_p = tuple(tuple(draw(weights)) for _ in range(v)) if markov else None
    rows_q = tuple(tuple(draw(weights)) for _ in range(v)) if markov else None
    return Scenario(vocab=tuple("abcd"[:v]), target=Table(tuple(p), rows_p), draft=Table(tuple(q), rows_q),
                    depth=draw(st.integers(1, 4)), draft_topk=draw(st.none() | st.integers(1, v)),
                    stop_ids=frozenset(draw(st.sets(st.integers(0, v - 1), max_size=1))))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(small_pairs())
def test_block_never_accepts_fewer_drafts_than_tokenwise(scenario):
    block = theory.round_expectation(scenario, verification="block").accepted_drafts
    token = theory.round_expectation(scenario, verification="token").accepted_drafts
    assert block >= token


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(WEIGHTS), min_size=3, max_size=3).filter(any),
       st.lists(st.sampled_from(WEIGHTS), min_size=3, max_size=3).filter(any), st.integers(1, 4))
def test_context_free_block_gain_lies_between_tokenwise_and_the_ideal(p, q, depth):
    p, q = Categorical.dense(p), Categorical.dense(q)
    token = theory.expected_accepted_drafts(p, q, depth, "token")
    block = theory.expected_accepted_drafts(p, q, depth, "block")
    assert token <= block <= theory.ideal_accepted_drafts(p, q, depth)
    if depth == 1:
        assert block == token  # one draft: block verification is tokenwise verification


def test_enumeration_matches_the_core_block_verifiers_draws():
    """play_round with the core's BlockVerifier: committed blocks within error bars of the exact law."""
    scenario = Scenario(vocab=("a", "b", "c"), target=Table((3, 1, 2), ((1, 1, 1), (4, 1, 1), (1, 0, 3))),
                        draft=Table((1, 2, 1), ((2, 1, 1), (1, 3, 1), (1, 1, 1))), depth=2,
                        stop_ids=frozenset({2}), verification="block")
    law = theory.block_distribution(scenario)
    n = 3000
    counts: dict[tuple[int, ...], int] = {}
    accepted = []
    for round_id in range(n):  # a fresh session per round, each round with its own streams
        played = play_round(scenario, scenario.verifier(), round_id)
        counts[played.result.tokens] = counts.get(played.result.tokens, 0) + 1
        accepted.append(played.result.accepted_drafts)
    assert set(counts) <= set(law)  # nothing the enumeration calls impossible
    for block, prob in law.items():
        sd = (float(prob) * (1 - float(prob)) / n) ** 0.5
        assert abs(counts.get(block, 0) / n - float(prob)) < 4.5 * sd + 1e-9, block
    exact = float(theory.analyze_round(scenario).expected_accepted)
    mean = sum(accepted) / n
    sd = (sum((a - mean) ** 2 for a in accepted) / (n - 1)) ** 0.5
    assert abs(mean - exact) < 4 * sd / n**0.5
