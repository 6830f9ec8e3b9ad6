"""Numbers and JSON read exactly and within bounds: the one reader behind scenario files, links and lectures.

One grammar for every number a document, a link or the weights table holds: ASCII digits only
(Python's own int() and float() also read '３', '٣' and '0_3'; a scenario is shared between people,
so only what every reader sees as a number is one), exact (a decimal outside the float range stays
the value written), and bounded (no more digits than Python reads as an integer). ``read_json`` reads
a document with the same care: a size cap, a nesting limit, duplicate keys refused, numbers kept as
text (``JsonNumber``) until their field reads them.
"""

from __future__ import annotations

import json
import math
import re
import sys
from fractions import Fraction

import numpy as np

from ..core.validation import Weight
from .reading_errors import ScenarioError, ScenarioTypeError


def weight_text(weight: Weight) -> str:
    """A weight as text that weight_from_text reads back exactly (floats by repr)."""
    return repr(weight) if isinstance(weight, float) else str(weight)


# --- numbers from text: ASCII digits only, exact, bounded --------------------------------------------
INTEGER = re.compile(r"[+-]?[0-9]+")
_FRACTION = re.compile(r"([+-]?[0-9]+)/([0-9]+)")
_DECIMAL = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?")
_NON_FINITE = ("nan", "inf", "infinity")


class JsonNumber:
    """A JSON number kept as its text (a decimal, a too-long integer, NaN, Infinity) until its field reads it.

    ``json.loads`` would turn 1e-400 into 0.0 and refuse a 5,000-digit integer as "not JSON";
    ``read_json`` keeps such numbers as text so that each field reads them exactly, with its own name.
    (A slotted class, not a dataclass: a file may hold a million of them, made one by one by the parser.)
    """

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JsonNumber) and other.text == self.text

    def __hash__(self) -> int:
        return hash(("JsonNumber", self.text))

    def __repr__(self) -> str:
        return short_text(self.text, quote=False)


def max_weight_digits() -> int:
    """The most digits one number's text may have: Python's limit for integer text (its default when unlimited)."""
    return sys.get_int_max_str_digits() or sys.int_info.default_max_str_digits


def _digits(text: str) -> int:
    """Length of the longest run of digits: each run is one integer to Python."""
    return max((len(run) for run in re.findall(r"[0-9]+", text)), default=0)


def short_text(text: str, keep: int = 12, quote: bool = True) -> str:
    """text for a message, its middle cut when long ('1234…7890', with its length)."""
    if len(text) > 2 * keep + 1:
        text = f"{text[:keep]}…{text[-keep:]} ({len(text):,} characters)"
    return repr(text) if quote else text


def digits_hint(text: str) -> str:
    """Why text that looks numeric is not read: digits other than ASCII 0-9, or '_' between digits."""
    if any(not char.isascii() and char.isnumeric() for char in text):
        return " (only the ASCII digits 0-9 are read)"
    if "_" in text:
        return " (write the digits without '_')"
    return ""


def _check_length(text: str, where: str, advice: str) -> None:
    limit = max_weight_digits()
    if _digits(text) > limit:
        raise ScenarioError(where, f"{short_text(text)} has a number of {_digits(text)} digits; at most {limit} "
                                   f"digits can be read (Python's limit for integer text), so it is too large "
                                   f"to represent here{advice}")


def weight_from_text(text: str | Weight | JsonNumber, where: str = "weight") -> Weight:
    """A weight from text: '3' and '3/7' are exact; '0.25' and '1e-3' are the floats they name.

    A decimal outside the float range ('1e-400', '1e400') is read exactly, as a Fraction or an
    int, instead of becoming 0 or infinity: the core is exact, so the value stays what was written
    (inside the range a decimal is the float Python reads, as it always was: write 1/10 for a tenth).
    Only ASCII digits are read. Raises ScenarioError (naming ``where``) for text that is not a
    number, a zero denominator, or a number with more digits than Python reads. The literals
    'nan' and 'inf' pass as floats (the caller refuses them as not finite).
    """
    if isinstance(text, JsonNumber):
        text = text.text
    if not isinstance(text, str):
        return text
    text = text.strip()
    _check_length(text, where, "; scale the weights down (only their ratios matter)")
    if INTEGER.fullmatch(text):
        return int(text)
    fraction = _FRACTION.fullmatch(text)
    if fraction:
        if int(fraction[2]) == 0:
            raise ScenarioError(where, f"{short_text(text)} has a zero denominator")
        return Fraction(int(fraction[1]), int(fraction[2]))
    if "/" in text:
        raise ScenarioError(where, f"{short_text(text)} is not a fraction such as 1/3{digits_hint(text)}")
    if text.lstrip("+-").lower() in _NON_FINITE:
        return float(text)
    return _decimal(text, where)


def _decimal(text: str, where: str) -> Weight:
    """'0.25' -> 0.25; outside the float range the exact value ('1e-400' -> Fraction(1, 10**400))."""
    match = _DECIMAL.fullmatch(text)
    if match is None or not (match[2] or match[3]):
        raise ScenarioError(where, f"{short_text(text)} is not a number; write e.g. 3, 0.25 or 1/3{digits_hint(text)}")
    value = float(text)
    mantissa = match[2] + (match[3] or "")
    if value != 0 and math.isfinite(value) or not mantissa.strip("0"):
        return value  # a float that holds it (as Python reads it), or an exact zero
    scale = int(match[4] or 0) - len(match[3] or "")
    limit = max_weight_digits()
    if len(mantissa.lstrip("0")) + abs(scale) > limit:
        size = "large" if scale > 0 else "small"
        raise ScenarioError(where, f"{short_text(text)} needs {len(mantissa.lstrip('0')) + abs(scale)} digits to be "
                                   f"held exactly; at most {limit} digits can be read (Python's limit for integer "
                                   f"text), so it is too {size} to represent here; scale the weights "
                                   f"{'down' if scale > 0 else 'up'} (only their ratios matter)")
    sign = -1 if match[1] == "-" else 1
    if scale >= 0:
        return sign * int(mantissa) * 10**scale
    return Fraction(sign * int(mantissa), 10**-scale)


def int_from_text(text: str | JsonNumber, where: str) -> int:
    """A whole number from text ('-3', '42'), ASCII digits only; ScenarioError naming where otherwise."""
    if isinstance(text, JsonNumber):
        text = text.text
    text = text.strip()
    _check_length(text, where, "")
    if not INTEGER.fullmatch(text):
        raise ScenarioError(where, f"{short_text(text)} is not a whole number; write e.g. 0, 3 or "
                                   f"42{digits_hint(text)}")
    return int(text)


def real_from_text(text: str | JsonNumber, where: str, allowed: str) -> float:
    """A finite float from text ('0.7', '2', '1/2'), ASCII digits only; ScenarioError naming where otherwise.

    allowed says what the field takes; it ends every refusal ('a temperature is a number > 0').
    """
    value = weight_from_text(text, where)
    return float(check_real(value, where, allowed, short_text(text if isinstance(text, str) else text.text)))


def check_real(value: object, where: str, allowed: str, shown: str | None = None) -> int | float | Fraction:
    """value unchanged if it is a real number a float holds (finite, not flushed to 0); ScenarioError otherwise."""
    if isinstance(value, JsonNumber):
        return real_from_text(value, where, allowed)
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise ScenarioTypeError(where, f"expected a number, got {got(value)}; {allowed}")
    shown = shown or (got(value) if describe(value).startswith("of") else describe(value))
    try:
        as_float = float(value)
    except OverflowError:
        as_float = math.inf
    if math.isnan(as_float):
        raise ScenarioError(where, f"{shown} is not a number; {allowed}")
    if math.isinf(as_float):
        what = "is not finite" if isinstance(value, float) else "is too large for a float (max ≈ 1.8e308)"
        raise ScenarioError(where, f"{shown} {what}; {allowed}")
    if as_float == 0 and value != 0:
        raise ScenarioError(where, f"{shown} is below the float range (it would become 0); {allowed}")
    return value


# --- a value as a refusal shows it ------------------------------------------------------------------
_JSON_TYPES = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
               dict: "an object", type(None): "null", JsonNumber: "the number", Fraction: "the fraction"}


def kind(value: object) -> str:
    return _JSON_TYPES.get(type(value), f"a {type(value).__name__}")


def describe(value: object) -> str:
    """value for a message: short, and safe at any size or depth (no repr of a nested or huge value)."""
    if isinstance(value, str):
        return short_text(value)
    if isinstance(value, (list, tuple)):
        return f"of {len(value)} item{'s' * (len(value) != 1)}"
    if isinstance(value, dict):
        return f"with {len(value)} field{'s' * (len(value) != 1)}"
    if isinstance(value, bool) or value is None:
        return "" if value is None else repr(value).lower()
    if isinstance(value, (int, Fraction)) and max(abs(value.numerator), value.denominator).bit_length() > 80:
        return f"of about {int(max(abs(value.numerator), value.denominator).bit_length() * math.log10(2)) + 1} " \
               "digits"  # str() of a huge int is slow, or refused
    if isinstance(value, JsonNumber):
        return short_text(value.text, quote=False)
    if isinstance(value, (int, float, Fraction)):
        return short_text(repr(value) if isinstance(value, float) else str(value), quote=False)
    return ""


def got(value: object) -> str:
    return f"{kind(value)} {describe(value)}".strip()

def check_size(value: int | Fraction, field: str):
    """value unless it (or a part of a fraction) has more digits than Python writes as text: it could not be saved."""
    limit = max_weight_digits()
    parts = (value.numerator, value.denominator) if isinstance(value, Fraction) else (value,)
    # 3 bits per digit is below log2(10): a part that short is surely below 10**limit (no big power to build)
    if any(abs(part).bit_length() > 3 * limit and abs(part) >= 10**limit for part in parts):
        raise ScenarioError(field, f"{got(value)} has more than {limit} digits (Python's limit for integer "
                                   "text), so it is too large to represent here")
    return value


# --- reading JSON exactly and safely -------------------------------------------------------------------
MAX_JSON_CHARS = 5_000_000  # a Playground file with its trace is a few kB
MAX_JSON_DEPTH = 20  # a scenario file nests 7 levels (file -> trace -> events -> ...)


def read_json(text: str | bytes, where: str = "file", *, document: str = "a scenario file",
              max_chars: int = MAX_JSON_CHARS, max_depth: int = MAX_JSON_DEPTH) -> object:
    """JSON text as Python data, its numbers read exactly (``JsonNumber`` where int or float would not).

    Raises ScenarioError (naming ``where``) for text that is not UTF-8 or not JSON, that is larger
    than max_chars, nests deeper than max_depth (where ``json`` itself would raise RecursionError) or
    repeats a key in one object (``json`` would keep the last silently). document names the kind of
    file in the refusals ('a scenario file has at most ...'); a lecture script passes its own words.
    """
    if not isinstance(text, (str, bytes, bytearray)):
        raise ScenarioTypeError(where, f"is {kind(text)}, not JSON text (str or bytes)")
    if len(text) > max_chars:
        raise ScenarioError(where, f"has {len(text):,} characters; {document} has at most {max_chars:,}")
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise ScenarioError(where, f"is not UTF-8 text (byte {error.start} cannot be decoded); {document} "
                                       "is JSON in UTF-8") from None
    text = text.removeprefix("\ufeff")
    if text_nesting(text) > max_depth:  # before parsing: json's scanner recurses once per level
        raise ScenarioError(where, f"nests more than {max_depth} levels deep; {document} nests at most {max_depth}")
    try:
        data = json.loads(text, parse_int=_json_int, parse_float=JsonNumber, parse_constant=JsonNumber,
                          object_pairs_hook=lambda pairs: _json_object(pairs, where))
    except json.JSONDecodeError as error:
        raise ScenarioError(where, f"is not JSON ({error.msg} at line {error.lineno}, column {error.colno})") from None
    except RecursionError:  # cannot happen below the nesting limit; kept so that nothing else escapes
        raise ScenarioError(where, f"nests too deeply; {document} nests at most {max_depth}") from None
    return data


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def text_nesting(text: str) -> int:
    """How deep lists and objects nest in JSON text (brackets inside strings do not count), in C-speed passes."""
    if "[" not in text and "{" not in text:
        return 0
    codes = np.frombuffer(_STRING.sub('""', text).encode("utf-8", "surrogatepass"), np.uint8)
    steps = (codes == ord("[")).astype(np.int32)
    steps += codes == ord("{")
    steps -= codes == ord("]")
    steps -= codes == ord("}")
    return int(np.cumsum(steps, out=steps).max(initial=0))


def _json_int(text: str) -> int | JsonNumber:
    """An integer literal as an int, or as JsonNumber when longer than Python reads (its field refuses it)."""
    return int(text) if len(text) - text.startswith("-") <= max_weight_digits() else JsonNumber(text)


def _json_object(pairs: list[tuple[str, object]], where: str) -> dict:
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise ScenarioError(where, f"repeats the key {short_text(twice)} in one object; each field is given once")
    return data
