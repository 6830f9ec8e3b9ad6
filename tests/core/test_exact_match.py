"""Exact match (issue 36, section 2): the target samples its own token at each node, the child equal to it is kept.

Exact on every integer draw (the real code played on each outcome), its node law by hand and by enumeration, and a
tree that holds the chain's path commits at least the chain's tokens on every draw, same seeds."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tree_law import OWNER, Scripted, autoregressive_law, extend, played_law, probs

from specviz.core import Categorical, RandomStreams, Trace, propose, propose_tree, rule
from specviz.core.errors import BlockError, RuleParameterError
from specviz.core.exact_match import ExactMatchSettings, ExactMatchVerifier, inclusion, law, node_law
from specviz.core.rule_law import support
from specviz.core.trace import ExactMatchCheckEvent, ExactMatchCorrectionEvent, ExactMatchTreeCheckEvent
from specviz.core.verification import check_verification, draft_round

V = 4


def _model(seed: int, vocab: int = V, *, total: int = 12):
    """A context -> Categorical of small integer tickets, a pure function of (seed, context)."""
    def at(context: tuple[int, ...]) -> Categorical:
        digest = hashlib.sha256(repr((seed, context)).encode()).digest()
        tickets = [digest[i] % total for i in range(vocab)]
        if not any(tickets):
            tickets[digest[vocab] % vocab] = 1
        return Categorical(vocab, range(vocab), tickets)
    return at


def _candidates(seed: int, width: int, vocab: int = V):
    """A draft-free tree's q: uniform over up to `width` candidates that always hold the chain's token (first)."""
    def chain_token(context):
        return hashlib.sha256(repr(("chain", seed, context)).encode()).digest()[0] % vocab

    def at(context):
        digest = hashlib.sha256(repr(("more", seed, context)).encode()).digest()
        found = [chain_token(context)]
        for byte in digest:
            if len(found) == width:
                break
            if byte % vocab not in found and byte % 3:
                found.append(byte % vocab)
        return Categorical(vocab, sorted(found), [1] * len(found))

    def point(context):
        return Categorical(vocab, [chain_token(context)], [1])
    return at, point


# --- the real code on every draw -------------------------------------------------------------------------


def _draw_events(trace: Trace) -> list:
    """The events that each record one randrange, in order: drafts, each node's sample (its first sibling's
    check), the bonus. A correction is the node's sample itself: no draw of its own."""
    out = []
    for event in trace:
        if event.kind in ("draft", "tree_draft", "bonus"):
            out.append(event)
        elif isinstance(event, ExactMatchCheckEvent) or (isinstance(event, ExactMatchTreeCheckEvent)
                                                          and event.sibling == 0):
            out.append(event)
    return out


def _classes(event) -> list[tuple[int, F]]:
    dist = {"draft": "q", "tree_draft": "drawn_from"}.get(event.kind, "p")
    start, out = 0, []
    for ticket in getattr(event, dist).tickets:
        if ticket:
            out.append((start, F(ticket, event.draw_range)))
        start += ticket
    return out


def _play(script, p_model, q_model, prefix, depth, width, stop_ids):
    log: list[int] = []
    streams = RandomStreams(0, OWNER, 0)
    streams.proposal = streams.acceptance = streams.correction = Scripted(script, log)
    trace = Trace()
    found = rule(f"exact-match:{width}")
    block = draft_round(found, q_model, prefix, streams, depth=depth, context_id="law", stop_ids=stop_ids, trace=trace)
    result = ExactMatchVerifier(OWNER, prefix, "law", p_model, stop_ids=stop_ids).verify(block, streams, trace=trace)
    draws = _draw_events(trace)
    assert [e.draw_range for e in draws] == log  # every randrange is recorded, in order, and nothing else draws
    return result, draws


def exact_match_law(p_model, q_model, prefix, depth, width, stop_ids=frozenset()):
    out = defaultdict(F)
    pending = [([], F(1))]
    while pending:
        script, weight = pending.pop()
        result, draws = _play(script, p_model, q_model, tuple(prefix), depth, width, frozenset(stop_ids))
        if len(draws) == len(script):
            out[(result.tokens, result.accepted_drafts)] += weight
            continue
        for value, share in _classes(draws[len(script)]):
            pending.append((script + [value], weight * share))
    return dict(out)


@pytest.mark.parametrize(("width", "depth", "stop", "vocab"), [(1, 1, (), 4), (1, 3, (), 3), (2, 2, (), 3),
                                                               (3, 1, (), 4), (2, 2, (1,), 3), (4, 1, (), 4)])
def test_every_draw_played_commits_exactly_p(width, depth, stop, vocab):
    p_model, q_model = _model(1, vocab), _model(2, vocab)
    law_ = exact_match_law(p_model, q_model, (0,), depth, width, stop)
    assert sum(law_.values()) == 1
    assert extend(law_, p_model, (0,), depth + 1, frozenset(stop)) == autoregressive_law(p_model, (0,), depth + 1,
                                                                                         frozenset(stop))


def test_a_point_mass_chain_has_tokenwise_verification_s_law():
    """For prompt lookup's one-hot q, exact match commits what tokenwise verification does, in law."""
    p_model = _model(3)
    _, point = _candidates(4, 1)
    ours = exact_match_law(p_model, point, (0,), 3, 1)
    tokenwise = played_law(p_model, point, (0,), 3, 1)  # recursive rejection sampling with one child: tokenwise
    assert ours == tokenwise


# --- the node law, by hand and by enumeration ------------------------------------------------------------


def test_node_law_by_hand():
    p = Categorical(3, range(3), [2, 1, 1])  # 1/2, 1/4, 1/4
    q = Categorical(3, [0, 1], [1, 1])  # uniform over two candidates
    chain = node_law(p, q, ExactMatchSettings(1))
    assert chain.acceptance == F(1, 2) * F(1, 2) + F(1, 4) * F(1, 2)  # sum p·q = 3/8
    tree = node_law(p, q, ExactMatchSettings(2))
    assert tree.kept == {0: F(1, 2), 1: F(1, 4)} and tree.instead == {2: F(1, 4)}  # both drafted: kept 3/4
    assert chain.committed(3) == tree.committed(3) == (F(1, 2), F(1, 4), F(1, 4))
    assert inclusion({0: F(1, 2), 1: F(1, 4), 2: F(1, 4)}, 2) == {0: F(5, 6), 1: F(7, 12), 2: F(7, 12)}


@given(st.lists(st.integers(0, 6), min_size=2, max_size=5), st.lists(st.integers(0, 6), min_size=2, max_size=5),
       st.integers(1, 3))
@settings(max_examples=40, deadline=None)
def test_node_law_commits_p_and_matches_the_played_node(p_tickets, q_tickets, width):
    vocab = min(len(p_tickets), len(q_tickets))
    p_tickets, q_tickets = p_tickets[:vocab], q_tickets[:vocab]
    if not any(p_tickets) or not any(q_tickets):
        return
    p, q = Categorical(vocab, range(vocab), p_tickets), Categorical(vocab, range(vocab), q_tickets)
    node = law(support(p), support(q), ExactMatchSettings(width))
    assert node.committed(vocab) == tuple(probs(p))
    played = exact_match_law(lambda c: p, lambda c: q, (0,), 1, width)
    kept = sum((w for (_, accepted), w in played.items() if accepted), F(0))
    assert kept == node.acceptance
    if width > 1:  # more distinct children never keep less
        assert node.acceptance >= law(support(p), support(q), ExactMatchSettings(width - 1)).acceptance


# --- the tree never commits fewer tokens than its chain, on every draw --------------------------------------


def _round(verifier_prefix, p_model, block, seed):
    streams = RandomStreams(seed, OWNER, 0)
    return ExactMatchVerifier(OWNER, verifier_prefix, "ctx", p_model).verify(block, streams)


@given(st.integers(0, 2**32), st.integers(0, 2**32), st.integers(2, 4), st.integers(1, 5), st.integers(3, 8))
@settings(max_examples=300, deadline=None)
def test_the_tree_commits_at_least_the_chain_s_tokens_on_every_draw(model_seed, seed, width, depth, vocab):
    """The chain's path is in the tree; the same streams give the same sample at each depth: the chain's committed
    tokens are a prefix of the tree's, draw for draw."""
    p_model = _model(model_seed, vocab)
    tree_q, chain_q = _candidates(model_seed, width, vocab)
    prefix = (0, 1)
    streams = RandomStreams(seed, OWNER, 0)
    chain = propose(chain_q, prefix, streams, depth=depth, context_id="ctx")
    tree = propose_tree(tree_q, prefix, RandomStreams(seed, OWNER, 0), depth=depth, width=width, distinct=True,
                        context_id="ctx")
    chain_result = _round(prefix, p_model, chain, seed)
    tree_result = _round(prefix, p_model, tree, seed)
    assert tree_result.tokens[: len(chain_result.tokens)] == chain_result.tokens
    assert tree_result.accepted_drafts >= chain_result.accepted_drafts


def test_the_domination_is_strict_somewhere():
    """Not a tie by construction: over 200 draws the tree commits more than the chain in some and never less."""
    more = 0
    for seed in range(200):
        p_model = _model(seed, 3)
        tree_q, chain_q = _candidates(seed, 3, 3)
        chain = propose(chain_q, (0,), RandomStreams(seed, OWNER, 0), depth=3, context_id="ctx")
        tree = propose_tree(tree_q, (0,), RandomStreams(seed, OWNER, 0), depth=3, width=3, distinct=True,
                            context_id="ctx")
        a, b = _round((0,), p_model, chain, seed), _round((0,), p_model, tree, seed)
        assert len(b.tokens) >= len(a.tokens)
        more += len(b.tokens) > len(a.tokens)
    assert more > 20


# --- the trace and the registry -------------------------------------------------------------------------------


def test_the_trace_says_the_sample_and_the_kept_child():
    p = Categorical(3, range(3), [1, 1, 2])
    q = Categorical(3, [0, 1, 2], [1, 1, 1])
    trace = Trace()
    streams = RandomStreams(5, OWNER, 0)
    tree = propose_tree(lambda c: q, (0,), streams, depth=1, width=2, distinct=True, context_id="ctx", trace=trace)
    result = ExactMatchVerifier(OWNER, (0,), "ctx", lambda c: p).verify(tree, streams, trace=trace)
    checks = [e for e in trace if isinstance(e, ExactMatchTreeCheckEvent)]
    assert checks and len({(e.draw, e.sample) for e in checks}) == 1  # one sample for the node
    sample = checks[0].sample
    assert p.token_at_draw(checks[0].draw) == sample and result.tokens[0] == sample
    corrections = [e for e in trace if isinstance(e, ExactMatchCorrectionEvent)]
    if corrections:
        (c,) = corrections
        assert c.token == sample and not c.residual.prob(tree.children[0].token) and c.kind == "correction"
        assert c.residual_mass == 1 - sum(p.prob(child.token) for child in tree.children)
    else:
        assert checks[-1].accepted and checks[-1].token == sample


def test_names_and_refusals():
    assert check_verification("exact-match:1") == "exact-match" and rule("exact-match:03").name == "exact-match:3"
    found = rule("exact-match:3")
    assert found.width == 3 and found.distinct and found.playable and found.exact and found.family == "exact-match"
    with pytest.raises(RuleParameterError, match="K .* must be a whole number in 1..8"):
        rule("exact-match:9")
    with pytest.raises(BlockError, match="verifies a Block from propose or a Tree"):
        ExactMatchVerifier(OWNER, (0,), "ctx", lambda c: None).verify(object(), RandomStreams(0, OWNER, 0))


@given(st.lists(st.integers(1, 9), min_size=2, max_size=6), st.integers(1, 4), st.integers(0, 3))
@settings(max_examples=60, deadline=None)
def test_a_tree_holding_all_of_q_s_support_keeps_the_same_law_by_exact_match_or_rejection_sampling(
        p_tickets, candidates, shift):
    """A lookup tree drafts every candidate (q uniform over them, width = their number): recursive rejection
    sampling then keeps a child with p's mass on the candidates and that child follows p given the candidates, as
    exact match does. Its node law is exact match's: the rules differ in their draws, not in their law."""
    from specviz import theory

    vocab = len(p_tickets)
    chosen = sorted({(shift + i) % vocab for i in range(min(candidates, vocab))})
    p = Categorical(vocab, range(vocab), p_tickets)
    q = Categorical(vocab, chosen, [1] * len(chosen))
    width = len(chosen)
    match = theory.node_law(f"exact-match:{width}", p, q)
    rrs = theory.node_law(f"multi-distinct:{width}", p, q)
    assert match.kept == rrs.kept and match.instead == rrs.instead
    assert match.acceptance == sum((p.prob(x) for x in chosen), F(0))


# --- against mlx-lm's own loop, transcribed (tests/core/engine_mlx.py) ------------------------------------------


@given(st.integers(0, 2**32), st.integers(1, 5), st.integers(2, 6))
@settings(max_examples=200, deadline=None)
def test_a_chain_commits_what_mlx_lm_s_loop_yields_for_the_same_samples(seed, depth, vocab):
    """The chain's committed tokens are mlx-lm's: the drafts kept while they equal the target's samples, then the
    sample at the first mismatch (or the bonus), given the same target samples at each position."""
    from engine_mlx import speculative_round

    p_model, q_model = _model(seed, vocab), _model(seed + 1, vocab)
    streams = RandomStreams(seed, OWNER, 0)
    trace = Trace()
    block = propose(q_model, (0,), streams, depth=depth, context_id="ctx", trace=trace)
    result = ExactMatchVerifier(OWNER, (0,), "ctx", p_model).verify(block, streams, trace=trace)
    drafts = [proposal.token for proposal in block.proposals]
    samples = [e.sample for e in trace if isinstance(e, ExactMatchCheckEvent)]
    bonus = [e.token for e in trace if e.kind == "bonus"]
    # the positions exact match never sampled (after a mismatch) cannot change mlx-lm's answer: fill them anyhow
    target = (samples + bonus + [0] * (depth + 1))[: depth + 1]
    yielded, kept = speculative_round(drafts, target)
    assert tuple(yielded) == result.tokens and kept == result.accepted_drafts
