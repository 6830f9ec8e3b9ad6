"""The one bounded reader of the numbers in a rule's name ("typical:0.09", "ensemble:1/2", "threshold:1,0.8,2").

Every parameterised rule reads its name here, whether it comes from a link, a file, a lecture script, the
command line or theory: the name is refused before anything is parsed when it is longer than
``MAX_NAME_LENGTH`` or not ASCII; a number is ASCII digits only (no sign, space, underscore or other script),
a decimal with an optional exponent of at most ``MAX_EXPONENT`` in size (checked on its digits before 10^e is
built), or a fraction a/b. Each value has one spelling (``number_name``): its decimal when it terminates within
``MAX_DECIMAL_PLACES`` places, else the shorter of its reduced fraction and its scientific form, so
``0.50``, ``.5``, ``5e-1`` and ``2/4`` all name the rule ``0.5`` does, and ``Rule.name`` carries that spelling.
Every refusal is a one-line ``RuleParameterError`` (a ``VerificationError``) naming the name, the field, what
was given and what is allowed.
"""

from __future__ import annotations

import re
from fractions import Fraction

from .errors import RuleParameterError

MAX_NAME_LENGTH = 64  # characters of a rule name read at all (a link or a file can carry megabytes)
MAX_EXPONENT = 64  # |e| of a number's exponent (typical:1e-5), checked before 10^e is built
MAX_DECIMAL_PLACES = 12  # a value that terminates within this many places is named as a decimal
# a parameter's number: ASCII digits only (re.ASCII), a decimal with an optional exponent, or a fraction a/b
_NUMBER = re.compile(r"(?:(?P<num>\d+)/(?P<den>\d+)|(?P<int>\d*)(?:\.(?P<frac>\d*))?(?:[eE](?P<exp>[+-]?\d+))?)",
                     re.ASCII)
_ZERO, _ONE = Fraction(0), Fraction(1)


def shown(value: object) -> str:
    """A value's repr for a message, its middle elided when long (a link can carry megabytes)."""
    if isinstance(value, str) and len(value) > 40:  # never the repr of a megabyte string
        return f"{value[:18]!r}…{value[-18:]!r} ({len(value):,} characters)"
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:18]}…{text[-18:]} ({len(text):,} characters)"


def read_number(text: str) -> Fraction | None:
    """An exact number from ASCII text ("0.09", "9/100", "9e-2", ".5"), or None when it is not one.

    Bounded: no sign, no spaces, no underscores, no other digits than 0-9, an exponent of at most
    MAX_EXPONENT in size (checked on its digits before 10^e is built), a nonzero denominator.
    """
    match = _NUMBER.fullmatch(text) if len(text) <= MAX_NAME_LENGTH else None
    if match is None or not (match["num"] or match["int"] or match["frac"]):
        return None
    if match["num"] is not None:
        den = int(match["den"])
        return Fraction(int(match["num"]), den) if den else None
    exponent = match["exp"] or "0"
    if abs(int(exponent)) > MAX_EXPONENT:  # int() of at most MAX_NAME_LENGTH digits; 10^e is built only below
        return None
    places = match["frac"] or ""
    return Fraction(int((match["int"] or "") + places or "0")) * Fraction(10) ** (int(exponent) - len(places))


def number_name(value: Fraction) -> str:
    """The one spelling of an exact positive number in a rule name: its decimal when it terminates within
    MAX_DECIMAL_PLACES places ("0.09", "1"), else the shorter of its reduced fraction ("1/3") and, when it
    terminates, its scientific form ("1e-40", "1.25e-13"; the fraction on a tie)."""
    den, twos, fives = value.denominator, 0, 0
    while den % 2 == 0:
        den, twos = den // 2, twos + 1
    while den % 5 == 0:
        den, fives = den // 5, fives + 1
    fraction = f"{value.numerator}/{value.denominator}"
    places = max(twos, fives)
    if den != 1:
        return fraction
    digits = str(value.numerator * 10**places // value.denominator)
    if places <= MAX_DECIMAL_PLACES:
        digits = digits.rjust(places + 1, "0")
        return f"{digits[:-places]}.{digits[-places:]}" if places else digits
    significand = digits.rstrip("0")
    exponent = len(digits) - 1 - places
    head = significand[0] + (f".{significand[1:]}" if len(significand) > 1 else "")
    scientific = f"{head}e{exponent}"
    return scientific if len(scientific) < len(fraction) else fraction


def check_name(name: object) -> str:
    """name itself when it is a str of at most MAX_NAME_LENGTH characters (checked before anything is parsed)."""
    if not isinstance(name, str):
        raise RuleParameterError(f"verification must be a string naming a rule, got {shown(name)}")
    if len(name) > MAX_NAME_LENGTH:
        raise RuleParameterError(f"verification names are at most {MAX_NAME_LENGTH} characters, got {shown(name)}")
    return name


def rule_arguments(name: object, family: str, fields: tuple[str, ...], required: int) -> list[str]:
    """The comma-separated texts after ``family:`` in name: between ``required`` and ``len(fields)`` of them."""
    form = f"'{family}:{','.join(fields[:required])}{''.join(f'[,{f}]' for f in fields[required:])}'"
    head, sep, rest = check_name(name).partition(":")
    if head != family or not sep:
        raise RuleParameterError(f"verification {shown(name)} is not of the form {form}")
    texts = rest.split(",")
    if not required <= len(texts) <= len(fields):
        count = "one number" if len(fields) == 1 else (
            f"{required} numbers" if required == len(fields) else f"{required} to {len(fields)} numbers")
        raise RuleParameterError(f"verification {shown(name)}: {family} takes {count} separated by commas "
                                 f"({form}), got {len(texts)}")
    return texts


def interval(low: Fraction, high: Fraction, *, low_open: bool = True, high_open: bool = False) -> str:
    """'(0, 1]' in the names' own spelling."""
    left, right = "(" if low_open else "[", ")" if high_open else "]"
    return f"{left}{number_name(low) if low else '0'}, {number_name(high)}{right}"


def parse_number(text: str, *, name: str, field: str, low: Fraction = _ZERO, high: Fraction = _ONE,
                 low_open: bool = True, high_open: bool = False) -> Fraction:
    """The exact value of a parameter's text, refused (naming the name, the field and the range) unless it reads
    as a number in the interval and its one spelling reads back within the limits."""
    allowed = (f"{field} must be a number in {interval(low, high, low_open=low_open, high_open=high_open)} (ASCII "
               f"digits: 0.09, 9/100 or 9e-2, exponent at most {MAX_EXPONENT})")
    value = read_number(text)
    if value is None:
        raise RuleParameterError(f"verification {shown(name)}: {allowed}, got {shown(text)}")
    below = value <= low if low_open else value < low
    above = value >= high if high_open else value > high
    if below or above:
        raise RuleParameterError(f"verification {shown(name)}: {allowed}, got {shown(text)}")
    spelled = number_name(value)
    if len(spelled) > MAX_NAME_LENGTH or read_number(spelled) != value:  # its name must read back
        raise RuleParameterError(f"verification {shown(name)}: {field} {shown(text)} cannot be named within the "
                                 f"limits (at most {MAX_NAME_LENGTH} characters, exponents of at most {MAX_EXPONENT})")
    return value


def parse_count(text: str, *, name: str, field: str, high: int) -> int:
    """A whole number in 1..high of ASCII digits (leading zeros allowed), refused in words otherwise."""
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= high:
        raise RuleParameterError(f"verification {shown(name)}: {field} must be a whole number in 1..{high} (ASCII "
                                 f"digits), got {shown(text)}")
    return int(text)
