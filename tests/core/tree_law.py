"""Exact laws of tree rounds, computed two ways for the tests (independent of specviz.theory).

* ``rrs_law``: the rule written out afresh in Fractions, one token at a time: every drafted
  child (i.i.d. or without replacement), recursive rejection sampling at every node, the
  correction from the residual, the bonus. No core code beyond reading p and q.
* ``played_law``: the real ``propose_tree`` and ``TreeVerifier`` run on every possible
  sequence of integer draws: a scripted random generator answers each ``randrange`` with
  one representative draw per outcome (a token of the Categorical drawn from, or accept
  and reject), weighted by its share of the range. Every run is the real code.

Both give the law of (committed tokens, accepted drafts). ``autoregressive_law`` is p's own
law of the next n tokens (ending at a stop token), and ``extend`` continues committed
tokens with p, so the two can be compared.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction as F

from specviz.core import Categorical, Owner, RandomStreams, Trace, TreeVerifier, propose_tree

OWNER = Owner("law", 0)
Law = dict[tuple[tuple[int, ...], int], F]  # (tokens, accepted drafts) -> probability


def probs(dist) -> list[F]:
    return [dist.prob(x) for x in range(dist.vocab_size)]


# --- the rule written out afresh ----------------------------------------------------------------


def _node_law(p_model, q_model, context, depth_left, width, distinct, stop_ids) -> Law:
    """Law of what the round commits from a node at context whose children are drafted (depth_left >= 1)."""
    p, q = probs(p_model(context)), probs(q_model(context))
    out: Law = defaultdict(F)
    _siblings(p, q, list(p), [], F(1), context, depth_left, width, distinct, stop_ids, p_model, q_model, out)
    return out


def _siblings(p, q, r, drawn, weight, context, depth_left, width, distinct, stop_ids, p_model, q_model, out):
    """Recursive rejection sampling from the next sibling on; r is the current residual (a list)."""
    if len(drawn) == width or (distinct and sum(q[x] for x in drawn) == 1):
        for y, ry in enumerate(r):  # every child rejected: the correction from r
            if ry:
                out[((y,), 0)] += weight * ry
        return
    held = sum((q[x] for x in drawn), F(0)) if distinct else F(0)
    q_prime = [F(0) if distinct and x in drawn else q[x] / (1 - held) for x in range(len(q))]
    for x, qx in enumerate(q_prime):
        if not qx:
            continue
        a = min(F(1), r[x] / qx)
        if a:
            for (tokens, kept), w in _after_accept(x, context, depth_left, width, distinct, stop_ids,
                                                   p_model, q_model).items():
                out[(tokens, kept)] += weight * qx * a * w
        if a < 1:
            rest = [max(ry - qy, F(0)) for ry, qy in zip(r, q_prime)]
            mass = sum(rest)
            _siblings(p, q, [v / mass for v in rest], drawn + [x], weight * qx * (1 - a), context, depth_left,
                      width, distinct, stop_ids, p_model, q_model, out)


def _after_accept(x, context, depth_left, width, distinct, stop_ids, p_model, q_model) -> Law:
    if x in stop_ids:
        return {((x,), 1): F(1)}
    below = context + (x,)
    if depth_left == 1:  # an accepted leaf: the bonus from p
        return {((x, y), 1): py for y, py in enumerate(probs(p_model(below))) if py}
    return {((x,) + tokens, kept + 1): w
            for (tokens, kept), w in _node_law(p_model, q_model, below, depth_left - 1, width, distinct,
                                               stop_ids).items()}


def rrs_law(p_model, q_model, prefix, depth, width, distinct=False, stop_ids=frozenset()) -> Law:
    return dict(_node_law(p_model, q_model, tuple(prefix), depth, width, distinct, frozenset(stop_ids)))


# --- the real code on every draw ------------------------------------------------------------------


class Scripted:
    """A stand-in for random.Random: randrange answers from a script (0 past its end) and logs each range."""

    def __init__(self, script: list[int], log: list[int]):
        self.script, self.log = script, log

    def randrange(self, n: int) -> int:
        index = len(self.log)
        self.log.append(n)
        return self.script[index] if index < len(self.script) else 0


def fixed(dist):
    """A context-free model."""
    return lambda prefix: dist


def markov(rows):
    """A model whose distribution depends on the previous token (row 0 at the empty prefix)."""
    dists = [Categorical.dense(row) for row in rows]
    return lambda prefix: dists[prefix[-1] if prefix else 0]


def classes(event) -> list[tuple[int, F]]:
    """One representative draw per outcome of the draw this event records, with its share of the range."""
    if event.kind in ("tree_check", "traversal_check"):
        a = event.acceptance
        return [(v, w) for v, w in ((0, a), (a.numerator, 1 - a)) if w]
    dist = {"tree_draft": "drawn_from", "correction": "residual", "bonus": "p"}[event.kind]
    start, out = 0, []
    for ticket in getattr(event, dist).tickets:
        if ticket:
            out.append((start, F(ticket, event.draw_range)))
        start += ticket
    return out


def _run(script, p_model, q_model, prefix, depth, width, distinct, stop_ids):
    log: list[int] = []
    streams = RandomStreams(0, OWNER, 0)
    streams.proposal = streams.acceptance = streams.correction = Scripted(script, log)
    trace = Trace()
    tree = propose_tree(q_model, prefix, streams, depth=depth, width=width, context_id="law", distinct=distinct,
                        stop_ids=stop_ids, trace=trace)
    verifier = TreeVerifier(OWNER, prefix, "law", p_model, stop_ids=stop_ids)
    result = verifier.verify(tree, streams, trace=trace)
    draws = [e for e in trace if e.kind in ("tree_draft", "tree_check", "correction", "bonus")]
    assert [e.draw_range for e in draws] == log  # every randrange is recorded, in order
    return result, draws


def played_law(p_model, q_model, prefix, depth, width, distinct=False, stop_ids=frozenset()) -> Law:
    out: Law = defaultdict(F)
    pending = [([], F(1))]
    while pending:
        script, weight = pending.pop()
        result, draws = _run(script, p_model, q_model, tuple(prefix), depth, width, distinct, frozenset(stop_ids))
        if len(draws) == len(script):
            out[(result.tokens, result.accepted_drafts)] += weight
            continue
        for value, share in classes(draws[len(script)]):
            pending.append((script + [value], weight * share))
    return dict(out)


# --- comparing with p ---------------------------------------------------------------------------------


def autoregressive_law(p_model, prefix, n, stop_ids=frozenset()) -> dict[tuple[int, ...], F]:
    """p's law of its next n tokens (a sequence ends early at a stop token)."""
    out = {(): F(1)}
    for _ in range(n):
        grown: dict[tuple[int, ...], F] = defaultdict(F)
        for tokens, w in out.items():
            if tokens and tokens[-1] in stop_ids:
                grown[tokens] += w
                continue
            for y, py in enumerate(probs(p_model(tuple(prefix) + tokens))):
                if py:
                    grown[tokens + (y,)] += w * py
        out = dict(grown)
    return out


def extend(law: Law, p_model, prefix, n, stop_ids=frozenset()) -> dict[tuple[int, ...], F]:
    """The committed tokens continued with p's own samples up to n tokens (or a stop)."""
    out: dict[tuple[int, ...], F] = defaultdict(F)
    for (tokens, _), w in law.items():
        if tokens[-1] in stop_ids:  # the request ended
            out[tokens] += w
            continue
        for rest, v in autoregressive_law(p_model, tuple(prefix) + tokens, n - len(tokens), stop_ids).items():
            out[tokens + rest] += w * v
    return dict(out)


def expected_accepted(law: Law) -> F:
    return sum((w * kept for (_, kept), w in law.items()), F(0))


def first_accepted(law: Law) -> F:
    """P(the first drafted position is accepted)."""
    return sum((w for (_, kept), w in law.items() if kept >= 1), F(0))


# --- one drafted tree: its verification alone ---------------------------------------------------------


def given_tree_law(tree, p_model, stop_ids=frozenset()) -> Law:
    """The law of what verification commits for this drafted tree, by the rule written out afresh."""
    return dict(_given(tree.q, tree.children, tree.distinct, tuple(tree.prefix), p_model, frozenset(stop_ids)))


def _given(q_dist, children, distinct, context, p_model, stop_ids) -> Law:
    if not children:  # an accepted leaf: the bonus
        return {((y,), 0): py for y, py in enumerate(probs(p_model(context))) if py}
    p, q = probs(p_model(context)), probs(q_dist)
    out: Law = defaultdict(F)
    r, weight, drawn = list(p), F(1), []
    for child in children:
        held = sum((q[x] for x in drawn), F(0)) if distinct else F(0)
        q_prime = [F(0) if distinct and x in drawn else q[x] / (1 - held) for x in range(len(q))]
        a = min(F(1), r[child.token] / q_prime[child.token])
        x = child.token
        below = {((), 0): F(1)} if x in stop_ids else _given(child.q, child.children, distinct, context + (x,),
                                                                p_model, stop_ids)
        for (tokens, kept), w in below.items():
            if a and w:
                out[((x,) + tokens, kept + 1)] += weight * a * w
        weight *= 1 - a
        if not weight:
            return out
        r = [max(ry - qy, F(0)) for ry, qy in zip(r, q_prime)]
        mass = sum(r)
        r = [v / mass for v in r]
        drawn.append(x)
    for y, ry in enumerate(r):
        if ry:
            out[((y,), 0)] += weight * ry
    return out


def played_tree_law(tree, p_model, stop_ids=frozenset()) -> Law:
    """The real TreeVerifier on this tree, on every sequence of acceptance and correction draws."""
    out: Law = defaultdict(F)
    pending = [([], F(1))]
    while pending:
        script, weight = pending.pop()
        log: list[int] = []
        streams = RandomStreams(0, tree.owner, tree.round_id)
        streams.proposal = streams.acceptance = streams.correction = Scripted(script, log)
        trace = Trace()
        verifier = TreeVerifier(tree.owner, tree.prefix, tree.context_id, p_model, stop_ids=frozenset(stop_ids))
        result = verifier.verify(tree, streams, trace=trace)
        draws = [e for e in trace if e.kind in ("tree_check", "correction", "bonus")]
        assert [e.draw_range for e in draws] == log
        if len(draws) == len(script):
            out[(result.tokens, result.accepted_drafts)] += weight
            continue
        for value, share in classes(draws[len(script)]):
            pending.append((script + [value], weight * share))
    return dict(out)
