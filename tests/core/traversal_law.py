"""Exact laws of traversal rounds for the tests, computed afresh (independent of specviz.core.traversal and theory).

* ``traversal_law``: the rule of Weng et al. (arXiv 2505.12398, §3) written out again in Fractions over lists:
  every way the tree can be drafted (i.i.d. or without replacement), the walk from the leaves up, the weights,
  the residuals and the final token. ``update`` picks how a parent's weight and draft change after a rejected
  child: ``"lossless"`` (Eqs. (2), (3); q′ the law the child was drafted from), ``"subspec"`` (the weight
  update of brian030128/subspec_v2's first version, ``update_residuals_on_rejection``: min(1, Σ(w·p − q)+ / the
  q-mass left)) and ``"remove"`` (the paper's draft update, the rejected token removed from q, applied to i.i.d.
  children too).
* ``played_law``: the real ``propose_tree`` and ``TraversalVerifier`` on every possible sequence of draws
  (tree_law.Scripted), and ``played_tree_law`` the real verifier on one drafted tree.

Both give the law of (committed tokens, kept drafts), comparable with tree_law's ``extend`` and
``autoregressive_law``.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction as F

from tree_law import OWNER, Scripted, classes, probs

from specviz.core import RandomStreams, Trace, propose_tree
from specviz.core.traversal import TraversalVerifier

Law = dict[tuple[tuple[int, ...], int], F]  # (tokens, kept drafts) -> probability
UPDATES = ("lossless", "subspec", "remove")


class _Rule:
    def __init__(self, p_model, q_model, depth, width, distinct, stop_ids, update):
        self.p_model, self.q_model, self.depth, self.width = p_model, q_model, depth, width
        self.distinct, self.stop_ids, self.update = distinct, frozenset(stop_ids), update
        self.memo: dict = {}

    def subtree(self, context, weight, level) -> tuple[Law, F]:
        """(law of what a node at ``level`` entered with ``weight`` commits when it or a node under it is kept, with
        the tokens after it and the drafts kept counted from it; P(its subtree is rejected))."""
        key = (context, weight, level)
        if key in self.memo:
            return self.memo[key]
        x = context[-1] if level else None
        if level == self.depth or x in self.stop_ids or not weight:  # a leaf: kept with its weight
            if not weight:
                after = {}
            elif x in self.stop_ids:
                after = {((), 0): weight}
            else:
                after = {((y,), 0): weight * py for y, py in enumerate(probs(self.p_model(context))) if py}
            found = (after, 1 - weight)
        else:
            found = self._node(context, weight, level)
        self.memo[key] = found
        return found

    def _node(self, context, weight, level) -> tuple[Law, F]:
        p, q = probs(self.p_model(context)), probs(self.q_model(context))
        out: Law = defaultdict(F)
        rejected = F(0)
        # a state: (probability of reaching it, the weight, r, the law the rule judges the next child by, drafted)
        states = [(F(1), weight, list(p), list(q), [])]
        done = []
        for _ in range(self.width):
            following = []
            for reach, w, r, judged, drawn in states:
                offered = self._offered(q, drawn)  # the law the next child is drafted from
                if not any(offered):  # a distinct node whose q has no token left
                    done.append((reach, w, r))
                    continue
                for x, qx in enumerate(offered):
                    if not qx:
                        continue
                    entry = min(F(1), w * r[x] / judged[x]) if w and judged[x] else F(0)
                    below, lost = self.subtree(context + (x,), entry, level + 1)
                    for (tokens, kept), v in below.items():
                        out[((x,) + tokens, kept + 1)] += reach * qx * v
                    if lost:
                        following.append((reach * qx * lost,) + self._rejected(w, r, judged, x, drawn))
            states = following
        for reach, w, r in done + [s[:3] for s in states]:
            if not level:  # the root is never rejected: its token comes from r (the public code falls back to p)
                w, r = F(1), r if any(r) else list(p)
            for y, ry in enumerate(r):
                if ry and w:
                    out[((y,), 0)] += reach * w * ry
            rejected += reach * (1 - w)
        return dict(out), rejected

    def _offered(self, q, drawn):
        if not self.distinct:
            return list(q)
        rest = [F(0) if y in drawn else v for y, v in enumerate(q)]
        mass = sum(rest)
        return [v / mass for v in rest] if mass else rest

    def _rejected(self, w, r, judged, x, drawn):
        """(weight, r, the law the next child is judged by, drafted tokens) after the child x is rejected."""
        drawn = drawn + [x]
        removed = [F(0) if y == x else v for y, v in enumerate(judged)]
        left = sum(removed)
        if self.distinct or self.update == "remove":  # the paper's draft update: x leaves q, renormalized
            judged_next = [v / left for v in removed] if left else removed
        else:
            judged_next = judged
        if not w:
            return F(0), r, judged_next, drawn
        rest = [max(w * ry - qy, F(0)) for ry, qy in zip(r, judged)]
        rho = sum(rest)
        r_new = [v / rho for v in rest] if rho else [F(0)] * len(r)
        if self.update == "subspec":  # parent.p_alpha = min(norm_b / norm_s, 1): ρ over the draft's mass left
            w_new = min(F(1), rho / left) if left and rho else F(0)
        else:
            w_new = rho / (rho + 1 - w) if rho + 1 - w else F(0)
        return w_new, r_new, judged_next, drawn


def traversal_law(p_model, q_model, prefix, depth, width, distinct=False, stop_ids=frozenset(),
                  update="lossless") -> Law:
    """The law of (committed tokens, kept drafts) of one traversal round from prefix, over every drafted tree."""
    rule = _Rule(p_model, q_model, depth, width, distinct, stop_ids, update)
    law, lost = rule._node(tuple(prefix), F(1), 0)
    assert not lost or update != "lossless"  # the root is never rejected
    return law


# --- the real code on every draw ------------------------------------------------------------------


DRAWN = ("tree_draft", "traversal_check", "correction", "bonus")


def _run(script, p_model, q_model, prefix, depth, width, distinct, stop_ids, tree=None):
    log: list[int] = []
    owner, round_id, context_id = (OWNER, 0, "law") if tree is None else (tree.owner, tree.round_id, tree.context_id)
    streams = RandomStreams(0, owner, round_id)
    streams.proposal = streams.acceptance = streams.correction = Scripted(script, log)
    trace = Trace()
    if tree is None:
        tree = propose_tree(q_model, prefix, streams, depth=depth, width=width, context_id=context_id,
                            distinct=distinct, stop_ids=stop_ids, trace=trace)
    verifier = TraversalVerifier(owner, prefix, context_id, p_model, stop_ids=stop_ids)
    result = verifier.verify(tree, streams, trace=trace)
    draws = [e for e in trace if e.kind in DRAWN]
    assert [e.draw_range for e in draws] == log  # every randrange is recorded, in order
    return result, draws


def _played(run) -> Law:
    out: Law = defaultdict(F)
    pending = [([], F(1))]
    while pending:
        script, weight = pending.pop()
        result, draws = run(script)
        if len(draws) == len(script):
            out[(result.tokens, result.accepted_drafts)] += weight
            continue
        for value, share in classes(draws[len(script)]):
            pending.append((script + [value], weight * share))
    return dict(out)


def played_law(p_model, q_model, prefix, depth, width, distinct=False, stop_ids=frozenset()) -> Law:
    """The real propose_tree + TraversalVerifier on every sequence of draws."""
    return _played(lambda script: _run(script, p_model, q_model, tuple(prefix), depth, width, distinct,
                                       frozenset(stop_ids)))


def played_tree_law(tree, p_model, stop_ids=frozenset()) -> Law:
    """The real TraversalVerifier on one drafted tree, on every sequence of acceptance and correction draws."""
    return _played(lambda script: _run(script, p_model, None, tuple(tree.prefix), tree.fixed_depth, tree.width,
                                       tree.distinct, frozenset(stop_ids), tree=tree))


def given_tree_law(tree, p_model, stop_ids=frozenset()) -> Law:
    """What the walk commits on one drafted tree, written afresh (the tree fixed: no sum over drafts)."""
    out: Law = defaultdict(F)
    _given(tree.q, tree.children, tuple(tree.prefix), F(1), (), F(1), tree.distinct, p_model, frozenset(stop_ids), out)
    return dict(out)


def _given(q_dist, children, context, w, tokens_so_far, scale, distinct, p_model, stops, out) -> F:
    """Walk one node (its children, then itself) with everything it adds scaled by ``scale``; returns P(rejected)."""
    p, q = probs(p_model(context)), probs(q_dist)
    r, drawn, reach = list(p), [], F(1)
    for child in children:
        held = sum((q[y] for y in drawn), F(0)) if distinct else F(0)
        q_used = [F(0) if distinct and y in drawn else v / (1 - held) for y, v in enumerate(q)]
        x = child.token
        entry = min(F(1), w * r[x] / q_used[x]) if w else F(0)
        tokens = tokens_so_far + (x,)
        if child.children and entry:
            lost = _given(child.q, child.children, context + (x,), entry, tokens, scale * reach, distinct, p_model,
                          stops, out)
        else:
            if entry:
                if x in stops:
                    out[(tokens, len(tokens))] += scale * reach * entry
                else:
                    for y, py in enumerate(probs(p_model(context + (x,)))):
                        if py:
                            out[(tokens + (y,), len(tokens))] += scale * reach * entry * py
            lost = 1 - entry
        reach *= lost
        if not reach:
            return F(0)
        rest = [max(w * ry - qy, F(0)) for ry, qy in zip(r, q_used)]
        rho = sum(rest)
        r = [v / rho for v in rest] if rho else [F(0)] * len(r)
        w = rho / (rho + 1 - w) if rho + 1 - w and w else F(0)
        drawn.append(x)
    if w:
        for y, ry in enumerate(r):
            if ry:
                out[(tokens_so_far + (y,), len(tokens_so_far))] += scale * reach * w * ry
    return reach * (1 - w)
