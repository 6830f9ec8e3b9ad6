"""Reading the parameters of an engine rule's name ("ensemble:0.5", "threshold:1,0.8", "typical:0.09,0.3").

Every number is a plain decimal of ASCII digits (``0.5``, ``1``, ``.25`` is refused), optionally with a
bounded exponent (``5e-3``). The name is refused before any number is built when it is longer than
``MAX_NAME_LENGTH``; a mantissa longer than ``MAX_DIGITS`` digits or an exponent beyond ``MAX_EXPONENT``
is refused before a Fraction is made of it. Each value has one canonical spelling, the shortest exact
decimal (``decimal_text``): ``0.50`` and ``5e-1`` name the rule ``0.5`` does, and the Rule carries that
spelling.
"""

from __future__ import annotations

import re
from fractions import Fraction

from .errors import VerificationError

MAX_NAME_LENGTH = 64  # characters of a rule name read at all (a link or a file can carry megabytes)
MAX_DIGITS = 18  # digits in one number's mantissa
MAX_EXPONENT = 30  # |e| in 5e-3

_NUMBER = re.compile(r"([0-9]+)(?:\.([0-9]+))?(?:[eE](-?)([0-9]+))?")  # [0-9], never str.isdigit's Unicode


class RuleParameterError(VerificationError):
    """A rule's name carries a parameter outside what the rule allows (the field, the value, the range)."""


def shown(value: object) -> str:
    """A value's repr for a message, its middle elided when long."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:18]}…{text[-18:]} ({len(text)} characters)"


def rule_arguments(name: object, family: str, fields: tuple[str, ...], required: int) -> list[str]:
    """The comma-separated texts after ``family:`` in name: between ``required`` and ``len(fields)`` of them."""
    form = f"'{family}:{','.join(fields[:required])}{''.join(f'[,{f}]' for f in fields[required:])}'"
    if not isinstance(name, str):
        raise RuleParameterError(f"verification must be a string such as {form}, got {shown(name)}")
    if len(name) > MAX_NAME_LENGTH:
        raise RuleParameterError(f"verification {shown(name)} is longer than {MAX_NAME_LENGTH} characters; "
                                 f"write it as {form}")
    head, sep, rest = name.partition(":")
    if head != family or not sep:
        raise RuleParameterError(f"verification {shown(name)} is not of the form {form}")
    texts = rest.split(",")
    if not required <= len(texts) <= len(fields):
        count = "one number" if len(fields) == 1 else (
            f"{required} numbers" if required == len(fields) else f"{required} to {len(fields)} numbers")
        raise RuleParameterError(f"verification {shown(name)}: {family} takes {count} separated by commas "
                                 f"({form}), got {len(texts)}")
    return texts


def parse_number(text: str, *, name: str, field: str, low: Fraction, high: Fraction, low_open: bool = True,
                 high_open: bool = False) -> Fraction:
    """The exact value of a decimal text, refused (naming the field and the range) unless it lies in range."""
    interval = f"{'(' if low_open else '['}{decimal_text(low)}, {decimal_text(high)}{')' if high_open else ']'}"
    allowed = f"{field} must be a decimal number in {interval} (ASCII digits, e.g. 0.5)"
    match = _NUMBER.fullmatch(text)
    if match is None:
        raise RuleParameterError(f"verification {shown(name)}: {allowed}, got {shown(text)}")
    whole, frac, minus, exponent = match.groups()
    digits = (whole + (frac or "")).lstrip("0")
    if len(digits) > MAX_DIGITS or (exponent is not None and int(exponent) > MAX_EXPONENT):
        raise RuleParameterError(f"verification {shown(name)}: {allowed}, with at most {MAX_DIGITS} digits and "
                                 f"an exponent within ±{MAX_EXPONENT}, got {shown(text)}")
    shift = (int(exponent) if exponent else 0) * (-1 if minus else 1) - len(frac or "")
    value = Fraction(int(whole + (frac or "")) * 10**max(shift, 0), 10**max(-shift, 0))
    below = value <= low if low_open else value < low
    above = value >= high if high_open else value > high
    if below or above:
        raise RuleParameterError(f"verification {shown(name)}: {allowed}, got {shown(text)}")
    return value


def decimal_text(value: Fraction) -> str:
    """The shortest exact decimal of a value whose denominator divides a power of ten: 1/2 -> '0.5', 1 -> '1'."""
    value = Fraction(value)
    places = 0
    while (value * 10**places).denominator != 1:
        places += 1
        if places > MAX_DIGITS + MAX_EXPONENT:
            raise AssertionError(f"{value} is not a short decimal")  # callers pass parsed decimals
    scaled = value.numerator * 10**places // value.denominator
    if not places:
        return str(scaled)
    whole, frac = divmod(scaled, 10**places)
    return f"{whole}.{frac:0{places}d}"
