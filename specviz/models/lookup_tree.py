"""Prompt lookup as a draft tree: several n-gram candidates per node, verified by exact match (or any tree rule).

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

Its rule is exact match (``exact-match:K``): prompt lookup has no draft distribution, and the uniform q
over candidates is invented, so recursive rejection sampling (``multi-distinct:K``, which still runs it)
spends acceptances on the worse branches; exact match samples the target at each node and keeps the
candidate equal to the sample, and with candidate 0 (the chain's token) in every node and the same
streams it commits at least the lookup chain's tokens on every draw (specviz.core.exact_match).
``chain_on_same_draws`` reads from a round's trace what that chain would have committed. Sessions run
it through specviz.models.round_shapes: the target scores the whole tree in one forward with a tree
attention mask.
"""

from __future__ import annotations

from specviz.core import Categorical, Trace
from specviz.core.errors import BlockError
from specviz.models.drafts import LookupDraft, lookup_token
from specviz.models.lm import Prefix

MAX_LOOKUP_WIDTH = 4  # candidates per node; the Playground's tree offers the same 1..4


def check_lookup_width(width: object) -> int:
    """The lookup tree's width K, refused unless an int in 1..MAX_LOOKUP_WIDTH."""
    if type(width) is not int or not 1 <= width <= MAX_LOOKUP_WIDTH:
        raise BlockError(f"lookup tree width (candidates per node) must be an int in 1..{MAX_LOOKUP_WIDTH}: "
                         f"got {width!r}")
    return width


def lookup_candidates(prefix: Prefix, ngram: int, width: int) -> tuple[int, ...]:
    """Up to width distinct tokens following the latest matches of the longest matching suffix; () if none."""
    check_lookup_width(width)
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
    """Prompt lookup with up to width candidates per node: q uniform over them (see the module docstring).

    Its label is the lookup draft's own (``lookup:N``): the same n-gram draft, asked for K candidates.
    """

    def __init__(self, vocab_size: int, ngram: int = 3, width: int = 2):
        super().__init__(vocab_size, ngram)
        self.width = check_lookup_width(width)

    def candidates(self, prefix: Prefix) -> tuple[int, ...]:
        """This node's candidates, in the documented order."""
        return lookup_candidates(prefix, self.ngram, self.width)

    def __call__(self, prefix: Prefix) -> Categorical:
        found = self.candidates(prefix)
        if not found:  # plan() keeps this from happening inside a round
            raise AssertionError("prompt lookup has no n-gram match here: the round should be a plain target sample")
        return Categorical(self.vocab_size, list(found), [1] * len(found))


def chain_on_same_draws(trace: Trace, ngram: int, prefix: Prefix, committed: int) -> int | None:
    """The tokens the lookup chain would have committed on this exact-match tree round's draws (None: the round
    holds no exact-match node sample).

    The chain's token at each depth is candidate 0 of the tree's node on the chain's path, and the chain's sample
    there is the tree's (the same stream, the same p): while the samples follow the chain both keep them; at the
    first sample the chain did not draft, the chain commits it and stops. When the samples follow the chain to
    the end of the tree's walk, the chain commits what the tree did (the same bonus, or the same stop).
    """
    samples = {e.position: e.sample for e in trace.events if hasattr(e, "sample") and getattr(e, "sibling", None) == 0}
    if not samples:
        return None
    context = prefix
    for depth in range(len(samples)):
        if samples[depth] != lookup_token(context, ngram):
            return depth + 1
        context += (samples[depth],)
    return committed
