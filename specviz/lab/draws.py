"""Exact integer-ticket draws the lab's Monte Carlo modules share (tokenwise, block, rules).

A categorical draw is ``u = integers(0, total)`` and the token the ticket walk lands on: no float ever
decides an outcome. Both forms are here so that no simulator imports another's private helpers.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

INT64_LIMIT = (1 << 63) - 1  # numpy's integer draws and cumulative sums stay below this


def python_draw(rng: random.Random, tickets: Sequence[int]) -> int:
    """One exact draw with Python integers (any ticket size): the token whose tickets hold randrange(total)."""
    draw = rng.randrange(sum(tickets))
    for token, count in enumerate(tickets):
        if draw < count:
            return token
        draw -= count
    raise AssertionError("ticket walk exhausted")


def numpy_draw(rng: np.random.Generator, cum: np.ndarray, total: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Exact categorical draws, vectorized: u = integers(0, total[row]), token = #{i : cum[row, i] <= u}."""
    u = rng.integers(0, total[rows])
    return (cum[rows] <= u[:, None]).sum(axis=1)


def cumulative(rows: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative tickets per row and each row's total (an all-zero row gets total 1 and is never drawn from)."""
    cum = np.cumsum(np.array(rows, dtype=np.int64), axis=1)
    return cum, np.maximum(cum[:, -1], 1)
