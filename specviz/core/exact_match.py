"""Exact match (``exact-match``, ``exact-match:K``), exactly: the target samples its own token y at each node, and
the drafted child equal to y, if any, is kept; when none is, y itself is committed. Every committed token is the
target's own sample, so the law is p whatever the draft, and a draft that has no distribution at all (prompt
lookup's n-gram continuations) is verified without inventing one.

The engine: mlx-lm, ``mlx_lm/generate.py``, ``speculative_generate_step`` (ml-explore/mlx-lm at 0024613): one
target pass over the drafted tokens samples the target's own token at every position with the one ``sampler``
(``_step(model, model_cache, y, num_draft + 1)``), then ``while n < num_draft: if tokens[n] != draft_tokens[n]:
break`` keeps drafts while they equal the target's samples and yields ``tokens[n]``, the target's sample at the
first mismatch or after the last draft. vLLM's ``rejection_sample_method="strict"`` is the same rule (the rules
helper's registry names it). Here, over a tree (``exact-match:K``: K distinct children per node, drafted without
replacement as ``multi-distinct:K`` drafts them), the sample y at a node is compared with every child, and the walk
goes on below the child equal to y: the exact form of verifying a draft-free tree (SpecInfer's and Medusa's greedy
tree verification keep the child equal to the target's argmax; at temperature > 0 this keeps the child equal to its
sample).

Where this differs from mlx-lm: the samples are exact integer draws of p's tickets, the per-node samples on the
acceptance stream and the round's bonus (every draft kept) on the correction-or-bonus stream, as every rule here
draws them; mlx-lm draws every position from one generator, and samples the bonus in the same pass. A stop token
ends the round as in every verifier here.

**A tree never commits fewer tokens than its chain.** With the chain's path among the tree's nodes and the same
streams, node k's sample is the k-th draw of the acceptance stream from the same p for both (the same context),
so the same y: while y follows the chain the tree follows it too; where the chain's draft differs from y the chain
commits y and stops, and the tree keeps y if a sibling holds it (and goes on) or commits the same y. So on every
draw the chain's committed tokens are a prefix of the tree's (tests/core/test_exact_match.py). For the chain of a
point-mass draft (prompt lookup) the law of a round is tokenwise verification's: x kept with probability p(x),
else a token of p without x.

Draws, so a trace can be replayed: the proposal stream drafts the chain (``propose``) or the tree
(``propose_tree``, distinct children); the acceptance stream makes one draw per node the walk reaches,
``randrange(p.total)`` of p's tickets (``Categorical.draw``), which is y; the correction-or-bonus stream makes one
draw only when every draft is kept: the bonus from p. A correction is y itself: no second draw.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .categorical import Categorical
from .errors import BlockError
from .rule_law import Law, NodeLaw, add, check_pair, support
from .rule_params import Param, RuleParams, shown
from .streams import RandomStreams
from .trace import BonusEvent, ExactMatchCheckEvent, ExactMatchCorrectionEvent, ExactMatchTreeCheckEvent, Trace
from .tree import Tree, TreeNode, TreeVerifier, check_tree
from .validation import check_tokens
from .verifier import MAX_WIDTH, Block, Prefix, Result, Verifier, check_streams

_ONE, _ZERO = Fraction(1), Fraction(0)
SOURCE = ("mlx-lm's speculative_generate_step (and vLLM's strict sampler): the target samples its own token at each "
          "node, a drafted child equal to it is kept, else that sample is committed")


@dataclass(frozen=True)
class ExactMatchSettings:
    """K: distinct children per node (1: a chain)."""

    width: int = 1

    @property
    def name(self) -> str:
        return "exact-match" if self.width == 1 else f"exact-match:{self.width}"


# K, declared once: the name's reader, the Playground's switch and --help read it (1, the chain, is "exact-match")
WIDTH = Param("width", "K", "Drafts per node (distinct)", what="distinct drafts per node", count=True,
              high=MAX_WIDTH, default=1,
              help="1: a chain; more: a tree whose children are distinct tokens drawn from q without replacement; at "
                   "each node the target samples one token and the child equal to it is kept")
PARAMS = RuleParams(ExactMatchSettings, (WIDTH,), head="exact-match")


def parse_exact_match(name: object) -> ExactMatchSettings:
    """The settings named by ``exact-match:K`` (K a whole number in 1..MAX_WIDTH; 1 is the chain ``exact-match``)."""
    return PARAMS.read(name)


class ExactMatchVerifier(TreeVerifier):
    """One request's session verifying drafted chains (Blocks) or trees by exact match (see the module docstring).

    Same constructor, session rules and Result as ``Verifier``.
    """

    def _check_kind(self, block: object, streams: object) -> None:
        if not isinstance(block, (Block, Tree)):
            raise BlockError(f"{type(self).__name__} verifies a Block from propose or a Tree from propose_tree, got "
                             f"{type(block).__name__}")
        check_streams(streams)

    def _check_block(self, block: Block | Tree) -> int:  # type: ignore[override]
        if isinstance(block, Block):
            return Verifier._check_block(self, block)
        vocab = check_tree(block, self.stop_ids)
        check_tokens(self.prefix, vocab)
        check_tokens(tuple(self.stop_ids), vocab)
        return vocab

    def verify(self, block: Block | Tree, streams: RandomStreams, *,  # type: ignore[override]
               trace: Trace | None = None) -> Result:
        """Verify a chain or a tree with the acceptance and correction streams; record events into trace if given."""
        vocab = self._begin(block, streams)
        if isinstance(block, Block):  # the chain as a tree of one child per node
            q0 = block.proposals[0].q
            children = _chain_nodes(block)
        else:
            q0, children = block.q, block.children
        current, output, accepted = self.prefix, [], 0
        q = q0
        while children:
            p = self._target_at(current, vocab)
            child, token = self._match(p, q, children, current, streams, trace, chain=isinstance(block, Block))
            output.append(token)
            if child is None:
                return self._commit(block.round_id, output, accepted, True, trace)
            accepted += 1
            current += (token,)
            if token in self.stop_ids:
                return self._commit(block.round_id, output, accepted, False, trace)
            q, children = child.q, child.children  # type: ignore[assignment]
        p = self._target_at(current, vocab, bonus=True)
        token, draw = p.draw(streams.correction)
        if trace is not None:
            trace.append(BonusEvent(block.round_id, len(output), current, p, draw, p.total, token))
        output.append(token)
        return self._commit(block.round_id, output, accepted, False, trace)

    def _match(self, p: Categorical, q: Categorical, children: tuple[TreeNode, ...], context: Prefix,
               streams: RandomStreams, trace: Trace | None, *, chain: bool) -> tuple[TreeNode | None, int]:
        """The target's sample y at this node; (the child equal to y, y), or (None, y) when no child is."""
        y, draw = p.draw(streams.acceptance)
        matched = next((child for child in children if child.token == y), None)
        if trace is not None:
            _record(trace, streams.round_id, p, q, children, context, y, draw, matched, chain)
        return matched, y


def _chain_nodes(block: Block) -> tuple[TreeNode, ...]:
    """A drafted chain as the tree it is: one child per node, the last a leaf."""
    node: TreeNode | None = None
    for position in range(len(block.proposals) - 1, -1, -1):
        proposal = block.proposals[position]
        following = block.proposals[position + 1].q if position + 1 < len(block.proposals) else None
        node = TreeNode((0,) * (position + 1), proposal.token, proposal.q, following, () if node is None else (node,))
    return (node,) if node is not None else ()


def _record(trace: Trace, round_id: int, p: Categorical, q: Categorical, children: tuple[TreeNode, ...],
            context: Prefix, y: int, draw: int, matched: TreeNode | None, chain: bool) -> None:
    """The node's events: each child compared with y in order, up to the one kept; or every child and the
    correction y. A child's ``acceptance`` is P(y = x | y is none of the earlier children) = r(x), r = p without
    the earlier children, renormalized; after a mismatch ``residual`` is r without this child too."""
    position = len(children[0].path) - 1
    held = _ZERO  # p's mass on the children compared so far
    residual: Categorical | None = None
    for sibling, child in enumerate(children):
        x, p_x = child.token, p.prob(child.token)
        r_x = p_x / (1 - held) if held < 1 else _ZERO
        ok = child is matched
        share = None
        if not ok:
            residual = p.without([c.token for c in children[: sibling + 1]])
            share = (1 - held - p_x) / (1 - held)
            held += p_x
        if chain:
            trace.append(ExactMatchCheckEvent(round_id, position, context, p, q, x, p_x, q.prob(x), r_x, draw, p.total,
                                              ok, y))
        else:
            trace.append(ExactMatchTreeCheckEvent(
                round_id, position, child.path, sibling, len(children), context, p, q, x, p_x, r_x,
                child.drawn_from.prob(x), r_x, draw, p.total, ok, None if ok else residual,
                share, None, y))
        if ok:
            return
    trace.append(ExactMatchCorrectionEvent(round_id, position, context, p, q, residual, 1 - held, draw, p.total, y,
                                           children[0].path[:-1], None))  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# exact theory
# ---------------------------------------------------------------------------------------------
MAX_INCLUSION_PATHS = 110_000  # ordered draws one node's inclusion probabilities may sum over (theory's own bound)


def inclusion(q: Law, width: int) -> Law:
    """P(x is among the node's children) for width children drawn from q without replacement (K = 1: q itself).

    Sums over the ordered draws (an explicit stack), at most MAX_INCLUSION_PATHS of them: theory refuses larger
    nodes before calling this (``check_rejection_paths``).
    """
    if type(width) is not int or not 1 <= width <= MAX_WIDTH:
        raise BlockError(f"exact match's K must be an int in 1..{MAX_WIDTH}, got {shown(width)}")
    inside: Law = {}
    stack: list[tuple[frozenset[int], Fraction]] = [(frozenset(), _ONE)]
    while stack:
        drawn, chance = stack.pop()
        left = {x: qx for x, qx in q.items() if x not in drawn}
        total = sum(left.values(), _ZERO)
        if len(drawn) == width or not total:
            continue
        for x, qx in left.items():
            here = chance * qx / total
            add(inside, x, here)
            stack.append((drawn | {x}, here))
    return inside


def law(p: Law, q: Law, settings: ExactMatchSettings) -> NodeLaw:
    """One node over Laws: kept[x] = p(x)·P(x drafted); instead[y] = p(y)·(1 − P(y drafted)). Committed: p."""
    inside = inclusion(q, settings.width)
    kept = {x: p[x] * chance for x, chance in inside.items() if x in p}
    instead = {y: py * (1 - inside.get(y, _ZERO)) for y, py in p.items() if inside.get(y, _ZERO) != 1}
    return NodeLaw(kept, instead)


def node_law(p: Categorical, q: Categorical, settings: ExactMatchSettings) -> NodeLaw:
    """One node of Categoricals p and q (see ``law``)."""
    check_pair(p, q)
    return law(support(p), support(q), settings)
