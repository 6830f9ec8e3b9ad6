"""Input checks shared by the exact core, worded to say what is wrong and how to fix it."""

from __future__ import annotations

import math
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
        raise TokenError(
            f"global token ID {token!r} outside vocabulary {vocab_size}; "
            f"token ids must be ints in 0..{vocab_size - 1}"
        )


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
