"""How a real-model round drafts and scores, for each family of verification rules (one FamilyTable).

A chain rule (tokenwise, block) drafts one chain with ``propose`` and the target scores it in one
forward. A tree rule (``multi:K``, ``multi-distinct:K``) drafts K children per node with
``propose_tree`` (width and distinct from the rule: i.i.d. or without replacement) and the target
scores the whole tree in one forward with a tree attention mask (specviz.models.tree_attention),
or one forward per root-to-leaf path where the model's self-check says it cannot. A model draft
scores its own tree one level per forward: every node of a level in one pass (its frontier is read
from the round's trace, where ``propose_tree`` records each child as it draws it), so a tree costs
the draft as many forwards as a chain of the same depth.

Prompt lookup under a tree rule drafts the lookup tree (specviz.models.lookup_tree): up to K
n-gram continuations per node.

A new playable family (phase 2's ``ensemble:W``, ``threshold:S,A``, Medusa's typical acceptance) is one
entry in ``ROUNDS_BY_FAMILY``: the chain or the tree round it drafts, or a new shape with the same five methods
(check, adapt, support, propose, score); the table's completeness test names a family left out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from specviz.core import Block, Categorical, RandomStreams, Rule, Trace, Tree, draft_round, propose
from specviz.core.tree import tree_size
from specviz.core.verification import FamilyTable
from specviz.models.drafts import Draft, LookupDraft
from specviz.models.lm import Prefix
from specviz.models.lookup_tree import MAX_LOOKUP_WIDTH, LookupTreeDraft
from specviz.models.model_errors import ModelSettingError
from specviz.models.target import TargetModel
from specviz.models.tree_attention import TreeSupport

MAX_TREE_WIDTH = MAX_LOOKUP_WIDTH  # children per node on real models (the Playground's 1..4)
MAX_TREE_NODES = 120  # a full tree scored in one target pass: width 2 depth 5 (62), 3 and 4 (120), 4 and 3 (84)


@dataclass(frozen=True)
class Drafted:
    """One round's draft: the Block or Tree the verifier checks, its tokens in draw order, and how many nodes."""

    block: Block | Tree
    tokens: tuple[int, ...]  # a chain's drafted tokens; a tree's nodes level by level (propose_tree's order)
    nodes: int
    depth: int  # drafted levels: a chain's length, a tree's deepest node


def node_paths(tree: Tree) -> list[tuple[int, ...]]:
    """The drafted tokens from the root to every node of the tree (the keys the target scores)."""
    out: list[tuple[int, ...]] = []
    stack = [((), tree.children)]
    while stack:
        tokens, children = stack.pop()
        for child in children:
            path = tokens + (child.token,)
            out.append(path)
            stack.append((path, child.children))
    return out


class LevelBatch:
    """The draft as propose_tree calls it: the first call at a tree level scores the whole level in one pass.

    propose_tree drafts level by level and records every child in the trace as it draws it, so when
    the first node of a level asks for its q, every node of that level is known: the draft scores
    them all at once (``Draft.prefetch_level``) and serves each node's q from its memo.
    """

    def __init__(self, draft: Draft, root: Prefix, trace: Trace | None, stop_ids: frozenset[int]):
        self.draft, self.root, self.trace, self.stop_ids = draft, root, trace, stop_ids
        self.levels: set[int] = set()

    def __call__(self, context: Prefix) -> Categorical:
        level = len(context) - len(self.root)
        if level > 0 and level not in self.levels and self.trace is not None:
            self.levels.add(level)
            frontier = [e.prefix[len(self.root):] + (e.token,) for e in self.trace.of_kind("tree_draft")
                        if len(e.path) == level and e.token not in self.stop_ids]
            self.draft.prefetch_level(self.root, frontier)
        return self.draft(context)


class ChainRound:
    """A round that drafts one chain and scores it in one target forward (tokenwise, block verification)."""

    shape = "chain"

    def check(self, found: Rule, depth: int, draft_kind: str | None) -> None:
        """Nothing beyond the depth (checked by the session) limits a chain."""

    def adapt(self, draft: Draft, found: Rule) -> Draft:
        return draft

    def support(self, target: TargetModel, draft: Draft) -> TreeSupport | None:
        """How the target scores this round's draft: a chain needs no tree mask."""
        return None

    def propose(self, draft: Draft, prefix: Prefix, streams: RandomStreams, found: Rule, *, depth: int,
                context_id: str, stop_ids: frozenset[int], trace: Trace) -> Drafted:
        block = propose(draft, prefix, streams, depth=depth, context_id=context_id, stop_ids=stop_ids, trace=trace)
        tokens = tuple(p.token for p in block.proposals)
        return Drafted(block, tokens, len(tokens), len(tokens))

    def score(self, target: TargetModel, prefix: Prefix, drafted: Drafted) -> None:
        target.prefetch(prefix, drafted.tokens)


class TreeRound:
    """A round that drafts a tree of K children per node and scores every node in one target forward."""

    shape = "tree"

    def check(self, found: Rule, depth: int, draft_kind: str | None) -> None:
        """Refuse a width beyond MAX_TREE_WIDTH, or a full tree (any draft but lookup) beyond MAX_TREE_NODES."""
        if not 1 <= found.width <= MAX_TREE_WIDTH:
            raise ModelSettingError(f"verification {found.name!r}: real models draft trees of width K in "
                                    f"1..{MAX_TREE_WIDTH}, got K = {found.width}")
        nodes = tree_size(depth, found.width)
        if draft_kind not in (None, "lookup") and nodes > MAX_TREE_NODES:
            raise ModelSettingError(
                f"verification {found.name!r} at depth {depth}: a {draft_kind} draft drafts a full tree of "
                f"{nodes} nodes per round ({' + '.join(f'{found.width}^{i}' for i in range(1, depth + 1))}); real "
                f"models score at most {MAX_TREE_NODES} nodes in one pass: lower the depth or the width")

    def adapt(self, draft: Draft, found: Rule) -> Draft:
        """Prompt lookup drafts the lookup tree (up to K n-gram continuations per node); other drafts as they are."""
        if isinstance(draft, LookupDraft) and not isinstance(draft, LookupTreeDraft):
            return LookupTreeDraft(draft.vocab_size, draft.ngram, found.width)
        return draft

    def support(self, target: TargetModel, draft: Draft) -> TreeSupport | None:
        """The target's tree scoring, decided by its self-check, and the draft model's: both run now, before
        any round is timed (once per model object)."""
        if draft.lm is not None and draft.lm is not target.lm:
            _ = draft.lm.tree_support  # the draft model's self-check, out of the timed rounds
        return target.lm.tree_support

    def propose(self, draft: Draft, prefix: Prefix, streams: RandomStreams, found: Rule, *, depth: int,
                context_id: str, stop_ids: frozenset[int], trace: Trace) -> Drafted:
        # the rule's own drafting (sampled children; SGLang's top-K for sglang:S,A[,K]), one level per draft pass
        tree = draft_round(found, LevelBatch(draft, prefix, trace, stop_ids), prefix, streams, depth=depth,
                           context_id=context_id, stop_ids=stop_ids, trace=trace)
        nodes = tree.nodes()
        return Drafted(tree, tuple(node.token for node in nodes), len(nodes), max(len(n.path) for n in nodes))

    def score(self, target: TargetModel, prefix: Prefix, drafted: Drafted) -> None:
        target.prefetch_tree(prefix, node_paths(drafted.block))  # type: ignore[arg-type]


CHAIN, TREE = ChainRound(), TreeRound()
Shape = ChainRound | TreeRound


def _chain(found: Rule) -> Shape:
    return CHAIN


def _tree(found: Rule) -> Shape:
    return TREE


def _by_width(found: Rule) -> Shape:
    """SGLang's threshold:S,A and exact-match draft a chain; threshold:S,A,K and exact-match:K a tree of K distinct
    children per node."""
    return TREE if found.width > 1 else CHAIN


def _threshold(found: Rule) -> Shape:
    """threshold:S,A[,K] by its width; sglang:S,A[,K] always EAGLE's top-K tree (argmax drafts at K = 1)."""
    return TREE if found.settings.top_k else _by_width(found)


# the round shape each family of playable rules drafts and scores (ensemble and Medusa's typical acceptance
# verify a chain: Medusa's trees are not modelled)
ROUNDS_BY_FAMILY: FamilyTable[Callable[[Rule], Shape]] = FamilyTable(
    "models.round_shapes.ROUNDS_BY_FAMILY",
    {"token": _chain, "block": _chain, "tree": _tree, "ensemble": _chain, "threshold": _threshold,
     "typical": _chain, "traversal": _tree, "exact-match": _by_width}, scope="playable")


def round_for(found: Rule) -> Shape:
    """The round shape (chain or tree) a playable rule drafts on real models."""
    return ROUNDS_BY_FAMILY[found](found)


