"""Closed forms: the acceptance rate alpha, expected tokens per round, the walltime speedup, the best depth.

* ``alpha(p, q)`` = sum_x min(p(x), q(x)) = 1 - TV(p, q), the per-position acceptance rate.
* ``expected_tokens(alpha, g)`` = (1 - alpha^(g+1)) / (1 - alpha): committed tokens per round
  when every position accepts independently with the same alpha (Leviathan, Kalman and Matias
  2023, eq. 1); ``speedup`` divides by the cost of a round, g*c + 1, in target-call units.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import numpy as np

from ..core import Categorical, residual_mass
from .theory_limits import (
    DEPTH_SEARCH_LIMIT,
    MAX_EXACT_DEPTH,
    TheoryError,
    check_alpha,
    check_cost,
    check_depth,
    is_exact,
)


def alpha(p: Categorical, q: Categorical) -> Fraction:
    """sum_x min(p(x), q(x)) exactly: the probability that one drafted token is accepted."""
    return 1 - residual_mass(p, q)


def expected_tokens(alpha: Any, depth: int) -> Any:
    """(1 - alpha^(g+1)) / (1 - alpha), the expected committed tokens per round (g + 1 at alpha = 1).

    Exact in, exact out: a Fraction (or int) alpha gives a Fraction; a float gives a float; a
    numpy array is evaluated elementwise in float64.
    """
    check_alpha(alpha)
    g = check_depth(depth, None if isinstance(alpha, float) else MAX_EXACT_DEPTH)  # a float costs O(1)
    if isinstance(alpha, np.ndarray):
        a = alpha.astype(np.float64)
        # sum_{i=0}^{g} a^i: the same value as the closed form, with no 0/0 at a = 1
        return sum((a**i for i in range(g + 1)), np.zeros_like(a))
    if is_exact(alpha):
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
    check_cost(cost_ratio)
    tokens = expected_tokens(alpha, depth)
    if isinstance(tokens, np.ndarray):
        return tokens / (depth * float(cost_ratio) + 1.0)
    if isinstance(tokens, Fraction) and is_exact(cost_ratio):
        return tokens / (depth * Fraction(cost_ratio) + 1)
    return float(tokens) / (depth * float(cost_ratio) + 1.0)


def optimal_depth(alpha: Any, cost_ratio: Any, max_depth: int | None = None, min_depth: int = 1) -> int:
    """The g >= min_depth with the largest speedup (ties: the smaller g).

    Without max_depth the search runs until the speedup falls (it is unimodal in g: the
    expected tokens grow concavely, the cost linearly), or to DEPTH_SEARCH_LIMIT where it
    never falls; with max_depth it stops there.
    """
    limit = DEPTH_SEARCH_LIMIT if max_depth is None else max_depth
    check_depth(limit, DEPTH_SEARCH_LIMIT)
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
