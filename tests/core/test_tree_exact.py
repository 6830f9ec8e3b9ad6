"""Tree verification commits exactly p: by enumeration (the rule and the real code), hypothesis, and Monte Carlo.

The enumerations live in tree_law.py and use nothing from specviz.theory.
"""

from collections import Counter
from fractions import Fraction as F
from math import sqrt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chi2
from tree_law import (
    autoregressive_law,
    expected_accepted,
    extend,
    first_accepted,
    fixed,
    given_tree_law,
    markov,
    played_law,
    played_tree_law,
    probs,
    rrs_law,
)

from specviz.core import Categorical, Owner, RandomStreams, TreeVerifier, draft_round, propose_tree, rule

OWNER = Owner("exact", 0)
P = Categorical.dense([1, 2])  # p = (1/3, 2/3), q = (2/3, 1/3)
Q = Categorical.dense([2, 1])


MODELS = {
    "paper": (fixed(P), fixed(Q)),
    "fixed-3": (fixed(Categorical.dense([1, 2, 3])), fixed(Categorical.dense([3, 1, 1]))),
    "markov-3": (markov([[1, 2, 3], [4, 1, 0], [1, 1, 1]]), markov([[3, 1, 1], [1, 1, 4], [2, 0, 1]])),
}


def is_exact(law, p_model, prefix, depth, stop_ids=frozenset()):
    return extend(law, p_model, prefix, depth + 1, stop_ids) == autoregressive_law(p_model, prefix, depth + 1,
                                                                                   stop_ids)


# --- the rule, enumerated: the committed tokens follow p --------------------------------------------------


@pytest.mark.parametrize("models", MODELS)
@pytest.mark.parametrize("depth", [1, 2])
@pytest.mark.parametrize("width", [1, 2, 3])
@pytest.mark.parametrize("distinct", [False, True])
@pytest.mark.parametrize("stop_ids", [frozenset(), frozenset({1})])
def test_the_rule_commits_exactly_p(models, depth, width, distinct, stop_ids):
    p_model, q_model = MODELS[models]
    law = rrs_law(p_model, q_model, (), depth, width, distinct, stop_ids)
    assert sum(law.values()) == 1
    assert is_exact(law, p_model, (), depth, stop_ids)


@pytest.mark.parametrize("models, depth, width, distinct, stop_ids", [
    ("paper", 2, 2, False, ()),
    ("paper", 2, 3, True, ()),
    ("paper", 1, 3, False, ()),
    ("fixed-3", 1, 3, False, ()),
    ("markov-3", 1, 3, True, ()),
    ("markov-3", 2, 2, True, ()),
    ("markov-3", 2, 2, True, (2,)),
    ("markov-3", 2, 1, False, (1,)),
])
def test_the_real_code_on_every_draw_has_the_rules_law(models, depth, width, distinct, stop_ids):
    p_model, q_model = MODELS[models]
    played = played_law(p_model, q_model, (), depth, width, distinct, frozenset(stop_ids))
    assert played == rrs_law(p_model, q_model, (), depth, width, distinct, frozenset(stop_ids))
    assert is_exact(played, p_model, (), depth, frozenset(stop_ids))


# --- the published numbers, exactly ---------------------------------------------------------------------------


@pytest.mark.parametrize("name, first", [("token", F(2, 3)), ("multi:1", F(2, 3)), ("multi:2", F(7, 9)),
                                         ("multi:3", F(23, 27)), ("multi-distinct:2", F(1))])
def test_first_position_acceptance_on_the_paper_example(name, first):
    width, distinct = rule(name).width, rule(name).distinct
    law = rrs_law(fixed(P), fixed(Q), (), 1, width, distinct)
    assert first_accepted(law) == first
    assert first_accepted(played_law(fixed(P), fixed(Q), (), 1, width, distinct)) == first


def test_a_depth_two_width_two_tree_accepts_112_81_drafts_per_round():
    assert expected_accepted(rrs_law(fixed(P), fixed(Q), (), 2, 2)) == F(112, 81)
    assert expected_accepted(played_law(fixed(P), fixed(Q), (), 2, 2)) == F(112, 81)
    assert expected_accepted(rrs_law(fixed(P), fixed(Q), (), 2, 1)) == F(10, 9)  # tokenwise, as the README says


# --- hypothesis: random models, random trees -----------------------------------------------------------------

rows = st.lists(st.integers(0, 5), min_size=3, max_size=3).filter(any)
tables = st.lists(rows, min_size=3, max_size=3)


@settings(max_examples=40, deadline=None)
@given(p_rows=tables, q_rows=tables, depth=st.integers(1, 2), width=st.integers(1, 3), distinct=st.booleans(),
       stop=st.booleans())
def test_the_rule_is_exact_for_random_prefix_dependent_models(p_rows, q_rows, depth, width, distinct, stop):
    p_model, q_model = markov(p_rows), markov(q_rows)
    stop_ids = frozenset({2}) if stop else frozenset()
    law = rrs_law(p_model, q_model, (), depth, width, distinct, stop_ids)
    assert is_exact(law, p_model, (), depth, stop_ids)


@settings(max_examples=40, deadline=None)
@given(p_rows=tables, q_rows=tables, depth=st.integers(1, 3), width=st.integers(1, 3), distinct=st.booleans(),
       seed=st.integers(0, 10**9))
def test_the_real_verifier_on_a_drafted_tree_has_the_rules_law(p_rows, q_rows, depth, width, distinct, seed):
    p_model, q_model = markov(p_rows), markov(q_rows)
    tree = propose_tree(q_model, (), RandomStreams(seed, OWNER, 0), depth=depth, width=width, context_id="x",
                        distinct=distinct)
    assert played_tree_law(tree, p_model) == given_tree_law(tree, p_model)


# --- Monte Carlo: the real code reaches the exact values ------------------------------------------------------


def play(name, p_model, q_model, depth, rounds, seed=0):
    """rounds of the real drafting and verification: (committed tokens, accepted drafts) per round."""
    out = []
    for round_id in range(rounds):
        streams = RandomStreams(seed, OWNER, round_id)
        drafted = draft_round(name, q_model, (), streams, depth=depth, context_id="mc")
        result = TreeVerifier(OWNER, (), "mc", p_model).verify(drafted, streams)
        out.append((result.tokens, result.accepted_drafts))
    return out


def within_error_bars(samples, mean, variance, sigmas=4.5):
    return abs(sum(samples) / len(samples) - mean) <= sigmas * sqrt(variance / len(samples))


def chi_square_p_value(counts: Counter, law: dict) -> float:
    n = sum(counts.values())
    assert set(counts) <= set(law)  # nothing outside the exact support
    statistic = sum((counts.get(k, 0) - n * float(w)) ** 2 / (n * float(w)) for k, w in law.items())
    return float(chi2.sf(statistic, len(law) - 1))


@pytest.mark.parametrize("name, first", [("multi:2", F(7, 9)), ("multi:3", F(23, 27))])
def test_monte_carlo_first_position_acceptance(name, first):
    runs = play(name, fixed(P), fixed(Q), 1, 3000, seed=11)
    hits = [kept >= 1 for _, kept in runs]
    assert within_error_bars(hits, float(first), float(first * (1 - first)))


def test_monte_carlo_distinct_drafts_always_accept_the_first_position():
    assert all(kept >= 1 for _, kept in play("multi-distinct:2", fixed(P), fixed(Q), 1, 500, seed=3))


def test_monte_carlo_depth_two_width_two_mean_and_law():
    law = rrs_law(fixed(P), fixed(Q), (), 2, 2)
    mean = expected_accepted(law)
    variance = sum((w * kept * kept for (_, kept), w in law.items()), F(0)) - mean * mean
    runs = play("multi:2", fixed(P), fixed(Q), 2, 4000, seed=5)
    assert within_error_bars([kept for _, kept in runs], float(mean), float(variance))
    assert chi_square_p_value(Counter(runs), law) > 1e-4
    first = Counter(tokens[0] for tokens, _ in runs)
    assert chi_square_p_value(first, dict(enumerate(probs(P)))) > 1e-4


@pytest.mark.parametrize("name", ["multi:3", "multi-distinct:2"])
def test_monte_carlo_prefix_dependent_models_commit_p(name):
    p_model, q_model = MODELS["markov-3"]
    runs = play(name, p_model, q_model, 2, 3000, seed=9)
    law = rrs_law(p_model, q_model, (), 2, rule(name).width, rule(name).distinct)
    assert chi_square_p_value(Counter(runs), law) > 1e-4
    two = Counter(tokens[:2] for tokens, _ in runs if len(tokens) >= 2)
    exact_two = {}
    for (tokens, _), w in law.items():
        if len(tokens) >= 2:
            exact_two[tokens[:2]] = exact_two.get(tokens[:2], F(0)) + w
    total = sum(exact_two.values())
    assert chi_square_p_value(two, {k: w / total for k, w in exact_two.items()}) > 1e-4
    first = Counter(tokens[0] for tokens, _ in runs)
    assert chi_square_p_value(first, {x: w for x, w in enumerate(probs(p_model(()))) if w}) > 1e-4
