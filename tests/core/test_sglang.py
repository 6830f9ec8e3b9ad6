"""sglang:S,A[,K]: SGLang as it runs, EAGLE's top-K tree under its threshold kernel, and threshold:S,A[,K] on sampled
drafts beside it: the issue's example by hand, the drafting against a transcription of SGLang's tree building, the
verification against the kernel's transcription (engine_sglang.py), every draw enumerated."""

from fractions import Fraction as F

import numpy as np
import pytest
from engine_sglang import committed, eagle_tree, tree_arrays, tree_speculative_sampling_target_only, zero_draft_probs
from hypothesis import given, settings
from hypothesis import strategies as st
from rule_play import pairs, probs
from tree_law import autoregressive_law, extend

from specviz import theory
from specviz.core import Categorical, Owner, RandomStreams, Trace, draft_round, rule
from specviz.core import threshold as T
from specviz.core.trace import TopKDraftEvent

OWNER = Owner("sglang", 0)
P = Categorical.dense([2, 1, 1, 0, 4])  # the issue's example: p = (2, 1, 1, 0, 4)/8, q = (1, 1, 1, 1, 4)/8
Q = Categorical.dense([1, 1, 1, 1, 4])


def test_the_issues_example_by_hand():
    """sglang:1/4,1/2,2 drafts q's top two, [4, 0] (token 4 first; 0 wins the tie among the 1/8s by its lower id);
    p(4) = 1/2 ≥ S keeps token 4 whatever the coin: the first token is always 4, TV = 1 − 1/2 = 1/2.
    threshold:1/4,1/2,2 samples the two distinct children from q; P(first token 4) = 1/2 (x₁ = 4) + 2·(1/8)(79/147)
    (x₁ = 1 or 2) + (1/8)(102/147) (x₁ = 3) = 1/2 + 65/294, and 4 is the only token above p, so TV = 65/294."""
    top_k, sampled = rule("sglang:1/4,1/2,2"), rule("threshold:1/4,1/2,2")
    assert T.top_k_tokens(Q, 2) == [4, 0]
    assert theory.first_token_law(P, Q, top_k) == (0, 0, 0, 0, 1)
    assert theory.law_distance(theory.first_token_law(P, Q, top_k), P) == F(1, 2)
    law = theory.first_token_law(P, Q, sampled)
    assert law[4] == F(1, 2) + 2 * F(1, 8) * F(79, 147) + F(1, 8) * F(102, 147) == F(1, 2) + F(65, 294)
    assert theory.law_distance(law, P) == F(65, 294)
    # at S = A = 1 both are exact: the coin is the target's own sample over the siblings' mass
    assert theory.first_token_law(P, Q, "sglang:1,1,2") == theory.first_token_law(P, Q, "threshold:1,1,2") == tuple(
        probs(P))


@pytest.mark.parametrize("text, canonical, k", [("sglang:1,1", "sglang:1,1", 1), ("sglang:1,1,1", "sglang:1,1", 1),
                                                ("sglang:1/4,0.50,2", "sglang:0.25,0.5,2", 2)])
def test_names(text, canonical, k):
    found = rule(text)
    assert found.name == canonical and found.width == k and found.distinct and found.settings.top_k
    assert found.family == rule("threshold:1,1").family  # one verification, two draftings
    assert "top" in found.label or "argmax" in found.label
    assert "--speculative-eagle-topk" in found.engine_setting


def test_top_k_drafting_draws_nothing_and_records_each_choice():
    streams = RandomStreams(3, OWNER, 0)
    before = streams.proposal.getstate()
    trace = Trace()
    tree = draft_round("sglang:1,1,2", lambda c: Q, (), streams, depth=2, context_id="c", trace=trace)
    assert streams.proposal.getstate() == before  # no proposal draw
    assert [(n.path, n.token) for n in tree.nodes()] == [((0,), 4), ((1,), 0), ((0, 0), 4), ((0, 1), 0), ((1, 0), 4),
                                                         ((1, 1), 0)]
    drafts = trace.of_kind("tree_draft")
    assert all(isinstance(e, TopKDraftEvent) and e.draw == 0 and e.draw_range == 1 for e in drafts)
    assert [e.rank for e in drafts] == [0, 1, 0, 1, 0, 1] and drafts[0].q_token == F(1, 2)


def test_fewer_children_when_q_has_fewer_tokens():
    q = Categorical.dense([0, 3, 0, 1, 0])
    tree = draft_round("sglang:1,1,4", lambda c: q, (), RandomStreams(0, OWNER, 0), depth=1, context_id="c")
    assert [n.token for n in tree.nodes()] == [1, 3]


def _markov(seed: int, vocab: int):
    rng = np.random.default_rng(seed)
    rows = [Categorical.dense([int(v) for v in rng.integers(1, 9, vocab)]) for _ in range(vocab + 1)]
    return lambda c: rows[c[-1] + 1 if c else 0]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("topk, steps", [(1, 3), (2, 1), (2, 2), (3, 2)])
def test_the_tree_is_sglangs_where_its_budget_holds_every_candidate(seed, topk, steps):
    """SGLang's EAGLE tree (select_top_k_tokens + build_tree_kernel_efficient_preprocess, transcribed) with a
    draft-token budget of every candidate is the fixed top-K tree at depth 1 and 2, and at any depth for K = 1."""
    q_model = _markov(seed, 5)
    budget = 1 + topk + (steps - 1) * topk * topk
    theirs = eagle_tree(q_model, (), topk, steps, budget)
    tree = draft_round(f"sglang:1,1,{topk}", q_model, (), RandomStreams(seed, OWNER, 0), depth=steps, context_id="c")
    ours = [tuple(tree.node(n.path[:k + 1]).token for k in range(len(n.path))) for n in tree.nodes()]
    assert sorted(theirs) == sorted(ours)
    for path in ours:  # siblings in the same order: descending q, ties to the lower id
        siblings = [p for p in theirs if p[:-1] == path[:-1]]
        assert [p[-1] for p in siblings] == [p[-1] for p in ours if p[:-1] == path[:-1]]


def test_below_depth_two_sglang_expands_only_the_k_best_paths():
    """At depth 3 SGLang expands K of the K² second-level nodes (EAGLE-2's beam); sglang:S,A,K drafts all of them:
    SGLang's tree is a subtree of the project's."""
    q_model = _markov(1, 5)
    theirs = eagle_tree(q_model, (), 2, 3, 1 + 2 + 2 * 4)
    tree = draft_round("sglang:1,1,2", q_model, (), RandomStreams(0, OWNER, 0), depth=3, context_id="c")
    ours = {tuple(tree.node(n.path[:k + 1]).token for k in range(len(n.path))) for n in tree.nodes()}
    assert set(theirs) < ours and sum(len(p) == 3 for p in theirs) == 4 < sum(len(p) == 3 for p in ours) == 8


def _coin(event) -> float:
    return (event.draw + 0.5) / event.draw_range


@settings(max_examples=60, deadline=None)
@given(pairs(2, 5), st.sampled_from(["1,1", "0.5,0.8", "0.25,0.5", "1,0.6"]), st.integers(0, 10**6),
       st.integers(1, 3), st.integers(1, 3))
def test_kernel_makes_the_same_decisions_on_the_top_k_tree(pq, s, seed, depth, width):
    """SGLang's kernel (transcribed) on the top-K tree, fed the coins the recorded integer draws stand for."""
    p, q = pq
    found = rule(f"sglang:{s},{width}")
    streams = RandomStreams(seed, OWNER, 0)
    tree = draft_round(found, lambda c: q, (), streams, depth=depth, context_id="c")
    trace = Trace()
    result = found.verifier_class(OWNER, (), "c", lambda c: p).verify(tree, streams, trace=trace)
    candidates, _, nxt, sib, rows = tree_arrays(tree, lambda c: p)
    index = {(): 0} | {node.path: i + 1 for i, node in enumerate(tree.nodes())}
    coins = {index[e.path[:-1]]: _coin(e) for e in trace if e.kind == "threshold_check"}
    end = next(e for e in trace if e.kind in ("correction", "bonus"))
    uniform = np.array([coins.get(i, 0.5) for i in range(len(candidates))], dtype=np.float32)
    predicts, accept_index, accepted = tree_speculative_sampling_target_only(
        candidates, list(range(len(candidates))), nxt, sib, uniform, _coin(end), rows, zero_draft_probs(rows),
        depth + 1, float(found.settings.single), float(found.settings.acc))
    assert committed(predicts, accept_index, accepted) == result.tokens and accepted == result.accepted_drafts


def test_every_draw_of_the_real_code_has_the_exact_law():
    """The verifier on the top-K tree, every coin and final draw enumerated: its first token and kept drafts are
    theory's, and at S = A = 1 the whole round continued by p is p's own law."""
    for s in ("1,1", "0.25,0.5"):
        found = rule(f"sglang:{s},2")
        law = _played(found, P, Q, 2)
        assert sum(law.values()) == 1
        first = [F(0)] * 5
        for (tokens, _), w in law.items():
            first[tokens[0]] += w
        assert tuple(first) == theory.first_token_law(P, Q, found)
        assert sum((w * kept for (_, kept), w in law.items()), F(0)) == theory.expected_accepted_drafts(P, Q, 2, found)
        if found.exact:
            assert extend(law, lambda c: P, (), 3) == autoregressive_law(lambda c: P, (), 3)


def _played(found, p, q, depth):
    """Every sequence of acceptance and final draws on the (deterministic) top-K tree."""
    from tree_law import Scripted

    out: dict = {}
    pending = [([], F(1))]
    while pending:
        script, weight = pending.pop()
        log: list[int] = []
        streams = RandomStreams(0, OWNER, 0)
        streams.proposal = streams.acceptance = streams.correction = Scripted(script, log)
        trace = Trace()
        tree = draft_round(found, lambda c: q, (), streams, depth=depth, context_id="c", trace=trace)
        result = found.verifier_class(OWNER, (), "c", lambda c: p).verify(tree, streams, trace=trace)
        draws = [e for e in trace if e.kind in ("threshold_check", "correction", "bonus")]
        seen, unique = set(), []
        for e in draws:  # one coin per node: the siblings' events repeat it
            key = (e.kind, getattr(e, "path", (None,))[:-1]) if e.kind == "threshold_check" else (e.kind, None)
            if key not in seen:
                seen.add(key)
                unique.append(e)
        assert [e.draw_range for e in unique] == log
        if len(unique) == len(script):
            key = (result.tokens, result.accepted_drafts)
            out[key] = out.get(key, F(0)) + weight
            continue
        event = unique[len(script)]
        if event.kind == "threshold_check":  # the node's coin: every sibling's bound cuts its range
            node = event.path[:-1]
            tokens = [c.token for c in (tree.node(node).children if node else tree.children)]
            bounds = T.node_coin(p, tokens, found.settings).bounds
            cuts = sorted({0, event.draw_range, *(b for b in bounds if 0 < b < event.draw_range)})
            classes = [(lo, F(hi - lo, event.draw_range)) for lo, hi in zip(cuts, cuts[1:])]
        else:
            dist = event.residual if event.kind == "correction" else event.p
            classes, start = [], 0
            for ticket in dist.tickets:
                if ticket:
                    classes.append((start, F(ticket, event.draw_range)))
                start += ticket
        for value, share in classes:
            pending.append((script + [value], weight * share))
    return out

