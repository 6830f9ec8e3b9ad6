"""threshold:S,A (SGLang's target-only tree verification): exact on chains and distinct trees at (1, 1), the exact
lossy law below, and the kernel's own loop."""

import math
from fractions import Fraction as F

import numpy as np
import pytest
from engine_sglang import committed, tree_arrays, tree_speculative_sampling_target_only, zero_draft_probs
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rule_play import (
    OWNER,
    accepted_law,
    chi_square_pvalue,
    first_token,
    mean_accepted,
    monte_carlo,
    pairs,
    played_law,
    probs,
)
from tree_law import autoregressive_law, extend

from specviz.core import Categorical, RandomStreams, Trace, propose, propose_tree
from specviz.core import threshold as T
from specviz.core.errors import BlockError, ProposalError, RuleParameterError, SessionError

P, Q = Categorical.dense([1, 2]), Categorical.dense([2, 1])  # Sun et al.'s example: p = (1/3, 2/3), q = (2/3, 1/3)
DEFAULT = T.parse_threshold("threshold:1,1")
SETTINGS = st.sampled_from(["1,1", "0.5,1", "1,0.5", "0.6,0.9", "0.3,0.3", "1,0.75"]).map(
    lambda s: T.parse_threshold(f"threshold:{s}"))


# --- the exact values -------------------------------------------------------------------------------------


def test_sun_example():
    assert T.first_token_law(P, Q, DEFAULT) == (F(1, 3), F(2, 3))  # exact on a chain
    assert T.node_law(P, Q, DEFAULT).acceptance == F(4, 9)  # exact match's: sum q·p
    assert T.expected_accepted_drafts(P, Q, 2, DEFAULT) == F(52, 81)
    assert T.first_token_law(P, Q, DEFAULT, 2, True) == (F(1, 3), F(2, 3))  # distinct children: exact
    assert T.node_law(P, Q, DEFAULT, 2, True).acceptance == 1  # two distinct children cover the vocabulary
    # i.i.d. children: a repeated token adds its mass twice, as the kernel's prob_acc does: lossy even at (1, 1)
    assert T.first_token_law(P, Q, DEFAULT, 2, False) == (F(4, 9), F(5, 9))
    assert T.node_law(P, Q, DEFAULT, 2, False).acceptance == F(23, 27)
    assert T.distance(P, Q, DEFAULT, 2, False) == F(1, 9)
    lossy = T.parse_threshold("threshold:0.5,0.8")  # p(1) = 2/3 >= S keeps token 1; token 0 with min(1, (1/3)/0.8)
    assert T.first_token_law(P, Q, lossy) == (F(5, 18), F(13, 18))
    assert T.node_law(P, Q, lossy).acceptance == F(2, 3) * F(5, 12) + F(1, 3)
    assert T.distance(P, Q, lossy) == F(1, 18)


@settings(max_examples=60, deadline=None)
@given(pairs(2, 4), st.integers(1, 4))
def test_default_is_exact_on_chains_and_distinct_trees(pq, width):
    p, q = pq
    assert T.first_token_law(p, q, DEFAULT) == tuple(probs(p))
    assert T.node_law(p, q, DEFAULT).acceptance == sum(a * b for a, b in zip(probs(p), probs(q)))  # exact match's
    assert T.first_token_law(p, q, DEFAULT, width, True) == tuple(probs(p))
    assert T.distance(p, q, DEFAULT, width, True) == 0


@settings(max_examples=60, deadline=None)
@given(pairs(2, 4), SETTINGS, st.integers(1, 3), st.booleans())
def test_law_is_a_distribution_that_keeps_more_below_one(pq, s, width, distinct):
    p, q = pq
    law = T.node_law(p, q, s, width, distinct)
    assert sum(law.committed(p.vocab_size)) == 1
    assert all(v >= 0 for v in law.committed(p.vocab_size))
    # lower thresholds only ever keep more: the coin's bound min(1, C/A) grows and p(x) >= S holds more often
    assert law.acceptance >= T.node_law(p, q, DEFAULT, width, distinct).acceptance


def _given_children(p, tokens, s):
    """The rule for fixed children, written out afresh: P(keep child k) and the final token's law."""
    out, reached_c, removed = [F(0)] * p.vocab_size, F(0), []
    held = F(0)
    for x in tokens:
        held += p.prob(x)
        if p.prob(x) >= s.single:
            out[x] += 1 - reached_c
            return out
        c = min(F(1), held / s.acc)
        out[x] += c - reached_c
        reached_c = c
        removed.append(x)
    rest = 1 - sum(p.prob(x) for x in set(removed))
    for y in range(p.vocab_size):
        if y not in removed and rest:
            out[y] += (1 - reached_c) * p.prob(y) / rest
    return out


@settings(max_examples=60, deadline=None)
@given(pairs(2, 4), SETTINGS, st.integers(1, 3), st.booleans())
def test_node_law_sums_the_fixed_children_laws(pq, s, width, distinct):
    """The node law's state pass equals summing the rule over every drafted tuple of children."""
    import itertools

    p, q = pq
    qs = probs(q)
    expected = [F(0)] * p.vocab_size
    for children in itertools.product(range(p.vocab_size), repeat=width):
        weight, held = F(1), F(0)
        for x in children:
            if distinct:
                weight *= qs[x] / (1 - held) if held < 1 else 0
                held += qs[x]
            else:
                weight *= qs[x]
        if distinct and len(set(children)) < len(children):
            weight = F(0)
        if weight:
            for y, v in enumerate(_given_children(p, children, s)):
                expected[y] += weight * v
    if distinct:  # nodes whose q runs out of tokens have fewer children: enumerate the prefixes that exhaust q
        assume(sum(1 for v in qs if v) >= width)
    assert T.first_token_law(p, q, s, width, distinct) == tuple(expected)


# --- the verifier -----------------------------------------------------------------------------------------


CASES = [([1, 2], [2, 1]), ([1, 1, 2], [2, 1, 1])]


@pytest.mark.parametrize("s", ["1,1", "0.5,0.8", "1,0.5"])
@pytest.mark.parametrize("pq", CASES)
def test_the_chain_code_commits_the_exact_law(s, pq):
    p, q = Categorical.dense(pq[0]), Categorical.dense(pq[1])
    found = T.parse_threshold(f"threshold:{s}")
    law = played_law(T.ThresholdVerifier, p, q, 2, settings=found)
    assert first_token(law, p.vocab_size) == T.first_token_law(p, q, found)
    assert mean_accepted(law) == T.expected_accepted_drafts(p, q, 2, found)
    if found.exact:  # the whole round, continued with p, is p's own law
        assert extend(law, lambda c: p, (), 3) == autoregressive_law(lambda c: p, (), 3)


@pytest.mark.parametrize("s", ["1,1", "0.5,0.8"])
@pytest.mark.parametrize("width, distinct, depth", [(2, True, 2), (2, False, 1), (3, True, 1)])
def test_the_tree_code_commits_the_exact_law(s, width, distinct, depth):
    p, q = P, Q
    if width == 3:
        p, q = Categorical.dense([1, 1, 2]), Categorical.dense([2, 1, 1])
    found = T.parse_threshold(f"threshold:{s}")
    law = played_law(T.ThresholdVerifier, p, q, depth, width=width, distinct=distinct, settings=found)
    assert sum(law.values()) == 1
    assert first_token(law, p.vocab_size) == T.first_token_law(p, q, found, width, distinct)
    assert mean_accepted(law) == T.expected_accepted_drafts(p, q, depth, found, width, distinct)
    if found.exact and distinct:
        assert extend(law, lambda c: p, (), depth + 1) == autoregressive_law(lambda c: p, (), depth + 1)


def test_a_kept_stop_token_ends_the_round():
    law = played_law(T.ThresholdVerifier, P, Q, 2, width=2, distinct=True, stop_ids=frozenset({0}),
                     settings=DEFAULT)
    assert all(tokens[-1] == 0 or len(tokens) == kept + 1 for (tokens, kept) in law)
    assert extend(law, lambda c: P, (), 3, frozenset({0})) == autoregressive_law(lambda c: P, (), 3, frozenset({0}))


@settings(max_examples=50, deadline=None)
@given(pairs(2, 4), SETTINGS, st.integers(0, 10**6), st.integers(1, 4))
def test_a_chain_is_a_tree_of_width_one_draw_for_draw(pq, s, seed, depth):
    p, q = pq
    out = []
    for draft in (lambda st_: propose(lambda c: q, (), st_, depth=depth, context_id="c"),
                  lambda st_: propose_tree(lambda c: q, (), st_, depth=depth, width=1, context_id="c")):
        streams = RandomStreams(seed, OWNER, 0)
        trace = Trace()
        result = T.ThresholdVerifier(OWNER, (), "c", lambda c: p, settings=s).verify(draft(streams), streams,
                                                                                      trace=trace)
        out.append((result, [(e.draw, e.draw_range) for e in trace if hasattr(e, "draw")]))
    assert out[0] == out[1]


def test_monte_carlo_matches_the_law():
    p, q = Categorical.dense([1, 2, 3, 1]), Categorical.dense([3, 1, 1, 2])
    s = T.parse_threshold("threshold:0.6,0.9")
    first, kept = monte_carlo(T.ThresholdVerifier.bound(s), p, q, 2, 3000, width=2, distinct=True, seed=3)
    law = T.node_law(p, q, s, 2, True)
    assert chi_square_pvalue(first, law.committed(4)) > 1e-4
    assert chi_square_pvalue(kept, accepted_law(law.acceptance, 2)) > 1e-4


def test_trace_records_one_coin_per_node():
    s = T.parse_threshold("threshold:0.9,0.8")
    p, q = Categorical.dense([1, 2, 3, 1]), Categorical.dense([3, 1, 1, 2])
    for seed in range(20):
        streams = RandomStreams(seed, OWNER, 0)
        tree = propose_tree(lambda c: q, (), streams, depth=2, width=3, context_id="c", distinct=True)
        trace = Trace()
        T.ThresholdVerifier(OWNER, (), "c", lambda c: p, settings=s).verify(tree, streams, trace=trace)
        checks = trace.of_kind("threshold_check")
        by_node: dict = {}
        for e in checks:
            by_node.setdefault(e.path[:-1], []).append(e)
        for events in by_node.values():
            assert len({(e.draw, e.draw_range) for e in events}) == 1  # one coin per node
            assert [e.mass for e in events] == [sum(p.prob(x.token) for x in events[: k + 1])
                                                for k in range(len(events))]
            for e in events:
                assert e.accepted == (e.single or e.draw < e.bound)
                assert e.acceptance == (1 if e.single else min(F(1), e.mass / s.acc))
            assert all(not e.accepted for e in events[:-1])
        for e in checks:  # r: p off the earlier rejected siblings' tokens, renormalized
            earlier = {c.token for c in by_node[e.path[:-1]][: e.sibling]}
            assert e.r_token == (0 if e.token in earlier else p.prob(e.token) / (1 - sum(p.prob(x) for x in earlier)))
            if not e.accepted:
                assert e.residual.prob(e.token) == 0 and all(e.residual.prob(x) == 0 for x in earlier)
        ends = trace.of_kind("correction")
        for e in ends:
            assert isinstance(e, T.ThresholdTreeCorrectionEvent) and e.scale is None
            assert set(e.removed) == {c.token for c in by_node[e.path]}
            assert all(e.residual.prob(x) == 0 for x in e.removed)
            shares = [c.residual_mass for c in by_node[e.path]]  # each rejection keeps a share of the previous r
            assert math.prod(shares) == e.residual_mass
        assert trace.to_json()


# --- the engine's own code --------------------------------------------------------------------------------


def _coin(event) -> float:
    return (event.draw + 0.5) / event.draw_range


def _kernel_replay(drafted, p, trace, s):
    """SGLang's kernel on the same tree, fed the coins the recorded integer draws stand for."""
    if isinstance(drafted, T.Block):
        g = len(drafted.proposals)
        candidates = [0] + [x.token for x in drafted.proposals]
        nxt, sib = [*range(1, g + 1), -1], [-1] * (g + 1)
        rows = np.stack([np.array([float(v) for v in probs(p)], dtype=np.float32)] * (g + 1))
        checks = [e for e in trace if e.kind == "check"]
        coins = {i: _coin(e) for i, e in enumerate(checks)}
    else:
        candidates, _, nxt, sib, rows = tree_arrays(drafted, lambda c: p)
        index = {(): 0} | {node.path: i + 1 for i, node in enumerate(drafted.nodes())}
        coins = {index[e.path[:-1]]: _coin(e) for e in trace if e.kind == "threshold_check"}
    end = next(e for e in trace if e.kind in ("correction", "bonus"))
    uniform = np.array([coins.get(i, 0.5) for i in range(len(candidates))], dtype=np.float32)
    predicts, accept_index, accepted = tree_speculative_sampling_target_only(
        candidates, list(range(len(candidates))), nxt, sib, uniform, _coin(end), rows, zero_draft_probs(rows),
        drafted.fixed_depth + 1, float(s.single), float(s.acc))
    return committed(predicts, accept_index, accepted), accepted


@settings(max_examples=80, deadline=None)
@given(pairs(2, 4), SETTINGS, st.integers(0, 10**6), st.integers(1, 3), st.integers(1, 3), st.booleans())
def test_kernel_makes_the_same_decisions(pq, s, seed, depth, width, distinct):
    """The same coins (u = (draw + 1/2)/range) drive SGLang's loop and the verifier to the same tokens."""
    p, q = pq
    streams = RandomStreams(seed, OWNER, 0)
    tree = propose_tree(lambda c: q, (), streams, depth=depth, width=width, context_id="c", distinct=distinct)
    trace = Trace()
    result = T.ThresholdVerifier(OWNER, (), "c", lambda c: p, settings=s).verify(tree, streams, trace=trace)
    assert _kernel_replay(tree, p, trace, s) == (result.tokens, result.accepted_drafts)
    streams = RandomStreams(seed, OWNER, 1)
    block = propose(lambda c: q, (), streams, depth=depth, context_id="c")
    trace = Trace()
    result = T.ThresholdVerifier(OWNER, (), "c", lambda c: p, settings=s).verify(block, streams, trace=trace)
    assert _kernel_replay(block, p, trace, s) == (result.tokens, result.accepted_drafts)


@pytest.mark.parametrize("s, distinct", [("1,1", True), ("1,1", False), ("0.6,0.9", True)])
def test_kernel_simulated_matches_the_law(s, distinct):
    """SGLang's loop on numpy's float32 coins over drafted trees: its first token follows the exact law."""
    p, q = Categorical.dense([1, 2, 3, 1]), Categorical.dense([3, 1, 1, 2])
    found = T.parse_threshold(f"threshold:{s}")
    rng = np.random.default_rng(17)
    first = [0] * 4
    for i in range(2500):
        tree = propose_tree(lambda c: q, (), RandomStreams(i, OWNER, 0), depth=1, width=2, context_id="c",
                            distinct=distinct)
        candidates, index, nxt, sib, rows = tree_arrays(tree, lambda c: p)
        predicts, accept_index, accepted = tree_speculative_sampling_target_only(
            candidates, index, nxt, sib, rng.random(len(candidates), dtype=np.float32), rng.random(dtype=np.float32),
            rows, zero_draft_probs(rows), 2, float(found.single), float(found.acc))
        first[committed(predicts, accept_index, accepted)[0]] += 1
    assert chi_square_pvalue(first, T.first_token_law(p, q, found, 2, distinct)) > 1e-4


# --- names, settings, sessions ----------------------------------------------------------------------------


@pytest.mark.parametrize("text, canonical", [("threshold:1,1", "threshold:1,1"),
                                             ("threshold:1.0,0.80", "threshold:1,0.8"),
                                             ("threshold:1,1,1", "threshold:1,1"),
                                             ("threshold:1,1,03", "threshold:1,1,3"),
                                             ("threshold:1/2,4/5,2", "threshold:0.5,0.8,2"),
                                             ("threshold:5e-1,25e-2", "threshold:0.5,0.25")])
def test_one_canonical_spelling(text, canonical):
    s = T.parse_threshold(text)
    assert s.name == canonical and T.parse_threshold(canonical) == s


@pytest.mark.parametrize("text, says", [
    ("threshold:1", "2 to 3 numbers"), ("threshold:1,1,1,1", "2 to 3 numbers"),
    ("threshold:0,1", "S (--speculative-accept"), ("threshold:1,1,0", "K (distinct drafts per node"),
    ("threshold:1,1,9", "1..8"), ("threshold:1,1,2.0", "got '2.0'"),
    ("threshold:1,0", "A (--speculative-accept-threshold-acc) must be a number in (0, 1]"),
    ("threshold:1,2", "got '2'"), ("threshold:1, 1", "got ' 1'"), ("threshold:S,A", "got 'S'")])
def test_bad_names_are_refused_in_words(text, says):
    with pytest.raises(RuleParameterError) as info:
        T.parse_threshold(text)
    assert says in str(info.value)


def test_session_rules_hold():
    streams = RandomStreams(1, OWNER, 0)
    tree = propose_tree(lambda c: Q, (), streams, depth=2, width=2, context_id="c")
    verifier = T.ThresholdVerifier(OWNER, (), "c", lambda c: P)
    verifier.verify(tree, streams)
    with pytest.raises(SessionError, match="stale"):
        verifier.verify(tree, streams)
    with pytest.raises(BlockError, match="a Block from propose or a Tree"):
        T.ThresholdVerifier(OWNER, (), "c", lambda c: P).verify("tree", streams)
    zero_q = propose_tree(lambda c: Categorical.dense([1, 0]), (), RandomStreams(1, OWNER, 4), depth=1, width=1,
                          context_id="c")
    bad = T.Tree(zero_q.owner, 4, (), "c", 1, 1, False, Categorical.dense([0, 1]), zero_q.children, frozenset())
    with pytest.raises(ProposalError):
        T.ThresholdVerifier(OWNER, (), "c", lambda c: P).verify(bad, RandomStreams(1, OWNER, 4))
