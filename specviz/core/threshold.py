"""SGLang's target-only tree verification with its two thresholds (``threshold:S,A``), exactly, on chains and trees.

The engine: sgl-project/sglang, ``sgl-kernel/csrc/speculative/speculative_sampling.cuh``,
``TreeSpeculativeSamplingTargetOnly`` (read at commit 120affb9613cc3f5bcd055ec09c7621d3ced0ebc), called from
``python/sglang/srt/speculative/eagle_info.py`` (``EagleVerifyInput.verify``, sampling branch) with
``draft_probs = torch.zeros(...)``, ``coins = torch.rand_like(candidates)``, ``coins_for_final_sampling =
torch.rand(bs)``, ``threshold_single = --speculative-accept-threshold-single`` (S) and ``threshold_acc =
--speculative-accept-threshold-acc`` (A), both 1.0 by default. Read there, at each node of the walk:

* one coin per node: ``coin = uniform_samples[node]``, drawn for the node whose children are checked (the root's
  first, then each accepted child's); it is reset only when a child is accepted;
* the children are walked in sibling order (``retrive_next_sibling``), summing their target mass:
  ``prob_acc += p(x)``; a child is accepted when ``coin <= prob_acc / A`` or ``p(x) >= S`` (A is capped below
  at 1e-9 by the launcher); the draft probabilities are never read (``// FIXME: leverage draft probs``);
* a rejected child gets ``draft_probs[x] = p(x)``; when every child of a node is rejected, the final token is
  drawn with a separate coin from ``relu(target_probs - draft_probs)`` normalized by its sum, i.e. p with the
  rejected children's tokens removed, renormalized; after an accepted leaf (the bonus) the final token is
  drawn from p itself (``there is no draft_probs for the bonus token``).

With S = A = 1 and distinct children (SGLang drafts top-k, so siblings never repeat a token) the coin is the
target's own inverse-CDF sample over the siblings' mass: a child is kept exactly when the target's sample is
that child, and the final token is p's sample off the children. So ``threshold:1,1`` commits p exactly, with
exact match's acceptance (sum of q·p on a chain). Below 1 it keeps more and is lossy: ``node_law`` gives the
committed law exactly. On i.i.d. children a repeated token adds its mass to ``prob_acc`` twice, as the kernel
does, so even ``threshold:1,1`` is lossy there (``node_law(..., distinct=False)`` says by how much).

Draws, so a trace can be replayed: the acceptance stream makes one draw per node whose children are checked,
``u = randrange(D)``, where D is the least common denominator of the thresholds c_k = min(1, C_k/A) of the
siblings before the first one with p(x) >= S (C_k = the target mass of siblings 1..k); sibling k is accepted
iff p(x_k) >= S or u < c_k·D (so u/D plays the coin, and with one child u < numerator of c_1 with
D = its denominator, as tokenwise). The correction-or-bonus stream makes one draw: the final token from p with
the node's rejected tokens removed, or the bonus from p. A chain (Block) is a tree of width 1, draw for draw.

Two names, one verification. ``threshold:S,A[,K]`` verifies the project's drafted ``Tree`` (K children sampled
from q without replacement; a chain when K = 1). ``sglang:S,A[,K]`` is SGLang as it runs: the tree is EAGLE's
top-K tree (``propose_top_k_tree``), each node's children the K most likely tokens of q in descending order (ties
to the lower token id; with K = 1 a chain of argmax q), as ``EAGLEWorker.draft_forward`` picks them
(``python/sglang/srt/speculative/eagle_worker.py``: ``topk_p, topk_index = fast_topk(probs, self.topk, dim=-1)``,
``fast_topk`` = ``torch.max`` for K = 1, else ``torch.topk``; ``eagle_utils.py`` ``select_top_k_tokens``), so no
proposal draw is made. The two commit the same law at S = A = 1 (p, exactly) and differ below: on p = (2, 1, 1, 0,
4)/8, q = (1, 1, 1, 1, 4)/8, ``threshold:1/4,1/2,2`` is at TV 65/294 from p, ``sglang:1/4,1/2,2`` at 1/2 (its first
child is always token 4, kept whatever the coin since p(4) ≥ S).

Where this differs from the engine: the coin and the final sample are exact integer draws (the kernel uses
float32 ``torch.rand`` and a float32 inverse CDF, with a fallback to the last valid index when rounding leaves
u above the sum); a stop token ends the round as everywhere here (SGLang checks ``req.check_finished()`` after
each accepted token, the same). SGLang's tree is EAGLE-2's: at each step it expands only the K best frontier nodes
by cumulative draft probability (``select_top_k_tokens``: ``fast_topk`` over the K·K expanded scores) and finally
keeps the ``--speculative-num-draft-tokens`` − 1 best nodes (``build_eagle_tree.py``,
``build_tree_kernel_efficient_preprocess``); ``sglang:S,A,K`` drafts the fixed tree of every node's top K, which is
SGLang's tree at depth 1 and 2 when the draft-token budget holds every candidate (1 + K + K²), and larger below.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .categorical import Categorical
from .chain_rules import ChainRuleVerifier
from .errors import BlockError, LawError
from .rule_law import Law, NodeLaw, add, node_law_forms, support
from .rule_params import Flag, Param, RuleParams, number_name
from .streams import RandomStreams
from .trace import (
    BonusEvent,
    ThresholdCheckEvent,
    ThresholdCorrectionEvent,
    ThresholdTreeCheckEvent,
    ThresholdTreeCorrectionEvent,
    TopKDraftEvent,
    Trace,
)
from .tree import DraftedNode, Path, Tree, TreeNode, check_tree, grow_tree
from .validation import check_token
from .verifier import MAX_WIDTH, Block, Model, Prefix, Proposal, Result, Verifier, check_streams

_ONE, _ZERO = Fraction(1), Fraction(0)
SOURCE = ("SGLang tree_speculative_sampling_target_only (--speculative-accept-threshold-single S, -acc A): one coin "
          "per node, siblings summing target mass, kept when coin <= mass/A or p(x) >= S; draft probabilities unused")
TOP_K_SOURCE = ("SGLang as it runs: EAGLE's top-K tree (eagle_worker.py draft_forward, fast_topk: each node's K most "
                "likely draft tokens) verified by tree_speculative_sampling_target_only with thresholds S and A")
MAX_LAW_STATES = 200_000  # (rejected tokens, summed mass) states per sibling a node's exact law may hold


@dataclass(frozen=True)
class ThresholdSettings:
    """S (``threshold_single``) and A (``threshold_acc``), both in (0, 1]; (1, 1) is SGLang's default. ``width`` is
    the drafted tree's children per node (SGLang's ``--speculative-eagle-topk``: distinct tokens), 1 for a chain."""

    single: Fraction
    acc: Fraction
    width: int = 1
    top_k: bool = False  # SGLang's EAGLE top-K drafting (sglang:S,A[,K]) rather than children sampled from q

    @property
    def name(self) -> str:
        tail = "" if self.width == 1 else f",{self.width}"
        family = "sglang" if self.top_k else "threshold"
        return f"{family}:{number_name(self.single)},{number_name(self.acc)}{tail}"

    @property
    def exact(self) -> bool:
        """S = A = 1 commits p on chains and on trees of distinct children."""
        return self.single == 1 and self.acc == 1


# the name's parameters, declared once: the name's reader, the Playground's switch, the lab and --help read them
_THRESHOLDS = ("0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1")
PARAMS = RuleParams(ThresholdSettings, (
    Param("single", "S", "S", "--speculative-accept-threshold-single",
          help="--speculative-accept-threshold-single: a child with p(x) ≥ S is kept whatever the coin (SGLang's "
               "default 1)", stops=_THRESHOLDS, default="1", example="0.5"),
    Param("acc", "A", "A", "--speculative-accept-threshold-acc",
          help="--speculative-accept-threshold-acc: a child is kept when the coin u ≤ (its and its earlier siblings' "
               "target mass) / A (default 1)", stops=_THRESHOLDS, default="1", example="0.8"),
    Param("width", "K", "Drafts per node (distinct, --speculative-eagle-topk)",
          "distinct drafts per node, SGLang's --speculative-eagle-topk",
          help="1: a chain; more: a tree whose children are distinct tokens; one coin per node", count=True,
          high=MAX_WIDTH, default=ThresholdSettings.width, optional=True),
), flag=Flag("top_k", "SGLang's top-K drafting (as SGLang runs)",
             "on (sglang:S,A[,K]): each node's children are q's K most likely tokens, in descending order (ties to the "
             "lower id; argmax q at K = 1), as EAGLE drafts them in SGLang; off (threshold:S,A[,K]): the children are "
             "sampled from q without replacement. The same thresholds verify both; below S = A = 1 they commit "
             "different laws", on="sglang", off="threshold", default=ThresholdSettings.top_k))


def parse_threshold(name: object) -> ThresholdSettings:
    """The settings named by ``threshold:S,A[,K]`` (children sampled from q) or ``sglang:S,A[,K]`` (SGLang's top-K
    drafting), S and A numbers in (0, 1], K distinct children per node in 1..MAX_WIDTH (1, a chain, when omitted);
    RuleParameterError otherwise."""
    return PARAMS.read(name)


def top_k_tokens(q: Categorical | Law, k: int) -> list[int]:
    """q's k most likely tokens with mass, in descending probability, ties to the lower token id (``fast_topk``)."""
    law = support(q) if isinstance(q, Categorical) else q
    return sorted((x for x, v in law.items() if v), key=lambda x: (-law[x], x))[:k]


def _top_k_children(q: Categorical, path: Path, context: Prefix, width: int, distinct: bool,
                    streams: RandomStreams, trace: Trace | None) -> list[DraftedNode]:
    """A node's children by SGLang's top-K drafting: no draw; each child's ``drawn_from`` is the point mass on it."""
    children = []
    for rank, token in enumerate(top_k_tokens(q, width)):
        chosen = Categorical(q.vocab_size, [token], [1])
        child = DraftedNode(path + (rank,), token, chosen)
        if trace is not None:
            trace.append(TopKDraftEvent(streams.round_id, len(path), child.path, rank, context, q, chosen,
                                        q.prob(token), 0, 1, token, rank))
        children.append(child)
    return children


def propose_top_k_tree(draft: Model, prefix: Prefix, streams: RandomStreams, *, depth: int, width: int,
                       context_id: str, stop_ids: frozenset[int] = frozenset(), trace: Trace | None = None) -> Tree:
    """EAGLE's top-K tree as SGLang drafts it: every node's children are the ``width`` most likely tokens of its q
    (distinct, descending, ties to the lower id; fewer when q has fewer tokens with mass). No proposal draw."""
    return grow_tree(draft, prefix, streams, depth=depth, width=width, context_id=context_id, distinct=True,
                     stop_ids=stop_ids, trace=trace, children=_top_k_children)


@dataclass(frozen=True)
class NodeCoin:
    """What one node's coin decides with: its range, and per sibling the summed mass, the threshold and the bound."""

    draw_range: int  # D: the coin is randrange(D)
    masses: tuple[Fraction, ...]  # C_k = p(x_1) + ... + p(x_k)
    acceptances: tuple[Fraction, ...]  # c_k = min(1, C_k/A), or 1 where p(x_k) >= S
    singles: tuple[bool, ...]  # p(x_k) >= S: kept whatever the coin
    bounds: tuple[int, ...]  # c_k·D: the coin keeps sibling k iff u < bound (singles: D)

    def accepted(self, draw: int) -> int | None:
        """The sibling the coin u = draw keeps (the first with p >= S or u < its bound), or None."""
        for k, (single, bound) in enumerate(zip(self.singles, self.bounds)):
            if single or draw < bound:
                return k
        return None


def node_coin(p: Categorical, tokens: list[int] | tuple[int, ...], settings: ThresholdSettings) -> NodeCoin:
    """The coin of a node with target p whose children carry these tokens, in sibling order."""
    held, masses, acceptances, singles = _ZERO, [], [], []
    for x in tokens:
        p_x = p.prob(x)
        held += p_x  # prob_acc += target_prob_single, before the test
        single = p_x >= settings.single
        masses.append(held)
        singles.append(single)
        acceptances.append(_ONE if single else min(_ONE, held / settings.acc))
    reachable = []  # the siblings the coin can decide: up to the first single or the first certain one
    for c, single in zip(acceptances, singles):
        if single:
            break
        reachable.append(c)
        if c == 1:
            break
    draw_range = math.lcm(*(c.denominator for c in reachable)) if reachable else 1
    bounds = tuple(draw_range if s else int(c * draw_range) for c, s in zip(acceptances, singles))
    return NodeCoin(draw_range, tuple(masses), tuple(acceptances), tuple(singles), bounds)


def without(p: Categorical, removed: list[int] | tuple[int, ...]) -> tuple[Categorical, Fraction]:
    """p with the removed tokens' mass taken out, renormalized (SGLang's relu(p - draft_probs)), and the mass kept."""
    keep = np.ones(p.vocab_size, dtype=bool)
    keep[list(removed)] = False
    return p.masked(keep), 1 - sum((p.prob(x) for x in set(removed)), _ZERO)


class ThresholdVerifier(ChainRuleVerifier):
    """A session verifying chains (Blocks from ``propose``) and trees (Trees from ``propose_tree``) by SGLang's
    thresholds; the same constructor, session rules and Result as ``Verifier`` (rule and draws: module docstring)."""

    settings = ThresholdSettings(_ONE, _ONE)

    # --- what a round is ---------------------------------------------------------------------
    def _check_kind(self, block: object, streams: object) -> None:
        if not isinstance(block, (Block, Tree)):
            raise BlockError(f"{type(self).__name__} verifies a Block from propose or a Tree from propose_tree, "
                             f"got {type(block).__name__}")
        check_streams(streams)

    def _check_block(self, block: Block | Tree) -> int:  # type: ignore[override]
        if isinstance(block, Block):
            return Verifier._check_block(self, block)
        vocab = check_tree(block, self.stop_ids)
        for token in (*self.prefix, *self.stop_ids):
            check_token(token, vocab)
        return vocab

    def verify(self, block: Block | Tree, streams: RandomStreams, *,  # type: ignore[override]
               trace: Trace | None = None) -> Result:
        """Verify a chain or a tree with the acceptance and correction streams; record events into trace if given."""
        if isinstance(block, Tree):
            return self._verify_tree(block, streams, trace)
        return super().verify(block, streams, trace=trace)  # type: ignore[arg-type]

    # --- a chain: one child per node -----------------------------------------------------------
    def _keeps(self, position: int, context: Prefix, p: Categorical, proposal: Proposal, streams: RandomStreams,
               trace: Trace | None) -> bool:
        coin, x = node_coin(p, [proposal.token], self.settings), proposal.token
        draw = streams.acceptance.randrange(coin.draw_range)
        ok = coin.accepted(draw) == 0
        if trace is not None:
            a = coin.acceptances[0]
            trace.append(ThresholdCheckEvent(streams.round_id, position, context, p, proposal.q, x, p.prob(x),
                                             proposal.q.prob(x), a, draw, coin.draw_range, ok, self.settings.single,
                                             self.settings.acc, coin.singles[0]))
        return ok

    def _instead(self, position: int, context: Prefix, p: Categorical, proposal: Proposal,
                 streams: RandomStreams, trace: Trace | None) -> int:
        return self._final(position, context, p, proposal.q, (proposal.token,), None, streams, trace)

    def _final(self, position: int, context: Prefix, p: Categorical, q: Categorical, removed: tuple[int, ...],
               node: tuple[int, ...] | None, streams: RandomStreams, trace: Trace | None) -> int:
        """The final token after every child of a node was rejected: p without them, on the correction stream
        (``node`` is the tree node's path, None in a chain)."""
        residual, mass = without(p, removed)
        if not mass:  # the children hold all of p's mass, so the coin keeps one: reaching this is a bug
            raise AssertionError(f"threshold verification rejected children {list(removed)} holding all of p")
        token, draw = residual.draw(streams.correction)
        if trace is not None:
            common = (streams.round_id, position, context, p, q, residual, mass, draw, residual.total, token)
            trace.append(ThresholdCorrectionEvent(*common, removed) if node is None else
                         ThresholdTreeCorrectionEvent(*common, node, None, removed))  # type: ignore[arg-type]
        return token

    # --- a tree ------------------------------------------------------------------------------
    def _verify_tree(self, tree: Tree, streams: RandomStreams, trace: Trace | None) -> Result:
        vocab = self._begin(tree, streams)
        current = self.prefix
        output: list[int] = []
        accepted = 0
        q, children, node = tree.q, tree.children, ()
        while children:
            p = self._target_at(current, vocab)
            child, token = self._walk(p, q, children, node, current, streams, trace)
            output.append(token)
            if child is None:
                return self._commit(tree.round_id, output, accepted, True, trace)
            accepted += 1
            current += (token,)
            if token in self.stop_ids:
                return self._commit(tree.round_id, output, accepted, False, trace)
            q, children, node = child.q, child.children, child.path
        p = self._target_at(current, vocab, bonus=True)
        token, draw = p.draw(streams.correction)
        if trace is not None:
            trace.append(BonusEvent(tree.round_id, len(output), current, p, draw, p.total, token))
        output.append(token)
        return self._commit(tree.round_id, output, accepted, False, trace)

    def _walk(self, p: Categorical, q: Categorical, children: tuple[TreeNode, ...], node: tuple[int, ...],
              context: Prefix, streams: RandomStreams, trace: Trace | None) -> tuple[TreeNode | None, int]:
        """One node: its coin, its siblings in order; (the kept child, its token) or (None, the final token)."""
        coin = node_coin(p, [child.token for child in children], self.settings)
        draw = streams.acceptance.randrange(coin.draw_range)
        kept = coin.accepted(draw)
        removed: list[int] = []
        for k, child in enumerate(children[: len(children) if kept is None else kept + 1]):
            x = child.token
            if trace is not None:
                trace.append(_sibling_event(streams.round_id, child, k, len(children), context, p, q, coin, draw,
                                            k == kept, removed, self.settings))
            if k == kept:
                return child, x
            if x not in removed:
                removed.append(x)
        return None, self._final(len(node), context, p, q, tuple(removed), node, streams, trace)


def _sibling_event(round_id: int, child: TreeNode, k: int, siblings: int, context: Prefix, p: Categorical,
                   q: Categorical, coin: NodeCoin, draw: int, accepted: bool, removed: list[int],
                   settings: ThresholdSettings) -> ThresholdTreeCheckEvent:
    """The trace's record of sibling k: the coin's test, and r = p off the earlier rejected tokens before and after."""
    x = child.token
    left = 1 - sum((p.prob(y) for y in removed), _ZERO)  # the mass of p the earlier rejections left
    r_token = _ZERO if x in removed else p.prob(x) / left
    residual = mass = None
    if not accepted:
        residual, kept_mass = without(p, [*removed, x])
        mass = kept_mass / left
    return ThresholdTreeCheckEvent(
        round_id, len(child.path) - 1, child.path, k, siblings, context, p, q, x, p.prob(x), r_token,
        child.drawn_from.prob(x), coin.acceptances[k], draw, coin.draw_range, accepted, residual, mass, None,
        coin.masses[k], coin.singles[k], coin.bounds[k], settings.single, settings.acc)


# ---------------------------------------------------------------------------------------------
# exact theory
# ---------------------------------------------------------------------------------------------


def _check_shape(width: object, distinct: object) -> None:
    if type(width) is not int or not 1 <= width <= MAX_WIDTH:
        raise LawError(f"width (children per node) must be an int in 1..{MAX_WIDTH}, got {width!r}")
    if type(distinct) is not bool:
        raise LawError(f"distinct must be True or False, got {distinct!r}")


def _finish(instead: dict[int, Fraction], p: dict[int, Fraction], removed: frozenset[int], weight: Fraction) -> None:
    """Every child rejected (with this probability): the final token from p off the removed tokens."""
    rest = 1 - sum((p.get(x, _ZERO) for x in removed), _ZERO)
    if weight and rest:
        for y, py in p.items():
            if y not in removed:
                add(instead, y, weight * py / rest)


def _top_k_law(p: Law, q: Law, settings: ThresholdSettings, width: int) -> NodeLaw:
    """One node of SGLang's top-K tree: its children are fixed (q's top K), so only the coin is random."""
    kept: Law = {}
    instead: Law = {}
    held, before = _ZERO, _ZERO  # the siblings' summed target mass, and P(the coin kept one of them)
    tokens = top_k_tokens(q, width)
    for x in tokens:
        p_x = p.get(x, _ZERO)
        held += p_x
        after = _ONE if p_x >= settings.single else min(_ONE, held / settings.acc)
        add(kept, x, after - before)
        before = after
        if before == 1:
            return NodeLaw(kept, instead)
    _finish(instead, p, frozenset(tokens), 1 - before)
    return NodeLaw(kept, instead)


def law(p: Law, q: Law, settings: ThresholdSettings, width: int | None = None, distinct: bool = True) -> NodeLaw:
    """One node of a tree of ``width`` children (``settings.width`` when None) drawn from q over Laws, without
    replacement (SGLang's top-k tree: the named rules) or i.i.d. (``distinct=False``, for the kernel's analysis),
    exactly: a pass over the siblings whose states are (rejected tokens, their summed target mass C).

    A state holds P(these siblings were drawn); the coin has not kept any of them with probability
    1 − min(1, C/A). The next sibling x is kept with P(drawn)·q'(x)·(min(1, (C + p(x))/A) − min(1, C/A)), or
    with P(drawn)·q'(x)·(1 − min(1, C/A)) when p(x) >= S.
    """
    width = settings.width if width is None else width
    _check_shape(width, distinct)
    if settings.top_k:
        return _top_k_law(p, q, settings, width)
    s, a = settings.single, settings.acc
    kept: dict[int, Fraction] = {}
    instead: dict[int, Fraction] = {}
    level: dict[tuple[frozenset[int], Fraction], Fraction] = {(frozenset(), _ZERO): _ONE}
    for _ in range(width):
        following: dict[tuple[frozenset[int], Fraction], Fraction] = {}
        for (removed, held), drawn in level.items():
            alive = 1 - min(_ONE, held / a)
            left = sum((qx for x, qx in q.items() if x not in removed), _ZERO) if distinct else _ONE
            if not left:  # a distinct node whose q has no token left: it has no more children
                _finish(instead, p, removed, drawn * alive)
                continue
            for x, qx in q.items():
                if distinct and x in removed:
                    continue
                weight, p_x = drawn * qx / left, p.get(x, _ZERO)
                if p_x >= s:
                    add(kept, x, weight * alive)
                    continue
                after = min(_ONE, (held + p_x) / a)
                add(kept, x, weight * (after - (1 - alive)))
                if after < 1:
                    key = (removed | {x}, held + p_x)
                    following[key] = following.get(key, _ZERO) + weight
        if len(following) > MAX_LAW_STATES:
            raise LawError(f"threshold's exact node law reaches {len(following):,} states over {len(q)} draft "
                           f"tokens and width {width}; it is limited to {MAX_LAW_STATES:,}")
        level = following
    for (removed, held), drawn in level.items():
        _finish(instead, p, removed, drawn * (1 - min(_ONE, held / a)))
    return NodeLaw(kept, instead)


# the Categorical forms of ``law`` with the tree's shape (width, distinct) after the settings (core.rule_law): a node
# of a chain by default; every node's coin and children are fresh, so each depth keeps a child alike
node_law, first_token_law, expected_accepted_drafts, distance = node_law_forms(law)
