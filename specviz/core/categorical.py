"""Categorical: an exact, normalized distribution over a finite vocabulary of global ids."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from .errors import (
    MaskError,
    MaskTypeError,
    SupportError,
    TokenError,
    TokenTypeError,
    TopKError,
    WeightTypeError,
    WeightValueError,
)
from .tickets import DyadicTickets, Fp32Tickets, IntTickets, Tickets
from .validation import (
    FLOAT_SLICE,
    Weight,
    check_token,
    check_weight,
    check_weight_array,
    check_weight_dtype,
    marshalled_floats,
    plain_float_values,
)

_EXACT_FLOAT_INT = 1 << 53


# The largest vocabulary the core accepts. Verification works over the FULL target vocabulary (the
# residual (p - q)+, masks, the dense arrays behind draws): a few numpy vectors of 1 to 16 bytes per
# token, and Python ints in the exact fallback paths (~100 bytes per token). 2**22 tokens keeps that
# within a few hundred MB, and is 16 times Gemma 3's 262,144-token vocabulary, among the largest in
# use; beyond it a residual would end in MemoryError, so such sizes are refused when built.
MAX_VOCAB = 1 << 22
LARGEST_MODEL_VOCAB = 262_144


def _check_vocab_size(vocab_size: object) -> None:
    if type(vocab_size) is not int or vocab_size < 1:
        raise SupportError(f"vocabulary size must be a positive integer, got {vocab_size!r}")
    if vocab_size > MAX_VOCAB:
        shown = f"{vocab_size:,}" if vocab_size < 10**30 else f"an int of {vocab_size.bit_length()} bits"
        raise SupportError(
            f"vocabulary size {shown} is more than the core can hold: at most {MAX_VOCAB:,} tokens (2**22, 16 "
            f"times Gemma 3's {LARGEST_MODEL_VOCAB:,}-token vocabulary, among the largest in use); verification "
            "builds arrays over the whole vocabulary, so a larger one would run out of memory"
        )


_INT64_LIMIT = 1 << 63
_recent_ids: dict[int, tuple[tuple, int, np.ndarray]] = {}  # id(tuple) -> (tuple, vocab, ids): validated before


def _sized(values: object, error: type[Exception], what: str) -> int:
    """len(values), or a precise TypeError subclass when values is not a sequence at all."""
    try:
        return len(values)  # type: ignore[arg-type]
    except TypeError:
        raise error(f"{what} must be a sequence (list, tuple, range or 1-D array), got {values!r} "
                    f"of type {type(values).__name__}") from None


def _int_id_array(ids: Sequence[int], vocab_size: int) -> np.ndarray:
    """Validate a sequence of ids in order (a vectorized check first, the walk only to report)."""
    if set(map(type, ids)) == {int}:
        try:
            array = np.fromiter(ids, dtype=np.int64, count=len(ids))
        except OverflowError:  # ids at or above 2**63: a vocabulary that large stays in Python ints
            array = None
        if array is not None:
            outside = (array < 0) | (array >= vocab_size)
            if not outside.any():
                return array
            index = int(np.flatnonzero(outside)[0])
            check_token(ids[index], vocab_size)
    for token in ids:
        check_token(token, vocab_size)
    return np.array(list(ids), dtype=object)


def _check_ids(vocab_size: int, ids: Sequence[int] | np.ndarray, n_weights: int) -> tuple[np.ndarray, bool]:
    """Validate the listed support: (the ids as an int64 array in the given order, whether ascending).

    Ids at or above 2**63 are kept in an object array. Shared arrays (from a range or a
    reused tuple) are read-only.
    """
    n_ids = _sized(ids, TokenTypeError, "token ids")
    if isinstance(ids, np.ndarray) and ids.ndim != 1:
        raise SupportError(f"token ids must be a 1-D sequence, got an array of shape {ids.shape}")
    if n_ids != n_weights or n_ids == 0:
        raise SupportError(
            f"support and weights must have matching nonempty lengths (got {n_ids} ids and "
            f"{n_weights} weights)"
        )
    if isinstance(ids, range) and ids.step == 1 and 0 <= ids.start and ids.stop <= min(vocab_size, _INT64_LIMIT):
        return _shared_arange(ids.start, ids.stop), True  # ascending: no duplicates possible
    if isinstance(ids, tuple):
        # a tuple of ints cannot change: a model loop passing the same one skips the re-check
        seen = _recent_ids.get(id(ids))
        if seen is not None and seen[0] is ids and seen[1] == vocab_size:
            return seen[2], seen[3]
        array = _int_id_array(ids, vocab_size)
        ascending = _check_unique(array)
        array.flags.writeable = False
        if len(_recent_ids) >= 4:
            _recent_ids.pop(next(iter(_recent_ids)))
        _recent_ids[id(ids)] = (ids, vocab_size, array, ascending)
        return array, ascending
    if isinstance(ids, np.ndarray) and ids.dtype.kind in "iu" and not (
            ids.dtype.kind == "u" and ids.size and int(ids.max()) >= _INT64_LIMIT):
        array = ids.astype(np.int64, copy=False)
        if _ascending(array):  # sorted: the two ends bound every id
            if int(array[0]) < 0:
                check_token(int(array[0]), vocab_size)
            if int(array[-1]) >= vocab_size:
                check_token(int(array[np.flatnonzero(array >= vocab_size)[0]]), vocab_size)
            if int(array[-1]) - int(array[0]) == array.size - 1:  # consecutive: share one read-only arange
                return _shared_arange(int(array[0]), int(array[-1]) + 1), True
            return array.copy(), True  # a private copy: the caller may reuse its array
        outside = (array < 0) | (array >= vocab_size)
        if outside.any():
            check_token(int(array[np.flatnonzero(outside)[0]]), vocab_size)
        array = array.copy()
    elif isinstance(ids, np.ndarray):
        # floats, objects, and uint64 ids >= 2**63 (reported as themselves, not wrapped to negatives)
        array = _int_id_array(ids.tolist() if ids.dtype.kind in "Ou" else list(ids), vocab_size)
    else:
        array = _int_id_array(ids, vocab_size)
    return array, _check_unique(array)


_aranges: dict[tuple[int, int], np.ndarray] = {}


def _shared_arange(start: int, stop: int) -> np.ndarray:
    array = _aranges.get((start, stop))
    if array is None:
        if len(_aranges) >= 8:
            _aranges.pop(next(iter(_aranges)))
        array = _aranges[start, stop] = np.arange(start, stop, dtype=np.int64)
        array.flags.writeable = False
    return array


def _ascending(array: np.ndarray) -> bool:
    return array.size <= 1 or bool(np.all(array[1:] > array[:-1]))


def _check_unique(array: np.ndarray) -> bool:
    """Raise on a repeated id; return whether the ids are ascending."""
    if _ascending(array):
        return True
    ordered = np.sort(array)
    repeated = ordered[1:][ordered[1:] == ordered[:-1]]
    if repeated.size:
        raise SupportError(f"duplicate global token ID {int(repeated[0])} in the support; list each id once")
    return False


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


def _only_floats(weights: Sequence[Weight]) -> np.ndarray | None:
    """A list of plain Python floats as float64, validated in order; None if other types occur."""
    values = plain_float_values(weights)
    if values is None:
        return None
    bad = ~(values >= 0) | (values == math.inf)  # NaN, negatives, inf
    if bad.any():
        index = int(np.flatnonzero(bad)[0])
        check_weight(weights[index], index)
    return values


def _float_weights(weights: Sequence[Weight] | np.ndarray) -> np.ndarray | None:
    """The weights as validated float64 if they are exact there, else None (use Fractions)."""
    if isinstance(weights, np.ndarray) and weights.dtype.kind != "O":
        check_weight_array(weights)
        if weights.dtype.kind in "iu" and weights.size and int(weights.max()) >= _EXACT_FLOAT_INT:
            return None
        if weights.dtype.kind == "f" and weights.dtype.itemsize > 8:  # longdouble: exact only if float64 holds it
            doubles = weights.astype(np.float64)
            return doubles if bool(np.all(doubles.astype(weights.dtype) == weights)) else None
        return weights.astype(np.float64)
    floats = _only_floats(weights)
    if floats is not None:
        return floats
    exact = True
    for index, value in enumerate(weights):
        if not _plain_float(value):
            check_weight(value, index)  # raises for bad values; big ints and Fractions stay exact below
            exact = False
    return np.array(weights, dtype=np.float64) if exact else None


def _exact_list(weights: Sequence[Weight] | np.ndarray) -> list:
    """Weights as Python numbers with their exact values (numpy scalars as ints or Fractions)."""
    if not isinstance(weights, np.ndarray) or weights.dtype.kind == "O":
        return list(weights)
    if weights.dtype.kind == "f":
        return [Fraction(*value.as_integer_ratio()) for value in weights]
    return weights.tolist()  # Python ints, exact at any size


def _tickets_of(weights: Sequence[Weight] | np.ndarray) -> Tickets:
    """Exact tickets of the weights in the given order (validated in that order, as the reference does)."""
    if not isinstance(weights, np.ndarray) and len(weights) <= SMALL:
        return _int_tickets(weights)
    if isinstance(weights, np.ndarray) and weights.dtype == np.float32:
        return Fp32Tickets.from_float32(_valid_singles(weights))
    floats = _float_weights(weights)
    if floats is not None:
        return DyadicTickets.from_floats(floats)
    return _int_tickets(_exact_list(weights))


def _check_weight_shape(weights: Sequence[Weight] | np.ndarray) -> int:
    n = _sized(weights, WeightTypeError, "weights")
    if isinstance(weights, np.ndarray) and weights.ndim != 1:
        raise WeightTypeError(f"weights must be a 1-D sequence, got an array of shape {weights.shape}")
    return n


def _valid_singles(weights: np.ndarray) -> np.ndarray:
    """A private copy of a float32 weight vector, validated (finite, >= 0), negative zeros made +0."""
    singles = np.array(weights, dtype=np.float32, copy=True, order="C")
    if singles.size and int(singles.view(np.uint32).max()) >= 0x7F800000:  # sign bit, inf or NaN somewhere
        check_weight_array(singles)
        singles += np.float32(0)  # -0.0 + 0.0 = +0.0
    return singles


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
        id_array, ascending = _check_ids(vocab_size, ids, _check_weight_shape(weights))
        tickets = _tickets_of(weights)
        if not ascending:
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

    @property
    def listed_size(self) -> int:
        """Number of listed ids (zero weights included): the entries a masked copy of this distribution holds."""
        return int(self._ids.size)

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

    def _raw_ticket(self, token: int) -> int:
        """token's ticket before the gcd reduction (its ratio to _tickets.raw_total is p(token))."""
        check_token(token, self.vocab_size)
        position = self._position(token)
        return 0 if position is None else self._tickets.raw_at(position)

    def prob(self, token: int) -> Fraction:
        return Fraction(self._raw_ticket(token), self._tickets.raw_total)

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
            raise TokenError(f"draw {draw} outside 0..{self.total - 1}")
        return int(self._ids[self._tickets.position_of(draw)])

    # --- derived distributions -------------------------------------------------------------
    def masked(self, allowed: Sequence[bool] | np.ndarray) -> Categorical:
        """Zero every id whose allowed flag is False and renormalize."""
        keep = _mask_array(allowed, self.vocab_size)
        return Categorical._from_tickets(self.vocab_size, self._ids, self._tickets.masked(keep[self._ids]))

    def without(self, tokens: Sequence[int]) -> Categorical:
        """masked() with every token in tokens removed, in the time and memory of the listed ids (no mask of V)."""
        drop = np.isin(self._ids, np.asarray(list(tokens), dtype=self._ids.dtype))
        return Categorical._from_tickets(self.vocab_size, self._ids, self._tickets.masked(~drop))

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
    if _sized(allowed, MaskTypeError, "mask") != vocab_size:
        raise MaskError(message + f"got {len(allowed)} values")
    for value in allowed:
        if type(value) is not bool:
            raise MaskError(message + f"got {value!r} of type {type(value).__name__}")
    return np.array(allowed, dtype=bool)


_FP32_OVERFLOW = 2.0**128 - 2.0**103  # the smallest double that rounds to FP32 infinity (ties to even)


def _check_fp32_element(value: object, index: int) -> None:
    """The reference's checks of one fp32 weight, in its order: type, finite, sign, then FP32 range."""
    check_weight(value, index)
    try:
        double = float(value)  # type: ignore[arg-type]
    except OverflowError as error:
        raise WeightValueError(_fp32_message(value, index)) from error
    if double >= _FP32_OVERFLOW:
        raise WeightValueError(_fp32_message(value, index))


def _fp32_of_doubles(doubles: np.ndarray, original: Sequence[Weight] | np.ndarray) -> np.ndarray:
    """Round validated-or-not float64 values to FP32, raising at the first bad one in the reference's order."""
    with np.errstate(over="ignore", invalid="ignore"):
        singles = doubles.astype(np.float32)
    bad = ~(doubles >= 0) | (singles == np.inf)  # NaN, negatives, inf, and FP32 overflow
    if bad.any():
        index = int(np.flatnonzero(bad)[0])
        value = original[index]
        _check_fp32_element(value.item() if isinstance(value, np.generic) and value.dtype.itemsize <= 8 else value,
                            index)
    return singles + np.float32(0)  # a fresh array with -0.0 made +0.0


def _fp32_of_float_list(weights: Sequence[Weight]) -> np.ndarray | None:
    """A list or tuple of exact Python floats rounded to FP32 and checked slice by slice; None for other elements.

    The first bad value raises as the reference's walk would (every element before it is a
    valid float); a slice with anything but floats sends the caller to the walk from the start.
    """
    if type(weights) not in (list, tuple) or not weights:
        return None
    singles = np.empty(len(weights), dtype=np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        for start in range(0, len(weights), FLOAT_SLICE):
            doubles = marshalled_floats(weights[start:start + FLOAT_SLICE])
            if doubles is None:
                return None
            out = singles[start:start + doubles.size]
            out[...] = doubles  # one rounding to nearest even
            if not (doubles.min() >= 0 and out.max() < np.inf):  # NaN, negatives, inf, FP32 overflow
                bad = ~(doubles >= 0) | (out == np.inf)
                index = start + int(np.flatnonzero(bad)[0])
                _check_fp32_element(weights[index], index)
    singles += np.float32(0)  # -0.0 + 0.0 = +0.0
    return singles


def _fp32_singles(weights: Sequence[Weight] | np.ndarray) -> np.ndarray:
    """The weights rounded to FP32, each checked as the reference checks it (first bad one raises)."""
    _check_weight_shape(weights)
    if isinstance(weights, np.ndarray) and weights.dtype.kind != "O":
        if weights.dtype == np.float32:
            return _valid_singles(weights)
        check_weight_dtype(weights)
        if weights.dtype.kind == "f" and weights.dtype.itemsize > 8:
            with np.errstate(over="ignore", invalid="ignore"):
                singles = weights.astype(np.float32)  # one rounding of the exact long double
            bad = ~(weights >= 0) | np.isinf(weights) | np.isinf(singles)
            if bad.any():
                index = int(np.flatnonzero(bad)[0])
                if np.isinf(singles[index]) and np.isfinite(weights[index]) and weights[index] > 0:
                    raise WeightValueError(_fp32_message(weights[index], index))
                check_weight_array(weights[index:index + 1], offset=index)
            return singles + np.float32(0)
        doubles = weights.astype(np.float64) if weights.dtype.kind == "f" else np.array(
            [float(v) for v in weights.tolist()], dtype=np.float64)  # int -> double -> FP32, as the reference
        return _fp32_of_doubles(doubles, weights)
    singles = _fp32_of_float_list(weights)
    if singles is not None:
        return singles
    converted = []
    for index, value in enumerate(weights):
        _check_fp32_element(value, index)
        converted.append(float(value))
    return np.array(converted, dtype=np.float64).astype(np.float32) + np.float32(0)


def fp32_weights(vocab_size: int, ids: Sequence[int] | np.ndarray,
                 weights: Sequence[Weight] | np.ndarray) -> Categorical:
    """Quantize every weight to FP32 first (round to nearest even), then normalize exactly."""
    singles = _fp32_singles(weights)
    _check_vocab_size(vocab_size)
    id_array, ascending = _check_ids(vocab_size, ids, singles.size)
    if not ascending:
        order = np.argsort(id_array, kind="stable")  # entries are kept in ascending id order
        id_array, singles = id_array[order], singles[order]
    return Categorical._from_tickets(vocab_size, id_array, Fp32Tickets.from_float32(singles))


def _fp32_message(value: object, index: int) -> str:
    return (
        f"weight cannot be represented as finite FP32: {value!r} at position {index} exceeds the largest "
        "FP32 value 3.4028235e38; scale the weights down (only their ratios matter)"
    )
