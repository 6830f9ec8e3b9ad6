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
import operator
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

    def nonzero_at(self, positions: np.ndarray) -> np.ndarray:
        return self.mant[positions] != 0

    def float_slice(self, start: int, stop: int) -> np.ndarray:
        """floats()[start:stop], computed for the slice alone."""
        scale = self.total / (1 << self._unit_scale)
        mant, shift = self.mant[start:stop], self.shift[start:stop]
        return np.ldexp(mant.astype(np.float64), shift - self._unit_scale) / scale

    def select(self, positions: np.ndarray) -> DyadicTickets:
        """The tickets at positions, renormalized to the smallest integers."""
        return DyadicTickets.from_parts(self.mant[positions], self.shift[positions])

    def masked(self, keep: np.ndarray) -> DyadicTickets:
        return DyadicTickets.from_parts(np.where(keep, self.mant, 0), self.shift)

    def prefix_total(self, stop: int) -> int:
        return _group_total(self.mant[:stop], self.shift[:stop])

    # --- the raw interface shared with Fp32Tickets (here raw = reduced) ---------------------
    @property
    def raw_total(self) -> int:
        return self.total

    def raw_at(self, position: int) -> int:
        return self.at(position)

    def prefix_summer(self, keep: np.ndarray, full: int | None = None):
        """A function stop -> exact sum of the tickets at positions < stop where keep is True."""
        mant = np.where(keep, self.mant, 0)
        return lambda stop: _group_total(mant[:stop], self.shift[:stop])

    def masked_total(self, keep: np.ndarray) -> int:
        """Exact sum of the tickets where keep is True."""
        return _group_total(self.mant * keep, self.shift)

    common_shift = 0  # reduced tickets: the smallest nonzero one has shift 0

    def shift_below(self, positions: np.ndarray, limit: int) -> np.ndarray:
        return self.shift[positions] < limit

    def lowest_shift(self, positions: np.ndarray) -> np.ndarray:
        """The positions (among the given ones) whose shift is the least."""
        shifts = self.shift[positions]
        return positions[shifts == shifts.min()] if positions.size else positions

    def residues(self, positions: np.ndarray, modulus: int, down: int = 0) -> np.ndarray:
        """(ticket >> down) mod modulus at positions (modulus < 2**31, down <= common_shift), as int64."""
        if positions.size == 0:
            return np.zeros(0, dtype=np.int64)
        shifts = np.maximum(self.shift[positions] - down, 0)  # zero tickets may sit below: any shift will do
        return (self.mant[positions] % modulus) * _powers_of_two_mod(shifts, modulus) % modulus

    def spread(self, ids: np.ndarray, size: int) -> DyadicTickets:
        """The same tickets placed at ids of a dense vector of size entries (zeros elsewhere)."""
        mant = np.zeros(size, dtype=np.int64)
        shift = np.zeros(size, dtype=np.int64)
        mant[ids] = self.mant
        shift[ids] = self.shift
        return DyadicTickets(mant, shift, self.total)

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

    @property
    def raw_total(self) -> int:
        return self.total

    def raw_at(self, position: int) -> int:
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


class Fp32Tickets:
    """Tickets of FP32 weights, kept as the weights themselves: ``raw_i = w_i * 2**149`` exactly.

    The raw total (an exact per-exponent sum) is all acceptance needs, and only where a float
    bound cannot settle it; the gcd that gives the reference's smallest tickets, and the
    running sums for a draw, are computed on first use (only sampled distributions need
    them); everything else goes through the reduced ``dyadic`` form.
    """

    def __init__(self, singles: np.ndarray, field: np.ndarray, raw_total: int | None = None):
        # only the weights (4 bytes each) and their exponent fields (1 byte) are kept: a round holds
        # several distributions, and memory a round frees and takes again costs page faults
        self.singles, self.field = singles, field
        if raw_total is not None:
            self.__dict__["raw_total"] = raw_total
        if self._float_total == 0:  # a float sum of values >= 0 is 0 only if every value is
            raise SupportError(_EMPTY_MESSAGE)

    @classmethod
    def from_float32(cls, singles: np.ndarray) -> Fp32Tickets:
        """singles: a contiguous float32 vector of finite values >= 0 (no negative zero)."""
        field = (singles.view(np.uint32) >> 23).astype(np.uint8)  # the biased exponent (the sign bit is clear)
        return cls(singles, field)

    @cached_property
    def raw_total(self) -> int:
        """The exact sum of the raw tickets (computed on first use)."""
        return _fp32_sum(self.field, self.singles)

    @cached_property
    def _float_total(self) -> float:
        return float(self.singles.sum(dtype=np.float64))

    @cached_property
    def raw_total_upper(self) -> int:
        """An integer >= raw_total from one float sum (exact when the total is already known)."""
        if "raw_total" in self.__dict__:
            return self.raw_total
        # numpy's sum of n values >= 0 errs by less than n * 2**-53 of the total
        upper = self._float_total * (1 + (self.singles.size + 8) * 2.0**-50)
        return int(math.ldexp(upper, _FP32_UNIT)) + 1

    def __len__(self) -> int:
        return self.singles.size

    @cached_property
    def _parts(self) -> tuple[np.ndarray, np.ndarray]:
        """Integer mantissas and shifts with raw_i = mant_i << shift_i."""
        return _fp32_parts(self.singles.view(np.uint32), self.field)

    @cached_property
    def _field_min(self) -> int:
        return int(self.field.min())

    @cached_property
    def _dense(self) -> bool:
        # every field >= 1 means no zero (nor subnormal) weight: no count needed
        return self._field_min > 0 or int(np.count_nonzero(self.singles)) == self.singles.size

    @cached_property
    def _nonzero_positions(self) -> np.ndarray:
        return np.arange(self.singles.size) if self._dense else np.flatnonzero(self.singles)

    def _nonzero_field(self) -> np.ndarray:
        return self.field if self._dense else self.field[self._nonzero_positions]

    @cached_property
    def divisor(self) -> int:
        """gcd of the raw tickets: 2**(least 2-adic valuation among them) times the gcd of the odd parts."""
        bits, field = self.singles.view(np.uint32), self.field
        head = slice(0, 64) if self._dense else self._nonzero_positions[:64]  # odd parts: a head has gcd 1
        mant, _ = _fp32_parts(bits[head], field[head])
        odd_gcd = int(np.gcd.reduce(mant >> _trailing_zeros(mant)))
        if odd_gcd != 1:
            mant, _ = self._parts
            mm = mant if self._dense else mant[self._nonzero_positions]
            odd_gcd = int(np.gcd.reduce(mm >> _trailing_zeros(mm)))
        return odd_gcd << self._least_valuation()

    def _least_valuation(self) -> int:
        """min over nonzero tickets of shift + trailing zeros, scanning shift levels upwards.

        A level can only improve on the best so far if its shift is below it, so the scan
        usually stops after the lowest level (an odd mantissa there settles it).
        """
        bits, field = self.singles.view(np.uint32), self.field
        nonzero_field = self._nonzero_field()
        best = level = self.common_shift
        best = None
        while best is None or level < best:
            # shift = max(field, 1) - 1: level 0 holds fields 0 and 1
            at = (nonzero_field <= 1) if level == 0 else (nonzero_field == level + 1)
            found = np.flatnonzero(at)
            if found.size:
                positions = found if self._dense else self._nonzero_positions[found]
                mant, _ = _fp32_parts(bits[positions], field[positions])
                value = level + int(_trailing_zeros(mant).min())
                best = value if best is None else min(best, value)
            level += 1
        return best

    @cached_property
    def total(self) -> int:
        return self.raw_total // self.divisor

    def raw_at(self, position: int) -> int:
        numerator, denominator = float(self.singles[position]).as_integer_ratio()
        return numerator * ((1 << _FP32_UNIT) // denominator)

    def at(self, position: int) -> int:
        return self.raw_at(position) // self.divisor

    @cached_property
    def dyadic(self) -> DyadicTickets:
        """The same (reduced) tickets in the general dyadic storage."""
        return DyadicTickets.from_parts(*self._parts)

    def as_ints(self) -> list[int]:
        return self.dyadic.as_ints()

    def nonzero(self) -> np.ndarray:
        return self.singles != 0

    def nonzero_at(self, positions: np.ndarray) -> np.ndarray:
        return self.singles[positions] != 0

    def float_slice(self, start: int, stop: int) -> np.ndarray:
        """A fresh float64 copy of floats()[start:stop]."""
        return np.divide(self.singles[start:stop], self._unit_total, dtype=np.float64)

    @cached_property
    def _unit_total(self) -> float:
        return self.raw_total / (1 << _FP32_UNIT)

    def select(self, positions: np.ndarray) -> DyadicTickets:
        return self.dyadic.select(positions)

    def masked(self, keep: np.ndarray) -> Fp32Tickets:
        """The same FP32 weights with those outside keep set to 0 (raw tickets unchanged elsewhere)."""
        raw_total = None
        if "raw_total" in self.__dict__:  # a few tokens removed (distinct drafts): subtract them, no new exact sum
            removed = np.flatnonzero(~keep & (self.singles != 0))
            if removed.size <= 64:
                raw_total = self.raw_total - sum(self.raw_at(i) for i in removed.tolist())
        return Fp32Tickets(np.where(keep, self.singles, np.float32(0)), np.where(keep, self.field, np.uint8(0)),
                           raw_total)

    def top_positions(self, k: int, ids: np.ndarray) -> np.ndarray:
        return self.dyadic.top_positions(k, ids)

    @cached_property
    def _floats(self) -> np.ndarray:
        return np.divide(self.singles, self._unit_total, dtype=np.float64)

    def floats(self) -> np.ndarray:
        """t_i / T as float64 (within 2 ulps)."""
        return self._floats

    def position_of(self, draw: int) -> int:
        """Index of the first ticket whose running sum exceeds draw (the reference's walk)."""
        goal = draw * self.divisor  # compare raw running sums in raw units
        x = goal / (1 << _FP32_UNIT)
        slack = (len(self) + 8) * 2.0**-50 * (self.raw_total / (1 << _FP32_UNIT))
        low, high = float_brackets(self.singles, x - slack, x + slack)
        if low == high and low < len(self):  # the float error cannot move the answer: no exact sum needed
            return low
        exact = _prefix_function(self.field, self.singles, self.raw_total)(low)
        for index in range(low, len(self)):
            exact += self.raw_at(index)
            if exact > goal:
                return index
        raise AssertionError("categorical integer sampler exhausted its support")

    # --- the raw interface shared with DyadicTickets ----------------------------------------
    def prefix_summer(self, keep: np.ndarray, full: int | None = None):
        """A function stop -> exact raw sum at positions < stop where keep is True (full: that sum at the end)."""
        values = np.where(keep, self.singles, np.float32(0))
        return _prefix_function(self.field, values, full)

    def masked_total(self, keep: np.ndarray) -> int:
        """Exact raw sum where keep is True."""
        return _fp32_sum(self.field, self.singles, keep)

    def shift_below(self, positions: np.ndarray, limit: int) -> np.ndarray:
        return self.field[positions] < limit + 1  # shift = max(field, 1) - 1 and limit >= 0

    def lowest_shift(self, positions: np.ndarray) -> np.ndarray:
        """The positions (among the given ones) whose field, hence shift, is the least."""
        fields = self.field[positions]
        return positions[fields == fields.min()] if positions.size else positions

    @cached_property
    def common_shift(self) -> int:
        """The least shift among nonzero raw tickets: 2**common_shift divides every one of them."""
        lowest = self._field_min if self._dense else int(self._nonzero_field().min())
        return max(lowest, 1) - 1

    def residues(self, positions: np.ndarray, modulus: int, down: int = 0) -> np.ndarray:
        """(raw ticket >> down) mod modulus at positions (modulus < 2**31, down <= common_shift)."""
        if positions.size == 0:
            return np.zeros(0, dtype=np.int64)
        mant, shift = _fp32_parts(self.singles.view(np.uint32)[positions], self.field[positions])
        shifts = np.maximum(shift - down, 0)
        return (mant % modulus) * _powers_of_two_mod(shifts, modulus) % modulus

    def spread(self, ids: np.ndarray, size: int) -> Fp32Tickets:
        singles = np.zeros(size, dtype=np.float32)
        field = np.zeros(size, dtype=np.uint8)
        singles[ids], field[ids] = self.singles, self.field
        return Fp32Tickets(singles, field, self.raw_total)


_FP32_UNIT = 149  # raw FP32 tickets count units of 2**-149, the smallest FP32 subnormal


_CHUNK = 1024


def float_bracket(values: np.ndarray, bound: float) -> int:
    """The number of leading entries whose float running sum stays <= bound.

    Chunk sums first, then one chunk's running sum: a full cumsum costs several times
    more. Callers pass a bound lowered by the float error, so every skipped entry is
    surely before the exact answer, and walk on exactly from the returned index.
    """
    return float_brackets(values, bound, bound)[0]


def float_brackets(values: np.ndarray, low_bound: float, high_bound: float) -> tuple[int, int]:
    """float_bracket at two bounds (low_bound <= high_bound), sharing the chunk sums.

    With the bounds the exact goal minus and plus the float error, equal results
    settle the draw without any exact sum: every entry before the index surely ends
    at or below the goal and the entry at the index surely ends above it.
    """
    n = values.size
    if n <= 4 * _CHUNK:
        running = np.cumsum(values, dtype=np.float64)
        found = np.searchsorted(running, (low_bound, high_bound), side="right")
        return int(found[0]), int(found[1])
    starts = np.arange(0, n, _CHUNK)
    ends = np.cumsum(np.add.reduceat(values, starts, dtype=np.float64))
    return _inner_bracket(values, starts, ends, low_bound), _inner_bracket(values, starts, ends, high_bound)


def _inner_bracket(values: np.ndarray, starts: np.ndarray, ends: np.ndarray, bound: float) -> int:
    block = int(np.searchsorted(ends, bound, side="right"))
    if block == starts.size:
        return values.size
    before = float(ends[block - 1]) if block else 0.0
    start = int(starts[block])
    inner = before + np.cumsum(values[start:start + _CHUNK], dtype=np.float64)
    return start + int(np.searchsorted(inner, bound, side="right"))


def _fp32_parts(bits: np.ndarray, field: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int64 mantissas and shifts of FP32 bit patterns: value * 2**149 = mant << shift."""
    normal = field > 0
    mant = (bits & 0x7FFFFF).astype(np.int64) | (normal.astype(np.int64) << 23)
    return mant, np.maximum(field, 1).astype(np.int64) - 1


def _trailing_zeros(mant: np.ndarray) -> np.ndarray:
    """Trailing zero bits of positive int64 values below 2**53."""
    lowest_bit = mant & -mant
    return np.frexp(lowest_bit.astype(np.float64))[1].astype(np.int64) - 1


_SUM_SLICE = 8192  # entries per bincount: its intp and float64 copies stay at 64 KiB each


def _fp32_sum(field: np.ndarray, values: np.ndarray, keep: np.ndarray | None = None) -> int:
    """Exact sum of FP32 values in units of 2**-149, one float64 bincount per exponent field.

    Inside one exponent every value is mant * 2**k with mant < 2**24, so fewer than
    2**29 of them add up exactly in float64. With keep, only where keep is True.
    """
    n = values.size
    if n == 0:
        return 0
    # bincount converts its inputs to intp and float64 (16 bytes an entry): in slices those
    # temporaries stay small and are reused, where whole-vector ones are taken from and given
    # back to the OS (page faults) at every call; per-field slice sums add up exactly (n < 2**29)
    sums = np.zeros(256, dtype=np.float64)
    for start in range(0, n, _SUM_SLICE):
        weights = values[start:start + _SUM_SLICE]
        if keep is not None:
            weights = weights * keep[start:start + _SUM_SLICE]  # finite values: times 1 or 0, exactly
        sums += np.bincount(field[start:start + _SUM_SLICE], weights=weights, minlength=256)
    groups = np.flatnonzero(sums)
    low = np.maximum(groups, 1) - 1
    mantissa_sums = np.ldexp(sums[groups], _FP32_UNIT - low).astype(np.int64)
    return sum(map(operator.lshift, mantissa_sums.tolist(), low.tolist()))


def _valuation(value: int) -> int:
    """The number of factors of two in a nonzero int (a large number for 0)."""
    return (value & -value).bit_length() - 1 if value else 1 << 30


def _prefix_function(field: np.ndarray, values: np.ndarray, full: int | None = None):
    """stop -> exact sum of values[:stop]: the shorter side is summed (the total minus a suffix)."""
    n = values.size
    total = _fp32_sum(field, values) if full is None else full

    def summed(stop: int) -> int:
        if stop >= n:
            return total
        if stop > n // 2:
            return total - _fp32_sum(field[stop:], values[stop:])
        return _fp32_sum(field[:stop], values[:stop])

    return summed


RawTickets = DyadicTickets | Fp32Tickets


class DifferenceTickets:
    """Residual tickets (a*U*t_i - b*T*u_i) / g on the positive set, for the scaled residual (c*p - q)+.

    t and u are raw tickets with totals T and U, c = a/b. Sums, the gcd and the
    sampling walk run on the two raw vectors in numpy; the big integers of single
    entries are only formed near the draw (or for display).
    """

    _EXACT_HEAD = 48  # entries whose exact gcd usually settles the divisor at 1

    def __init__(self, t: RawTickets, u: RawTickets, positive: np.ndarray, scale: Fraction = Fraction(1),
                 difference: np.ndarray | None = None, sums: tuple[int, int] | None = None):
        """sums: the exact raw sums of t and of u over the positive set, when the caller has them."""
        self.t, self.u, self.positive, self.scale = t, u, positive, scale
        if difference is not None:  # (c*p - q)+ in floats, zero off the positive set, from the caller
            self._differences = difference
        self.coef_t = scale.numerator * u.raw_total
        self.coef_u = scale.denominator * t.raw_total
        self.denominator = scale.denominator * t.raw_total * u.raw_total  # of the mass
        self._sums = sums if sums is not None else (t.masked_total(positive), u.masked_total(positive))
        self.raw_total = self.coef_t * self._sums[0] - self.coef_u * self._sums[1]
        if self.raw_total == 0:
            raise SupportError(_EMPTY_MESSAGE)
        self.divisor = self._divisor()
        self.total = self.raw_total // self.divisor

    @cached_property
    def _summers(self):
        """Exact prefix sums of t and u over the positive set (only a draw near a float tie needs them)."""
        return (self.t.prefix_summer(self.positive, self._sums[0]),
                self.u.prefix_summer(self.positive, self._sums[1]))

    def _raw_prefix(self, stop: int) -> int:
        """Exact sum of the raw differences over positive positions < stop."""
        if stop >= len(self.positive):
            return self.raw_total
        t_sum, u_sum = self._summers
        return self.coef_t * t_sum(stop) - self.coef_u * u_sum(stop)

    def raw_at(self, i: int) -> int:
        if not self.positive[i]:
            return 0
        return self.coef_t * self.t.raw_at(i) - self.coef_u * self.u.raw_at(i)

    def _divisor(self) -> int:
        # raw tickets share the powers of two 2**kt and 2**ku: d_i = 2**(kt+ku) * d'_i with
        # d'_i = A * (t_i >> kt) - B * (u_i >> ku); c = gcd(A, B) divides every d'_i, so d'_i = c * e_i
        # (a scale sharing large factors with the totals, as a tree's residual of a residual has,
        # makes c large: the gcd of the e_i is then still usually settled by a few entries)
        kt, ku = self.t.common_shift, self.u.common_shift
        down = kt + ku
        big_a, big_b = self.coef_t >> ku, self.coef_u >> kt
        common = math.gcd(big_a, big_b)
        big_a, big_b = big_a // common, big_b // common
        ids = np.flatnonzero(self.positive)
        # a head of entries, with those of the lowest shifts (the least powers of two) added,
        # usually settles the gcd of the e_i
        head = np.concatenate((ids[: self._EXACT_HEAD], self.t.lowest_shift(ids)[:8], self.u.lowest_shift(ids)[:8]))
        divisor = 0
        for i in head.tolist():
            divisor = math.gcd(divisor, self._reduced_at(i, big_a, big_b, kt, ku))
            if divisor == 1:
                return common << down
        if ids.size <= self._EXACT_HEAD:
            return (common * divisor) << down
        power = (divisor & -divisor).bit_length() - 1
        if divisor == 1 << power:
            # 2**(v2(A) + shift - kt) divides A * (t_i >> kt): only entries where that or the u side
            # has fewer than `power` factors of two can lower the power of two of the gcd
            need_t = power - _valuation(big_a)
            need_u = power - _valuation(big_b)
            keep = np.zeros(ids.size, dtype=bool)
            if need_t > 0:
                keep |= self.t.shift_below(ids, kt + need_t)
            if need_u > 0:
                keep |= self.u.shift_below(ids, ku + need_u)
            ids = ids[keep]
            if ids.size == 0:
                return (common * divisor) << down
        if divisor < 2**31:
            # gcd(g, x_i) = gcd(g, x_i mod g): residues of small g fit int64 products
            g = divisor
            coef_t = big_a % g
            coef_u = big_b % g
            residues = (self.t.residues(ids, g, kt) * coef_t - self.u.residues(ids, g, ku) * coef_u) % g
            return (common * math.gcd(g, int(np.gcd.reduce(residues)))) << down
        rest = (self._reduced_at(i, big_a, big_b, kt, ku) for i in ids.tolist())
        return (common * math.gcd(divisor, *rest)) << down

    def _reduced_at(self, i: int, big_a: int, big_b: int, kt: int, ku: int) -> int:
        """e_i = A' * (t_i >> kt) - B' * (u_i >> ku) at a positive position (A', B' the reduced coefficients)."""
        return big_a * (self.t.raw_at(i) >> kt) - big_b * (self.u.raw_at(i) >> ku)

    def __len__(self) -> int:
        return self.positive.size

    def at(self, position: int) -> int:
        return self.raw_at(position) // self.divisor

    @cached_property
    def _ints(self) -> list[int]:
        values = [0] * len(self)
        for i in np.flatnonzero(self.positive).tolist():
            values[i] = self.raw_at(i) // self.divisor
        return values

    def as_ints(self) -> list[int]:
        return self._ints

    def nonzero(self) -> np.ndarray:
        return self.positive

    @cached_property
    def _differences(self) -> np.ndarray:
        """c*p_i - q_i on the positive set as floats (absolute error a few ulps of p_i + q_i)."""
        scaled = self.t.floats() * float(self.scale) if self.scale != 1 else self.t.floats()
        return np.where(self.positive, np.maximum(scaled - self.u.floats(), 0.0), 0.0)

    def floats(self) -> np.ndarray:
        return self._differences / float(Fraction(self.raw_total, self.denominator))

    def position_of(self, draw: int) -> int:
        goal = draw * self.divisor  # compare raw running sums against the draw in raw units
        x = goal / self.denominator
        slack = (len(self) + 16) * 2.0**-50
        low, high = float_brackets(self._differences, x - slack, x + slack)
        if low == high and low < len(self):  # the float error cannot move the answer: no exact sum needed
            return low
        exact = self._raw_prefix(low)
        for index in range(low, len(self)):
            if self.positive[index]:
                exact += self.raw_at(index)
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


Tickets = DyadicTickets | Fp32Tickets | IntTickets | DifferenceTickets
