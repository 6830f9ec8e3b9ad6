"""Input checks shared by the exact core, worded to say what is wrong and how to fix it."""

from __future__ import annotations

import marshal
import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from .errors import TokenError, WeightTypeError, WeightValueError

Weight = int | float | Fraction


def check_weight(value: object, index: int | None = None) -> Fraction:
    """Return the weight as an exact Fraction, or raise as the reference does."""
    where = "" if index is None else f" at position {index}"
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise WeightTypeError(
            f"weight{where} is {value!r} of type {type(value).__name__}; weights must be real "
            "int, float or Fraction values (not bool, str or complex)"
        )
    if isinstance(value, float) and not math.isfinite(value):
        raise WeightValueError(
            f"non-finite weight {value!r}{where}; use a finite, non-negative number (0 removes the token)"
        )
    result = Fraction(value)
    if result < 0:
        raise WeightValueError(f"negative weight {value!r}{where}; weights must be >= 0 (0 removes the token)")
    return result


def check_token(token: object, vocab_size: int) -> None:
    """Raise TokenError unless token is a Python int in 0..vocab_size-1."""
    if type(token) is not int or not 0 <= token < vocab_size:
        raise TokenError(_token_refusal(token, vocab_size))


def _token_refusal(token: object, vocab_size: int) -> str:
    allowed = f"token ids must be ints in 0..{vocab_size - 1}"
    if isinstance(token, np.integer):  # the right number in the wrong type: say so, not "outside vocabulary"
        value = int(token)
        where = "" if 0 <= value < vocab_size else f", and outside vocabulary {vocab_size}"
        return (f"global token ID {value} is a numpy.{type(token).__name__}, not a Python int{where}; {allowed} "
                "(convert with int(), or a numpy array with .tolist())")
    if type(token) is not int:
        text = repr(token)
        text = text if len(text) <= 40 else text[:37] + "..."
        return f"global token ID {text} of type {type(token).__name__} is not an int; {allowed}"
    return f"global token ID {token!r} outside vocabulary {vocab_size}; {allowed}"


def check_tokens(tokens: Sequence[object], vocab_size: int) -> None:
    """check_token on every token, in order; one C-level pass when all are in-range ints (a long prefix each round)."""
    if not tokens or (set(map(type, tokens)) == {int} and min(tokens) >= 0 and max(tokens) < vocab_size):
        return
    for token in tokens:
        check_token(token, vocab_size)


def check_weight_dtype(values: np.ndarray) -> None:
    """Refuse numpy weight arrays whose dtype is not a real number type."""
    if values.dtype.kind == "b":
        raise WeightTypeError("weights are booleans; pass real numbers (use a mask to remove tokens)")
    if values.dtype.kind not in "fiu":
        raise WeightTypeError(f"weights of dtype {values.dtype} are not real numbers")


def check_weight_array(values: np.ndarray, offset: int = 0) -> None:
    """Validate a numpy weight array: real dtype, finite, >= 0 (positions reported from offset)."""
    check_weight_dtype(values)
    bad = values < 0
    if values.dtype.kind == "f":
        bad |= ~np.isfinite(values)
    if bad.any():
        index = int(np.flatnonzero(bad)[0])  # the first bad weight, as an element-wise check meets it
        value = values[index].item()
        check_weight(value if isinstance(value, (int, float)) else float(value), index + offset)


# marshal (format 2: no back-references) writes a list or tuple as a one-byte type, a 4-byte
# length, then its items; an exact Python float is b"g" and its 8 little-endian IEEE bytes.
_MARSHAL_VERSION = 2
_MARSHAL_FLOAT = ord("g")
_MARSHAL_SEQUENCE = {list: ord("["), tuple: ord("(")}
_FLOAT_RECORD = np.dtype([("tag", "u1"), ("value", "<f8")])
_MARSHAL_WORKS = marshal.dumps([1.5, -0.0], _MARSHAL_VERSION) == (
    b"[\x02\x00\x00\x00g" + np.float64(1.5).astype("<f8").tobytes() + b"g" + np.float64(-0.0).astype("<f8").tobytes())


def marshalled_floats(values: list | tuple) -> np.ndarray | None:
    """A list or tuple of exact Python floats as a read-only float64 view; None if anything else is in it.

    One C-level pass (marshal) reads type and value of every element; the tags are then
    checked in numpy: a float subclass, bool, int, str or any other object has a tag other
    than b"g" (or is refused by marshal), so None sends the caller to its element-wise walk.
    """
    header = _MARSHAL_SEQUENCE.get(type(values))
    if header is None or not _MARSHAL_WORKS or not values:
        return None
    try:
        data = marshal.dumps(values, _MARSHAL_VERSION)
    except (ValueError, TypeError, OverflowError, RecursionError):  # objects marshal cannot write
        return None
    n = len(values)
    if len(data) != 5 + 9 * n or data[0] != header:
        return None
    records = np.frombuffer(data, dtype=_FLOAT_RECORD, offset=5, count=n)
    if not bool(np.all(records["tag"] == _MARSHAL_FLOAT)):
        return None
    return records["value"]


FLOAT_SLICE = 12288  # floats marshalled at a time (110 KiB): whole-list buffers would be page-faulted in every call


def plain_float_values(values: Sequence[object]) -> np.ndarray | None:
    """A list or tuple of exact Python floats as a new float64 array; None if anything else is in it."""
    if type(values) not in _MARSHAL_SEQUENCE or not values:
        return None
    out = np.empty(len(values), dtype=np.float64)
    for start in range(0, len(values), FLOAT_SLICE):
        chunk = marshalled_floats(values[start:start + FLOAT_SLICE])
        if chunk is None:
            return None
        out[start:start + chunk.size] = chunk
    return out
