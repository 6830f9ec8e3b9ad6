"""Expected accepted drafts and committed tokens of one round, without listing sequences.

Three passes, one per way a rule decides: ``chain_expectation`` for every rule that decides node by node
(tokenwise, trees, exact match, greedy drafts, typical), a forward pass over (position, context key)
with the rule's node law; ``block_expectation`` for block verification, a pass over (position, context
key, running weight w_k), forward to find the nodes, backward for the law of the last kept position;
``traversal_expectation`` for traversal verification, the core's recursion over (context key, weight, level).
``specviz.theory.rule_theory.round_expectation`` picks the pass of the rule's family. Also the closed form
a + a^2 + ... + a^g and the joint-probability bound ``ideal_accepted_drafts``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from ..core import Categorical, Prefix, Rule
from ..core.block_verifier import next_weight, stop_probability
from ..core.errors import LawError
from ..core.traversal import MAX_LAW_WORK, TraversalPass
from .node_laws import NodeLaw
from .round_models import Law, Node, NodeCache, RoundModels, constant_models, support
from .theory_limits import MAX_BLOCK_WORK, MAX_ROUND_NODES, TheoryLimitError, check_block_work, check_round_work

NodeLawOf = Callable[[Rule, Node], NodeLaw]  # the rule's law at a node (its refusals checked first)


@dataclass(frozen=True)
class RoundExpectation:
    """Exact per-round expectations of one verification scheme."""

    verification: str
    accepted_drafts: Fraction  # E[accepted drafts]
    tokens: Fraction  # E[committed tokens] = accepted + 1 - P(the round ends on an accepted stop)
    stop_end: Fraction  # P(the last accepted draft is a stop token, so no token follows)
    kept_by_position: tuple[Fraction, ...] = ()  # P(a draft at position k is committed), k = 0..depth-1


def check_level(size: int, k: int) -> None:
    if size > MAX_ROUND_NODES:
        raise TheoryLimitError(f"a round expectation reaches {size:,} distinct contexts at draft position {k}; "
                               f"the exact pass is limited to {MAX_ROUND_NODES:,} (give the models a smaller "
                               "state key, or lower the depth)")


def chain_expectation(models: RoundModels, cache: NodeCache, root: Prefix, found: Rule,
                      law_at: NodeLawOf) -> tuple[list[Fraction], Fraction]:
    """(P(position k commits a draft) for each k, P(an accepted stop ends the round)), forward by position."""
    depth, stops = models.depth, models.stop_ids
    laws: dict[Hashable, list[tuple[int, Fraction]]] = {}

    def kept_at(context: Prefix) -> list[tuple[int, Fraction]]:
        key = models.state(context)
        if key not in laws:
            laws[key] = list(law_at(found, cache.node(context)).kept.items())
        return laws[key]

    level: dict[Hashable, tuple[Prefix, Fraction]] = {models.state(root): (root, Fraction(1))}
    vocab_size = models.vocab_size or cache.node(root).p.vocab_size
    kept, stop_end = [], Fraction(0)
    for k in range(depth):
        check_round_work(len(laws) + sum(key not in laws for key in level), vocab_size, k)
        here, following = Fraction(0), {}
        for context, mass in level.values():
            for x, w in kept_at(context):
                m = mass * w
                here += m
                if x in stops:
                    stop_end += m
                elif k + 1 < depth:
                    child = context + (x,)
                    key = models.state(child)
                    following[key] = (following[key][0], following[key][1] + m) if key in following else (child, m)
        check_level(len(following), k + 1)
        kept.append(here)
        level = following
    return kept, stop_end


def _ratios(node: Node) -> int:
    """How many distinct ratios p(x)/q(x) the node's drafts have (the running weights are their products)."""
    return len({node.p.prob(x) / qx for x, qx, _ in node.accepts})


def block_expectation(models: RoundModels, cache: NodeCache, root: Prefix, found: Rule,
                      law_at: NodeLawOf) -> tuple[list[Fraction], Fraction]:
    """Block verification: (P(tau > k) for each k, P(the block ends on a kept stop)).

    Refused (TheoryLimitError) before the pass when its steps could exceed MAX_BLOCK_WORK: a priori from the
    root's drafts and ratios, then as the forward pass counts the nodes it reaches (contexts that differ).
    Forward: the nodes (k, context key, w_k) a round can reach. Backward, per node, over the drafts after
    it: P(no later stop event), P(the last stop event is at m) for each m, and P(that end is a kept stop).
    """
    depth, stops = models.depth, models.stop_ids
    first = cache.node(root)
    check_block_work(depth, _ratios(first), len(first.accepts))
    levels: list[dict[tuple[Hashable, Fraction], Prefix]] = [{(models.state(root), Fraction(1)): root}]
    work = len(first.accepts) * depth
    for k in range(depth - 1):
        following: dict[tuple[Hashable, Fraction], Prefix] = {}
        for (_, w), context in levels[k].items():
            node = cache.node(context)
            for x, qx, _ in node.accepts:
                if x not in stops:
                    child = context + (x,)
                    following.setdefault((models.state(child), next_weight(w, node.p.prob(x), qx)), child)
        check_level(len(following), k + 1)
        work += sum(len(cache.node(context).accepts) for context in following.values()) * (depth - k - 1)
        if work > MAX_BLOCK_WORK:
            raise TheoryLimitError(f"block verification's exact pass reaches {work:,} steps by draft position "
                                   f"{k + 1} of {depth}; it is limited to {MAX_BLOCK_WORK:,} (the limit of depth x "
                                   "vocabulary work): lower the depth or the vocabulary")
        levels.append(following)
    Future = tuple[Fraction, list[Fraction], Fraction]
    below: dict[tuple[Hashable, Fraction], Future] = {}
    for k in range(depth - 1, -1, -1):
        here: dict[tuple[Hashable, Fraction], Future] = {}
        for key, context in levels[k].items():
            here[key] = _block_node_future(models, cache, context, key[1], k, below)
        below = here
    _, last, stop_end = below[(models.state(root), Fraction(1))]
    kept = [sum(last[m] for m in range(k + 1, depth + 1)) for k in range(depth)]
    return kept, stop_end


def _block_node_future(models: RoundModels, cache: NodeCache, context: Prefix, w: Fraction, k: int,
                       below: Mapping[tuple[Hashable, Fraction], tuple[Fraction, list[Fraction], Fraction]]
                       ) -> tuple[Fraction, list[Fraction], Fraction]:
    """One node of the backward pass (its children's futures are in ``below``)."""
    depth, stops = models.depth, models.stop_ids
    none, last, stop_end = Fraction(0), [Fraction(0)] * (depth + 1), Fraction(0)
    node = cache.node(context)
    for x, qx, _ in node.accepts:
        w2 = next_weight(w, node.p.prob(x), qx)
        if x in stops or k + 1 == depth:  # the block ends here: h = w2
            none += qx * (1 - w2)
            last[k + 1] += qx * w2
            stop_end += qx * w2 if x in stops else 0
            continue
        child = context + (x,)
        h = stop_probability(cache.scaled_mass(child, w2), w2)
        later_none, later_last, later_stop = below[(models.state(child), w2)]
        none += qx * (1 - h) * later_none
        last[k + 1] += qx * h * later_none
        for m in range(k + 2, depth + 1):
            last[m] += qx * later_last[m]
        stop_end += qx * later_stop
    return none, last, stop_end


def traversal_pass(models: RoundModels, cache: NodeCache, found: Rule) -> TraversalPass:
    """Traversal verification's exact pass over the models' contexts (``core.traversal.TraversalPass``)."""
    def laws_at(context: Prefix) -> tuple[Law, Law, Hashable]:
        node = cache.node(context)
        return node.p_law, node.q_law, models.state(context)
    return TraversalPass(laws_at, models.depth, found.width, found.distinct, models.stop_ids)


def check_traversal(found: Rule, drafts: int) -> None:
    """The root's drafts alone past the pass's limit are refused before any work (deeper states are counted)."""
    if drafts * found.width > MAX_LAW_WORK:
        raise TheoryLimitError(f"traversal verification's exact pass visits every drafted token of every node state: "
                               f"the root alone has {drafts:,} draft tokens x width {found.width}, over the limit of "
                               f"{MAX_LAW_WORK:,} steps")


def traversal_expectation(models: RoundModels, cache: NodeCache, root: Prefix, found: Rule,
                          law_at: NodeLawOf) -> tuple[list[Fraction], Fraction]:
    """Traversal verification: (P(the kept node is deeper than k) for each k, P(it is a drafted stop token)), by the
    exact pass over (context key, weight, level) states; refused past ``MAX_LAW_WORK`` steps as it counts them."""
    try:
        outcome, _ = traversal_pass(models, cache, found).root(root)
    except LawError as error:
        raise TheoryLimitError(str(error)) from error
    kept = [sum(outcome.kept[k + 1:], Fraction(0)) for k in range(models.depth)]
    return kept, outcome.stop


def geometric(a: Fraction, depth: int) -> Fraction:
    """a + a^2 + ... + a^depth, exactly."""
    return Fraction(depth) if a == 1 else a * (1 - a**depth) / (1 - a)


def ideal_accepted_drafts(p: Categorical, q: Categorical, depth: int) -> Fraction:
    """sum_{k=1..g} sum_{x^k} min(p(x^k), q(x^k)): the most any verifier that knew the joint block
    probabilities could accept in expectation (a maximal coupling of each prefix); 12/9 on the example.

    The pass keeps one entry per multiset of tokens (at most C(g + V - 1, V - 1)); beyond
    MAX_ROUND_NODES it is refused before any work."""
    constant_models(p, q, depth, "token")
    ps = support(p)
    multisets = math.comb(depth + len(ps) - 1, len(ps) - 1)
    if multisets > MAX_ROUND_NODES:
        raise TheoryLimitError(f"the joint-probability bound at depth {depth} over {len(ps)} tokens keeps up to "
                               f"{multisets:,} entries; the exact pass is limited to {MAX_ROUND_NODES:,}")
    qs: Law = dict(support(q))
    layer: dict[tuple[Fraction, Fraction], int] = {(Fraction(1), Fraction(1)): 1}  # (p(x^k), q(x^k)) -> count
    total = Fraction(0)
    for _ in range(depth):
        nxt: dict[tuple[Fraction, Fraction], int] = {}
        for (pp, qq), count in layer.items():
            for x, px in ps:
                key = (pp * px, qq * qs.get(x, Fraction(0)))
                nxt[key] = nxt.get(key, 0) + count
        layer = nxt
        total += sum((count * min(a, b) for (a, b), count in layer.items()), Fraction(0))
    return total
