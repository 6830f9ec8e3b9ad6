"""Traversal verification of a draft tree (Weng et al. 2025), exactly: ``traversal:K`` and ``traversal-distinct:K``.

Weng, Hu, Chen, Liu, Mei, Qiu, Tian and Shi, *Traversal Verification for Speculative Tree Decoding* (arXiv
2505.12398, NeurIPS 2025), §3: a tree drafted as for recursive rejection sampling (K children per node, i.i.d.
from q or without replacement) is verified from the leaves to the root, judging the probability of a whole
path, so that a good child can save a rejected parent's subtree.

* Every node v carries a weight, the paper's sequence-level acceptance rate p_α (§3, Eq. (1)): the root's is 1,
  a child x of v enters with w(x) = min(1, w(v)·r_v(x)/q′_v(x)), where r_v is v's target (p at v's context
  before any of v's children was rejected) and q′_v(x) the probability x was drafted with (q for i.i.d.
  children; q renormalized over the tokens v has not drafted yet for distinct ones). With one child per node
  these are block verification's running weights (Sun et al. 2025).
* The tree is walked in post-order, first child first (the paper's Figure 1: X3 → X4 → X1 → X5 → X2): a node is
  tested only after every child subtree of it was rejected, with one draw against its current weight.
* A leaf (at the tree's depth, or a drafted stop token) is tested with its entry weight. Accepted: its whole path
  is kept, then the bonus comes from p at the leaf (nothing after a stop token).
* When a child x of v is rejected (its whole subtree), v's target and weight change (§3, Eqs. (2) and (3)):
  ρ = Σ_y (w(v)·r_v(y) − q′(y))+, r_v ← normalized (w(v)·r_v − q′)+, w(v) ← ρ / (ρ + 1 − w(v)) (0 when the
  denominator is 0, which no rejection reaches), with q′ the distribution x was drafted from. The next sibling
  enters with these; for distinct children q′ then loses x (renormalized), for i.i.d. children it stays q.
* When every child of v was rejected, v itself is tested with its current weight; accepted, the path to v is kept
  and the next token is drawn from v's current r_v (a correction). The root's weight stays 1 (ρ > 0 after any
  rejection that can happen), so after its last child it always commits a correction from its r.

Lossless, for i.i.d. children too (docs/design.md has the argument; ``tests/core/test_traversal_exact.py``
enumerates it): by induction over a subtree, a node entered with weight w is kept (itself or a node under it)
with probability w, and the tokens after it then follow the target, the first from r_v. A rejected child x
drafted from q′ leaves exactly (w·r − q′)+ of the mass still owed and 1 − w + ρ of rejection, which is the next
state above. The only thing the proof needs of q′ is that it is the law of the next child given what the walk has
seen: q renormalized off the drafted tokens for distinct children, q itself for i.i.d. ones (the paper's update
of the draft after a rejection assumes distinct siblings; on i.i.d. children removing the rejected token from q
would judge the next sibling against a law it was not drawn from, and the committed law would leave p).

Where this differs from the paper and public code:
* With one child per node it commits block verification's law, and keeps the same drafts in distribution, but
  draws differently: block verification draws every position from the first and keeps the last hit; traversal
  draws from the leaf up and stops at the first hit, so one draw per tested node (``block_verifier.py``).
* A node entered with weight 0 is tested without its subtree (every weight under it is 0, so nothing there could
  be kept): one draw, not one per node under it.
* brian030128/subspec_v2, ``specdecodes/models/utils/traversal_verification.py`` (commits ce2c3ab and caa9da8,
  ``update_residuals_on_rejection``) sets the parent's weight to min(1, Σ(w·p − q)+ / (q's mass left)) after a
  rejection: not Eq. (3), and lossy (``tests/core/test_traversal_exact.py`` measures it); its later version
  (650ba69, ``traversal_verification_tree``) uses Eq. (3) but takes q from the drafted siblings only and draws
  the token after an accepted inner node from the original p instead of its residual, which is lossy too.

Draws, in this order, so a trace can be replayed:

* proposal stream: ``propose_tree``'s (the tree is drafted exactly as ``multi:K`` / ``multi-distinct:K`` draft it);
* acceptance stream: one draw per tested node in the walk's order, ``randrange(w.denominator) < w.numerator``
  against the node's current weight w;
* correction-or-bonus stream: one draw, the bonus from p at the kept leaf, or the correction from the kept node's
  r (the root's when nothing is kept).

The residuals stay on the core's fast exact path: every r_v after a rejection is normalized (s·p − q)+ for one
exact scale s (q the node's draft, not q′): rejecting x drafted from q′ = q/Z when r = (s·p − q)+/M and the
weight is w gives (w·r − q′)+ = ((w·Z + M)/(M·Z))·(s′·p − q)+ with s′ = w·s·Z/(w·Z + M) (the first rejection,
r = p, gives s′ = w·Z); a rejected token already has r = 0 (its weight was below 1), so masking it changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction

from .arithmetic import residual_mass, residual_with_mass
from .categorical import Categorical
from .errors import BlockError, LawError
from .rule_law import Law, NodeLaw, add, check_pair, support
from .rule_params import Flag, RuleParams
from .streams import RandomStreams
from .trace import BonusEvent, Trace, TraversalCheckEvent, TraversalCorrectionEvent
from .tree import DISTINCT_HELP, DISTINCT_LABEL, WIDTH, Tree, TreeNode, check_tree
from .validation import check_tokens
from .verifier import MAX_WIDTH, Prefix, Result, Verifier, check_streams

_ONE, _ZERO = Fraction(1), Fraction(0)
SOURCE = ("Weng et al. 2025, Traversal Verification for Speculative Tree Decoding (arXiv 2505.12398): the tree "
          "walked from the leaves up, each node tested against the sequence-level weight of its path")
MAX_LAW_WORK = 300_000  # steps of the exact pass (tokens tried, depths added, residual sums) before it is refused


@dataclass(frozen=True)
class TraversalSettings:
    """The tree a traversal round verifies: ``width`` children per node, drawn without replacement when
    ``distinct``."""

    width: int
    distinct: bool = False

    @property
    def name(self) -> str:
        return f"{FAMILIES[self.distinct]}:{self.width}"


# the tree rules' K and distinct (core.tree), under this family's names
PARAMS = RuleParams(TraversalSettings, (WIDTH,), flag=Flag("distinct", DISTINCT_LABEL, DISTINCT_HELP,
                                                           on="traversal-distinct", off="traversal",
                                                           default=TraversalSettings.distinct))
FAMILIES = PARAMS.heads  # the name's family parts: "traversal" (i.i.d. children), "traversal-distinct"


def parse_traversal(name: object) -> TraversalSettings:
    """The settings named by ``traversal:K`` or ``traversal-distinct:K`` (K in 1..MAX_WIDTH; 1 is a chain)."""
    return PARAMS.read(name)


# ---------------------------------------------------------------------------------------------
# one node's state during the walk
# ---------------------------------------------------------------------------------------------


def next_scale(weight: Fraction, scale: Fraction | None, mass: Fraction, z: Fraction) -> tuple[Fraction, Fraction]:
    """(s′, f) with (w·r − q′)+ = f·(s′·p − q)+ after rejecting a child drafted from q′ = q/z, when r = p (scale None)
    or r = (s·p − q)+/mass (module docstring)."""
    if scale is None:
        return weight * z, 1 / z
    return weight * scale * z / (weight * z + mass), (weight * z + mass) / (mass * z)


@dataclass
class NodeState:
    """A node's current weight w and target r (p, then normalized (scale·p − q)+), and its drafted q-mass."""

    p: Categorical
    q: Categorical
    weight: Fraction
    scale: Fraction | None = None  # None: r is p
    mass: Fraction = _ONE  # Σ (scale·p − q)+, r's normalizer
    held: Fraction = _ZERO  # q's mass on the children drafted before the next one (distinct children)
    dead: bool = False  # r has no mass left: every later child and the node itself weigh 0

    def drafted_with(self, token: int, distinct: bool) -> Fraction:
        """q′(x): the probability the next child was drafted with."""
        return self.q.prob(token) / (1 - self.held) if distinct else self.q.prob(token)

    def r(self, token: int) -> Fraction:
        """r(x), the node's current target."""
        if self.dead:
            return _ZERO
        if self.scale is None:
            return self.p.prob(token)
        return max(self.scale * self.p.prob(token) - self.q.prob(token), _ZERO) / self.mass

    def child_weight(self, token: int, distinct: bool) -> Fraction:
        """min(1, w·r(x)/q′(x)): the weight a child x enters with (Eq. (1))."""
        if self.dead or not self.weight:
            return _ZERO
        return min(_ONE, self.weight * self.r(token) / self.drafted_with(token, distinct))

    def reject(self, token: int, distinct: bool) -> Fraction:
        """After the child x (its whole subtree) is rejected: r and w by Eqs. (2) and (3); returns ρ."""
        z = 1 - self.held if distinct else _ONE
        if distinct:
            self.held += self.q.prob(token)
        if self.dead or not self.weight:
            self.dead, self.weight = True, _ZERO
            return _ZERO
        w = self.weight
        scale, factor = next_scale(w, self.scale, self.mass, z)
        mass = residual_mass(self.p, self.q, scale)
        rho = factor * mass
        if not mass:  # (w·r − q′)+ is empty: nothing more can be kept here
            self.dead, self.weight = True, _ZERO
            return _ZERO
        self.scale, self.mass = scale, mass
        denominator = rho + 1 - w
        self.weight = rho / denominator if denominator else _ZERO
        return rho

    def residual(self) -> Categorical:
        """r as a Categorical (the core's scaled residual: integer tickets on the fast path)."""
        return residual_with_mass(self.p, self.q, self.scale)[0]  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# the verifier
# ---------------------------------------------------------------------------------------------


@dataclass
class _Kept:
    """The walk's answer for a subtree: the kept node and its state, or None (the subtree is rejected)."""

    node: TreeNode | None
    state: NodeState | None
    context: Prefix


class TraversalVerifier(Verifier):
    """One request's session verifying drafted trees by traversal verification (rule and draws: module docstring).

    Same constructor, session rules (owner, rounds, prefix, context, stop policy, reset) and Result as
    ``Verifier``; ``verify`` takes a Tree from ``propose_tree``.
    """

    def _check_kind(self, block: object, streams: object) -> None:
        if not isinstance(block, Tree):
            raise BlockError(f"TraversalVerifier verifies a Tree from propose_tree, got {type(block).__name__}; "
                             "verify a Block from propose with Verifier or BlockVerifier")
        check_streams(streams)

    def _check_block(self, block: object) -> int:  # type: ignore[override]
        vocab = check_tree(block, self.stop_ids)
        check_tokens(self.prefix, vocab)
        check_tokens(tuple(self.stop_ids), vocab)
        return vocab

    def verify(self, tree: Tree, streams: RandomStreams, *,  # type: ignore[override]
               trace: Trace | None = None) -> Result:
        """Verify tree with the acceptance and correction streams; record events into trace if given."""
        vocab = self._begin(tree, streams)
        self._vocab, self._tree, self._streams, self._trace = vocab, tree, streams, trace
        root = NodeState(self._target_at(self.prefix, vocab), tree.q, _ONE)
        kept = self._children(root, tree.children, self.prefix)
        if kept.node is None:  # every child of the root rejected: the correction from the root's r
            token = self._correct(root, (), self.prefix, len(tree.children))
            return self._commit(tree.round_id, [token], 0, True, trace)
        node, context = kept.node, kept.context
        output = list(context[len(self.prefix):])
        if node.token in self.stop_ids:
            return self._commit(tree.round_id, output, len(output), False, trace)
        if kept.state is None:  # a kept leaf at the tree's depth: the bonus from p after it
            p = self._target_at(context, vocab, bonus=True)
            token, draw = p.draw(streams.correction)
            if trace is not None:
                trace.append(BonusEvent(tree.round_id, len(output), context, p, draw, p.total, token))
            return self._commit(tree.round_id, [*output, token], len(output), False, trace)
        token = self._correct(kept.state, node.path, context, len(node.children))
        return self._commit(tree.round_id, [*output, token], len(output), True, trace)

    def _children(self, state: NodeState, children: tuple[TreeNode, ...], context: Prefix) -> _Kept:
        """Walk the children of a node (post-order, first child first): the kept node, or None when all are rejected."""
        for sibling, child in enumerate(children):
            x = child.token
            r_x, q_x = state.r(x), state.drafted_with(x, self._tree.distinct)
            parent_weight = state.weight
            entry = weight = state.child_weight(x, self._tree.distinct)
            below = child.children if weight and x not in self.stop_ids else ()
            child_context = context + (x,)
            kept, own, rejected = None, None, 0
            if below:  # the child's subtree first; then the child itself, with its weight after them
                own = NodeState(self._target_at(child_context, self._vocab), child.q, weight)  # type: ignore[arg-type]
                kept = self._children(own, below, child_context)
                if kept.node is not None:
                    return kept
                rejected, weight = len(below), own.weight
            draw = self._streams.acceptance.randrange(weight.denominator)
            ok = draw < weight.numerator
            rho = after = None
            if not ok:
                rho = state.reject(x, self._tree.distinct)
                after = state.weight
            if self._trace is not None:
                self._record(child, sibling, len(children), context, state, (x, r_x, q_x),
                             (entry, weight, parent_weight), draw, ok, rho, after, rejected,
                             ending=self._ending(child, below, ok))
            if ok:
                return _Kept(child, own, child_context)
        return _Kept(None, None, context)

    def _ending(self, child: TreeNode, below: tuple[TreeNode, ...], ok: bool) -> str:
        if not ok:
            return ""
        if child.token in self.stop_ids:
            return "stop"
        return "correction" if below else "bonus"

    def _record(self, child: TreeNode, sibling: int, siblings: int, context: Prefix, state: NodeState,
                token: tuple[int, Fraction, Fraction], weights: tuple[Fraction, Fraction, Fraction], draw: int,
                ok: bool, rho: Fraction | None, after: Fraction | None, rejected: int, ending: str) -> None:
        """The trace's record of one tested node (``token``: x, r(x), q′(x); ``weights``: entry, tested, parent's)."""
        x, r_x, q_x = token
        entry, weight, parent_weight = weights
        pruned = 0 if entry or not child.children else _count(child.children)
        residual = None if ok or state.dead else state.residual()
        kept = tuple(context[len(self.prefix):]) + (x,) if ok else ()
        self._trace.append(TraversalCheckEvent(  # type: ignore[union-attr]
            self._streams.round_id, len(child.path) - 1, child.path, sibling, siblings, context, state.p, state.q, x,
            state.p.prob(x), r_x, q_x, weight, draw, weight.denominator, ok, residual, rho,
            None if ok or state.dead else state.scale, entry, parent_weight, after, rejected, pruned, kept, ending))

    def _correct(self, state: NodeState, path: tuple[int, ...], context: Prefix, children: int) -> int:
        """The token after a kept node whose children were all rejected: a draw from its r."""
        if state.dead or state.scale is None:  # a kept node has weight > 0, so its r has mass: reaching this is a bug
            raise AssertionError(f"traversal verification kept node {list(path)} with no residual to draw from")
        residual = state.residual()
        token, draw = residual.draw(self._streams.correction)
        if self._trace is not None:
            self._trace.append(TraversalCorrectionEvent(
                self._streams.round_id, len(path), context, state.p, state.q, residual, state.mass, draw,
                residual.total, token, path, state.scale, state.weight, children))
        return token


def _count(children: tuple[TreeNode, ...]) -> int:
    """Drafted nodes in these subtrees."""
    return sum(1 + _count(child.children) for child in children)


# ---------------------------------------------------------------------------------------------
# exact theory: the walk's law over every drafted tree, by a pass over node states
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What the walk does with a subtree entered with weight w, over every way it can be drafted and tested:
    ``kept[j]`` = P(the kept node is j levels below its root (0: the root itself)), ``stop`` = P(the kept node is
    a drafted stop token); the subtree is rejected with probability 1 − Σ kept (w, by the lossless argument)."""

    kept: tuple[Fraction, ...]
    stop: Fraction

    @property
    def accepted(self) -> Fraction:
        return sum(self.kept, _ZERO)


LawsAt = Callable[[Prefix], tuple[Law, Law, Hashable]]  # a context -> (p, q, a key p and q depend on only)


@dataclass
class _LawState:
    """NodeState over Laws (theory's twin of the verifier's state)."""

    p: Law
    q: Law
    weight: Fraction
    scale: Fraction | None = None
    mass: Fraction = _ONE
    drawn: frozenset[int] = frozenset()
    held: Fraction = _ZERO
    dead: bool = False

    def r(self, x: int) -> Fraction:
        if self.dead:
            return _ZERO
        if self.scale is None:
            return self.p.get(x, _ZERO)
        return max(self.scale * self.p.get(x, _ZERO) - self.q.get(x, _ZERO), _ZERO) / self.mass

    def rejected(self, x: int | None, distinct: bool) -> _LawState:
        """The state after the child x is rejected (Eqs. (2), (3)), as ``NodeState.reject``."""
        z = 1 - self.held if distinct else _ONE
        drawn, held = self.drawn, self.held
        if distinct and x is not None:
            drawn, held = drawn | {x}, held + self.q[x]
        if self.dead or not self.weight:
            return _LawState(self.p, self.q, _ZERO, self.scale, self.mass, drawn, held, True)
        w = self.weight
        scale, factor = next_scale(w, self.scale, self.mass, z)
        mass = sum((scale * px - self.q.get(y, _ZERO) for y, px in self.p.items()
                    if scale * px > self.q.get(y, _ZERO)), _ZERO)
        if not mass:
            return _LawState(self.p, self.q, _ZERO, self.scale, self.mass, drawn, held, True)
        rho = factor * mass
        denominator = rho + 1 - w
        return _LawState(self.p, self.q, rho / denominator if denominator else _ZERO, scale, mass, drawn, held)

    def key(self) -> tuple:
        return self.weight, self.scale, self.drawn, self.dead

    def r_law(self) -> Law:
        return {x: v for x in self.p if (v := self.r(x))}


class TraversalPass:
    """The exact law of one traversal round over every drafted tree: a recursion over (context key, weight, level),
    each state memoized; ``MAX_LAW_WORK`` steps at most (refused as LawError past it).

    ``laws_at(context)`` gives p, q and the key they depend on; ``stops`` end a path (no children, no bonus).
    """

    def __init__(self, laws_at: LawsAt, depth: int, width: int, distinct: bool,
                 stops: frozenset[int] = frozenset(), limit: int = MAX_LAW_WORK):
        if type(width) is not int or not 1 <= width <= MAX_WIDTH:
            raise LawError(f"width (children per node) must be an int in 1..{MAX_WIDTH}, got {width!r}")
        if type(depth) is not int or depth < 1:
            raise LawError(f"depth must be an int >= 1, got {depth!r}")
        self.laws_at, self.depth, self.width, self.distinct = laws_at, depth, width, distinct
        self.stops, self.limit, self.work = stops, limit, 0
        self.memo: dict[tuple, Outcome] = {}

    def _spend(self, steps: int) -> None:
        self.work += steps
        if self.work > self.limit:
            raise LawError(f"traversal verification's exact pass reaches {self.work:,} steps (tokens tried, depths "
                           f"added, residuals summed) at depth {self.depth} and width {self.width}; it is limited to "
                           f"{self.limit:,}: lower the depth, the width or the vocabulary")

    def root(self, context: Prefix = ()) -> tuple[Outcome, NodeLaw]:
        """The round from context: its Outcome (kept[j] for j drafts kept) and the first committed token's law."""
        first = NodeLaw({}, {})
        return self._visit(context, _ONE, 0, first), first

    def _visit(self, context: Prefix, weight: Fraction, level: int, first: NodeLaw | None = None) -> Outcome:
        """A node at ``level`` (0: the root) entered with this weight, whose children are drafted below it."""
        p, q, key = self.laws_at(context)
        memo_key = (key, weight, level)
        if first is None and memo_key in self.memo:
            return self.memo[memo_key]
        kept = [_ZERO] * (self.depth - level + 1)
        stop = _ZERO
        states: dict[tuple, tuple[_LawState, Fraction]] = {(): (_LawState(p, q, weight), _ONE)}
        finished: list[tuple[_LawState, Fraction]] = []
        for _ in range(self.width):
            following: dict[tuple, tuple[_LawState, Fraction]] = {}
            for state, reach in states.values():
                offered = self._offered(state)
                if not offered:  # a distinct node whose q has no token left: no more children
                    finished.append((state, reach))
                    continue
                # each token tried adds its subtree's depths; a rejection state sums (w·r − q′)+ over p (per token
                # for distinct children, once per sibling for i.i.d. ones)
                self._spend(len(offered) * (len(kept) + (len(p) if self.distinct else 0)) + len(p))
                rejected_any = _ZERO
                for x, qx in offered.items():
                    w = min(_ONE, state.weight * state.r(x) / qx) if state.weight and not state.dead else _ZERO
                    below = self._child(context + (x,), x, w, level + 1)
                    for j, v in enumerate(below.kept):
                        kept[j + 1] += reach * qx * v
                    stop += reach * qx * below.stop
                    if first is not None:
                        add(first.kept, x, reach * qx * below.accepted)
                    rejection = reach * qx * (1 - below.accepted)
                    if not rejection:
                        continue
                    if self.distinct:
                        after = state.rejected(x, True)
                        _merge(following, after, rejection)
                    else:
                        rejected_any += rejection
                if rejected_any:
                    _merge(following, state.rejected(None, False), rejected_any)
            states = following
        finished += list(states.values())
        for state, reach in finished:
            kept[0] += reach * state.weight
            if first is not None and state.weight:
                for y, ry in state.r_law().items():
                    add(first.instead, y, reach * ry)
        outcome = Outcome(tuple(kept), stop)
        if first is None:
            self.memo[memo_key] = outcome
        return outcome

    def _offered(self, state: _LawState) -> Law:
        """q′: the law of the next child given the drafted tokens (q itself for i.i.d. children)."""
        if not self.distinct:
            return state.q
        left = 1 - state.held
        return {x: qx / left for x, qx in state.q.items() if x not in state.drawn} if left else {}

    def _child(self, context: Prefix, token: int, weight: Fraction, level: int) -> Outcome:
        """A child entered with weight: a leaf (at the depth, or a stop token) is kept with its weight."""
        if token in self.stops or level == self.depth or not weight:
            return Outcome((weight,), weight if token in self.stops else _ZERO)
        return self._visit(context, weight, level)


def _merge(states: dict[tuple, tuple[_LawState, Fraction]], state: _LawState, mass: Fraction) -> None:
    key = state.key()
    states[key] = (state, states[key][1] + mass) if key in states else (state, mass)


def constant_pass(p: Categorical, q: Categorical, settings: TraversalSettings, depth: int,
                  limit: int = MAX_LAW_WORK) -> TraversalPass:
    """The pass for a context-independent p and q (no stop tokens)."""
    check_pair(p, q)
    laws = (support(p), support(q), None)
    return TraversalPass(lambda context: laws, depth, settings.width, settings.distinct, limit=limit)


def first_token_law(p: Categorical, q: Categorical, settings: TraversalSettings, depth: int) -> tuple[Fraction, ...]:
    """The exact law of the first committed token of a round of ``depth`` levels, in vocabulary order (p itself:
    the rule is lossless, and this computes what the walk does, not that claim)."""
    return constant_pass(p, q, settings, depth).root()[1].committed(p.vocab_size)


def expected_accepted_drafts(p: Categorical, q: Categorical, settings: TraversalSettings, depth: int) -> Fraction:
    """E[kept drafts] per round for a context-independent p and q, exactly (Σ_j j·P(the kept node is at depth j))."""
    outcome = constant_pass(p, q, settings, depth).root()[0]
    return sum((j * v for j, v in enumerate(outcome.kept)), _ZERO)


def law(p: Law, q: Law, settings: TraversalSettings) -> NodeLaw:
    """One node of a tree of depth 1: recursive rejection sampling over its children (the root's weight stays 1,
    so its children's weights are RRS's acceptances); deeper trees change what the root keeps: ``TraversalPass``."""
    pass_ = TraversalPass(lambda context: (p, q, None), 1, settings.width, settings.distinct)
    return pass_.root()[1]
