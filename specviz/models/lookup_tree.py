"""Prompt lookup as a draft tree: several n-gram candidates per node, verified by recursive rejection sampling.

The candidates after a prefix: take the longest suffix of the prefix, of n = ngram..1 tokens, that
occurs earlier in the prefix (the n ``lookup_token`` uses); scan its earlier occurrences from the
most recent back to the oldest and collect the token that follows each, skipping a token already
collected, until there are ``width`` of them. Candidate 0 is therefore exactly ``lookup_token``'s
token, and ties between matches resolve by recency (a later match comes first). Shorter suffixes are
never mixed in: a node gets several candidates only where the longest matches disagree, so the tree
stays thin (and cheap) where the context is unambiguous. q at a node is uniform over its candidates.

Drafted with ``propose_tree(..., distinct=True, width=K)``: distinct children are drawn without
replacement from q renormalized, so a uniform q over m <= K candidates gives every candidate as a
child (in random order, on the proposal stream), and below the root each branch continues with its
own candidates. The node set is thus a function of the committed prefix alone; only the sibling
order is random.

Depth: once the root has a match every deeper node has one too (a drafted token followed an earlier
match, so it occurs earlier in the context and its unigram matches), so a round drafts the full
depth or, with no match at the root, is a plain target sample, exactly as the chain path plans it.

The target scores the tree one root-to-leaf path at a time through the session's one KV cache: the
cache is cropped back to the longest prefix the next path shares with the last one, so every node is
fed once (tokens scored = the tree's nodes + 1), but a tree with L leaves costs L forward passes.
Paths run in sorted token order, so each node's float p does not depend on the random sibling order.
"""

from __future__ import annotations

import dataclasses
import hashlib

from specviz.core import Categorical, Processor, RandomStreams, Result, Trace, propose_tree
from specviz.core.errors import BlockError, VerificationError
from specviz.core.tree import Tree
from specviz.core.verification import rule, verifier_class
from specviz.models.drafts import DraftSpec, LookupDraft, check_ngram
from specviz.models.generate import Session, Settings, context_id
from specviz.models.lm import Prefix
from specviz.models.loading import LoadedModel
from specviz.models.target import TargetModel

MAX_LOOKUP_WIDTH = 4  # candidates per node; the Playground's tree offers the same 1..4


def check_lookup_width(width: object) -> int:
    """The lookup tree's width K, refused unless an int in 1..MAX_LOOKUP_WIDTH."""
    if type(width) is not int or not 1 <= width <= MAX_LOOKUP_WIDTH:
        raise BlockError(f"lookup tree width (candidates per node) must be an int in 1..{MAX_LOOKUP_WIDTH}: "
                         f"got {width!r}")
    return width


def lookup_candidates(prefix: Prefix, ngram: int, width: int) -> tuple[int, ...]:
    """Up to width distinct tokens following the latest matches of the longest matching suffix; () if none."""
    n_tokens = len(prefix)
    for n in range(min(ngram, n_tokens - 1), 0, -1):
        suffix = prefix[n_tokens - n:]
        found: list[int] = []
        for start in range(n_tokens - n - 1, -1, -1):  # most recent match first
            if prefix[start:start + n] == suffix and prefix[start + n] not in found:
                found.append(prefix[start + n])
                if len(found) == width:
                    break
        if found:
            return tuple(found)
    return ()


class LookupTreeDraft(LookupDraft):
    """Prompt lookup with up to width candidates per node: q uniform over them (see the module docstring)."""

    def __init__(self, vocab_size: int, ngram: int = 3, width: int = 2):
        super().__init__(vocab_size, ngram)
        self.width = check_lookup_width(width)
        self.label = f"lookup-tree:{ngram},width={width}"

    def candidates(self, prefix: Prefix) -> tuple[int, ...]:
        """This node's candidates, in the documented order."""
        return lookup_candidates(prefix, self.ngram, self.width)

    def __call__(self, prefix: Prefix) -> Categorical:
        found = self.candidates(prefix)
        if not found:  # plan() keeps this from happening inside a round
            raise ValueError("prompt lookup has no n-gram match here: the round should be a plain target sample")
        return Categorical(self.vocab_size, list(found), [1] * len(found))


def leaf_paths(tree: Tree) -> list[tuple[int, ...]]:
    """The drafted tokens on every root-to-leaf path, in sorted order."""
    out: list[tuple[int, ...]] = []
    stack = [((), tree.children)]
    while stack:
        tokens, children = stack.pop()
        for child in children:
            path = tokens + (child.token,)
            if child.children:
                stack.append((path, child.children))
            else:
                out.append(path)
    return sorted(out)


def prefetch_tree(target: TargetModel, prefix: Prefix, tree: Tree) -> int:
    """Score every node of tree on the target, one root-to-leaf path per forward; returns the forwards run."""
    before = target.lm.forwards
    for path in leaf_paths(tree):
        target.prefetch(prefix, path)
    return target.lm.forwards - before


def tree_targets(target: TargetModel, processor: Processor, prefix: Prefix,
                 tree: Tree) -> dict[tuple[int, ...], Categorical]:
    """The processed target p after prefix + each drafted path (key: the drafted tokens; () is the root)."""
    prefetch_tree(target, prefix, tree)
    keys = {path[:i] for path in leaf_paths(tree) for i in range(len(path) + 1)}
    return {key: processor(prefix + key, target(prefix + key)) for key in sorted(keys)}


class LookupTreeSession(Session):
    """A generation whose drafting rounds propose a width-K lookup tree, verified by ``multi-distinct:K``.

    Same rounds, seeds and streams as ``Session`` (RandomStreams(seed, owner, round) per round, plain
    target samples where the lookup has no match); only the draft and the verifier differ.
    """

    def __init__(self, target: LoadedModel, settings: Settings, prompt: str | Prefix, *, width: int,
                 ngram: int = 3, top_n: int | None = 10, keep_raw: bool = False):
        check_lookup_width(width)
        check_ngram(ngram)
        name = rule(f"multi-distinct:{width}").name
        if settings.verification not in ("token", name):  # the width fixes the rule: never swapped silently
            raise VerificationError(f"verification {settings.verification!r} does not verify a lookup tree of width "
                                    f"{width}: use 'token' (the default) or {name!r}")
        super().__init__(target, DraftSpec("lookup", ngram=ngram), dataclasses.replace(settings, verification="token"),
                         prompt, top_n=top_n, keep_raw=keep_raw)
        self.settings = dataclasses.replace(settings, verification=name)
        self.width = width
        self.draft = LookupTreeDraft(target.vocab_size, ngram, width)
        ctx = context_id(target, self.draft, settings)
        self.context = ctx if len(ctx) < 200 else hashlib.sha256(ctx.encode()).hexdigest()  # as Session does
        self.verifier = verifier_class(name)(self.owner, self.generation.prompt_ids, self.context, self.target_model,
                                             processor=self.processor, stop_ids=self.stop_ids)
        self.generation.context_id = self.context

    def _propose(self, prefix: Prefix, depth: int, streams: RandomStreams,
                 trace: Trace) -> tuple[Tree, tuple[int, ...]]:  # type: ignore[override]
        tree = propose_tree(self.draft, prefix, streams, depth=depth, width=self.width, distinct=True,
                            context_id=self.context, stop_ids=self.stop_ids, trace=trace)
        return tree, tuple(node.token for node in tree.nodes())

    def _verify(self, prefix: Prefix, block: Tree, drafted: tuple[int, ...], streams: RandomStreams,  # type: ignore[override]
                trace: Trace) -> Result:
        prefetch_tree(self.target_model, prefix, block)
        return self.verifier.verify(block, streams, trace=trace)
