"""Exact theory of the verification rules beyond a chain: trees of drafts (i.i.d. and distinct), exact match,
greedy drafts, typical acceptance, and the K-draft optimum; checked against enumerations written here."""

from __future__ import annotations

import itertools
import time
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specviz import theory
from specviz.core import Categorical, SpecvizError, VerificationError, ensemble, medusa, rule, threshold
from specviz.scenario import Scenario, Table

P = Categorical.dense([1, 2])
Q = Categorical.dense([2, 1])
EXACT_RULES = ("token", "block", "multi:1", "multi:2", "multi:3", "multi-distinct:2", "multi-distinct:3",
               "exact-match", "greedy-draft")


# ----------------------------------------------------------------------------------------------
# the issue's values on p = (1/3, 2/3), q = (2/3, 1/3)
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("verification", "expected"), [
    ("token", F(2, 3)), ("multi:2", F(7, 9)), ("multi:3", F(23, 27)), ("multi-distinct:2", F(1)),
    ("exact-match", F(4, 9)), ("greedy-draft", F(1, 3)), ("block", F(2, 3)), ("multi:1", F(2, 3)),
])
def test_one_draft_position_on_the_paper_example(verification, expected):
    assert theory.expected_accepted_drafts(P, Q, 1, verification) == expected


def test_the_optimum_for_two_drafts_and_a_depth_two_tree():
    assert theory.optimal_multi_draft_acceptance(P, Q, 2) == F(8, 9)
    assert theory.optimal_multi_draft(P, Q, 2) == (F(8, 9), frozenset({0}))
    assert theory.expected_accepted_drafts(P, Q, 2, "multi:2") == F(112, 81)
    assert theory.expected_accepted_drafts(P, Q, 2, "token") == F(10, 9)  # unchanged
    assert theory.expected_accepted_drafts(P, Q, 2, "block") == F(11, 9)  # unchanged


def test_typical_with_a_small_eps_keeps_every_draft_and_commits_q():
    law = theory.first_token_law(P, Q, "typical:0.09")
    assert law == (F(2, 3), F(1, 3))
    assert theory.law_distance(law, P) == F(1, 3)
    assert theory.expected_accepted_drafts(P, Q, 1, "typical:0.09") == 1


def test_exact_rules_commit_p_on_the_example():
    for verification in EXACT_RULES:
        assert theory.first_token_law(P, Q, verification) == (F(1, 3), F(2, 3)), verification
    assert theory.first_token_law(P, Q, "block", depth=3) == (F(1, 3), F(2, 3))


@pytest.mark.parametrize("name, module", [("ensemble:0.5", ensemble), ("ensemble:1/3", ensemble),
                                          ("threshold:0.5,0.8", threshold), ("threshold:1,1,2", threshold),
                                          ("typical:0.09", medusa), ("typical-sample:0.3,0.5", medusa)])
def test_theory_reads_each_engine_rules_law_from_its_core_module(name, module):
    p, q = Categorical.dense([3, 1, 2, 2]), Categorical.dense([1, 4, 1, 2])
    found = rule(name)
    own = module.law(theory.law_of(p), theory.law_of(q), found.settings)
    assert theory.node_law(name, p, q) == own and isinstance(own, theory.NodeLaw)
    assert theory.first_token_law(p, q, name) == own.committed(4)
    assert theory.expected_accepted_drafts(p, q, 3, name) == module.expected_accepted_drafts(p, q, 3, found.settings)


def test_medusas_rule_on_the_issues_example():
    """p = (.90, .04, .03, .02, .01), q uniform, ε = 0.09: Medusa's rule commits token 0 always, TV 1/10 (the
    project's earlier typical:0.09 gave 1/50)."""
    p, q = Categorical.dense([90, 4, 3, 2, 1]), Categorical.dense([1] * 5)
    for name in ("typical:0.09", "typical:0.09,0.3", "typical-sample:0.09"):
        assert theory.first_token_law(p, q, name) == (1, 0, 0, 0, 0)
        assert theory.law_distance(theory.first_token_law(p, q, name), p) == F(1, 10)


def test_greedy_ties_go_to_the_lowest_token():
    law = theory.node_law("greedy-draft", Categorical.dense([1, 1, 2]), Categorical.dense([1, 2, 2]))
    assert law.kept == {1: F(1, 4)}


def test_rules_that_theory_cannot_enumerate_are_refused_in_words():
    with pytest.raises(VerificationError, match="round_expectation"):
        theory.analyze_round(Scenario(vocab=("a", "b"), target=Table((1, 2)), draft=Table((2, 1)), depth=1),
                             verification="multi:2")
    with pytest.raises(VerificationError, match="multi:9"):
        theory.expected_accepted_drafts(P, Q, 1, "multi:9")
    with pytest.raises(ValueError, match=r"drafts \(K\)"):
        theory.optimal_multi_draft(P, Q, 0)


# ----------------------------------------------------------------------------------------------
# enumerations of our own: every draw of a node, walked through recursive rejection sampling
# ----------------------------------------------------------------------------------------------


def _probs(c: Categorical) -> list[F]:
    return [c.prob(x) for x in range(c.vocab_size)]


def _normalized_positive(values: list[F]) -> tuple[list[F], F]:
    rest = [max(v, F(0)) for v in values]
    mass = sum(rest, F(0))
    return ([v / mass for v in rest] if mass else rest), mass


def _walk(p: list[F], drafts: list[tuple[int, list[F]]]) -> list[F]:
    """P(committed = y) given drafts (token, the distribution it was drawn from), by recursive rejection."""
    out, r, alive = [F(0)] * len(p), list(p), F(1)
    for x, proposal in drafts:
        keep = min(F(1), r[x] / proposal[x])
        out[x] += alive * keep
        alive *= 1 - keep
        if not alive:
            return out
        r, _ = _normalized_positive([a - b for a, b in zip(r, proposal, strict=True)])
    return [o + alive * ry for o, ry in zip(out, r, strict=True)]


def enumerated_node(p: Categorical, q: Categorical, width: int) -> list[F]:
    """The committed token's law over i.i.d. children, summed over every tuple of drawn children."""
    pp, qq = _probs(p), _probs(q)
    total = [F(0)] * len(pp)
    for children in itertools.product(range(len(qq)), repeat=width):
        prob = F(1)
        for x in children:
            prob *= qq[x]
        if prob:
            for y, py in enumerate(_walk(pp, [(x, qq) for x in children])):
                total[y] += prob * py
    return total


def enumerated_kept(p: Categorical, q: Categorical, width: int, distinct: bool) -> F:
    """P(some child is kept), from the same enumeration (the committed law minus the correction part)."""
    pp, qq = _probs(p), _probs(q)
    total = F(0)
    seen: set[tuple[int, ...]] = set()
    for children in itertools.product(range(len(qq)), repeat=width):
        prob, r, alive, used = F(1), list(pp), F(1), set()
        kept = F(0)
        path = []
        for x in children:
            left = sum((qq[y] for y in range(len(qq)) if y not in used), F(0)) if distinct else F(1)
            if not left:
                break
            proposal = [F(0) if (distinct and y in used) else qq[y] / left for y in range(len(qq))]
            prob *= proposal[x]
            path.append(x)
            if not prob:
                break
            keep = min(F(1), r[x] / proposal[x])
            kept += alive * keep
            alive *= 1 - keep
            r, _ = _normalized_positive([a - b for a, b in zip(r, proposal, strict=True)])
            used.add(x)
        if not prob or tuple(path) in seen:
            continue
        seen.add(tuple(path))
        total += prob * kept
    return total


weights = st.lists(st.integers(0, 6), min_size=2, max_size=4).filter(lambda w: sum(w) > 0)


@st.composite
def pairs(draw: st.DrawFn) -> tuple[Categorical, Categorical]:
    w = draw(weights)
    v = draw(st.lists(st.integers(0, 6), min_size=len(w), max_size=len(w)).filter(lambda u: sum(u) > 0))
    return Categorical.dense(w), Categorical.dense(v)


@settings(max_examples=60, deadline=None)
@given(pairs(), st.integers(1, 3), st.booleans())
def test_node_acceptance_matches_an_enumeration_of_every_draw(pair, width, distinct):
    p, q = pair
    name = f"multi-distinct:{width}" if distinct else f"multi:{width}"
    law = theory.node_law(name, p, q)
    assert law.acceptance == enumerated_kept(p, q, width, distinct)
    if not distinct:
        assert law.committed(p.vocab_size) == tuple(enumerated_node(p, q, width))


@settings(max_examples=80, deadline=None)
@given(pairs())
def test_exact_rules_commit_exactly_p(pair):
    p, q = pair
    for verification in EXACT_RULES:
        assert theory.first_token_law(p, q, verification) == tuple(_probs(p)), verification
        assert theory.law_distance(theory.first_token_law(p, q, verification), p) == 0


@settings(max_examples=80, deadline=None)
@given(pairs(), st.integers(1, 4))
def test_acceptance_orders_and_the_optimum_bounds_every_iid_rule(pair, width):
    p, q = pair
    token = theory.alpha(p, q)
    multi = theory.node_law(f"multi:{width}", p, q).acceptance
    distinct = theory.node_law(f"multi-distinct:{width}", p, q).acceptance
    optimum = theory.optimal_multi_draft_acceptance(p, q, width)
    assert distinct >= multi >= token >= theory.node_law("exact-match", p, q).acceptance
    assert optimum >= multi
    assert theory.optimal_multi_draft_acceptance(p, q, 1) == token
    if width > 1:
        assert optimum >= theory.optimal_multi_draft_acceptance(p, q, width - 1)


@settings(max_examples=80, deadline=None)
@given(pairs(), st.integers(1, 4))
def test_the_optimum_equals_the_minimum_over_every_token_set(pair, width):
    p, q = pair
    v = p.vocab_size
    brute = min(sum((p.prob(x) for x in s), F(0)) + 1 - sum((q.prob(x) for x in s), F(0)) ** width
                for n in range(v + 1) for s in itertools.combinations(range(v), n))
    value, chosen = theory.optimal_multi_draft(p, q, width)
    assert value == brute
    assert sum((p.prob(x) for x in chosen), F(0)) + 1 - sum((q.prob(x) for x in chosen), F(0)) ** width == value


@settings(max_examples=40, deadline=None)
@given(pairs(), st.sampled_from(["token", "multi:2", "multi-distinct:2", "exact-match", "greedy-draft",
                                 "typical:0.3", "block"]), st.integers(1, 3))
def test_constant_models_give_the_geometric_sum_and_agree_with_the_scenario_pass(pair, verification, depth):
    p, q = pair
    a = theory.node_law(verification, p, q).acceptance
    got = theory.expected_accepted_drafts(p, q, depth, verification)
    if verification != "block":
        assert got == sum((a**i for i in range(1, depth + 1)), F(0))
    vocab = tuple("abcd"[: p.vocab_size])
    scenario = Scenario(vocab=vocab, target=Table(tuple(p.ticket_ints())), draft=Table(tuple(q.ticket_ints())),
                        depth=depth)
    expectation = theory.round_expectation(scenario, verification=verification)
    assert expectation.accepted_drafts == got
    assert sum(expectation.kept_by_position, F(0)) == got
    assert expectation.tokens == got + 1


def _markov() -> Scenario:
    rows = ((1, 2, 1), (3, 1, 1), (1, 1, 4), (2, 2, 1))  # one row per previous token, the last for the start
    draft = ((2, 1, 1), (1, 1, 3), (1, 3, 1), (1, 1, 1))
    return Scenario(vocab=("a", "b", "c"), target=Table(rows[3], rows[:3]), draft=Table(draft[3], draft[:3]),
                    depth=3, stop_ids=frozenset({2}))


def _enumerated_chain(scenario: Scenario, verification: str) -> F:
    """E[kept drafts] by a plain recursion over contexts, from the node laws (no memo, no levels)."""
    target, draft, process = scenario.target_model(), scenario.draft_model(), scenario.processor()

    def future(context: tuple[int, ...], k: int) -> F:
        law = theory.node_law(verification, process(context, target(context)), draft(context))
        total = F(0)
        for x, w in law.kept.items():
            total += w
            if x not in scenario.stop_ids and k + 1 < scenario.depth:
                total += w * future(context + (x,), k + 1)
        return total

    return future((), 0)


@pytest.mark.parametrize("verification", ["token", "multi:2", "multi-distinct:3", "exact-match", "greedy-draft",
                                          "typical:0.2"])
def test_prefix_dependent_scenarios_with_stops(verification):
    scenario = _markov()
    expectation = theory.round_expectation(scenario, verification=verification)
    assert expectation.accepted_drafts == _enumerated_chain(scenario, verification)
    assert expectation.verification == verification


def test_block_kept_by_position_matches_the_enumeration():
    scenario = _markov()
    expectation = theory.round_expectation(scenario, verification="block")
    analysis = theory.analyze_round(scenario, verification="block")
    assert list(expectation.kept_by_position) == analysis.accepted
    assert expectation.accepted_drafts == analysis.expected_accepted


# ----------------------------------------------------------------------------------------------
# issue 19: deep or enormous requests are answered or refused fast, never a RecursionError
# ----------------------------------------------------------------------------------------------


def _fast(call) -> object:
    began = time.perf_counter()
    try:
        return call()
    finally:
        assert time.perf_counter() - began < 30  # a generous guard, not a timing assertion of speed


def test_deep_rounds_have_no_recursion():
    assert theory.expected_accepted_drafts(P, Q, 5_000, "token") == F(2) * (1 - F(2, 3) ** 5_000)
    assert theory.expected_accepted_drafts(P, Q, 5_000, "multi:2") > 3
    models = theory.RoundModels(lambda prefix: P, lambda prefix: Q, 3_000, state=lambda prefix: None)
    assert theory.round_expectation(models).accepted_drafts == F(2) * (1 - F(2, 3) ** 3_000)
    assert theory.round_expectation(models, verification="block", depth=40).accepted_drafts == \
        theory.expected_accepted_drafts(P, Q, 40, "block")


@pytest.mark.parametrize(("call", "words"), [
    (lambda: theory.expected_accepted_drafts(P, Q, 100_000, "token"), "limit of 10,000"),
    (lambda: theory.expected_accepted_drafts(P, Q, 101, "block"), "at most 100"),
    (lambda: theory.expected_tokens(F(1, 2), 10**9), "limit of 10,000"),
    (lambda: theory.optimal_depth(0.5, 0.1, max_depth=10**9), "limit of 1,000"),
    (lambda: theory.analyze_round(lambda prefix: P, draft=lambda prefix: Q, depth=500), "at most 64"),
    (lambda: theory.analyze_round(lambda prefix: Categorical.dense([1] * 8), draft=lambda prefix: Q8, depth=8),
     "at most 1,000,000"),
    (lambda: theory.ideal_accepted_drafts(Q8, Q8, 40), "limited to 200,000"),
    (lambda: theory.node_law("multi-distinct:8", Categorical.dense([1] * 9), Categorical.dense([1] * 9)),
     "rejection paths"),
    # issue 25 item 4: a vocabulary limit, and a depth x vocabulary work limit, checked before the slow work
    (lambda: theory.node_law("multi:8", BIG, BIG), "vocabulary size 131,073 is beyond theory's exact limit of 131,072"),
    (lambda: theory.optimal_multi_draft_acceptance(BIG, BIG, 3), "limit of 131,072 tokens"),
    (lambda: theory.first_token_law(BIG, BIG, "typical:0.09"), "limit of 131,072 tokens"),
    (lambda: theory.expected_accepted_drafts(P4, Q4, 40, "block"), "limit of depth x vocabulary work"),
    (lambda: theory.expected_accepted_drafts(Q8, P8, 100, "block"), "limit of depth x vocabulary work"),
    (lambda: theory.expected_accepted_drafts(P, Q, 100, "block"), r"more than 1,000,000 steps"),
    (lambda: theory.round_expectation(theory.RoundModels(lambda prefix: Q8, lambda prefix: P8, 12),
                                      verification="block"), "limit of depth x vocabulary work"),
    (lambda: theory.round_expectation(theory.RoundModels(lambda prefix: WIDE_P, lambda prefix: WIDE_Q, 3)),
     "limited to 2,000,000 contexts x vocabulary"),
    (lambda: theory.round_expectation(theory.RoundModels(lambda prefix: U9, lambda prefix: U9, 3,
                                                         verification="multi-distinct:8")), "rejection paths"),
])
def test_enormous_requests_are_refused_in_words(call, words):
    with pytest.raises(theory.TheoryLimitError, match=words) as info:
        _fast(call)
    assert isinstance(info.value, SpecvizError) and isinstance(info.value, ValueError)


Q8 = Categorical.dense([1, 2, 3, 4, 5, 6, 7, 8])
P8 = Categorical.dense([8, 3, 5, 1, 7, 2, 6, 4])
P4, Q4 = Categorical.dense([7, 1, 3, 9]), Categorical.dense([2, 8, 5, 4])
BIG = Categorical.dense([1] * (theory.MAX_VOCABULARY + 1))
U9 = Categorical.dense([1] * 9)
WIDE_P, WIDE_Q = Categorical.dense(list(range(1, 1501))), Categorical.dense([1] * 1500)


def test_work_within_the_limits_is_answered():
    """Just inside the limits the exact passes run (and agree with the enumeration where both apply)."""
    block = theory.expected_accepted_drafts(P4, Q4, 6, "block")
    assert block == theory.analyze_round(theory.RoundModels(lambda prefix: P4, lambda prefix: Q4, 6,
                                                            state=lambda prefix: None),
                                         verification="block").expected_accepted
    assert theory.expected_accepted_drafts(P, Q, 40, "block") > theory.expected_accepted_drafts(P, Q, 40, "token")
    edge = Categorical.dense([1] * (theory.MAX_VOCABULARY - 1) + [theory.MAX_VOCABULARY])
    assert theory.optimal_multi_draft_acceptance(edge, Categorical.dense([1] * theory.MAX_VOCABULARY), 2) < 1


def test_a_float_alpha_has_no_depth_limit():
    assert theory.expected_tokens(0.5, 10**9) == pytest.approx(2.0)


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.integers(-3, 12), st.integers(9_990, 10_010), st.integers(10**6, 10**12), st.just(2.5),
                 st.just(True), st.just("3")),
       st.sampled_from(["token", "multi:2", "multi-distinct:3", "exact-match", "greedy-draft", "typical:0.2",
                        "multi:0", "typical:2", "Block", "tree", None]))
def test_any_depth_and_rule_is_answered_or_refused_in_words(depth, verification):
    try:
        value = theory.expected_accepted_drafts(P, Q, depth, verification)
    except SpecvizError as error:
        assert isinstance(error, (ValueError, TypeError)) and str(error)
    else:
        assert isinstance(value, F) and 0 <= value <= depth
