"""Draft trees and their verification by recursive rejection sampling, exactly.

A tree of depth d and width K: the root (the committed prefix) and every drafted node above
depth d get K children drawn from the draft q at that node's prefix: i.i.d. (SpecInfer;
llama.cpp's stochastic multi-draft verification) or, with ``distinct=True``, without replacement
(Recursive Speculative Decoding, Jeon et al. 2024): child k is drawn from q' = q renormalized
over the tokens not drawn yet at that node. When q has fewer tokens with mass than K, a
distinct node gets as many children as q has such tokens (q' would have no mass left).

Verification walks down from the root. At a node with target p and children x_1..x_m (draw
order) it runs recursive rejection sampling: r starts as p; child x_k is accepted with
probability min(1, r(x_k)/q'_k(x_k)); after a rejection r becomes the normalized (r - q'_k)+.
An accepted child is committed and its own children are checked the same way; when every
child of a node is rejected, one correction token is drawn from the last r and the round ends;
at an accepted leaf one bonus token is drawn from p at the leaf. A drafted stop token is a leaf:
committing it ends the request, with no bonus after it. The committed tokens are distributed
exactly as the target's own samples. With K = 1 this is tokenwise verification, draw for draw.

The residuals stay on the core's fast exact path: after the first rejection at a node,
r = normalized (s*p - q)+ for one exact scale s in (0, 1] (s = 1 after the first rejection), with
q the node's draft (not q'). Rejecting x_k (drawn from q' = q/Z off the earlier siblings, Z = 1
for i.i.d. children) when r = (s*p - q)+/M gives (r - q')+ = ((Z + M)/(Z M)) * (s'*p - q)+ with
s' = s*Z/(Z + M): the earlier siblings, all rejected, already have r = 0. So every r and its
mass is the core's scaled residual (integer tickets over two raw vectors), never a residual of
a residual.

Draws, in this order, so a trace can be replayed:

* proposal stream (``propose_tree``): level by level from the root; within a level, nodes in
  the order of their paths (the parent's order, then sibling index); each node draws its
  children in sibling order, ``randrange(q'.total)`` each (q' = q for i.i.d. children). Stop
  tokens and nodes at depth d draw nothing. With K = 1 these are ``propose``'s draws.
* acceptance stream (``TreeVerifier.verify``): one draw per checked child, in the order the
  walk checks them, ``randrange(a.denominator) < a.numerator`` with a = min(1, r(x)/q'(x));
  children after an accepted sibling are never checked.
* correction-or-bonus stream: one draw, of the correction from r or of the bonus from p.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from .arithmetic import acceptance, residual_mass, residual_with_mass
from .categorical import Categorical
from .errors import BlockError, ProposalError
from .rule_params import Flag, Param, RuleParams
from .streams import Owner, RandomStreams
from .trace import BonusEvent, StopEvent, Trace, TreeCheckEvent, TreeCorrectionEvent, TreeDraftEvent
from .validation import check_token, check_tokens
from .verifier import (
    MAX_DEPTH,
    MAX_WIDTH,
    ContextCheck,
    Model,
    Prefix,
    Result,
    Verifier,
    check_callable,
    check_depth,
    check_streams,
    model_output,
    prefix_tuple,
    stop_set,
)

_ONE, _ZERO = Fraction(1), Fraction(0)
Path = tuple[int, ...]
# Drafted nodes x tokens a tree may hold: every internal node keeps its q, and every distinct child its
# masked copy q'. 2**27 cells are about 1 GiB of 8-byte tickets; a width-4, depth-5 distinct tree at
# V = 49,152 (SmolLM2) needs 84 million, width 8 at depth 5 over two billion (over 20 GB).
MAX_TREE_CELLS = 2**27


# --- the tree rules' names (multi:K, multi-distinct:K; traversal:K reads the same K and distinct) ---------------
@dataclass(frozen=True)
class TreeSettings:
    """A drafted tree's shape as a name gives it: ``width`` children per node, drawn without replacement when
    ``distinct`` (recursive rejection sampling: ``multi:K`` / ``multi-distinct:K``)."""

    width: int
    distinct: bool = False

    @property
    def name(self) -> str:
        return f"{PARAMS.flag.on if self.distinct else PARAMS.flag.off}:{self.width}"  # type: ignore[union-attr]


# K and distinct, declared once for every tree rule: the name's reader, the Playground's switch and --help read them
WIDTH = Param("width", "K", "Drafts per node (width)", count=True, high=MAX_WIDTH, default=2)
DISTINCT_LABEL = "Distinct drafts (without replacement)"
DISTINCT_HELP = ("on: a node's children are drawn without replacement (q renormalized over the tokens not drawn yet); "
                 "off: i.i.d. from q")
PARAMS = RuleParams(TreeSettings, (WIDTH,), flag=Flag("distinct", DISTINCT_LABEL, DISTINCT_HELP, on="multi-distinct",
                                                    off="multi", default=TreeSettings.distinct))


class TreeSizeError(BlockError):
    """A tree would hold more nodes x tokens than MAX_TREE_CELLS (refused before it is drafted)."""


class TreePathError(BlockError, KeyError):
    """A path names no drafted node of the tree (the empty path is the root, which holds no token)."""


@dataclass(frozen=True, eq=False)
class TreeNode:
    """One drafted token: where it sits, the q' it was drawn from, and its children."""

    path: Path  # sibling indices from the root: (1,) is the root's second child, (1, 0) its first child
    token: int
    drawn_from: Categorical  # q': the draft q, renormalized over the tokens not drawn yet for distinct children
    q: Categorical | None  # the draft at this node's prefix, which its children were drawn from (None: a leaf)
    children: tuple[TreeNode, ...]


@dataclass(frozen=True, eq=False)
class Tree:
    """A drafted tree: the root's draft q and children, and everything a session checks."""

    owner: Owner
    round_id: int
    prefix: Prefix
    context_id: str
    fixed_depth: int
    width: int
    distinct: bool
    q: Categorical  # the draft at the prefix, which the root's children were drawn from
    children: tuple[TreeNode, ...]
    stop_ids: frozenset[int]

    def nodes(self) -> list[TreeNode]:
        """Every drafted node in draw order (level by level, by path)."""
        _check_children_type(self.children, ())
        out: list[TreeNode] = []
        level = list(self.children)
        while level:
            out.extend(level)
            for node in level:
                if not isinstance(node, TreeNode):
                    raise BlockError(f"invalid tree: every node must be a TreeNode, got {node!r:.80}")
                _check_children_type(node.children, node.path)
            level = [child for node in level for child in node.children]
        return out

    def node(self, path: Path) -> TreeNode:
        """The node at path (a tuple of sibling indices)."""
        children, node = self.children, None
        for index in path:
            _check_children_type(children, () if node is None else node.path)
            node = children[index]
            children = node.children
        if node is None:
            raise TreePathError("the empty path names the root, which holds no drafted token")
        return node


def _check_width(width: object) -> None:
    if type(width) is not int or not 1 <= width <= MAX_WIDTH:
        raise BlockError(f"tree width (drafts per node) must be an int in 1..{MAX_WIDTH}: got {width!r}")


def _check_draft_args(depth: object, width: object, distinct: object, context_id: object) -> None:
    check_depth(depth)
    _check_width(width)
    if type(distinct) is not bool:
        raise BlockError(f"distinct must be True or False (draw children without replacement or not): got {distinct!r}")
    if not context_id:
        raise BlockError(
            "processor/model context identity is required: pass a nonempty context_id naming the "
            "model and processor settings"
        )


@dataclass
class _Drafted:
    """A node while the tree is drafted (frozen into a TreeNode at the end)."""

    path: Path
    token: int
    drawn_from: Categorical
    q: Categorical | None = None
    children: list[_Drafted] | None = None

    def freeze(self) -> TreeNode:
        kids = tuple(child.freeze() for child in self.children or ())
        return TreeNode(self.path, self.token, self.drawn_from, self.q, kids)


DraftedNode = _Drafted  # a node while its tree grows (``grow_tree``'s ``children`` return them)


def _draw_children(q: Categorical, path: Path, context: Prefix, width: int, distinct: bool,
                   streams: RandomStreams, trace: Trace | None) -> list[_Drafted]:
    """Up to width children of the node at path, drawn from q (without replacement when distinct)."""
    children: list[_Drafted] = []
    held = _ZERO  # q's mass on the children drawn so far
    for sibling in range(width):
        if distinct and held == 1:  # q has no token left with mass: fewer children
            break
        drawn_from = q.without([c.token for c in children]) if distinct and children else q
        token, draw = drawn_from.draw(streams.proposal)
        q_token = q.prob(token)
        child = _Drafted(path + (sibling,), token, drawn_from)
        if trace is not None:
            scaled = q_token / (1 - held) if distinct else q_token
            trace.append(TreeDraftEvent(streams.round_id, len(path), child.path, sibling, context, q, drawn_from,
                                        scaled, draw, drawn_from.total, token))
        held += q_token
        children.append(child)
    return children


def tree_cells(depth: int, width: int, support: int, distinct: bool) -> int:
    """Cells (node x token) a full tree holds: a q per internal node (the root included), a q' per distinct child."""
    internal = 1 + tree_size(depth - 1, width)
    return support * (internal + (tree_size(depth, width) if distinct else 0))


def check_tree_cells(depth: int, width: int, support: int, distinct: bool) -> None:
    """TreeSizeError unless a full tree of this shape over a q of this support fits MAX_TREE_CELLS."""
    cells = tree_cells(depth, width, support, distinct)
    if cells <= MAX_TREE_CELLS:
        return
    fits = [d for d in range(1, depth) if tree_cells(d, width, support, distinct) <= MAX_TREE_CELLS]
    lower = f"a depth of {fits[-1]} or less, " if fits else ""
    copies = " and every distinct child a masked copy q'" if distinct else ""
    raise TreeSizeError(
        f"tree too large: width {width} and depth {depth} draft up to {tree_size(depth, width):,} nodes; every "
        f"internal node keeps its q{copies}, so over the draft's {support:,} tokens the tree holds "
        f"{cells:,} node x token cells, over the limit of {MAX_TREE_CELLS:,} (about 1 GiB); choose {lower}a "
        "smaller width, or a draft with fewer tokens (top-k)")


def propose_tree(draft: Model, prefix: Prefix, streams: RandomStreams, *, depth: int, width: int,
                 context_id: str, distinct: bool = False, stop_ids: frozenset[int] = frozenset(),
                 trace: Trace | None = None) -> Tree:
    """Draft a tree of the given depth and width from draft (draw order: see the module docstring).

    Time is linear in the round's nodes: the committed prefix is checked once per round (``ContextCheck``),
    not once per node. TreeSizeError before anything is drawn when the tree would hold more than
    MAX_TREE_CELLS node x token cells (from the root q's support).
    """
    return grow_tree(draft, prefix, streams, depth=depth, width=width, context_id=context_id, distinct=distinct,
                     stop_ids=stop_ids, trace=trace, children=_draw_children)


# how a tree's node gets its children: (q, the node's path, its context, width, distinct, streams, trace) -> them
Children = Callable[[Categorical, Path, Prefix, int, bool, RandomStreams, "Trace | None"], list[_Drafted]]


def grow_tree(draft: Model, prefix: Prefix, streams: RandomStreams, *, depth: int, width: int, context_id: str,
              distinct: bool, stop_ids: frozenset[int], trace: Trace | None, children: Children) -> Tree:
    """A tree grown level by level, each node's children chosen by ``children`` (drawn from q by ``propose_tree``,
    q's K most likely tokens by SGLang's top-K drafting): the checks, the limits and the shape are the same."""
    _check_draft_args(depth, width, distinct, context_id)
    check_callable(draft, "draft model")
    check_streams(streams)
    prefix, stop_ids = prefix_tuple(prefix), stop_set(stop_ids)
    checked = ContextCheck(prefix, stop_ids)
    root = _Drafted((), -1, None)  # type: ignore[arg-type]
    level = [(root, prefix, -1)]  # each node to draw children for, its context and the context's highest draft
    for height in range(depth):
        following = []
        for node, context, high in level:
            q = model_output(draft(context), "draft model")
            checked.check(context, high, q.vocab_size)
            if node is root:  # before any child (and any masked copy of q) is made
                check_tree_cells(depth, width, q.listed_size, distinct)
            node.q = q
            node.children = children(q, node.path, context, width, distinct, streams, trace)
            for child in node.children:
                if child.token in stop_ids:  # a drafted stop token is a leaf
                    if trace is not None:
                        trace.append(StopEvent(streams.round_id, len(child.path) - 1, child.token, "draft"))
                elif height + 1 < depth:  # the last level draws nothing: no context to build
                    following.append((child, context + (child.token,), max(high, child.token)))
        level = following
    kids = tuple(child.freeze() for child in root.children or ())
    return Tree(streams.owner, streams.round_id, prefix, context_id, depth, width, distinct, root.q, kids, stop_ids)


# ---------------------------------------------------------------------------------------------
# checking a tree's shape
# ---------------------------------------------------------------------------------------------


def _check_children_type(children: object, path: Path) -> None:
    """A hand-built node's children are a tuple (or list) of TreeNodes: () for a leaf, never None."""
    if not isinstance(children, (tuple, list)):
        where = f"node {list(path)}" if path else "the root"
        raise BlockError(f"invalid tree: the children of {where} must be a tuple of TreeNodes (() for a leaf), "
                         f"got {children!r:.80} of type {type(children).__name__}")


def _check_siblings(q: Categorical, children: tuple[TreeNode, ...], path: Path, tree: Tree, vocab: int) -> None:
    """The children of the node at path: how many, their paths and tokens, q > 0, distinct when asked."""
    _check_children_type(children, path)
    count = len(children)
    if not 1 <= count <= tree.width:
        raise BlockError(f"invalid tree: node {list(path)} has {count} children; every drafted node above the "
                         f"fixed depth {tree.fixed_depth} needs 1..{tree.width} (the width)")
    seen: set[int] = set()
    for sibling, child in enumerate(children):
        if not isinstance(child, TreeNode) or child.path != path + (sibling,):
            raise BlockError(f"invalid tree: child {sibling} of node {list(path)} must be a TreeNode at path "
                             f"{list(path + (sibling,))}, got {child!r:.80}")
        check_token(child.token, vocab)
        if q._raw_ticket(child.token) == 0:  # q(x) = 0, without the exact total q.prob would need
            raise ProposalError(
                f"invalid proposal distribution/token: token {child.token} at node {list(child.path)} needs q > 0 "
                f"and every q on the vocabulary of {vocab} tokens"
            )
        if tree.distinct and child.token in seen:
            raise ProposalError(f"invalid distinct tree: token {child.token} is drawn twice among the children of "
                                f"node {list(path)}; distinct children are drawn without replacement")
        seen.add(child.token)
    if count < tree.width and not (tree.distinct and sum((q.prob(x) for x in seen), _ZERO) == 1):
        raise BlockError(
            f"invalid tree: node {list(path)} has {count} of {tree.width} children; only a distinct node whose q "
            "has no token left with mass drafts fewer"
        )


def _check_node(node: TreeNode, tree: Tree, stop_ids: frozenset[int], vocab: int) -> None:
    """A node is a leaf exactly at the fixed depth or on a stop token; otherwise its children are checked."""
    _check_children_type(node.children, node.path)
    leaf = node.token in stop_ids or len(node.path) == tree.fixed_depth
    if leaf:
        if node.children or node.q is not None:
            raise BlockError(f"invalid tree: node {list(node.path)} has children at the fixed depth "
                             f"{tree.fixed_depth} or after a stop token")
        return
    if not node.children:
        raise BlockError(
            f"depth may shorten only on a terminal token: node {list(node.path)} at depth {len(node.path)} of "
            f"{tree.fixed_depth} has no children and is not a stop token"
        )
    _check_q(node.q, vocab, node.path)
    _check_siblings(node.q, node.children, node.path, tree, vocab)  # type: ignore[arg-type]
    for child in node.children:
        _check_node(child, tree, stop_ids, vocab)


def _check_q(q: object, vocab: int, path: Path) -> None:
    if not isinstance(q, Categorical) or q.vocab_size != vocab:
        raise ProposalError(
            f"invalid proposal distribution/token: the draft q at node {list(path)} must be a Categorical on the "
            f"vocabulary of {vocab} tokens, got {q!r:.80}"
        )


def check_tree(tree: Tree, stop_ids: frozenset[int]) -> int:
    """Validate a drafted tree's depth, width and nodes; returns the vocabulary size."""
    depth, width, distinct = tree.fixed_depth, tree.width, tree.distinct
    if type(depth) is not int or not 1 <= depth <= MAX_DEPTH or type(width) is not int \
            or not 1 <= width <= MAX_WIDTH or type(distinct) is not bool:
        raise BlockError(
            f"invalid tree: depth {depth!r} must be in 1..{MAX_DEPTH}, width {width!r} in 1..{MAX_WIDTH} and "
            f"distinct {distinct!r} True or False"
        )
    if not isinstance(tree.q, Categorical):
        raise ProposalError(f"invalid proposal distribution/token: the tree's root q must be a Categorical, "
                            f"got {tree.q!r:.80}")
    vocab = tree.q.vocab_size
    _check_siblings(tree.q, tree.children, (), tree, vocab)
    for child in tree.children:
        _check_node(child, tree, stop_ids, vocab)
    return vocab


# ---------------------------------------------------------------------------------------------
# recursive rejection sampling at one node
# ---------------------------------------------------------------------------------------------


@dataclass
class _Residual:
    """The current r at a node: p before any rejection, then normalized (scale*p - q)+ with mass."""

    p: Categorical
    q: Categorical
    scale: Fraction | None = None  # None: r is p
    mass: Fraction = _ONE  # sum (scale*p - q)+ (r's normalizer)
    last_mass: Fraction | None = None  # the mass of the last (r - q')+ before normalizing
    categorical: Categorical | None = None  # r as a Categorical, once built

    def at(self, token: int) -> Fraction:
        """r(token)."""
        if self.scale is None:
            return self.p.prob(token)
        return max(self.scale * self.p.prob(token) - self.q.prob(token), _ZERO) / self.mass

    def acceptance(self, token: int, z: Fraction) -> Fraction:
        """min(1, r(x)/q'(x)) with q'(x) = q(x)/z; before any rejection exactly tokenwise's acceptance."""
        if self.scale is None and z == 1:
            return acceptance(self.p, self.q, token)
        return min(_ONE, self.at(token) * z / self.q.prob(token))

    def reject(self, z: Fraction) -> None:
        """r <- normalized (r - q')+ after rejecting a child drawn from q' = q/z (off the earlier siblings)."""
        if self.scale is None:
            scale, factor = _ONE, _ONE
        else:
            scale = self.scale * z / (z + self.mass)
            factor = (z + self.mass) / (z * self.mass)
        mass = residual_mass(self.p, self.q, scale)
        self.scale, self.mass, self.last_mass, self.categorical = scale, mass, factor * mass, None

    def build(self) -> Categorical:
        """r as a Categorical (the core's scaled residual: integer tickets on the fast path)."""
        if self.categorical is None:
            self.categorical = residual_with_mass(self.p, self.q, self.scale)[0]  # type: ignore[arg-type]
        return self.categorical


class TreeVerifier(Verifier):
    """One request's session verifying drafted trees by recursive rejection sampling.

    Same constructor, session rules (owner, rounds, prefix, context, stop policy, reset) and
    Result as ``Verifier``; ``verify`` takes a Tree from ``propose_tree``. The rule and the
    draws are in the module docstring.
    """

    def _check_kind(self, block: object, streams: object) -> None:
        if not isinstance(block, Tree):
            raise BlockError(f"TreeVerifier verifies a Tree from propose_tree, got {type(block).__name__}; "
                             "verify a Block from propose with Verifier or BlockVerifier")
        check_streams(streams)

    def _check_block(self, block: object) -> int:  # type: ignore[override]
        vocab = check_tree(block, self.stop_ids)
        check_tokens(self.prefix, vocab)  # once per round, at C speed while every token is a valid int
        check_tokens(tuple(self.stop_ids), vocab)
        return vocab

    def verify(self, tree: Tree, streams: RandomStreams, *,  # type: ignore[override]
               trace: Trace | None = None) -> Result:
        """Verify tree with the acceptance and correction streams; record events into trace if given."""
        vocab = self._begin(tree, streams)
        current = self.prefix
        output: list[int] = []
        accepted = 0
        q, children = tree.q, tree.children
        while children:
            p = self._target_at(current, vocab)
            child, token = self._check_children(p, q, children, tree.distinct, current, streams, trace)
            output.append(token)
            if child is None:
                return self._commit(tree.round_id, output, accepted, True, trace)
            accepted += 1
            current += (token,)
            if token in self.stop_ids:
                return self._commit(tree.round_id, output, accepted, False, trace)
            q, children = child.q, child.children
        p = self._target_at(current, vocab, bonus=True)
        token, draw = p.draw(streams.correction)
        if trace is not None:
            trace.append(BonusEvent(tree.round_id, len(output), current, p, draw, p.total, token))
        output.append(token)
        return self._commit(tree.round_id, output, accepted, False, trace)

    def _check_children(self, p: Categorical, q: Categorical, children: tuple[TreeNode, ...], distinct: bool,
                        context: Prefix, streams: RandomStreams,
                        trace: Trace | None) -> tuple[TreeNode | None, int]:
        """Recursive rejection sampling over children: (the accepted child, its token), or (None, the correction)."""
        r = _Residual(p, q)
        held = _ZERO
        for sibling, child in enumerate(children):
            x = child.token
            z = 1 - held if distinct else _ONE
            r_x, a = r.at(x), r.acceptance(x, z)
            draw = streams.acceptance.randrange(a.denominator)
            ok = draw < a.numerator
            if not ok:
                r.reject(z)
                held += q.prob(x)
            if trace is not None:
                trace.append(TreeCheckEvent(
                    streams.round_id, len(child.path) - 1, child.path, sibling, len(children), context, p, q, x,
                    p.prob(x), r_x, q.prob(x) / z, a, draw, a.denominator, ok, None if ok else r.build(),
                    None if ok else r.last_mass, None if ok else r.scale))
            if ok:
                return child, x
        residual = r.build()
        token, draw = residual.draw(streams.correction)
        if trace is not None:
            trace.append(TreeCorrectionEvent(streams.round_id, len(children[0].path) - 1, context, p, q, residual,
                                             r.last_mass, draw, residual.total, token, children[0].path[:-1],
                                             r.scale))
        return None, token


def tree_size(depth: int, width: int) -> int:
    """Drafted nodes in a full tree: width + width**2 + ... + width**depth."""
    return sum(width**level for level in range(1, depth + 1))

