"""Exact integer ticket vectors: the integer weights t_i that a Categorical samples from.

A Categorical with probabilities p_i = t_i / T draws ``randrange(T)`` and walks the
tickets in ascending id order. Two storages hold the same integers:

* ``DyadicTickets`` for float inputs: every float is m * 2**e, so after a common
  scale each ticket is ``mant << shift`` with a small integer mantissa. Sums,
  gcds and the sampling walk run in numpy; Python big integers appear only in a
  handful of per-exponent group sums.
* ``IntTickets``: a plain list of Python ints, for Fraction inputs and residuals.
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_right
from fractions import Fraction
from functools import cached_property
from itertools import accumulate

import numpy as np

from .errors import SupportError

_HALF = 26  # mantissas (< 2**53) are split in two halves so float64 bincounts stay exact
_LOW_MASK = (1 << _HALF) - 1
ZERO_KEY = -(1 << 62)  # order key of a zero ticket: below every real exponent, safe to negate
_EMPTY_MESSAGE = (
    "empty effective support (all zero or all masked): every listed token has weight 0; "
    "give at least one allowed token a positive weight"
)


def decompose(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split finite non-negative float64 values exactly into int64 mantissas and exponents."""
    fraction, exponent = np.frexp(values)
    mantissa = np.ldexp(fraction, 53).astype(np.int64)
    return mantissa, exponent.astype(np.int64) - 53


def _group_total(mant: np.ndarray, shift: np.ndarray) -> int:
    """Exact sum of mant << shift, with one Python big-int step per distinct shift."""
    if mant.size == 0:
        return 0
    length = int(shift.max()) + 1
    if int(mant.max()) < 1 << _HALF:  # FP32 mantissas: one float64 bincount is exact
        sums = np.bincount(shift, weights=mant.astype(np.float64), minlength=length)
        return sum(int(sums[s]) << s for s in np.flatnonzero(sums).tolist())
    high = np.bincount(shift, weights=(mant >> _HALF).astype(np.float64), minlength=length)
    low = np.bincount(shift, weights=(mant & _LOW_MASK).astype(np.float64), minlength=length)
    total = 0
    for s in np.flatnonzero((high != 0) | (low != 0)).tolist():
        total += ((int(high[s]) << _HALF) + int(low[s])) << s
    return total


class DyadicTickets:
    """Tickets ``mant[i] << shift[i]`` stored as two aligned int64 arrays."""

    def __init__(self, mant: np.ndarray, shift: np.ndarray, total: int):
        self.mant = mant
        self.shift = shift
        self.total = total

    @classmethod
    def from_parts(cls, mantissa: np.ndarray, exponent: np.ndarray) -> DyadicTickets:
        """Normalize weights mantissa * 2**exponent into the smallest integer tickets."""
        nonzero = mantissa != 0
        dense = bool(nonzero.all())  # softmax outputs: skip the compaction and the scatter back
        if not dense and not nonzero.any():
            raise SupportError(_EMPTY_MESSAGE)
        mm = mantissa if dense else mantissa[nonzero]
        lowest_bit = mm & -mm
        trailing = np.frexp(lowest_bit.astype(np.float64))[1].astype(np.int64) - 1
        mm = mm >> trailing
        ee = (exponent if dense else exponent[nonzero]) + trailing
        # odd mantissas: the 2-adic part of the gcd is 2**min(exponent), the odd part gcd(mm)
        divisor = int(np.gcd.reduce(mm[:64]))  # a head with gcd 1 settles it without the full pass
        if divisor != 1:
            divisor = int(np.gcd.reduce(mm))
        if divisor != 1:
            mm = mm // divisor
        ee -= ee.min()
        if dense:
            return cls(mm, ee, _group_total(mm, ee))
        mant = np.zeros(mantissa.shape, dtype=np.int64)
        shift = np.zeros(mantissa.shape, dtype=np.int64)
        mant[nonzero] = mm
        shift[nonzero] = ee
        return cls(mant, shift, _group_total(mm, ee))

    @classmethod
    def from_floats(cls, values: np.ndarray) -> DyadicTickets:
        return cls.from_parts(*decompose(values))

    def __len__(self) -> int:
        return self.mant.size

    def at(self, position: int) -> int:
        return int(self.mant[position]) << int(self.shift[position])

    def as_ints(self) -> list[int]:
        return [m << s for m, s in zip(self.mant.tolist(), self.shift.tolist())]

    def nonzero(self) -> np.ndarray:
        return self.mant != 0

    def select(self, positions: np.ndarray) -> DyadicTickets:
        """The tickets at positions, renormalized to the smallest integers."""
        return DyadicTickets.from_parts(self.mant[positions], self.shift[positions])

    def masked(self, keep: np.ndarray) -> DyadicTickets:
        return DyadicTickets.from_parts(np.where(keep, self.mant, 0), self.shift)

    def prefix_total(self, stop: int) -> int:
        return _group_total(self.mant[:stop], self.shift[:stop])

    @cached_property
    def _unit_scale(self) -> int:
        return self.total.bit_length()

    @cached_property
    def _small_cumsum(self) -> np.ndarray | None:
        """Exact int64 running sums when the total fits in 62 bits."""
        if self._unit_scale > 62:
            return None
        return np.cumsum(self.mant << self.shift)

    @cached_property
    def _float_cumsum(self) -> np.ndarray:
        return np.cumsum(np.ldexp(self.mant.astype(np.float64), self.shift - self._unit_scale))

    def floats(self) -> np.ndarray:
        """t_i / T as float64 (rounded; for display and for bracketing exact searches)."""
        scale = self.total / (1 << self._unit_scale)
        return np.ldexp(self.mant.astype(np.float64), self.shift - self._unit_scale) / scale

    def position_of(self, draw: int) -> int:
        """Index of the first ticket whose running sum exceeds draw (the reference's walk)."""
        small = self._small_cumsum
        if small is not None:
            return int(np.searchsorted(small, draw, side="right"))
        # a float running sum brackets the answer; the bracket is then walked exactly
        running = self._float_cumsum
        x = draw / (1 << self._unit_scale)
        slack = (len(self) + 8) * 2.0**-52
        low = int(np.searchsorted(running, x - slack, side="right"))
        exact = self.prefix_total(low)
        for index in range(low, len(self)):
            exact += self.at(index)
            if exact > draw:
                return index
        raise AssertionError("categorical integer sampler exhausted its support")

    def top_positions(self, k: int, ids: np.ndarray) -> np.ndarray:
        """Positions of the k largest tickets by (-ticket, id), exactly."""
        # t = fraction * 2**exponent orders exactly by (exponent, fraction)
        fraction, bits = np.frexp(self.mant.astype(np.float64))
        exponent = np.where(self.mant != 0, self.shift + bits, ZERO_KEY)
        n = exponent.size
        if k >= n:
            candidates = np.arange(n)
        else:
            # a monotone float key narrows the exact sort to a superset of the top k
            key = np.where(exponent == ZERO_KEY, -np.inf,
                           np.ldexp(fraction, np.clip(exponent - exponent.max(), -1100, 0)))
            candidates = np.flatnonzero(key >= np.partition(key, n - k)[n - k])
        order = np.lexsort((ids[candidates], -fraction[candidates], -exponent[candidates]))
        return candidates[order][:k]

    def equals(self, other: DyadicTickets) -> bool:
        return np.array_equal(self.mant, other.mant) and np.array_equal(self.shift, other.shift)


class IntTickets:
    """Tickets as a list of Python ints (any size)."""

    def __init__(self, values: list[int], total: int):
        self.values = values
        self.total = total

    @classmethod
    def from_ints(cls, values: list[int]) -> IntTickets:
        """Normalize non-negative integer weights into the smallest integer tickets."""
        divisor = math.gcd(*values)
        if divisor == 0:
            raise SupportError(_EMPTY_MESSAGE)
        if divisor > 1:
            values = [v // divisor for v in values]
        return cls(values, sum(values))

    def __len__(self) -> int:
        return len(self.values)

    def at(self, position: int) -> int:
        return self.values[position]

    def as_ints(self) -> list[int]:
        return self.values

    def nonzero(self) -> np.ndarray:
        return np.fromiter((v != 0 for v in self.values), dtype=bool, count=len(self.values))

    def select(self, positions: np.ndarray) -> IntTickets:
        return IntTickets.from_ints([self.values[i] for i in positions.tolist()])

    def masked(self, keep: np.ndarray) -> IntTickets:
        return IntTickets.from_ints([v if k else 0 for v, k in zip(self.values, keep.tolist())])

    @cached_property
    def _cumulative(self) -> list[int]:
        return list(accumulate(self.values))

    def floats(self) -> np.ndarray:
        total = self.total
        return np.array([v / total for v in self.values], dtype=np.float64)

    def position_of(self, draw: int) -> int:
        return bisect_right(self._cumulative, draw)

    def top_positions(self, k: int, ids: np.ndarray) -> np.ndarray:
        """Positions of the k largest tickets by (-ticket, id), exactly."""
        return _exact_top(range(len(self.values)), self.values.__getitem__, k, ids)


def _exact_top(positions, value_at, k: int, ids: np.ndarray) -> np.ndarray:
    """The k positions with the largest exact values, ties broken by the smaller id."""
    id_list = ids.tolist()
    best = heapq.nsmallest(k, positions, key=lambda i: (-value_at(i), id_list[i]))
    return np.array(best, dtype=np.int64)


def _powers_of_two_mod(shifts: np.ndarray, modulus: int) -> np.ndarray:
    table = np.array([pow(2, s, modulus) for s in range(int(shifts.max()) + 1)], dtype=np.int64)
    return table[shifts]


class DifferenceTickets:
    """Residual tickets (t_i*U - u_i*T) / g on the positive set, kept as the two dyadic vectors.

    Sums, the gcd and the sampling walk run on the dyadic parts in numpy; the big
    integers of single entries are only formed near the draw (or for display).
    """

    _EXACT_HEAD = 16  # entries whose exact gcd usually settles the divisor at 1

    def __init__(self, t: DyadicTickets, u: DyadicTickets, positive: np.ndarray):
        self.t, self.u, self.positive = t, u, positive
        self._tm = np.where(positive, t.mant, 0)
        self._um = np.where(positive, u.mant, 0)
        self.raw_total = self._raw_prefix(len(positive))
        if self.raw_total == 0:
            raise SupportError(_EMPTY_MESSAGE)
        self.divisor = self._divisor()
        self.total = self.raw_total // self.divisor

    def _raw_prefix(self, stop: int) -> int:
        """Exact sum of the raw differences over positions < stop."""
        return (self.u.total * _group_total(self._tm[:stop], self.t.shift[:stop])
                - self.t.total * _group_total(self._um[:stop], self.u.shift[:stop]))

    def _raw_at(self, i: int) -> int:
        return self.t.at(i) * self.u.total - self.u.at(i) * self.t.total

    def _divisor(self) -> int:
        ids = np.flatnonzero(self.positive)
        divisor = 0
        for i in ids[: self._EXACT_HEAD].tolist():
            divisor = math.gcd(divisor, self._raw_at(i))
            if divisor == 1:
                return 1
        if ids.size <= self._EXACT_HEAD:
            return divisor
        if divisor < 2**31:
            # gcd(g, x_i) = gcd(g, x_i mod g): residues of small g fit int64 products
            g = divisor
            t_mod = (self.t.mant[ids] % g) * _powers_of_two_mod(self.t.shift[ids], g) % g
            u_mod = (self.u.mant[ids] % g) * _powers_of_two_mod(self.u.shift[ids], g) % g
            residues = (t_mod * (self.u.total % g) - u_mod * (self.t.total % g)) % g
            return math.gcd(g, int(np.gcd.reduce(residues)))
        return math.gcd(*(self._raw_at(i) for i in ids.tolist()))

    def __len__(self) -> int:
        return self.positive.size

    def at(self, position: int) -> int:
        return self._raw_at(position) // self.divisor if self.positive[position] else 0

    @cached_property
    def _ints(self) -> list[int]:
        values = [0] * len(self)
        for i in np.flatnonzero(self.positive).tolist():
            values[i] = self._raw_at(i) // self.divisor
        return values

    def as_ints(self) -> list[int]:
        return self._ints

    def nonzero(self) -> np.ndarray:
        return self.positive

    @cached_property
    def _differences(self) -> np.ndarray:
        """p_i - q_i on the positive set as floats (absolute error a few ulps of p_i + q_i)."""
        return np.where(self.positive, np.maximum(self.t.floats() - self.u.floats(), 0.0), 0.0)

    @cached_property
    def _running(self) -> np.ndarray:
        return np.cumsum(self._differences)

    def floats(self) -> np.ndarray:
        return self._differences / float(Fraction(self.raw_total, self.t.total * self.u.total))

    def position_of(self, draw: int) -> int:
        goal = draw * self.divisor  # compare raw running sums against the draw in raw units
        x = goal / (self.t.total * self.u.total)
        slack = (len(self) + 16) * 2.0**-50
        low = int(np.searchsorted(self._running, x - slack, side="right"))
        exact = self._raw_prefix(low)
        for index in range(low, len(self)):
            if self.positive[index]:
                exact += self._raw_at(index)
                if exact > goal:
                    return index
        raise AssertionError("categorical integer sampler exhausted its support")

    def _as_int_tickets(self) -> IntTickets:
        return IntTickets(self._ints, self.total)

    def select(self, positions: np.ndarray) -> IntTickets:
        return IntTickets.from_ints([self.at(i) for i in positions.tolist()])

    def masked(self, keep: np.ndarray) -> IntTickets:
        return self._as_int_tickets().masked(keep)

    def top_positions(self, k: int, ids: np.ndarray) -> np.ndarray:
        """Positions of the k largest residual tickets by (-ticket, id), exactly."""
        n = len(self)
        if k >= n:
            return _exact_top(range(n), self.at, k, ids)
        # float differences bound each exact value within err: only entries whose upper bound
        # reaches the k-th largest lower bound can be in the top k
        err = 2.0**-47 * (self.t.floats() + self.u.floats()) + 2.0**-999
        low = self._differences - err
        bar = np.partition(low, n - k)[n - k]
        candidates = np.flatnonzero(self._differences + err >= bar)
        return _exact_top(candidates.tolist(), self.at, k, ids)


Tickets = DyadicTickets | IntTickets | DifferenceTickets
