"""Categorical: an exact, normalized distribution over a finite vocabulary of global ids."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from .errors import MaskError, SupportError, TopKError, WeightValueError
from .tickets import DyadicTickets, IntTickets, Tickets
from .validation import Weight, check_token, check_weight, check_weight_array

_EXACT_FLOAT_INT = 1 << 53


def _check_vocab_size(vocab_size: object) -> None:
    if type(vocab_size) is not int or vocab_size < 1:
        raise SupportError(f"vocabulary size must be a positive integer, got {vocab_size!r}")


def _check_ids(vocab_size: int, ids: Sequence[int] | np.ndarray, n_weights: int) -> np.ndarray:
    """Validate the listed support and return it as an int64 array (in the given order)."""
    if len(ids) != n_weights or len(ids) == 0:
        raise SupportError(
            f"support and weights must have matching nonempty lengths (got {len(ids)} ids and "
            f"{n_weights} weights)"
        )
    if isinstance(ids, np.ndarray) and ids.dtype.kind in "iu":
        array = ids.astype(np.int64, copy=False)
        outside = (array < 0) | (array >= vocab_size)
        if outside.any():
            check_token(int(array[np.flatnonzero(outside)[0]]), vocab_size)
    elif isinstance(ids, range) and ids.step == 1 and 0 <= ids.start and ids.stop <= vocab_size:
        return np.arange(ids.start, ids.stop, dtype=np.int64)  # ascending: no duplicates possible
    else:
        for token in ids:
            check_token(token, vocab_size)
        array = np.array(ids, dtype=np.int64)
    if array.size > 1 and not bool(np.all(array[1:] > array[:-1])):
        ordered = np.sort(array)
        repeated = ordered[1:][ordered[1:] == ordered[:-1]]
        if repeated.size:
            raise SupportError(f"duplicate global token ID {int(repeated[0])} in the support; list each id once")
    return array


SMALL = 256  # below this many weights, plain Python integers beat numpy's per-call overhead


def _int_tickets(weights: Sequence[Weight]) -> IntTickets:
    """Exact tickets in Python integers: every weight over the common denominator of them all."""
    numerators, denominators = [], []
    for index, value in enumerate(weights):
        kind = type(value)
        if kind is int and value >= 0:
            numerators.append(value)
            denominators.append(1)
        elif kind is float and value >= 0 and value != math.inf:
            numerator, denominator = value.as_integer_ratio()
            numerators.append(numerator)
            denominators.append(denominator)
        else:
            fraction = check_weight(value, index)  # raises for bad values, normalizes subclasses
            numerators.append(fraction.numerator)
            denominators.append(fraction.denominator)
    common = math.lcm(*denominators)
    return IntTickets.from_ints([n * (common // d) for n, d in zip(numerators, denominators)])


def _plain_float(value: object) -> bool:
    """A finite non-negative Python float or an int exact in float64: no Fraction needed."""
    kind = type(value)
    if kind is float:
        return 0 <= value < math.inf  # False for NaN, inf and negatives
    return kind is int and 0 <= value < _EXACT_FLOAT_INT


def _float_weights(weights: Sequence[Weight] | np.ndarray) -> np.ndarray | None:
    """The weights as validated float64 if they are exact there, else None (use Fractions)."""
    if isinstance(weights, np.ndarray) and weights.dtype.kind != "O":
        check_weight_array(weights)
        if weights.dtype.kind in "iu" and weights.size and int(weights.max()) >= _EXACT_FLOAT_INT:
            return None
        return weights.astype(np.float64)
    exact = True
    for index, value in enumerate(weights):
        if not _plain_float(value):
            check_weight(value, index)  # raises for bad values; big ints and Fractions stay exact below
            exact = False
    return np.array(weights, dtype=np.float64) if exact else None


def _tickets_of(weights: Sequence[Weight] | np.ndarray) -> Tickets:
    """Exact tickets of the weights in the given order (validated in that order, as the reference does)."""
    if not isinstance(weights, np.ndarray) and len(weights) <= SMALL:
        return _int_tickets(weights)
    floats = _float_weights(weights)
    if floats is not None:
        return DyadicTickets.from_floats(floats)
    return _int_tickets(list(weights))


class Categorical:
    """Normalized exact distribution; unlisted global ids have exactly zero mass.

    Same contract as the reference oracle: listed ids are unique (zero weights
    allowed and kept), probabilities are Fractions, sampling draws
    ``randrange(total)`` and walks tickets in ascending id order. Floats and
    numpy arrays take an O(V) exact integer path; Fractions an exact Python one.
    """

    __slots__ = ("vocab_size", "_ids", "_tickets", "__dict__")

    def __init__(self, vocab_size: int, ids: Sequence[int] | np.ndarray, weights: Sequence[Weight] | np.ndarray):
        _check_vocab_size(vocab_size)
        id_array = _check_ids(vocab_size, ids, len(weights))
        tickets = _tickets_of(weights)
        if id_array.size > 1 and not bool(np.all(id_array[1:] > id_array[:-1])):
            order = np.argsort(id_array, kind="stable")  # entries are kept in ascending id order
            id_array, tickets = id_array[order], tickets.select(order)
        self._init(vocab_size, id_array, tickets)

    def _init(self, vocab_size: int, ids: np.ndarray, tickets: Tickets) -> None:
        self.vocab_size = vocab_size
        self._ids = ids
        self._tickets = tickets

    @classmethod
    def _from_tickets(cls, vocab_size: int, ids: np.ndarray, tickets: Tickets) -> Categorical:
        self = cls.__new__(cls)
        self._init(vocab_size, ids, tickets)
        return self

    @classmethod
    def dense(cls, weights: Sequence[Weight] | np.ndarray) -> Categorical:
        """A distribution listing every id 0..len(weights)-1."""
        return cls(len(weights), range(len(weights)), weights)

    # --- the reference's attributes -------------------------------------------------
    @cached_property
    def ids(self) -> tuple[int, ...]:
        return tuple(self._ids.tolist())

    @cached_property
    def tickets(self) -> tuple[int, ...]:
        return tuple(self._tickets.as_ints())

    @cached_property
    def probabilities(self) -> tuple[Fraction, ...]:
        total = self.total
        return tuple(Fraction(t, total) for t in self._tickets.as_ints())

    @property
    def total(self) -> int:
        """The ticket total T: p_i = tickets_i / T and a draw is randrange(T)."""
        return self._tickets.total

    @cached_property
    def is_dense(self) -> bool:
        """True when the listed support is exactly 0..vocab_size-1."""
        return self._ids.size == self.vocab_size

    @cached_property
    def support_size(self) -> int:
        """Number of ids with positive probability."""
        return int(self._tickets.nonzero().sum())

    # --- lookups ------------------------------------------------------------------------
    def _position(self, token: int) -> int | None:
        if self.is_dense:
            return token
        position = int(np.searchsorted(self._ids, token))
        if position < self._ids.size and int(self._ids[position]) == token:
            return position
        return None

    def ticket(self, token: int) -> int:
        """Integer ticket count of token (0 when unlisted)."""
        check_token(token, self.vocab_size)
        position = self._position(token)
        return 0 if position is None else self._tickets.at(position)

    def prob(self, token: int) -> Fraction:
        return Fraction(self.ticket(token), self.total)

    # --- sampling -----------------------------------------------------------------------
    def draw(self, rng: random.Random) -> tuple[int, int]:
        """Sample as the reference does and return (token, the integer draw in [0, total))."""
        draw = rng.randrange(self.total)
        return int(self._ids[self._tickets.position_of(draw)]), draw

    def sample(self, rng: random.Random) -> int:
        return self.draw(rng)[0]

    def token_at_draw(self, draw: int) -> int:
        """The token a given integer draw selects (0 <= draw < total)."""
        if not 0 <= draw < self.total:
            raise ValueError(f"draw {draw} outside 0..{self.total - 1}")
        return int(self._ids[self._tickets.position_of(draw)])

    # --- derived distributions -------------------------------------------------------------
    def masked(self, allowed: Sequence[bool] | np.ndarray) -> Categorical:
        """Zero every id whose allowed flag is False and renormalize."""
        keep = _mask_array(allowed, self.vocab_size)
        return Categorical._from_tickets(self.vocab_size, self._ids, self._tickets.masked(keep[self._ids]))

    def sparse_topk(self, k: int) -> Categorical:
        """The k most probable listed ids (ties: smaller id first), chosen before sampling."""
        if type(k) is not int or not 1 <= k <= self.vocab_size:
            raise TopKError(f"top-k outside vocabulary: k={k!r} must be an int in 1..{self.vocab_size}")
        chosen = np.sort(self._ranked_positions(k))
        return Categorical._from_tickets(self.vocab_size, self._ids[chosen], self._tickets.select(chosen))

    def _ranked_positions(self, k: int) -> np.ndarray:
        """Positions of the k largest tickets, by (-probability, id)."""
        return self._tickets.top_positions(k, self._ids)

    def nucleus_size(self, mass: Fraction) -> int:
        """Smallest k whose k most probable ids (ties: smaller id) hold at least mass (0 < mass <= 1)."""
        floats = np.sort(self._tickets.floats())[::-1]
        running = np.cumsum(floats)
        # floats only bracket k; the exact comparison decides inside the bracket
        slack = (floats.size + 8) * 2.0**-48
        surely_short = min(int(np.searchsorted(running, float(mass) - slack, side="left")), self.support_size - 1)
        enough = min(int(np.searchsorted(running, float(mass) + slack, side="left")) + 1, self.support_size)
        ranked = self._ranked_positions(max(enough, surely_short + 1)).tolist()
        held = sum(self._tickets.at(i) for i in ranked[:surely_short])
        goal, total = mass.numerator, self.total
        for k in range(surely_short, len(ranked)):
            held += self._tickets.at(ranked[k])
            if held * mass.denominator >= goal * total:
                return k + 1
        return self.support_size

    def top(self, n: int) -> list[tuple[int, Fraction]]:
        """The n most probable ids with positive mass and their exact probabilities."""
        k = min(n, self._ids.size)
        result = []
        for position in self._ranked_positions(k).tolist():
            ticket = self._tickets.at(position)
            if ticket:
                result.append((int(self._ids[position]), Fraction(ticket, self.total)))
        return result

    # --- numpy views for plots and engines ------------------------------------------------
    def to_numpy(self) -> np.ndarray:
        """Probabilities over the full vocabulary as float64 (rounded; for display)."""
        dense = np.zeros(self.vocab_size, dtype=np.float64)
        dense[self._ids] = self._tickets.floats()
        return dense

    def ticket_ints(self) -> list[int]:
        """Tickets over the full vocabulary as Python ints (0 where unlisted)."""
        if self.is_dense:
            return list(self._tickets.as_ints())
        full = [0] * self.vocab_size
        for token, ticket in zip(self._ids.tolist(), self._tickets.as_ints()):
            full[token] = ticket
        return full

    def to_dict(self, top_n: int | None = 10) -> dict[str, Any]:
        """JSON-ready summary: the top_n entries (all when None) and the rest mass."""
        count = self.support_size if top_n is None else min(top_n, self.support_size)
        entries = self.top(count)
        shown = sum((p for _, p in entries), Fraction())
        return {
            "vocab_size": self.vocab_size,
            "support_size": self.support_size,
            "total_tickets": str(self.total),
            "top": [{"token": t, "p": str(p), "p_float": float(p)} for t, p in entries],
            "rest": {"p": str(1 - shown), "p_float": float(1 - shown)},
        }

    # --- value semantics -----------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Categorical):
            return NotImplemented
        if self is other:
            return True
        if self.vocab_size != other.vocab_size or self.total != other.total:
            return False
        if not np.array_equal(self._ids, other._ids):
            return False
        mine, theirs = self._tickets, other._tickets
        if isinstance(mine, DyadicTickets) and isinstance(theirs, DyadicTickets):
            return mine.equals(theirs)
        return list(mine.as_ints()) == list(theirs.as_ints())

    def __hash__(self) -> int:
        return hash((self.vocab_size, self.total, self._ids.size))

    def __repr__(self) -> str:
        return f"Categorical(vocab_size={self.vocab_size}, support={self.support_size}, total={self.total})"


def _mask_array(allowed: Sequence[bool] | np.ndarray, vocab_size: int) -> np.ndarray:
    message = (
        f"mask must have one boolean per target vocabulary token ({vocab_size} True/False values); "
    )
    if isinstance(allowed, np.ndarray):
        if allowed.dtype != np.bool_ or allowed.shape != (vocab_size,):
            raise MaskError(message + f"got an array of dtype {allowed.dtype} and shape {allowed.shape}")
        return allowed
    if len(allowed) != vocab_size:
        raise MaskError(message + f"got {len(allowed)} values")
    for value in allowed:
        if type(value) is not bool:
            raise MaskError(message + f"got {value!r} of type {type(value).__name__}")
    return np.array(allowed, dtype=bool)


def fp32_weights(vocab_size: int, ids: Sequence[int] | np.ndarray,
                 weights: Sequence[Weight] | np.ndarray) -> Categorical:
    """Quantize every weight to FP32 first (round to nearest even), then normalize exactly."""
    if isinstance(weights, np.ndarray) and weights.dtype.kind != "O":
        check_weight_array(weights)
        doubles = weights.astype(np.float64)
    else:
        converted = []
        for index, value in enumerate(weights):
            check_weight(value, index)
            try:
                converted.append(float(value))
            except OverflowError as error:
                raise WeightValueError(_fp32_message(value, index)) from error
        doubles = np.array(converted, dtype=np.float64)
    with np.errstate(over="ignore"):
        singles = doubles.astype(np.float32)
    overflow = np.isinf(singles)
    if overflow.any():
        index = int(np.flatnonzero(overflow)[0])
        raise WeightValueError(_fp32_message(weights[index], index))
    return Categorical(vocab_size, ids, singles.astype(np.float64))


def _fp32_message(value: object, index: int) -> str:
    return (
        f"weight cannot be represented as finite FP32: {value!r} at position {index} exceeds the largest "
        "FP32 value 3.4028235e38; scale the weights down (only their ratios matter)"
    )
