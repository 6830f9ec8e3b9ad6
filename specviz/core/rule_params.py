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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

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


# ---------------------------------------------------------------------------------------------------------------
# a rule's parameters, declared once beside its settings: what reads a name, what a control offers, what help says
# ---------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Param:
    """One number of a rule's name, declared once: its range (the name's reader refuses outside it), the stops a
    control offers, its default and its words for help and refusals. Every page, link reader and the command line
    reads it here (the Playground's switch, the lab's controls, ``--help``, ``RuleParams.read``)."""

    field: str  # the settings' attribute ("weight"); a control's session slot is "<family>_<field>"
    symbol: str  # how the name's form writes it: "W", "EPS", "K"
    label: str  # a control's label
    what: str = ""  # what it is, in a refusal and in --help: "the ensemble weight" ("" for a plain K)
    short: str = ""  # a label for tight places, after the engine's name (the lab's row: "W"); "" for the label
    help: str = ""  # a control's help
    count: bool = False  # a whole number in 1..high (K) rather than an exact number in the interval
    low: Fraction = _ZERO
    high: Fraction | int = _ONE
    low_open: bool = True
    high_open: bool = False
    stops: tuple[str, ...] = ()  # a number's slider stops, canonically spelled, in order (counts: 1..the page's limit)
    default: str | int = ""  # a control's first value; the name's value when it is optional and omitted
    optional: bool = False  # a name may leave it out (only after every required one), meaning the default
    example: str | None = None  # where a side-by-side view (the lab) starts, to show the rule's effect; None: default
    words: tuple[tuple[str, object, str], ...] = ()  # (the name's word, the settings' value, the stop that shows it)

    @property
    def field_text(self) -> str:
        """The parameter as a refusal names it: 'W (the ensemble weight)', 'DELTA (δ, ..., 0.3 when omitted; or sqrt
        for √ε)'."""
        extra = f", {self.default} when omitted" if self.optional else ""
        words = "".join(f"; or {word} for {stop}" for word, _, stop in self.words)
        inside = f"{self.what}{extra}{words}"
        return f"{self.symbol} ({inside})" if inside else self.symbol

    @property
    def range_text(self) -> str:
        """'in (0, 1]', 'in 1..8', 'in (0, 1] or sqrt', as --help says it."""
        if self.count:
            return f"in 1..{self.high}"
        words = "".join(f" or {word}" for word, _, _ in self.words)
        return f"in {interval(self.low, Fraction(self.high), low_open=self.low_open, high_open=self.high_open)}{words}"

    def read(self, text: str, name: str) -> object:
        """The settings' value of one text of a name (a word, a count or an exact number), refused in words."""
        for word, value, _ in self.words:
            if text == word:
                return value
        if self.count:
            return parse_count(text, name=name, field=self.field_text, high=int(self.high))
        return parse_number(text, name=name, field=self.field_text, low=self.low, high=Fraction(self.high),
                            low_open=self.low_open, high_open=self.high_open)

    def value(self, text: str | int) -> object:
        """The settings' value of a control's value (a stop, a link's spelling, a count)."""
        for word, value, stop in self.words:
            if text in (word, stop):
                return value
        if self.count:
            return int(text)
        found = read_number(str(text))
        if found is None:
            raise RuleParameterError(f"{self.field_text}: {shown(text)} is not a number")
        return found

    def shown_value(self, value: object) -> str | int:
        """What a control shows for a settings' value: a word's stop, a count, a number's one spelling."""
        for _, word_value, stop in self.words:
            if value == word_value and type(value) is type(word_value):
                return stop
        if self.count:
            return int(value)  # type: ignore[call-overload]
        return number_name(Fraction(value))  # type: ignore[arg-type]

    def text(self, shown_value: object) -> str:
        """A control's value as the name writes it (a word's stop as its word)."""
        for word, _, stop in self.words:
            if shown_value == stop:
                return word
        return str(shown_value)

    @property
    def start(self) -> str | int:
        """Where a side-by-side view starts: the example, or the default."""
        return self.default if self.example is None else self.example


@dataclass(frozen=True)
class Flag:
    """A switch between two names of one family ("typical" / "typical-sample"): the settings' bool, declared once."""

    field: str  # the settings' attribute ("fast"); a control's session slot is "<family>_<field>"
    label: str  # a toggle's label
    help: str
    on: str  # the name's family part when true
    off: str  # and when false
    default: bool = False
    short: str = ""  # a label for tight places, after the engine's name (the lab's row: "fast"); "" for the label


@dataclass(frozen=True)
class RuleParams:
    """Every parameter of one family's names, declared once beside its settings (``make``, a frozen dataclass with
    these fields and a canonical ``name``): the name's form, its reader, the controls' values both ways.

    A name gives every parameter up to the last that is not ``optional``; ``flag`` switches between two family parts
    of the name (``sglang``/``threshold``); a family without one is named ``head``.
    """

    make: Callable[..., Any] | None
    params: tuple[Param, ...] = ()
    flag: Flag | None = None
    head: str = ""

    def __post_init__(self) -> None:
        optional = [p.optional for p in self.params]
        if optional != sorted(optional):  # "EPS[,DELTA]": an optional parameter only after the required ones
            raise AssertionError(f"{self.heads}: an optional parameter must follow every required one")  # a bug

    @property
    def required(self) -> int:
        """How many parameters a name must give."""
        return sum(not p.optional for p in self.params)

    @property
    def heads(self) -> tuple[str, ...]:
        """The family parts a name may start with, the default first ("threshold", "sglang")."""
        if self.flag is None:
            return (self.head,) if self.head else ()
        flag = self.flag
        return (flag.on, flag.off) if flag.default else (flag.off, flag.on)

    @property
    def form(self) -> str:
        """The numbers after the colon as help writes them: "S,A[,K]"."""
        symbols = [p.symbol for p in self.params]
        return ",".join(symbols[: self.required]) + "".join(f"[,{s}]" for s in symbols[self.required:])

    @property
    def fields(self) -> tuple[str, ...]:
        """Every control's field: the numbers in order, then the flag."""
        return tuple(p.field for p in self.params) + ((self.flag.field,) if self.flag else ())

    def read(self, name: object) -> Any:
        """The settings a name declares (``make(**fields)``), or a one-line RuleParameterError."""
        head = name.partition(":")[0] if isinstance(name, str) else ""
        head = head if head in self.heads else self.heads[0]
        texts = rule_arguments(name, head, tuple(p.symbol for p in self.params), self.required)
        values = {p.field: p.read(text, str(name)) for p, text in zip(self.params, texts)}
        for param in self.params[len(texts):]:
            values[param.field] = param.value(param.default)
        if self.flag is not None:
            values[self.flag.field] = head == self.flag.on
        assert self.make is not None
        return self.make(**values)

    def controls(self, settings: Any) -> dict[str, object]:
        """What each control shows for a rule's settings ({field: a stop, a count, a bool})."""
        shown_values: dict[str, object] = {p.field: p.shown_value(getattr(settings, p.field)) for p in self.params}
        if self.flag is not None:
            shown_values[self.flag.field] = bool(getattr(settings, self.flag.field))
        return shown_values

    def defaults(self, start: bool = False) -> dict[str, object]:
        """Every control's first value (``start``: where a side-by-side view starts)."""
        values: dict[str, object] = {p.field: p.start if start else p.default for p in self.params}
        if self.flag is not None:
            values[self.flag.field] = self.flag.default
        return values

    def settings(self, controls: Mapping[str, object] | None = None) -> Any:
        """The settings the controls' values describe (a field they lack takes its default; none: the defaults)."""
        values = {**self.defaults(), **(controls or {})}
        head = self.heads[0] if self.flag is None else (self.flag.on if values[self.flag.field] else self.flag.off)
        return self.read(f"{head}:{','.join(p.text(values[p.field]) for p in self.params)}")

    def name(self, controls: Mapping[str, object]) -> str:
        """The canonical name the controls' values describe (a field they lack takes its default)."""
        return self.settings(controls).name

    def settings_help(self) -> str:
        """Each parameter's range and default, as --help says them: 'S in (0, 1]; K in 1..8, 1 when omitted'."""
        return "; ".join(f"{p.symbol} {p.range_text}" + (f", {p.default} when omitted" if p.optional else "")
                         for p in self.params)


NO_PARAMETERS = RuleParams(None)  # a rule named by a fixed word ("token"): nothing to declare
