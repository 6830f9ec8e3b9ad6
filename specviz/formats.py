"""Every number format specviz prints: exact fractions, decimals and long integers, each written one way.

One rule for long integers everywhere (the Playground, the command line, tables and hovers): an
integer of at most ``FULL_DIGITS`` (15) digits is written in full; a longer one as its first and last
``KEEP`` (6) digits and its digit count, ``123456…789012 (40 digits)``. Fifteen is the most digits
every IEEE double holds exactly (DBL_DIG), so any number written in full can be pasted into a
spreadsheet or a float calculator unchanged; the exact value of a longer one is shown on demand
(the page folds it under the narration, ``--json`` writes every digit).

Pure functions, numbers in and text out; no numpy, no Streamlit.
"""

from __future__ import annotations

import math
from fractions import Fraction

FULL_DIGITS = 15  # integers up to this many digits are written in full (DBL_DIG: a double holds them exactly)
KEEP = 6  # digits kept at each end of an abbreviated integer
_LOG10_2 = math.log10(2)
_SMALLEST = 1e-300  # below this a float loses digits (or is 0): decimals are computed from the integers

Number = Fraction | int


def digit_count(n: int) -> int:
    """Decimal digits of |n| (1 for 0), without str(): works past Python's integer-to-text limit."""
    n = abs(n)
    if n < 10:
        return 1
    digits = int(n.bit_length() * _LOG10_2)  # within one of the truth
    while 10**digits > n:
        digits -= 1
    while 10 ** (digits + 1) <= n:
        digits += 1
    return digits + 1


def abbreviate(n: int) -> str:
    """An integer by the one rule: in full up to FULL_DIGITS digits, else '123456…789012 (40 digits)'."""
    count = digit_count(n)
    if count <= FULL_DIGITS:
        return str(n)
    sign = "-" if n < 0 else ""
    n = abs(n)
    head = n // 10 ** (count - KEEP)
    tail = n % 10**KEEP
    return f"{sign}{head}…{tail:0{KEEP}d} ({count} digits)"


def is_long(value: Number) -> bool:
    """True when the numerator or denominator of value is abbreviated by the rule."""
    value = Fraction(value)
    return max(digit_count(value.numerator), digit_count(value.denominator)) > FULL_DIGITS


def exact(value: Number) -> str:
    """'3/10', '7': every digit (for JSON, hovers and the folded exact values)."""
    value = Fraction(value)
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def exact_short(value: Number) -> str:
    """'3/10', '7', with long numerators and denominators abbreviated by the rule."""
    value = Fraction(value)
    if value.denominator == 1:
        return abbreviate(value.numerator)
    return f"{abbreviate(value.numerator)}/{abbreviate(value.denominator)}"


def significant(value: Number, digits: int = 4) -> str:
    """value with `digits` significant digits ('0.3', '1.235e-05'), also beyond the float range; 0 is '0'."""
    value = Fraction(value)
    if value == 0:
        return "0"
    try:
        as_float = float(value)
    except OverflowError:
        as_float = math.inf
    if _SMALLEST <= abs(as_float) < math.inf:
        return f"{as_float:.{digits}g}"
    exponent = digit_count(value.numerator) - digit_count(value.denominator)
    mantissa = float(value * Fraction(10) ** -exponent)
    while abs(mantissa) < 1:
        mantissa, exponent = mantissa * 10, exponent - 1
    return f"{mantissa:.{digits - 1}f}e{exponent}"


def fixed(value: Number, places: int = 4) -> str:
    """value with `places` decimals after the point: '0.3000'."""
    return f"{float(Fraction(value)):.{places}f}"


def decimal(value: Number, places: int = 4) -> str:
    """value with `places` decimals ('0.3000'), or, where those would show fewer than two of its digits
    (|value| < 10^(1 − places)), with significant digits ('1.23e-05'): a nonzero value never reads as 0.0000."""
    value = Fraction(value)
    if value == 0:
        return "0"  # exactly: no places to suggest a rounded value
    if abs(value) >= Fraction(1, 10 ** (places - 1)):
        return fixed(value, places)
    return significant(value, 3)


def approx(value: Number, digits: int = 4) -> str:
    """'≈ 0.3333' (significant digits)."""
    return f"≈ {significant(value, digits)}"


def fit(value: Number, width: int, digits: int = 4, mark: str = "≈ ", places: int | None = None) -> str:
    """The exact text when it fits in `width` characters, else `mark` and a decimal.

    The decimal has `digits` significant digits, or `places` decimals after the point when given.
    """
    value = Fraction(value)
    length = digit_count(value.numerator) + (0 if value.denominator == 1 else 1 + digit_count(value.denominator))
    if length <= width:  # no str() of huge integers
        text = exact(value)
        if len(text) <= width:
            return text
    return mark + (significant(value, digits) if places is None else decimal(value, places))


def fraction(value: Number, places: int = 4) -> str:
    """'3/10 ≈ 0.3000' (exact first, then the decimal, ``decimal``); whole numbers stay '1', '0'. Every digit."""
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    return f"{exact(value)} ≈ {decimal(value, places)}"


def fraction_fit(value: Number, width: int, digits: int = 6, places: int = 4) -> str:
    """'3/10 ≈ 0.3000' when the exact text fits in `width` characters, else '≈ ' and `digits` significant digits."""
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    return fraction(value, places) if fit(value, width) == exact(value) else approx(value, digits)


def fraction_folded(value: Number, places: int = 4) -> str:
    """As fraction(), but a fraction of long integers reads '≈ 0.3000 (exact: 80-digit fraction)' (shown folded)."""
    value = Fraction(value)
    if value.denominator == 1:
        return abbreviate(value.numerator)
    if is_long(value):
        return f"≈ {decimal(value, places)} (exact: {digit_count(value.denominator)}-digit fraction)"
    return fraction(value, places)


def fraction_abbreviated(value: Number) -> str:
    """As fraction(), but long integers abbreviated and tiny values with significant digits: plain text."""
    value = Fraction(value)
    if not is_long(value) and (value == 0 or abs(value) >= Fraction(1, 10**4)):
        return fraction(value)
    if value.denominator == 1:
        return abbreviate(value.numerator)
    return f"{exact_short(value)} ≈ {significant(value, 4)}"


def formula_operand(value: Number) -> str:
    """An exact value inside a formula: '3/10', or '≈ 0.3000' when its integers are long (listed in full elsewhere)."""
    value = Fraction(value)
    if value.denominator == 1:
        return abbreviate(value.numerator)
    return f"≈ {decimal(value)}" if is_long(value) else exact(value)


def draw(draw_value: int, draw_range: int, point: bool = True) -> str:
    """'draw 3 of 0..6 (u = 3/7 ≈ 0.4286)': the integer draw, its range and (point) where it lands on [0, 1)."""
    text = f"draw {abbreviate(draw_value)} of 0..{abbreviate(draw_range - 1)}"
    return f"{text} (u = {fraction_folded(Fraction(draw_value, draw_range))})" if point else text


def thousands(n: int) -> str:
    """'12,345' with separators; past the rule, abbreviated."""
    return f"{n:,}" if digit_count(n) <= FULL_DIGITS else abbreviate(n)
