"""Traversal verification (Weng et al. 2025) commits exactly p, and the paper's claims checked here.

* the committed law is p's, exactly: the rule written afresh (traversal_law.py) enumerated over every drafted tree
  and every draw, at V = 2 and 3, depth up to 3, width up to 3, i.i.d. and distinct children, stop tokens; the
  real ``propose_tree`` + ``TraversalVerifier`` on every draw at the smaller sizes; a Monte Carlo of the real code
  with stated power beyond (depth 5, width 3);
* the two public-code variants of the parent's update are lossy (subspec's weight rule; the paper's draft update on
  i.i.d. children), by exact enumeration;
* expected kept drafts ≥ recursive rejection sampling's, in expectation over the drafted tree, for every p, q,
  width and depth tried (hypothesis); on one fixed tree traversal can keep fewer;
* width 1: block verification's law and expected kept drafts, drawn differently.
"""

from collections import Counter
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chi2, ncx2
from traversal_law import given_tree_law, played_law, played_tree_law, traversal_law
from tree_law import autoregressive_law, expected_accepted, extend, fixed, markov
from tree_law import given_tree_law as rrs_tree_law

from specviz import theory
from specviz.core import Categorical, Owner, RandomStreams, Trace, draft_round, propose, propose_tree, rule
from specviz.core.block_verifier import BlockVerifier
from specviz.core.traversal import TraversalSettings, TraversalVerifier, first_token_law

OWNER = Owner("traversal", 0)
P = Categorical.dense([1, 2])  # Sun et al.'s example: p = (1/3, 2/3), q = (2/3, 1/3)
Q = Categorical.dense([2, 1])


MODELS = {
    "paper": (fixed(P), fixed(Q)),
    "fixed-3": (fixed(Categorical.dense([1, 2, 3])), fixed(Categorical.dense([3, 1, 1]))),
    "markov-3": (markov([[1, 2, 3], [4, 1, 0], [1, 1, 1]]), markov([[3, 1, 1], [1, 1, 4], [2, 0, 1]])),
}


def committed(law, p_model, prefix, depth, stop_ids=frozenset()):
    return extend(law, p_model, prefix, depth + 1, stop_ids)


def is_exact(law, p_model, prefix, depth, stop_ids=frozenset()):
    return committed(law, p_model, prefix, depth, stop_ids) == autoregressive_law(p_model, prefix, depth + 1, stop_ids)


def distance(law, p_model, depth, stop_ids=frozenset()):
    """TV between the committed tokens (continued by p) and p's own law of depth + 1 tokens."""
    a, b = committed(law, p_model, (), depth, stop_ids), autoregressive_law(p_model, (), depth + 1, stop_ids)
    return sum((abs(a.get(k, F(0)) - b.get(k, F(0))) for k in set(a) | set(b)), F(0)) / 2


# --- exactness, enumerated --------------------------------------------------------------------------------------


@pytest.mark.parametrize("models", MODELS)
@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("width", [1, 2, 3])
@pytest.mark.parametrize("distinct", [False, True])
def test_the_rule_commits_exactly_p(models, depth, width, distinct):
    p_model, q_model = MODELS[models]
    assert is_exact(traversal_law(p_model, q_model, (), depth, width, distinct), p_model, (), depth)


@pytest.mark.parametrize("distinct", [False, True])
@pytest.mark.parametrize("width", [1, 2, 3])
def test_the_rule_commits_exactly_p_with_a_stop_token(width, distinct):
    p_model, q_model = MODELS["markov-3"]
    law = traversal_law(p_model, q_model, (), 3, width, distinct, stop_ids={1})
    assert is_exact(law, p_model, (), 3, {1})
    assert any(tokens[-1] == 1 and kept == len(tokens) for tokens, kept in law)  # a kept stop ends the round


@pytest.mark.parametrize("models, depth, width", [
    ("paper", 2, 2), ("paper", 3, 1), ("paper", 1, 3), ("markov-3", 2, 2), ("markov-3", 3, 1), ("markov-3", 1, 3)])
@pytest.mark.parametrize("distinct", [False, True])
def test_the_real_code_on_every_draw_has_the_rules_law(models, depth, width, distinct):
    p_model, q_model = MODELS[models]
    assert played_law(p_model, q_model, (), depth, width, distinct) == traversal_law(p_model, q_model, (), depth,
                                                                                     width, distinct)


def test_the_real_code_on_every_draw_with_a_stop_token():
    p_model, q_model = MODELS["markov-3"]
    assert played_law(p_model, q_model, (), 2, 2, stop_ids={2}) == traversal_law(p_model, q_model, (), 2, 2,
                                                                                 stop_ids={2})


tables = st.lists(st.lists(st.integers(0, 4), min_size=3, max_size=3).filter(any), min_size=3, max_size=3)


@settings(max_examples=40, deadline=None)
@given(p_rows=tables, q_rows=tables, depth=st.integers(1, 3), width=st.integers(1, 3), distinct=st.booleans(),
       seed=st.integers(0, 10**9))
def test_the_real_verifier_on_a_drafted_tree_has_the_rules_law(p_rows, q_rows, depth, width, distinct, seed):
    p_model, q_model = markov(p_rows), markov(q_rows)
    tree = propose_tree(q_model, (), RandomStreams(seed, OWNER, 0), depth=depth, width=width, context_id="x",
                        distinct=distinct)
    assert played_tree_law(tree, p_model) == given_tree_law(tree, p_model)


@settings(max_examples=30, deadline=None)
@given(p_rows=tables, q_rows=tables, depth=st.integers(1, 3), width=st.integers(1, 3), distinct=st.booleans())
def test_the_rule_is_exact_for_random_prefix_dependent_models(p_rows, q_rows, depth, width, distinct):
    p_model, q_model = markov(p_rows), markov(q_rows)
    assert is_exact(traversal_law(p_model, q_model, (), depth, width, distinct), p_model, (), depth)


# --- the public variants of the parent's update lose exactness ----------------------------------------------------


@pytest.mark.parametrize("distinct", [False, True])
def test_subspec_weight_rule_is_lossy(distinct):
    """brian030128/subspec_v2, traversal_verification.py at ce2c3ab (update_residuals_on_rejection): after a rejected
    child the parent's weight becomes min(1, Σ(w·p − q)+ / the draft's mass left), not Eq. (3)'s ρ/(ρ + 1 − w)."""
    p_model, q_model = MODELS["markov-3"]
    law = traversal_law(p_model, q_model, (), 2, 2, distinct, update="subspec")
    assert distance(law, p_model, 2) == (F(1523147, 12285000) if distinct else F(1897, 1687500))
    assert distance(traversal_law(p_model, q_model, (), 2, 2, distinct), p_model, 2) == 0


def test_removing_a_rejected_token_from_q_is_lossy_on_iid_children():
    """The paper's draft update (the rejected token leaves q, renormalized) is right for distinct children only:
    i.i.d. siblings are drawn from q itself, and judging them against q without the token leaves p."""
    p_model, q_model = MODELS["paper"]
    lossy = traversal_law(p_model, q_model, (), 1, 2, distinct=False, update="remove")
    assert distance(lossy, p_model, 1) == F(2, 27)
    assert distance(traversal_law(p_model, q_model, (), 1, 2, distinct=True, update="remove"), p_model, 1) == 0


# --- theory's pass against the afresh law ---------------------------------------------------------------------------


def _first_tokens(law):
    out: dict[int, F] = {}
    for (tokens, _), w in law.items():
        out[tokens[0]] = out.get(tokens[0], F(0)) + w
    return out


@pytest.mark.parametrize("models", MODELS)
@pytest.mark.parametrize("depth, width", [(1, 3), (2, 2), (3, 3)])
@pytest.mark.parametrize("distinct", [False, True])
def test_theory_pass_matches_the_enumeration(models, depth, width, distinct):
    p_model, q_model = MODELS[models]
    name = f"traversal{'-distinct' if distinct else ''}:{width}"
    law = traversal_law(p_model, q_model, (), depth, width, distinct)
    expectation = theory.round_expectation(p_model, draft=q_model, depth=depth, verification=name)
    assert expectation.accepted_drafts == expected_accepted(law)
    assert expectation.kept_by_position == tuple(
        sum((w for (_, kept), w in law.items() if kept > k), F(0)) for k in range(depth))
    if models != "markov-3":
        p, q = p_model(()), q_model(())
        assert theory.first_token_law(p, q, name, depth) == tuple(_first_tokens(law).get(x, F(0))
                                                                   for x in range(p.vocab_size))


def test_theory_counts_a_kept_stop_token():
    p_model, q_model = MODELS["markov-3"]
    law = traversal_law(p_model, q_model, (), 3, 2, stop_ids={1})
    expectation = theory.round_expectation(p_model, draft=q_model, depth=3, verification="traversal:2", stop_ids={1})
    assert expectation.accepted_drafts == expected_accepted(law)
    assert expectation.stop_end == sum((w for (tokens, kept), w in law.items() if kept == len(tokens)), F(0))


def test_first_token_law_is_p_at_depth_five():
    """Beyond enumeration: the exact pass at depth 5 (it computes what the walk does, not the claim)."""
    p, q = Categorical.dense([1, 2, 3, 0]), Categorical.dense([3, 1, 1, 2])
    for settings_ in (TraversalSettings(3), TraversalSettings(3, True), TraversalSettings(2)):
        assert first_token_law(p, q, settings_, 5) == tuple(p.prob(x) for x in range(4))


# --- the paper's claim: never fewer kept drafts than token-level RRS, in expectation ------------------------------


weights = st.lists(st.integers(0, 5), min_size=2, max_size=4).filter(any)


@settings(max_examples=60, deadline=None)
@given(p_w=weights, q_w=weights, depth=st.integers(1, 4), width=st.integers(1, 3), distinct=st.booleans())
def test_expected_kept_drafts_at_least_recursive_rejection_samplings(p_w, q_w, depth, width, distinct):
    size = min(len(p_w), len(q_w))
    if not any(p_w[:size]) or not any(q_w[:size]):
        return
    p, q = Categorical.dense(p_w[:size]), Categorical.dense(q_w[:size])
    suffix = f"{'-distinct' if distinct else ''}:{width}"
    traversal = theory.expected_accepted_drafts(p, q, depth, "traversal" + suffix)
    assert traversal >= theory.expected_accepted_drafts(p, q, depth, "multi" + suffix)
    assert theory.first_token_law(p, q, "traversal" + suffix, depth) == tuple(p.prob(x) for x in range(size))


def test_on_one_fixed_tree_traversal_can_keep_fewer():
    """The claim holds in expectation over the drafted tree, not tree by tree: p = (1/2, 1/2), the drafted chain
    [1, 1] under q = (1/4, 3/4) keeps 1 draft on average by traversal (block verification) and 10/9 by RRS."""
    p, q = Categorical.dense([1, 1]), Categorical.dense([1, 3])
    tree = propose_tree(fixed(q), (), RandomStreams(0, Owner("x", 0), 0), depth=2, width=1, context_id="c")
    assert [n.token for n in tree.nodes()] == [1, 1]
    assert expected_accepted(given_tree_law(tree, fixed(p))) == 1
    assert expected_accepted(rrs_tree_law(tree, fixed(p))) == F(10, 9)


# --- width 1 and block verification -----------------------------------------------------------------------------


@pytest.mark.parametrize("models", MODELS)
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_width_one_is_block_verifications_law(models, depth):
    """traversal:1 commits block verification's law of (tokens, kept drafts), exactly (Theorem 3.4's chain case)."""
    p_model, q_model = MODELS[models]
    law = traversal_law(p_model, q_model, (), depth, 1)
    block = theory.analyze_round(p_model, draft=q_model, depth=depth, verification="block")
    block_law: dict = {}
    for outcome, w in block.outcomes.items():
        block_law[(outcome.tokens, outcome.accepted)] = block_law.get((outcome.tokens, outcome.accepted), F(0)) + w
    assert law == block_law
    assert expected_accepted(law) == block.expected_accepted


def test_width_one_draws_from_the_leaf_up_and_block_from_the_front():
    """Same law, other draws: block verification draws every position and keeps the last hit; traversal tests the
    leaf first and stops at its first hit, so the two differ seed by seed while their laws agree."""
    p_model, q_model = MODELS["fixed-3"]
    differ = 0
    for seed in range(40):
        results = []
        for verifier, drafted in ((BlockVerifier, "block"), (TraversalVerifier, "traversal:1")):
            streams = RandomStreams(seed, OWNER, 0)
            trace = Trace()
            block = (propose(q_model, (), streams, depth=3, context_id="c") if drafted == "block" else
                     draft_round(drafted, q_model, (), streams, depth=3, context_id="c"))
            results.append((verifier(OWNER, (), "c", p_model).verify(block, streams, trace=trace).tokens,
                            sum(e.kind in ("block_check", "traversal_check") for e in trace)))
        assert results[0][1] == 3  # block: one draw per position
        assert 1 <= results[1][1] <= 3  # traversal: from the leaf up to the first hit
        differ += results[0][0] != results[1][0]
    assert differ > 0


# --- Monte Carlo of the real code beyond enumeration ------------------------------------------------------------

MC_ROUNDS = 8_000
MC_ALPHA = 1e-4


def power(rounds: int, cells: int, tv: float) -> float:
    """The chi-square test's power against any law at total variation tv from the exact one: its noncentrality is
    at least rounds·4·tv² (Σ Δ²/p ≥ (Σ|Δ|)² = 4 tv²)."""
    critical = chi2.isf(MC_ALPHA, cells - 1)
    return float(ncx2.sf(critical, cells - 1, rounds * 4 * tv * tv))


@pytest.mark.slow
@pytest.mark.parametrize("name, depth", [("traversal:2", 5), ("traversal-distinct:3", 4)])
def test_monte_carlo_beyond_enumeration_commits_p(name, depth):
    """8,000 rounds of width 2 at depth 5 (62 drafted nodes) and width 3 distinct at depth 4 (120) on the Markov
    models: the first two committed tokens (continued by p's own sample when a round commits one) against p's law of
    two tokens, 9 cells; at α = 1e-4 the test finds any law at TV ≥ 0.05 from p with probability ≥ 0.999
    (``power``)."""
    assert power(MC_ROUNDS, 9, 0.05) > 0.999
    p_model, q_model = MODELS["markov-3"]
    found = rule(name)
    counts: Counter = Counter()
    for round_id in range(MC_ROUNDS):
        streams = RandomStreams(7, OWNER, round_id)
        tree = draft_round(found, q_model, (), streams, depth=depth, context_id="mc")
        tokens = found.verifier_class(OWNER, (), "mc", p_model).verify(tree, streams).tokens
        if len(tokens) == 1:
            tokens += (p_model(tokens).draw(streams.proposal)[0],)
        counts[tokens[:2]] += 1
    law = autoregressive_law(p_model, (), 2)
    statistic = sum((counts.get(k, 0) - MC_ROUNDS * float(w)) ** 2 / (MC_ROUNDS * float(w)) for k, w in law.items())
    assert set(counts) <= set(law)
    assert chi2.sf(statistic, len(law) - 1) > MC_ALPHA

