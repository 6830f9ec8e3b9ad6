"""What theory refuses, and where: its errors, its limits, and the checks that run before any slow work.

Every computation that could grow without bound states its limit here and refuses past it with a
``TheoryLimitError`` that names the field, what was given and the limit, before the slow work starts.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from ..core import Categorical, SpecvizError


class TheoryError(SpecvizError, ValueError):
    """A theory input out of range (a depth, a number of drafts, a vocabulary mismatch), named in words."""


class TheoryTypeError(SpecvizError, TypeError):
    """A theory input of the wrong type (p and q must be Categoricals)."""


class TheoryLimitError(TheoryError):
    """A theory computation would be too large (too deep, too many contexts or sequences): refused in
    words before the work starts."""


MAX_EXACT_DEPTH = 10_000  # closed forms in Fractions (alpha^(g+1), sum of a^i) accept g up to this
DEPTH_SEARCH_LIMIT = 1000  # where the speedup never falls (c = 0, or alpha = 1 with c < 1) the search stops here
MAX_ENUMERATED_DEPTH = 64  # analyze_round and its relatives walk one Python frame per position
MAX_ENUMERATED_OUTCOMES = 1_000_000  # paths (drafted blocks, outcomes) one enumeration may walk
MAX_ROUND_NODES = 200_000  # (context key[, weight]) nodes at one position that a round expectation may visit
MAX_BLOCK_DEPTH = 100  # block verification's exact pass over running weights
MAX_BLOCK_WORK = 1_000_000  # steps of block verification's exact pass (nodes x drafts x positions left)
MAX_ROUND_WORK = 2_000_000  # contexts x vocabulary a node-by-node round pass may read (each context is O(V))
MAX_REJECTION_PATHS = 110_000  # ordered rejection paths one distinct-draft node may have (V = 8, K = 8 fits)
MAX_VOCABULARY = 131_072  # tokens of a context's p and q that node laws and round passes read exactly (2^17)


def is_exact(value: object) -> bool:
    return isinstance(value, (Fraction, int)) and not isinstance(value, bool)


def check_alpha(value: Any) -> None:
    if isinstance(value, np.ndarray):
        if np.any((value < 0) | (value > 1)) or not np.all(np.isfinite(value)):
            raise TheoryError(f"alpha values must lie in [0, 1], got {value!r}")
        return
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)) or not 0 <= value <= 1:
        raise TheoryError(f"alpha must be a number in [0, 1], got {value!r}")


def check_depth(depth: object, limit: int | None = None) -> int:
    if type(depth) is not int or depth < 0:
        raise TheoryError(f"depth (the number of drafted tokens g) must be an int >= 0, got {depth!r}")
    if limit is not None and depth > limit:
        raise TheoryLimitError(f"depth (the number of drafted tokens g) {depth:,} is beyond the exact "
                               f"computation's limit of {limit:,}")
    return depth


def check_cost(cost_ratio: Any) -> None:
    number = isinstance(cost_ratio, (int, float, Fraction)) and not isinstance(cost_ratio, bool)
    if not number or not cost_ratio >= 0:
        raise TheoryError(f"cost ratio c (draft call / target call) must be >= 0, got {cost_ratio!r}")


def check_pair(p: object, q: object) -> None:
    """p and q are Categoricals on one vocabulary of at most MAX_VOCABULARY tokens."""
    if not isinstance(p, Categorical) or not isinstance(q, Categorical):
        raise TheoryTypeError("p and q must be Categoricals (context-independent target and draft), got "
                              f"{type(p).__name__} and {type(q).__name__}")
    if p.vocab_size != q.vocab_size:
        raise TheoryError(f"p and q must share one vocabulary: p has {p.vocab_size} tokens, q has {q.vocab_size}")
    check_vocabulary(p.vocab_size)


def check_vocabulary(vocab_size: int) -> None:
    """Refuse a vocabulary beyond MAX_VOCABULARY before any of its Fractions is built."""
    if vocab_size > MAX_VOCABULARY:
        raise TheoryLimitError(f"vocabulary size {vocab_size:,} is beyond theory's exact limit of "
                               f"{MAX_VOCABULARY:,} tokens (every probability is a Fraction)")


def rejection_paths(support: int, width: int) -> int:
    """How many ordered sequences of distinct rejected drafts a width-K node over ``support`` tokens can
    take at most: sum_{j=0..K} support!/(support - j)!."""
    total, term = 0, 1
    for j in range(min(width, support) + 1):
        total += term
        term *= support - j
        if total > MAX_REJECTION_PATHS:  # the count itself stays small: it is only compared with the limit
            return total
    return total


def check_rejection_paths(name: str, support: int, width: int) -> None:
    """Refuse a distinct-draft node whose exact sum runs over more than MAX_REJECTION_PATHS paths."""
    paths = rejection_paths(support, width)
    if paths > MAX_REJECTION_PATHS:
        raise TheoryLimitError(f"{name} over {support:,} draft tokens has more than {MAX_REJECTION_PATHS:,} "
                               f"rejection paths per node (at least {paths:,}); the exact sum is limited to "
                               f"{MAX_REJECTION_PATHS:,}")


def block_work(depth: int, ratios: int, drafts: int) -> int:
    """An upper bound on the steps of block verification's exact pass with context-free p and q.

    A running weight w_k = min(1, w_(k-1) p(x)/q(x)) is the product of the ratios drawn since it was last
    capped at 1, so position k holds at most min(drafts^k, C(k + R, R)) weights (R distinct ratios p/q);
    the backward pass visits each with every draft and every later position.
    """
    total = 0
    for k in range(depth):
        total += min(drafts**k, math.comb(k + ratios, ratios)) * drafts * (depth - k)
        if total > MAX_BLOCK_WORK:
            break
    return total


def check_block_work(depth: int, ratios: int, drafts: int) -> None:
    """Refuse block verification's exact pass beyond MAX_BLOCK_WORK steps (the bound of ``block_work``)."""
    if depth > MAX_BLOCK_DEPTH:
        raise TheoryLimitError(f"depth {depth} is too deep for block verification's exact pass: at most "
                               f"{MAX_BLOCK_DEPTH} (its running weights multiply the states)")
    work = block_work(depth, ratios, drafts)
    if work > MAX_BLOCK_WORK:
        raise TheoryLimitError(
            f"depth {depth} over {drafts} draft tokens ({ratios} distinct ratios p/q) is beyond block "
            f"verification's exact pass: it may take more than {MAX_BLOCK_WORK:,} steps (the limit of depth x "
            f"vocabulary work); lower the depth or the vocabulary")


def check_round_work(contexts: int, vocab_size: int, k: int) -> None:
    """Refuse a node-by-node round pass that would read more than MAX_ROUND_WORK context x vocabulary steps."""
    if contexts * vocab_size > MAX_ROUND_WORK:
        raise TheoryLimitError(
            f"a round expectation reads {contexts:,} contexts of {vocab_size:,} tokens by draft position {k}; the "
            f"exact pass is limited to {MAX_ROUND_WORK:,} contexts x vocabulary (lower the depth or the vocabulary, "
            "or give the models a smaller state key)")
