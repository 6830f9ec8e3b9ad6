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

Enumeration is exponential in the depth (V^(depth+1) sequences) and meant for toy vocabularies.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import numpy as np

from .core import (
    Categorical,
    Model,
    Prefix,
    Processor,
    acceptance,
    check_verification,
    identity_processor,
    residual_mass,
    residual_with_mass,
    scaled_residual_mass,
    scaled_residual_with_mass,
)
from .core.block_verifier import next_weight, stop_probability, tau_distribution
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
            raise ValueError("alpha values must lie in [0, 1]")
        return
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)) or not 0 <= value <= 1:
        raise ValueError(f"alpha must be a number in [0, 1], got {value!r}")


def _check_depth(depth: object) -> int:
    if type(depth) is not int or depth < 0:
        raise ValueError(f"depth (the number of drafted tokens g) must be an int >= 0, got {depth!r}")
    return depth


def _check_cost(cost_ratio: Any) -> None:
    number = isinstance(cost_ratio, (int, float, Fraction)) and not isinstance(cost_ratio, bool)
    if not number or not cost_ratio >= 0:
        raise ValueError(f"cost ratio c (draft call / target call) must be >= 0, got {cost_ratio!r}")


def expected_tokens(alpha: Any, depth: int) -> Any:
    """(1 - alpha^(g+1)) / (1 - alpha), the expected committed tokens per round (g + 1 at alpha = 1).

    Exact in, exact out: a Fraction (or int) alpha gives a Fraction; a float gives a float; a
    numpy array is evaluated elementwise in float64.
    """
    _check_alpha(alpha)
    g = _check_depth(depth)
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
    _check_depth(limit)
    if type(min_depth) is not int or not 0 <= min_depth <= limit:
        raise ValueError(f"min_depth must be an int in 0..max_depth, got {min_depth!r}")
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
    verification: str = "token"  # "token" or "block" (Sun et al. 2025)


def scenario_state(prefix: Prefix) -> Hashable:
    """The key of a Scenario context: its models read only the last token (or the empty prefix)."""
    return prefix[-1] if prefix else None


def round_models(source: Source, *, draft: Model | None = None,
                 depth: int | None = None, processor: Processor | None = None,
                 stop_ids: Iterable[int] | None = None, verification: str | None = None) -> RoundModels:
    """RoundModels from a Scenario, a RoundModels, or a target model plus keyword settings.

    ``verification`` ("token" or "block") overrides the source's own (a Scenario's field; "token"
    for a bare target model).
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
            raise ValueError("pass a Scenario, a RoundModels, or a target model with draft= and depth=")
        models = RoundModels(source, draft, depth)
    else:
        raise TypeError(f"expected a Scenario, RoundModels or target model, got {type(source).__name__}")
    for name, value in (("draft", draft), ("depth", depth), ("processor", processor)):
        if value is not None:
            changes[name] = value
    if stop_ids is not None:
        changes["stop_ids"] = frozenset(stop_ids)
    if verification is not None:
        changes["verification"] = check_verification(verification)
    if changes:
        models = replace(models, **changes)
    if type(models.depth) is not int or models.depth < 1:
        raise ValueError(f"depth must be an int >= 1, got {models.depth!r}")
    check_verification(models.verification)
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
    cache = _Cache(models)
    if models.verification == "block":
        return _analyze_block_round(models, cache, tuple(prefix))
    depth, stops = models.depth, models.stop_ids
    outcomes: dict[Outcome, Fraction] = {}
    reached = [Fraction(0)] * depth
    accepted = [Fraction(0)] * depth

    def walk(context: Prefix, tokens: Sequence_, weight: Fraction, k: int) -> None:
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

    def walk(drafts: Sequence_, prob: Fraction, weights: list[Fraction], stops_h: list[Fraction]) -> None:
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

    def walk(tokens: Sequence_, weight: Fraction) -> None:
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
# expected accepted drafts and committed tokens, tokenwise and block, without listing sequences
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundExpectation:
    """Exact per-round expectations of one verification scheme."""

    verification: str
    accepted_drafts: Fraction  # E[accepted drafts]
    tokens: Fraction  # E[committed tokens] = accepted + 1 - P(the round ends on an accepted stop)
    stop_end: Fraction  # P(the last accepted draft is a stop token, so no token follows)


def round_expectation(source: Source, prefix: Prefix = (), **settings: Any) -> RoundExpectation:
    """E[accepted drafts] and E[committed tokens] of one round, by a recursion over (position, state, weight).

    Unlike ``analyze_round`` it never lists token sequences: tokenwise the state is the context
    key, for block verification the context key and the running weight w_i (memoized), so a
    fixed scenario costs O(depth * V * #weights) exact steps.
    """
    models = round_models(source, **settings)
    cache = _Cache(models)
    root = tuple(prefix)
    if models.verification == "block":
        accepted, stop_end = _block_expectation(models, cache, root)
    else:
        accepted, stop_end = _token_expectation(models, cache, root)
    return RoundExpectation(models.verification, accepted, accepted + 1 - stop_end, stop_end)


def _token_expectation(models: RoundModels, cache: _Cache, root: Prefix) -> tuple[Fraction, Fraction]:
    depth, stops = models.depth, models.stop_ids
    memo: dict[tuple[int, Hashable], tuple[Fraction, Fraction]] = {}

    def future(k: int, context: Prefix) -> tuple[Fraction, Fraction]:
        """(E[drafts accepted from position k on], P(an accepted stop ends the round)) at draft position k."""
        key = (k, models.state(context))
        if key not in memo:
            mean = stop_end = Fraction(0)
            for x, qx, a in cache.node(context).accepts:
                w = qx * a
                if not w:
                    continue
                if x in stops:
                    mean += w
                    stop_end += w
                elif k + 1 == depth:
                    mean += w
                else:
                    later, later_stop = future(k + 1, context + (x,))
                    mean += w * (1 + later)
                    stop_end += w * later_stop
            memo[key] = (mean, stop_end)
        return memo[key]

    return future(0, root)


def _block_expectation(models: RoundModels, cache: _Cache, root: Prefix) -> tuple[Fraction, Fraction]:
    depth, stops = models.depth, models.stop_ids
    memo: dict[tuple[int, Hashable, Fraction], tuple[Fraction, Fraction, Fraction]] = {}

    def future(k: int, context: Prefix, w: Fraction) -> tuple[Fraction, Fraction, Fraction]:
        """Over the drafts after the k-th, with w_k = w: (E[prod_{j>k} (1 - h_j)],
        E[sum_{m>k} m h_m prod_{j>m} (1 - h_j)], P(tau is the end of the block and it is a stop))."""
        key = (k, models.state(context), w)
        if key not in memo:
            none = mean = stop_end = Fraction(0)
            node = cache.node(context)
            for x, qx, _ in node.accepts:
                w2 = next_weight(w, node.p.prob(x), qx)
                if x in stops or k + 1 == depth:  # the block ends here: h = w2
                    none += qx * (1 - w2)
                    mean += qx * (k + 1) * w2
                    stop_end += qx * w2 if x in stops else 0
                    continue
                child = context + (x,)
                h = stop_probability(cache.scaled_mass(child, w2), w2)
                later_none, later_mean, later_stop = future(k + 1, child, w2)
                none += qx * (1 - h) * later_none
                mean += qx * ((k + 1) * h * later_none + later_mean)
                stop_end += qx * later_stop
            memo[key] = (none, mean, stop_end)
        return memo[key]

    _, mean, stop_end = future(0, root, Fraction(1))
    return mean, stop_end


def _constant_models(p: Categorical, q: Categorical, depth: int, verification: str) -> RoundModels:
    if not isinstance(p, Categorical) or not isinstance(q, Categorical):
        raise TypeError("p and q must be Categoricals (context-independent target and draft)")
    if p.vocab_size != q.vocab_size:
        raise ValueError(f"p and q must share one vocabulary: p has {p.vocab_size} tokens, q has {q.vocab_size}")
    if type(depth) is not int or depth < 1:
        raise ValueError(f"depth (the number of drafted tokens g) must be an int >= 1, got {depth!r}")
    return RoundModels(lambda prefix: p, lambda prefix: q, depth, state=lambda prefix: None,
                       vocab_size=p.vocab_size, verification=check_verification(verification))


def expected_accepted_drafts(p: Categorical, q: Categorical, depth: int, verification: str = "token") -> Fraction:
    """Exact expected accepted drafts per round for context-independent p and q (no stop tokens).

    Tokenwise it is alpha + alpha^2 + ... + alpha^g; block verification (Sun et al. 2025) is never
    below it. p = (1/3, 2/3), q = (2/3, 1/3), g = 2: 10/9 tokenwise, 11/9 block.
    """
    models = _constant_models(p, q, depth, verification)
    return round_expectation(models).accepted_drafts


def ideal_accepted_drafts(p: Categorical, q: Categorical, depth: int) -> Fraction:
    """sum_{k=1..g} sum_{x^k} min(p(x^k), q(x^k)): the most any verifier that knew the joint block
    probabilities could accept in expectation (a maximal coupling of each prefix); 12/9 on the example."""
    _constant_models(p, q, depth, "token")
    ps, qs = _support(p), dict(_support(q))
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
