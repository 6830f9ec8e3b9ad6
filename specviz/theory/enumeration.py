"""Enumeration of one round: every way it can end, with its exact probability, and the target's own law.

``enumerate_chain_round`` walks one tokenwise round (propose + ``Verifier.verify``) and
``enumerate_block_round`` one block verification round (``BlockVerifier``), in Fractions, as the core
draws them; ``specviz.theory.rule_theory.analyze_round`` picks the walk of the rule's family.
``target_distribution`` is the target's own autoregressive law over the same sequences, and the
marginals (first token, length, mean length) and the total variation read either.

Enumeration is exponential in the depth (V^(depth+1) sequences) and meant for toy vocabularies:
refused (TheoryLimitError) past MAX_ENUMERATED_DEPTH or MAX_ENUMERATED_OUTCOMES paths.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..core import Prefix
from ..core.block_verifier import next_weight, stop_probability, tau_distribution
from .round_models import NodeCache, RoundModels, Sequence_, Source, add_mass, round_models
from .theory_limits import MAX_ENUMERATED_DEPTH, MAX_ENUMERATED_OUTCOMES, TheoryLimitError


@dataclass(frozen=True)
class Outcome:
    """One way a round can end: the committed tokens, how many drafts were accepted, and how."""

    tokens: Sequence_
    accepted: int
    ending: str  # "correction" | "bonus" | "stop" (an accepted draft was a stop token)
    # (block verification: "correction" is the draw from the scaled residual after the kept drafts)


@dataclass
class RoundAnalysis:
    """The exact law of one round: outcomes with probabilities and per-position acceptance."""

    outcomes: dict[Outcome, Fraction]
    reached: list[Fraction]  # P(at least k drafts are accepted and the block has a draft at position k)
    accepted: list[Fraction]  # P(the draft at position k is accepted), i.e. P(at least k + 1 accepted)

    @property
    def expected_accepted(self) -> Fraction:
        """Expected number of accepted drafts per round."""
        return sum(self.accepted, Fraction(0))

    @property
    def blocks(self) -> dict[Sequence_, Fraction]:
        out: dict[Sequence_, Fraction] = {}
        for outcome, prob in self.outcomes.items():
            add_mass(out, outcome.tokens, prob)
        return out

    @property
    def position_alphas(self) -> list[Fraction | None]:
        """P(accept at position k | verification reached position k); None where never reached."""
        return [a / r if r else None for a, r in zip(self.accepted, self.reached, strict=True)]


class Budget:
    """Counts the paths an enumeration walks and refuses (TheoryLimitError) past MAX_ENUMERATED_OUTCOMES."""

    def __init__(self) -> None:
        self.spent = 0

    def spend(self) -> None:
        self.spent += 1
        if self.spent > MAX_ENUMERATED_OUTCOMES:
            raise TheoryLimitError(f"one round has more than {MAX_ENUMERATED_OUTCOMES:,} paths to enumerate: lower "
                                   "V or the depth (round_expectation gives the expectations without listing)")


def check_enumeration_size(cache: NodeCache, root: Prefix, depth: int) -> None:
    """Refuse before any walk when the first context alone implies too many paths: its draft support to the
    depth, times its target support (exact for context-free models; later contexts are held by Budget)."""
    node = cache.node(root)
    estimate = len(node.accepts) ** depth * max(len(node.p_support), 1)
    if estimate > MAX_ENUMERATED_OUTCOMES:
        raise TheoryLimitError(f"one round has about {len(node.accepts)}^{depth} × {len(node.p_support)} = "
                               f"{estimate:,} paths to enumerate; at most {MAX_ENUMERATED_OUTCOMES:,} (lower V or "
                               "the depth; round_expectation gives the expectations without listing)")


def enumerate_chain_round(models: RoundModels, cache: NodeCache, root: Prefix) -> RoundAnalysis:
    """Every outcome of one tokenwise round from root, exactly, as the core draws it.

    Drafts after the first rejection are never examined by the verifier, so they are summed
    out; all rejections at one position share the residual, so they are merged
    (sum_x q(x)(1 - a(x)) = sum_x (p - q)+(x)).
    """
    depth, stops = models.depth, models.stop_ids
    outcomes: dict[Outcome, Fraction] = {}
    reached = [Fraction(0)] * depth
    accepted = [Fraction(0)] * depth

    budget = Budget()

    def walk(context: Prefix, tokens: Sequence_, weight: Fraction, k: int) -> None:
        budget.spend()
        node = cache.node(context)
        reached[k] += weight
        for x, qx, a in node.accepts:
            w = weight * qx * a
            if not w:
                continue
            accepted[k] += w
            committed = tokens + (x,)
            if x in stops:
                add_mass(outcomes, Outcome(committed, k + 1, "stop"), w)
            elif k + 1 == depth:
                for y, py in cache.target(context + (x,)):
                    add_mass(outcomes, Outcome(committed + (y,), k + 1, "bonus"), w * py)
            else:
                walk(context + (x,), committed, w, k + 1)
        if node.mass:
            for y, ry in node.residual:
                add_mass(outcomes, Outcome(tokens + (y,), k, "correction"), weight * node.mass * ry)

    walk(root, (), Fraction(1), 0)
    return RoundAnalysis(outcomes, reached, accepted)




def enumerate_block_round(models: RoundModels, cache: NodeCache, root: Prefix) -> RoundAnalysis:
    """Every drafted block (q^g paths, cut at a stop), then tau ~ h_i prod_{j>i}(1 - h_j), then Y."""
    depth, stops = models.depth, models.stop_ids
    outcomes: dict[Outcome, Fraction] = {}
    reached = [Fraction(0)] * depth
    accepted = [Fraction(0)] * depth

    def leaf(drafts: Sequence_, prob: Fraction, weights: list[Fraction], stops_h: list[Fraction]) -> None:
        g = len(drafts)
        for tau, p_tau in enumerate(tau_distribution(stops_h)):
            w = prob * p_tau
            if not w:
                continue
            for k in range(min(tau + 1, g)):
                reached[k] += w
            for k in range(tau):
                accepted[k] += w
            kept = drafts[:tau]
            if tau < g:
                for y, ry in cache.scaled(root + kept, weights[tau])[1]:
                    add_mass(outcomes, Outcome(kept + (y,), tau, "correction"), w * ry)
            elif drafts[-1] in stops:
                add_mass(outcomes, Outcome(kept, g, "stop"), w)
            else:
                for y, py in cache.target(root + drafts):
                    add_mass(outcomes, Outcome(kept + (y,), g, "bonus"), w * py)

    budget = Budget()

    def walk(drafts: Sequence_, prob: Fraction, weights: list[Fraction], stops_h: list[Fraction]) -> None:
        budget.spend()
        context = root + drafts
        if drafts and (len(drafts) == depth or drafts[-1] in stops):
            leaf(drafts, prob, weights, stops_h + [weights[-1]])
            return
        node = cache.node(context)
        w = weights[-1]
        h = stop_probability(cache.scaled_mass(context, w), w)
        for x, qx, _ in node.accepts:
            walk(drafts + (x,), prob * qx, weights + [next_weight(w, node.p.prob(x), qx)], stops_h + [h])

    walk((), Fraction(1), [Fraction(1)], [])
    return RoundAnalysis(outcomes, reached, accepted)


def target_distribution(source: Source, prefix: Prefix = (), length: int | None = None,
                        **settings: Any) -> dict[Sequence_, Fraction]:
    """The target's autoregressive law over length tokens (default depth + 1), ending early on a stop."""
    models = round_models(source, **settings)
    return complete(NodeCache(models), models, prefix, {(): Fraction(1)}, length or models.depth + 1)


def complete_with_target(source: Source, blocks: Mapping[Sequence_, Fraction], prefix: Prefix = (),
                         length: int | None = None, **settings: Any) -> dict[Sequence_, Fraction]:
    """Extend every block with target sampling to length tokens (default depth + 1) or a stop token."""
    models = round_models(source, **settings)
    return complete(NodeCache(models), models, prefix, blocks, length or models.depth + 1)


def complete(cache: NodeCache, models: RoundModels, prefix: Prefix, blocks: Mapping[Sequence_, Fraction],
              length: int) -> dict[Sequence_, Fraction]:
    out: dict[Sequence_, Fraction] = {}
    stops = models.stop_ids
    if length > MAX_ENUMERATED_DEPTH + 1:
        raise TheoryLimitError(f"length {length} is too long to enumerate every target sequence: at most "
                               f"{MAX_ENUMERATED_DEPTH + 1} tokens")
    budget = Budget()

    def walk(tokens: Sequence_, weight: Fraction) -> None:
        budget.spend()
        if len(tokens) >= length or (tokens and tokens[-1] in stops) or (tokens and tokens[-1] < 0):
            add_mass(out, tokens, weight)
            return
        for y, py in cache.target(tuple(prefix) + tokens):
            walk(tokens + (y,), weight * py)

    for tokens, weight in blocks.items():
        if weight:
            walk(tuple(tokens), weight)
    return out


def first_token_marginal(blocks: Mapping[Sequence_, Fraction], vocab_size: int) -> list[Fraction]:
    """P(first committed token = x) for x in 0..vocab_size-1."""
    out = [Fraction(0)] * vocab_size
    for tokens, prob in blocks.items():
        if tokens and tokens[0] >= 0:
            out[tokens[0]] += prob
    return out


def length_distribution(blocks: Mapping[Sequence_, Fraction], depth: int) -> list[Fraction]:
    """P(committed length = n) for n = 0..depth+1 (index n)."""
    out = [Fraction(0)] * (depth + 2)
    for tokens, prob in blocks.items():
        out[min(len(tokens), depth + 1)] += prob
    return out


def mean_length(blocks: Mapping[Sequence_, Fraction]) -> Fraction:
    """Expected number of committed tokens per round."""
    return sum((len(tokens) * prob for tokens, prob in blocks.items()), Fraction(0))


def total_variation(a: Mapping[Any, Fraction], b: Mapping[Any, Fraction]) -> Fraction:
    """Exact total variation distance 1/2 sum |a - b| over the union of supports."""
    keys = set(a) | set(b)
    return sum((abs(a.get(k, Fraction(0)) - b.get(k, Fraction(0))) for k in keys), Fraction(0)) / 2


