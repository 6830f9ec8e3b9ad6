"""Theory of speculative sampling, exactly: acceptance rate, expected tokens, speedup, and the
exact distribution of everything one verification round can commit.

* ``alpha(p, q)`` = sum_x min(p(x), q(x)) = 1 - TV(p, q), the per-position acceptance rate.
* ``expected_tokens(alpha, g)`` = (1 - alpha^(g+1)) / (1 - alpha): committed tokens per round
  when every position accepts independently with the same alpha (Leviathan, Kalman and Matias
  2023, eq. 1); ``speedup`` divides by the cost of a round, g*c + 1, in target-call units.
* ``block_distribution`` enumerates, in Fractions, every token tuple one ``propose`` +
  ``Verifier.verify`` round can commit, with its exact probability; ``target_distribution`` is the
  target's own autoregressive distribution over the same sequences; ``exactness_report`` shows
  that they agree (every difference is an exact ``Fraction(0)``).

* Every verification rule of ``specviz.core.verification`` (trees of i.i.d. or distinct drafts, exact
  match, greedy drafts, Medusa's typical acceptance) has an exact ``node_law``; ``round_expectation``
  and ``expected_accepted_drafts`` give its accepted drafts and tokens per round, ``first_token_law``
  the law of the first committed token (p for the exact rules), and ``optimal_multi_draft`` the best
  acceptance any exact scheme with K i.i.d. drafts can reach.

Enumeration is exponential in the depth (V^(depth+1) sequences) and meant for toy vocabularies. Every
computation that could grow without bound states its limit (MAX_EXACT_DEPTH, MAX_BLOCK_DEPTH,
MAX_ENUMERATED_DEPTH, MAX_ENUMERATED_OUTCOMES, MAX_ROUND_NODES, MAX_REJECTION_PATHS) and refuses past it
with a ``TheoryLimitError`` before the slow work; no walk recurses once per position except the
enumerations, which stop at MAX_ENUMERATED_DEPTH.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import numpy as np

from .core import (
    Categorical,
    Model,
    Prefix,
    Processor,
    Rule,
    SpecvizError,
    VerificationError,
    acceptance,
    identity_processor,
    residual_mass,
    residual_with_mass,
    scaled_residual_mass,
    scaled_residual_with_mass,
)
from .core.block_verifier import next_weight, stop_probability, tau_distribution
from .core.verification import MAX_WIDTH
from .core.verification import rule as verification_rule
from .scenario import Scenario

Sequence_ = tuple[int, ...]

# ---------------------------------------------------------------------------------------------
# closed forms
# ---------------------------------------------------------------------------------------------


def alpha(p: Categorical, q: Categorical) -> Fraction:
    """sum_x min(p(x), q(x)) exactly: the probability that one drafted token is accepted."""
    return 1 - residual_mass(p, q)


def _is_exact(value: object) -> bool:
    return isinstance(value, (Fraction, int)) and not isinstance(value, bool)


def _check_alpha(value: Any) -> None:
    if isinstance(value, np.ndarray):
        if np.any((value < 0) | (value > 1)) or not np.all(np.isfinite(value)):
            raise TheoryError(f"alpha values must lie in [0, 1], got {value!r}")
        return
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)) or not 0 <= value <= 1:
        raise TheoryError(f"alpha must be a number in [0, 1], got {value!r}")


class TheoryError(SpecvizError, ValueError):
    """A theory input out of range (a depth, a number of drafts, a vocabulary mismatch), named in words."""


class TheoryTypeError(SpecvizError, TypeError):
    """A theory input of the wrong type (p and q must be Categoricals)."""


class TheoryLimitError(TheoryError):
    """A theory computation would be too large (too deep, too many contexts or sequences): refused in
    words before the work starts."""


MAX_EXACT_DEPTH = 10_000  # closed forms in Fractions (alpha^(g+1), sum of a^i) accept g up to this


def _check_depth(depth: object, limit: int | None = None) -> int:
    if type(depth) is not int or depth < 0:
        raise TheoryError(f"depth (the number of drafted tokens g) must be an int >= 0, got {depth!r}")
    if limit is not None and depth > limit:
        raise TheoryLimitError(f"depth (the number of drafted tokens g) {depth:,} is beyond the exact "
                               f"computation's limit of {limit:,}")
    return depth


def _check_cost(cost_ratio: Any) -> None:
    number = isinstance(cost_ratio, (int, float, Fraction)) and not isinstance(cost_ratio, bool)
    if not number or not cost_ratio >= 0:
        raise TheoryError(f"cost ratio c (draft call / target call) must be >= 0, got {cost_ratio!r}")


def expected_tokens(alpha: Any, depth: int) -> Any:
    """(1 - alpha^(g+1)) / (1 - alpha), the expected committed tokens per round (g + 1 at alpha = 1).

    Exact in, exact out: a Fraction (or int) alpha gives a Fraction; a float gives a float; a
    numpy array is evaluated elementwise in float64.
    """
    _check_alpha(alpha)
    g = _check_depth(depth, None if isinstance(alpha, float) else MAX_EXACT_DEPTH)  # a float costs O(1)
    if isinstance(alpha, np.ndarray):
        a = alpha.astype(np.float64)
        # sum_{i=0}^{g} a^i: the same value as the closed form, with no 0/0 at a = 1
        return sum((a**i for i in range(g + 1)), np.zeros_like(a))
    if _is_exact(alpha):
        a = Fraction(alpha)
        if a == 1:
            return Fraction(g + 1)
        return (1 - a ** (g + 1)) / (1 - a)
    a = float(alpha)
    if a == 1.0:
        return float(g + 1)
    return (1.0 - a ** (g + 1)) / (1.0 - a)


def speedup(alpha: Any, depth: int, cost_ratio: Any) -> Any:
    """(1 - alpha^(g+1)) / ((1 - alpha)(g c + 1)): walltime improvement over target-only decoding.

    c is the cost of one draft call relative to one target call; a round costs g draft calls and
    one (parallel) target call. Leviathan, Kalman and Matias (2023), Theorem 3.8.
    """
    _check_cost(cost_ratio)
    tokens = expected_tokens(alpha, depth)
    if isinstance(tokens, np.ndarray):
        return tokens / (depth * float(cost_ratio) + 1.0)
    if isinstance(tokens, Fraction) and _is_exact(cost_ratio):
        return tokens / (depth * Fraction(cost_ratio) + 1)
    return float(tokens) / (depth * float(cost_ratio) + 1.0)


DEPTH_SEARCH_LIMIT = 1000  # where the speedup never falls (c = 0, or alpha = 1 with c < 1) the search stops here


def optimal_depth(alpha: Any, cost_ratio: Any, max_depth: int | None = None, min_depth: int = 1) -> int:
    """The g >= min_depth with the largest speedup (ties: the smaller g).

    Without max_depth the search runs until the speedup falls (it is unimodal in g: the
    expected tokens grow concavely, the cost linearly), or to DEPTH_SEARCH_LIMIT where it
    never falls; with max_depth it stops there.
    """
    limit = DEPTH_SEARCH_LIMIT if max_depth is None else max_depth
    _check_depth(limit, DEPTH_SEARCH_LIMIT)
    if type(min_depth) is not int or not 0 <= min_depth <= limit:
        raise TheoryError(f"min_depth must be an int in 0..max_depth, got {min_depth!r}")
    best, best_value = min_depth, speedup(alpha, min_depth, cost_ratio)
    for g in range(min_depth + 1, limit + 1):
        value = speedup(alpha, g, cost_ratio)
        if value > best_value:
            best, best_value = g, value
        elif max_depth is None:
            break  # past the single peak
    return best


# Leviathan, Kalman and Matias (2023), Table 3: measured alpha for target/draft pairs (t = 0 and 1).
LEVIATHAN_ALPHAS: tuple[tuple[str, str, float, float], ...] = (
    # (target, draft, temperature, alpha)
    ("T5-XXL (EnDe)", "T5-small", 0.0, 0.75),
    ("T5-XXL (EnDe)", "T5-small", 1.0, 0.62),
    ("T5-XXL (EnDe)", "T5-base", 0.0, 0.80),
    ("T5-XXL (EnDe)", "T5-base", 1.0, 0.68),
    ("T5-XXL (EnDe)", "T5-large", 0.0, 0.82),
    ("T5-XXL (EnDe)", "T5-large", 1.0, 0.71),
    ("LaMDA (137B)", "LaMDA (100M)", 0.0, 0.61),
    ("LaMDA (137B)", "LaMDA (2B)", 0.0, 0.71),
    ("LaMDA (137B)", "LaMDA (8B)", 0.0, 0.75),
)


def table_grid(alphas: Iterable[Any] = (Fraction(k, 10) for k in range(5, 10)),
               depths: Iterable[int] = range(1, 9), cost_ratio: Any = 0) -> list[dict[str, Any]]:
    """Rows {alpha, g, tokens, speedup} from the closed forms (at c = 0 speedup = tokens)."""
    depths = list(depths)
    rows = []
    for a in alphas:
        for g in depths:
            rows.append({"alpha": a, "g": g, "tokens": expected_tokens(a, g),
                         "speedup": speedup(a, g, cost_ratio)})
    return rows


# ---------------------------------------------------------------------------------------------
# the models one round depends on
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundModels:
    """What one verification round depends on: models, processor, depth and stop tokens.

    ``state`` maps a context (prefix) to a hashable key such that p and q depend only on the
    key; it defaults to the whole prefix. Scenario models depend only on the last token.
    """

    target: Model
    draft: Model
    depth: int
    processor: Processor = identity_processor
    stop_ids: frozenset[int] = frozenset()
    state: Callable[[Prefix], Hashable] = field(default=lambda prefix: prefix)
    vocab_size: int | None = None
    verification: str = "token"  # a rule name of specviz.core.verification ("token", "block", "multi:2", ...)


def scenario_state(prefix: Prefix) -> Hashable:
    """The key of a Scenario context: its models read only the last token (or the empty prefix)."""
    return prefix[-1] if prefix else None


def round_models(source: Source, *, draft: Model | None = None,
                 depth: int | None = None, processor: Processor | None = None,
                 stop_ids: Iterable[int] | None = None, verification: str | None = None) -> RoundModels:
    """RoundModels from a Scenario, a RoundModels, or a target model plus keyword settings.

    ``verification`` (any rule name of ``specviz.core.verification``, playable or evaluated by theory
    only) overrides the source's own (a Scenario's field; "token" for a bare target model).
    """
    changes: dict[str, Any] = {}
    if isinstance(source, RoundModels):
        models = source
    elif isinstance(source, Scenario):
        models = RoundModels(source.target_model(), source.draft_model(), source.depth,
                             source.processor(), frozenset(source.stop_ids), scenario_state,
                             source.vocab_size, source.verification)
    elif callable(source):
        if draft is None or depth is None:
            raise TheoryError("pass a Scenario, a RoundModels, or a target model with draft= and depth=")
        models = RoundModels(source, draft, depth)
    else:
        raise TheoryTypeError(f"expected a Scenario, RoundModels or target model, got {type(source).__name__}")
    for name, value in (("draft", draft), ("depth", depth), ("processor", processor)):
        if value is not None:
            changes[name] = value
    if stop_ids is not None:
        changes["stop_ids"] = frozenset(stop_ids)
    if verification is not None:
        changes["verification"] = verification_rule(verification).name
    if changes:
        models = replace(models, **changes)
    if type(models.depth) is not int or models.depth < 1:
        raise TheoryError(f"depth must be an int >= 1, got {models.depth!r}")
    verification_rule(models.verification)
    return models


Source = Scenario | RoundModels | Model


@dataclass
class _Node:
    """Everything verification needs at one context: p, q, per-token acceptance, the residual."""

    p: Categorical
    q: Categorical
    accepts: list[tuple[int, Fraction, Fraction]]  # (token, q(token), acceptance(token)) for q > 0
    mass: Fraction  # residual mass sum (p - q)+ = total rejection probability
    residual: list[tuple[int, Fraction]]  # normalized residual support (empty when mass is 0)
    p_support: list[tuple[int, Fraction]]


class _Cache:
    def __init__(self, models: RoundModels):
        self.models = models
        self.nodes: dict[Hashable, _Node] = {}
        self.targets: dict[Hashable, list[tuple[int, Fraction]]] = {}
        self.residuals: dict[tuple[Hashable, Fraction], tuple[Fraction, list[tuple[int, Fraction]]]] = {}

    def target(self, context: Prefix) -> list[tuple[int, Fraction]]:
        key = self.models.state(context)
        if key not in self.targets:
            p = self.models.processor(context, self.models.target(context))
            self.targets[key] = _support(p)
        return self.targets[key]

    def node(self, context: Prefix) -> _Node:
        key = self.models.state(context)
        node = self.nodes.get(key)
        if node is None:
            m = self.models
            p = m.processor(context, m.target(context))
            q = m.draft(context)
            accepts = [(x, qx, acceptance(p, q, x)) for x, qx in _support(q)]
            mass = residual_mass(p, q)
            res = _support(residual_with_mass(p, q)[0]) if mass else []
            node = _Node(p, q, accepts, mass, res, _support(p))
            self.nodes[key] = node
            self.targets.setdefault(key, node.p_support)
        return node

    def scaled(self, context: Prefix, weight: Fraction) -> tuple[Fraction, list[tuple[int, Fraction]]]:
        """Block verification after context with weight w: the mass of (w p - q)+ and its normalized support."""
        key = (self.models.state(context), weight)
        found = self.residuals.get(key)
        if found is None:
            node = self.node(context)
            residual, mass = scaled_residual_with_mass(node.p, node.q, weight)
            found = (mass, _support(residual) if residual is not None else [])
            self.residuals[key] = found
        return found

    def scaled_mass(self, context: Prefix, weight: Fraction) -> Fraction:
        key = (self.models.state(context), weight)
        found = self.residuals.get(key)
        if found is not None:
            return found[0]
        node = self.node(context)
        return scaled_residual_mass(node.p, node.q, weight)


def _support(c: Categorical) -> list[tuple[int, Fraction]]:
    total = c.total
    return [(x, Fraction(t, total)) for x, t in enumerate(c.ticket_ints()) if t]


def _add(table: dict, key: Any, value: Fraction) -> None:
    table[key] = table.get(key, Fraction(0)) + value


# ---------------------------------------------------------------------------------------------
# enumeration of one round
# ---------------------------------------------------------------------------------------------


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
            _add(out, outcome.tokens, prob)
        return out

    @property
    def position_alphas(self) -> list[Fraction | None]:
        """P(accept at position k | verification reached position k); None where never reached."""
        return [a / r if r else None for a, r in zip(self.accepted, self.reached, strict=True)]


def analyze_round(source: Source, prefix: Prefix = (), **settings: Any) -> RoundAnalysis:
    """Enumerate one propose + verify round from prefix exactly, as the core does it.

    ``verification="block"`` (or a Scenario whose verification is "block") enumerates block
    verification (``BlockVerifier``) instead: every drafted block, then tau and the last token.

    Drafts after the first rejection are never examined by the verifier, so they are summed
    out; all rejections at one position share the residual, so they are merged
    (sum_x q(x)(1 - a(x)) = sum_x (p - q)+(x)).
    """
    models = round_models(source, **settings)
    family = _enumerable(models)
    cache = _Cache(models)
    _check_enumeration_size(cache, tuple(prefix), models.depth)
    if family == "block":
        return _analyze_block_round(models, cache, tuple(prefix))
    depth, stops = models.depth, models.stop_ids
    outcomes: dict[Outcome, Fraction] = {}
    reached = [Fraction(0)] * depth
    accepted = [Fraction(0)] * depth

    budget = _Budget()

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
                _add(outcomes, Outcome(committed, k + 1, "stop"), w)
            elif k + 1 == depth:
                for y, py in cache.target(context + (x,)):
                    _add(outcomes, Outcome(committed + (y,), k + 1, "bonus"), w * py)
            else:
                walk(context + (x,), committed, w, k + 1)
        if node.mass:
            for y, ry in node.residual:
                _add(outcomes, Outcome(tokens + (y,), k, "correction"), weight * node.mass * ry)

    walk(tuple(prefix), (), Fraction(1), 0)
    return RoundAnalysis(outcomes, reached, accepted)


MAX_ENUMERATED_DEPTH = 64  # analyze_round and its relatives walk one Python frame per position
MAX_ENUMERATED_OUTCOMES = 1_000_000  # paths (drafted blocks, outcomes) one enumeration may walk


def _enumerable(models: RoundModels) -> str:
    """The rule's family when ``analyze_round`` can enumerate it ("token" or "block"); else a clear refusal.

    Refused before any work: a depth beyond MAX_ENUMERATED_DEPTH, or V^(depth+1) beyond
    MAX_ENUMERATED_OUTCOMES when the vocabulary size is known.
    """
    found = verification_rule(models.verification)
    if found.family not in ("token", "block"):
        raise VerificationError(f"verification {found.name!r} ({found.label}): the sequence enumeration covers "
                                "'token' and 'block'; use round_expectation, node_law or first_token_law for it")
    if models.depth > MAX_ENUMERATED_DEPTH:
        raise TheoryLimitError(f"depth {models.depth} is too deep to enumerate every sequence of a round: at most "
                               f"{MAX_ENUMERATED_DEPTH} (round_expectation gives the expectations without listing)")
    return found.family


def _check_enumeration_size(cache: _Cache, root: Prefix, depth: int) -> None:
    """Refuse before any walk when the first context alone implies too many paths: its draft support to the
    depth, times its target support (exact for context-free models; later contexts are held by _Budget)."""
    node = cache.node(root)
    estimate = len(node.accepts) ** depth * max(len(node.p_support), 1)
    if estimate > MAX_ENUMERATED_OUTCOMES:
        raise TheoryLimitError(f"one round has about {len(node.accepts)}^{depth} × {len(node.p_support)} = "
                               f"{estimate:,} paths to enumerate; at most {MAX_ENUMERATED_OUTCOMES:,} (lower V or "
                               "the depth; round_expectation gives the expectations without listing)")


class _Budget:
    """Counts the paths an enumeration walks and refuses (TheoryLimitError) past MAX_ENUMERATED_OUTCOMES."""

    def __init__(self) -> None:
        self.spent = 0

    def spend(self) -> None:
        self.spent += 1
        if self.spent > MAX_ENUMERATED_OUTCOMES:
            raise TheoryLimitError(f"one round has more than {MAX_ENUMERATED_OUTCOMES:,} paths to enumerate: lower "
                                   "V or the depth (round_expectation gives the expectations without listing)")


def _analyze_block_round(models: RoundModels, cache: _Cache, root: Prefix) -> RoundAnalysis:
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
                    _add(outcomes, Outcome(kept + (y,), tau, "correction"), w * ry)
            elif drafts[-1] in stops:
                _add(outcomes, Outcome(kept, g, "stop"), w)
            else:
                for y, py in cache.target(root + drafts):
                    _add(outcomes, Outcome(kept + (y,), g, "bonus"), w * py)

    budget = _Budget()

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


def block_distribution(source: Source, prefix: Prefix = (),
                       **settings: Any) -> dict[Sequence_, Fraction]:
    """Exact distribution of the committed token tuple of one round from prefix.

    ``source`` is a Scenario, a RoundModels, or a target model with keyword settings
    ``draft=``, ``depth=``, ``processor=``, ``stop_ids=``.
    """
    return analyze_round(source, prefix, **settings).blocks


def target_distribution(source: Source, prefix: Prefix = (), length: int | None = None,
                        **settings: Any) -> dict[Sequence_, Fraction]:
    """The target's autoregressive law over length tokens (default depth + 1), ending early on a stop."""
    models = round_models(source, **settings)
    return _complete(_Cache(models), models, prefix, {(): Fraction(1)}, length or models.depth + 1)


def complete_with_target(source: Source, blocks: Mapping[Sequence_, Fraction], prefix: Prefix = (),
                         length: int | None = None, **settings: Any) -> dict[Sequence_, Fraction]:
    """Extend every block with target sampling to length tokens (default depth + 1) or a stop token."""
    models = round_models(source, **settings)
    return _complete(_Cache(models), models, prefix, blocks, length or models.depth + 1)


def _complete(cache: _Cache, models: RoundModels, prefix: Prefix, blocks: Mapping[Sequence_, Fraction],
              length: int) -> dict[Sequence_, Fraction]:
    out: dict[Sequence_, Fraction] = {}
    stops = models.stop_ids
    if length > MAX_ENUMERATED_DEPTH + 1:
        raise TheoryLimitError(f"length {length} is too long to enumerate every target sequence: at most "
                               f"{MAX_ENUMERATED_DEPTH + 1} tokens")
    budget = _Budget()

    def walk(tokens: Sequence_, weight: Fraction) -> None:
        budget.spend()
        if len(tokens) >= length or (tokens and tokens[-1] in stops) or (tokens and tokens[-1] < 0):
            _add(out, tokens, weight)
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


# ---------------------------------------------------------------------------------------------
# verification rules, node by node: what one node keeps, and what it commits instead
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NodeLaw:
    """One verification node of a rule, exactly: ``kept[x]`` = P(the node keeps a draft and it is x);
    ``instead[x]`` = P(it keeps none and commits x instead: a correction, or the target's own sample)."""

    kept: dict[int, Fraction]
    instead: dict[int, Fraction]

    @property
    def acceptance(self) -> Fraction:
        """P(the node keeps a draft)."""
        return sum(self.kept.values(), Fraction(0))

    def committed(self, vocab_size: int) -> tuple[Fraction, ...]:
        """The law of the token the node commits, in vocabulary order."""
        zero = Fraction(0)
        return tuple(self.kept.get(x, zero) + self.instead.get(x, zero) for x in range(vocab_size))


Law = dict[int, Fraction]  # a distribution over token ids, zeros left out


def _law(c: Categorical) -> Law:
    return dict(_support(c))


def _iid_tree_law(p: Law, q: Law, width: int) -> NodeLaw:
    """Recursive rejection sampling over ``width`` i.i.d. children from q (SpecInfer): child j is kept with
    min(1, r(x)/q(x)) against the residual r (r = p first, then the normalized (r - q)+ after a rejection).

    A rejection leaves the same residual whichever child was drawn, so the node is a chain of residuals.
    """
    kept: Law = {}
    r, alive = dict(p), Fraction(1)
    for _ in range(width):
        for x, qx in q.items():
            both = min(qx, r.get(x, Fraction(0)))
            if both:
                _add(kept, x, alive * both)
        rest = {x: rx - q.get(x, Fraction(0)) for x, rx in r.items() if rx > q.get(x, Fraction(0))}
        mass = sum(rest.values(), Fraction(0))
        alive *= mass
        if not mass:
            return NodeLaw(kept, {})
        r = {x: v / mass for x, v in rest.items()}
    return NodeLaw(kept, {x: alive * rx for x, rx in r.items()})


MAX_REJECTION_PATHS = 110_000  # ordered rejection paths one distinct-draft node may have (V = 8, K = 8 fits)


def rejection_paths(support: int, width: int) -> int:
    """How many ordered sequences of distinct rejected drafts a width-K node over ``support`` tokens can
    take at most: sum_{j=0..K} support!/(support - j)!."""
    total, term = 0, 1
    for j in range(min(width, support) + 1):
        total += term
        term *= support - j
    return total


def _distinct_tree_law(p: Law, q: Law, width: int) -> NodeLaw:
    """Recursive rejection sampling over ``width`` children drawn from q without replacement (Recursive
    Speculative Decoding): child j comes from q' = q renormalized over the tokens not yet drawn and is kept
    with min(1, r(x)/q'(x)); a rejection leaves the normalized (r - q')+. q' depends on which tokens were
    drawn, so the node's law sums over every ordered path of rejected drafts (an explicit stack)."""
    paths = rejection_paths(len(q), width)
    if paths > MAX_REJECTION_PATHS:
        raise TheoryLimitError(f"multi-distinct:{width} over {len(q)} draft tokens has up to {paths:,} rejection "
                               f"paths per node; the exact sum is limited to {MAX_REJECTION_PATHS:,}")
    kept: Law = {}
    instead: Law = {}
    stack: list[tuple[frozenset[int], Law, Fraction]] = [(frozenset(), dict(p), Fraction(1))]
    while stack:
        drawn, r, alive = stack.pop()
        left = {x: qx for x, qx in q.items() if x not in drawn}
        total = sum(left.values(), Fraction(0))
        if len(drawn) == width or not total:  # no child left: the correction comes from r
            for x, rx in r.items():
                _add(instead, x, alive * rx)
            continue
        fresh = {x: qx / total for x, qx in left.items()}
        for x, qx in fresh.items():
            both = min(qx, r.get(x, Fraction(0)))
            if both:
                _add(kept, x, alive * both)
        rest = {x: rx - fresh.get(x, Fraction(0)) for x, rx in r.items() if rx > fresh.get(x, Fraction(0))}
        mass = sum(rest.values(), Fraction(0))
        if not mass:
            continue
        after = {x: v / mass for x, v in rest.items()}
        for x, qx in fresh.items():
            rejected = qx - min(qx, r.get(x, Fraction(0)))  # P(x is drawn here and rejected)
            if rejected:
                stack.append((drawn | {x}, after, alive * rejected))
    return NodeLaw(kept, instead)


def _log_sign(terms: Iterable[tuple[Fraction, Fraction]]) -> int:
    """The sign of sum c * ln(v) over (c, v), rational c and v > 0, decided without rounding doubt.

    Exactly when it is cheap: with N the common denominator of the c's, the sum has the sign of
    ln(prod v^(N c)), so it compares two integers (a true tie, such as p = (1/2, 1/4, 1/4) and
    ε = 1/2 in the typical rule, is found as a tie). Otherwise in decimal arithmetic with 50, then 400
    significant digits, trusting the sign only when the sum exceeds a bound on the rounding error;
    a sum still within the bound is refused (TheoryLimitError) rather than guessed.
    """
    terms = [(Fraction(c), Fraction(v)) for c, v in terms if c]
    n = math.lcm(*(c.denominator for c, _ in terms)) if terms else 1
    bits = sum(abs(c) * n * (v.numerator.bit_length() + v.denominator.bit_length()) for c, v in terms)
    if bits <= _EXACT_LOG_BITS:
        top = bottom = 1
        for c, v in terms:
            e = int(c * n)
            top, bottom = (top * v.numerator**e, bottom * v.denominator**e) if e > 0 else \
                (top * v.denominator**-e, bottom * v.numerator**-e)
        return (top > bottom) - (top < bottom)
    for digits in (50, 400):
        with decimal.localcontext() as context:
            context.prec = digits + 20
            total, scale = decimal.Decimal(0), decimal.Decimal(1)
            for c, v in terms:
                ln = decimal.Decimal(v.numerator).ln() - decimal.Decimal(v.denominator).ln()
                term = decimal.Decimal(c.numerator) * ln / decimal.Decimal(c.denominator)
                total += term
                scale += abs(term) + 1
            if abs(total) > scale * decimal.Decimal(10) ** -digits:
                return 1 if total > 0 else -1
    raise TheoryLimitError("the typical-acceptance threshold is within 10^-400 of a probability and the exact "
                           "comparison would need over 200,000-bit integers: refused rather than guessed")


_EXACT_LOG_BITS = 200_000  # integers up to this size settle a log comparison exactly (milliseconds)


def entropy(p: Categorical | Law) -> float:
    """H(p) in nats (for display; the typical rule's decision never rounds it)."""
    law = _law(p) if isinstance(p, Categorical) else p
    return -sum(float(px) * math.log(float(px)) for px in law.values() if px)


def typical_keeps(p: Categorical | Law, eps: Fraction) -> frozenset[int]:
    """The tokens the typical rule keeps: p(x) > min(ε, √ε · exp(−H(p))) (Medusa; H in nats).

    p(x) > ε is a Fraction comparison. p(x) > √ε · exp(−H(p)) is, taking logs,
    2 ln p(x) − ln ε − 2 Σ_i p_i ln p_i > 0, a sum of rational multiples of logs of rationals, whose sign
    ``_log_sign`` decides exactly (or with a certified error bound); a tie is not kept (the rule is strict).
    """
    law = _law(p) if isinstance(p, Categorical) else p
    eps = Fraction(eps)
    entropy_terms = [(-2 * px, px) for px in law.values()]  # + 2 H(p)
    return frozenset(x for x, px in law.items()
                     if px > eps or _log_sign([(Fraction(2), px), (Fraction(-1), eps), *entropy_terms]) > 0)


def typical_threshold(p: Categorical | Law, eps: Fraction) -> float:
    """min(ε, √ε · exp(−H(p))) as a float, for display only."""
    return min(float(eps), math.sqrt(float(eps)) * math.exp(-entropy(p)))


def _greedy_token(q: Law) -> int:
    """argmax q; ties go to the lowest token id (as numpy's and torch's argmax do)."""
    return max(q.items(), key=lambda item: (item[1], -item[0]))[0]


def node_law(verification: str | Rule, p: Categorical, q: Categorical) -> NodeLaw:
    """What one node of the rule keeps and commits, exactly, at a context with target p and draft q.

    Block verification judges a whole chain, not a node: one node of it (one draft) is tokenwise.
    """
    found = verification_rule(verification)
    _check_pair(p, q)
    pl, ql = _law(p), _law(q)
    family = found.family
    if family in ("token", "block"):
        return _iid_tree_law(pl, ql, 1)
    if family == "tree":
        return (_distinct_tree_law if found.distinct else _iid_tree_law)(pl, ql, found.width)
    if family == "exact-match":  # x ~ q and the target's own y ~ p: kept when equal, else y is committed
        return NodeLaw({x: qx * pl[x] for x, qx in ql.items() if x in pl},
                       {y: py * (1 - ql.get(y, Fraction(0))) for y, py in pl.items() if ql.get(y) != 1})
    if family == "greedy-draft":
        top = _greedy_token(ql)
        return NodeLaw({top: pl[top]} if top in pl else {}, {y: py for y, py in pl.items() if y != top})
    if family == "typical":
        keep = typical_keeps(pl, found.parameter)
        miss = sum((qx for x, qx in ql.items() if x not in keep), Fraction(0))
        return NodeLaw({x: qx for x, qx in ql.items() if x in keep},
                       {y: miss * py for y, py in pl.items()} if miss else {})
    raise VerificationError(f"verification {found.name!r}: theory has no node law for family {family!r}")


def _check_pair(p: object, q: object) -> None:
    if not isinstance(p, Categorical) or not isinstance(q, Categorical):
        raise TheoryTypeError("p and q must be Categoricals (context-independent target and draft), got "
                              f"{type(p).__name__} and {type(q).__name__}")
    if p.vocab_size != q.vocab_size:
        raise TheoryError(f"p and q must share one vocabulary: p has {p.vocab_size} tokens, q has {q.vocab_size}")


def first_token_law(p: Categorical, q: Categorical, verification: str | Rule = "token",
                    depth: int = 1) -> tuple[Fraction, ...]:
    """The exact law of the first committed token, in vocabulary order, for any rule (lossy ones too).

    It depends on the rule's first node only, except for block verification, whose first token depends on
    the whole block: there it is enumerated at ``depth`` drafts (V^depth blocks). Exact rules give p.
    """
    found = verification_rule(verification)
    if found.family == "block" and depth != 1:
        blocks = block_distribution(_constant_models(p, q, depth, found.name))
        return tuple(first_token_marginal(blocks, p.vocab_size))
    return node_law(found, p, q).committed(p.vocab_size)


def law_distance(law: Sequence[Fraction], p: Categorical) -> Fraction:
    """Total variation between a law over token ids and p, exactly."""
    return sum((abs(Fraction(a) - p.prob(x)) for x, a in enumerate(law)), Fraction(0)) / 2


def optimal_multi_draft(p: Categorical, q: Categorical, drafts: int) -> tuple[Fraction, frozenset[int]]:
    """The best acceptance any exact scheme with K i.i.d. drafts from q can reach, and a set S attaining
    min_S p(S) + 1 − q(S)^K (SpecTr; Khisti et al., ICLR 2025): P(keep) ≤ P(output in S) + P(a draft off S).

    Not by listing 2^V sets: p(S) − q(S)^K is minimised by a prefix of the tokens sorted by p(x)/q(x),
    whole tie groups at a time. (At a minimiser with mass t = q(S), a token x outside S has p(x) ≥
    (t + q(x))^K − t^K ≥ K t^(K−1) q(x) and a token y inside has p(y) ≤ t^K − (t − q(y))^K ≤ K t^(K−1) q(y),
    so every ratio inside is at most every ratio outside; within a tie group p = r q and the objective is
    concave in the group's q-mass, so all or none of the group is as good as any part of it.) Tokens
    with q = 0 never help S. O(V log V) exact steps for any V.
    """
    _check_pair(p, q)
    if type(drafts) is not int or not 1 <= drafts <= MAX_WIDTH:
        raise TheoryError(f"drafts (K) must be an int in 1..{MAX_WIDTH}, got {drafts!r}")
    pl, ql = _law(p), _law(q)
    groups: dict[Fraction, list[int]] = {}
    for x, qx in ql.items():
        groups.setdefault(pl.get(x, Fraction(0)) / qx, []).append(x)
    best, best_set = Fraction(1), frozenset()  # S = {} gives 0 + 1 - 0
    chosen: list[int] = []
    p_mass = q_mass = Fraction(0)
    for ratio in sorted(groups):
        chosen += groups[ratio]
        p_mass += sum((pl.get(x, Fraction(0)) for x in groups[ratio]), Fraction(0))
        q_mass += sum((ql[x] for x in groups[ratio]), Fraction(0))
        value = p_mass + 1 - q_mass**drafts
        if value < best:
            best, best_set = value, frozenset(chosen)
    return best, best_set


def optimal_multi_draft_acceptance(p: Categorical, q: Categorical, drafts: int) -> Fraction:
    """min over token sets S of p(S) + 1 − q(S)^K, exactly (see ``optimal_multi_draft``)."""
    return optimal_multi_draft(p, q, drafts)[0]


# ---------------------------------------------------------------------------------------------
# expected accepted drafts and committed tokens of one round, without listing sequences
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundExpectation:
    """Exact per-round expectations of one verification scheme."""

    verification: str
    accepted_drafts: Fraction  # E[accepted drafts]
    tokens: Fraction  # E[committed tokens] = accepted + 1 - P(the round ends on an accepted stop)
    stop_end: Fraction  # P(the last accepted draft is a stop token, so no token follows)
    kept_by_position: tuple[Fraction, ...] = ()  # P(a draft at position k is committed), k = 0..depth-1


def round_expectation(source: Source, prefix: Prefix = (), **settings: Any) -> RoundExpectation:
    """E[accepted drafts] and E[committed tokens] of one round, level by level (no recursion).

    Unlike ``analyze_round`` it never lists token sequences. Every rule that decides node by node
    (tokenwise, trees, exact match, greedy drafts, typical) is a forward pass over (position, context
    key): the probability of reaching each key and what its node keeps. Block verification is a pass
    over (position, context key, running weight w_k), forward to find the nodes, backward for the law
    of the last kept position. Refused (TheoryLimitError) beyond MAX_ROUND_NODES nodes at one position.
    """
    models = round_models(source, **settings)
    cache = _Cache(models)
    found = verification_rule(models.verification)
    if found.family == "block":
        kept, stop_end = _block_expectation(models, cache, tuple(prefix))
    else:
        kept, stop_end = _chain_expectation(models, cache, tuple(prefix), found)
    accepted = sum(kept, Fraction(0))
    return RoundExpectation(found.name, accepted, accepted + 1 - stop_end, stop_end, tuple(kept))


MAX_ROUND_NODES = 200_000  # (context key[, weight]) nodes at one position that a round expectation may visit


def _check_level(size: int, k: int) -> None:
    if size > MAX_ROUND_NODES:
        raise TheoryLimitError(f"a round expectation reaches {size:,} distinct contexts at draft position {k}; "
                               f"the exact pass is limited to {MAX_ROUND_NODES:,} (give the models a smaller "
                               "state key, or lower the depth)")


def _chain_expectation(models: RoundModels, cache: _Cache, root: Prefix,
                       found: Rule) -> tuple[list[Fraction], Fraction]:
    """(P(position k commits a draft) for each k, P(an accepted stop ends the round)), forward by position."""
    depth, stops = models.depth, models.stop_ids
    laws: dict[Hashable, list[tuple[int, Fraction]]] = {}

    def kept_at(context: Prefix) -> list[tuple[int, Fraction]]:
        key = models.state(context)
        if key not in laws:
            node = cache.node(context)
            laws[key] = ([(x, qx * a) for x, qx, a in node.accepts if a] if found.family == "token"
                         else list(node_law(found, node.p, node.q).kept.items()))
        return laws[key]

    level: dict[Hashable, tuple[Prefix, Fraction]] = {models.state(root): (root, Fraction(1))}
    kept, stop_end = [], Fraction(0)
    for k in range(depth):
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
        _check_level(len(following), k + 1)
        kept.append(here)
        level = following
    return kept, stop_end


def _block_expectation(models: RoundModels, cache: _Cache, root: Prefix) -> tuple[list[Fraction], Fraction]:
    """Block verification: (P(tau > k) for each k, P(the block ends on a kept stop)).

    Forward: the nodes (k, context key, w_k) a round can reach. Backward, per node, over the drafts after
    it: P(no later stop event), P(the last stop event is at m) for each m, and P(that end is a kept stop).
    """
    depth, stops = models.depth, models.stop_ids
    levels: list[dict[tuple[Hashable, Fraction], Prefix]] = [{(models.state(root), Fraction(1)): root}]
    for k in range(depth - 1):
        following: dict[tuple[Hashable, Fraction], Prefix] = {}
        for (_, w), context in levels[k].items():
            node = cache.node(context)
            for x, qx, _ in node.accepts:
                if x not in stops:
                    child = context + (x,)
                    following.setdefault((models.state(child), next_weight(w, node.p.prob(x), qx)), child)
        _check_level(len(following), k + 1)
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


def _block_node_future(models: RoundModels, cache: _Cache, context: Prefix, w: Fraction, k: int,
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


def _constant_models(p: Categorical, q: Categorical, depth: int, verification: str | Rule) -> RoundModels:
    _check_pair(p, q)
    if type(depth) is not int or depth < 1:
        raise TheoryError(f"depth (the number of drafted tokens g) must be an int >= 1, got {depth!r}")
    return RoundModels(lambda prefix: p, lambda prefix: q, depth, state=lambda prefix: None,
                       vocab_size=p.vocab_size, verification=verification_rule(verification).name)


MAX_BLOCK_DEPTH = 100  # block verification's exact pass over running weights (about a second here at 100)


def expected_accepted_drafts(p: Categorical, q: Categorical, depth: int, verification: str | Rule = "token"
                             ) -> Fraction:
    """Exact expected accepted drafts per round for context-independent p and q (no stop tokens).

    Every rule that decides node by node keeps a draft at each node with the same probability a (the
    node's acceptance), so the round keeps a + a^2 + ... + a^g drafts: a closed form, for g up to
    MAX_EXACT_DEPTH. Block verification (Sun et al. 2025) is never below tokenwise; its exact pass runs for
    g up to MAX_BLOCK_DEPTH. On p = (1/3, 2/3), q = (2/3, 1/3), g = 2: 10/9 tokenwise, 11/9 block, 112/81
    for a width-2 tree.
    """
    models = _constant_models(p, q, depth, verification)
    found = verification_rule(models.verification)
    if found.family == "block":
        if depth > MAX_BLOCK_DEPTH:
            raise TheoryLimitError(f"depth {depth} is too deep for block verification's exact pass: at most "
                                   f"{MAX_BLOCK_DEPTH} (its running weights multiply the states)")
        return round_expectation(models).accepted_drafts
    _check_depth(depth, MAX_EXACT_DEPTH)
    return _geometric(node_law(found, p, q).acceptance, depth)


def _geometric(a: Fraction, depth: int) -> Fraction:
    """a + a^2 + ... + a^depth, exactly."""
    return Fraction(depth) if a == 1 else a * (1 - a**depth) / (1 - a)


def ideal_accepted_drafts(p: Categorical, q: Categorical, depth: int) -> Fraction:
    """sum_{k=1..g} sum_{x^k} min(p(x^k), q(x^k)): the most any verifier that knew the joint block
    probabilities could accept in expectation (a maximal coupling of each prefix); 12/9 on the example.

    The pass keeps one entry per multiset of tokens (at most C(g + V - 1, V - 1)); beyond
    MAX_ROUND_NODES it is refused before any work."""
    _constant_models(p, q, depth, "token")
    ps, qs = _support(p), dict(_support(q))
    multisets = math.comb(depth + len(ps) - 1, len(ps) - 1)
    if multisets > MAX_ROUND_NODES:
        raise TheoryLimitError(f"the joint-probability bound at depth {depth} over {len(ps)} tokens keeps up to "
                               f"{multisets:,} entries; the exact pass is limited to {MAX_ROUND_NODES:,}")
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


@dataclass(frozen=True)
class VerificationRow:
    """Tokenwise against block verification at one depth."""

    depth: int
    token: RoundExpectation
    block: RoundExpectation
    ideal: Fraction | None  # the joint-probability bound, for context-free scenarios without stops

    @property
    def gain(self) -> Fraction:
        """Extra accepted drafts (= extra committed tokens without stops) per round from block verification."""
        return self.block.accepted_drafts - self.token.accepted_drafts


def compare_verifications(scenario: Scenario, depths: Iterable[int] | None = None,
                          prefix: Prefix = ()) -> list[VerificationRow]:
    """Tokenwise and block verification of scenario side by side (default: its own depth), exactly."""
    rows = []
    context_free = scenario.target.rows is None and scenario.draft.rows is None and not scenario.stop_ids
    for g in depths if depths is not None else [scenario.depth]:
        at = scenario.with_changes(depth=g)
        ideal = None
        if context_free:
            p = at.processor()((), at.target_model()(()))
            ideal = ideal_accepted_drafts(p, at.draft_model()(()), g)
        rows.append(VerificationRow(g, round_expectation(at, prefix, verification="token"),
                                    round_expectation(at, prefix, verification="block"), ideal))
    return rows


# ---------------------------------------------------------------------------------------------
# the exactness check: block law == target law, sequence by sequence and position by position
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SequenceRow:
    tokens: Sequence_
    speculative: Fraction  # P(the round's block, completed by the target, is this sequence)
    target: Fraction  # P(target sampling gives this sequence)

    @property
    def difference(self) -> Fraction:
        return self.speculative - self.target


@dataclass(frozen=True)
class PositionRow:
    position: int
    context: Sequence_  # committed tokens before this position in the round
    token: int
    conditional: Fraction  # P(y_k = token | y_<k = context, the round reached position k)
    target: Fraction  # p(token | prefix + context)

    @property
    def difference(self) -> Fraction:
        return self.conditional - self.target


@dataclass
class ExactnessReport:
    prefix: Prefix
    depth: int
    blocks: dict[Sequence_, Fraction]
    sequences: list[SequenceRow]
    positions: list[PositionRow]
    position_alphas: list[Fraction | None]

    @property
    def differences(self) -> list[Fraction]:
        return [r.difference for r in self.sequences] + [r.difference for r in self.positions]

    @property
    def max_abs_difference(self) -> Fraction:
        return max((abs(d) for d in self.differences), default=Fraction(0))

    @property
    def exact(self) -> bool:
        return all(d == 0 for d in self.differences)

    def lines(self, labels: Iterable[str] | None = None) -> list[str]:
        """Printable rows: every difference printed as an exact fraction (0 when it agrees)."""
        names = list(labels) if labels is not None else None

        def show(tokens: Iterable[int]) -> str:
            return " ".join(names[t] if names else str(t) for t in tokens) or "∅"

        out = [f"sequence [{show(r.tokens)}]: speculative {r.speculative} target {r.target} "
               f"difference {r.difference}" for r in self.sequences]
        out += [f"position {r.position} after [{show(r.context)}] token {show((r.token,))}: "
                f"{r.conditional} vs p = {r.target}, difference {r.difference}" for r in self.positions]
        return out


def exactness_report(source: Source, prefix: Prefix = (), **settings: Any) -> ExactnessReport:
    """Compare one round's exact block law with the target's own law, sequence and position wise."""
    models = round_models(source, **settings)
    cache = _Cache(models)
    prefix = tuple(prefix)
    analysis = analyze_round(models, prefix)
    blocks = analysis.blocks
    length = models.depth + 1
    completed = _complete(cache, models, prefix, blocks, length)
    target = _complete(cache, models, prefix, {(): Fraction(1)}, length)
    sequences = [SequenceRow(s, completed.get(s, Fraction(0)), target.get(s, Fraction(0)))
                 for s in sorted(set(completed) | set(target))]
    # per position: P(y_k = x | y_<k, the round reached position k), i.e. len(block) > k
    reach: dict[Sequence_, Fraction] = {}
    hits: dict[tuple[Sequence_, int], Fraction] = {}
    for tokens, prob in blocks.items():
        for k in range(len(tokens)):
            _add(reach, tokens[:k], prob)
            _add(hits, (tokens[:k], tokens[k]), prob)
    positions = []
    for context in sorted(reach, key=lambda c: (len(c), c)):
        p = dict(cache.target(prefix + context))
        tokens = sorted(set(p) | {x for (c, x) in hits if c == context})
        for x in tokens:
            positions.append(PositionRow(len(context), context, x,
                                         hits.get((context, x), Fraction(0)) / reach[context],
                                         p.get(x, Fraction(0))))
    return ExactnessReport(prefix, models.depth, blocks, sequences, positions, analysis.position_alphas)
