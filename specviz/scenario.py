"""Toy scenarios: small vocabularies whose p and q are tables of weights, fixed or Markov.

A Scenario is the plain-data description the Playground, the exactness lab, the
edge-case gallery and the golden replay share. It builds the target and draft
models (pure functions of the prefix), the target processor and the streams, and
plays rounds with a trace.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction

from .core import (
    Block,
    Categorical,
    Model,
    Owner,
    Prefix,
    Processor,
    RandomStreams,
    Result,
    Trace,
    VerificationError,
    Verifier,
    check_verification,
    draft_round,
    fp32_weights,
    identity_processor,
    verifier_class,
)
from .core.errors import SpecvizError
from .core.processors import Mask, Temperature, TopK, TopP, compose
from .core.validation import Weight, check_token

Row = tuple[Weight, ...]


class ScenarioError(SpecvizError, ValueError):
    """A scenario document (JSON, a dict, a weight's text) cannot be read; ``field`` names where."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.reason = message  # the message without the field, for callers that name the place in their words


class ScenarioTypeError(ScenarioError, TypeError):
    """A field of a scenario document has the wrong JSON type (a string where a boolean belongs, ...)."""


@dataclass(frozen=True)
class Table:
    """Weights of one model: ``start`` after the empty prefix, ``rows[t]`` after token t.

    With ``rows=None`` the same ``start`` weights apply at every position.
    """

    start: Row
    rows: tuple[Row, ...] | None = None

    def weights_after(self, prefix: Prefix) -> Row:
        if not prefix or self.rows is None:
            return self.start
        check_token(prefix[-1], len(self.rows))  # a TokenError, not an IndexError (or a row from the end)
        return self.rows[prefix[-1]]


@dataclass(frozen=True)
class Scenario:
    """Everything one toy speculative-sampling run depends on."""

    vocab: tuple[str, ...]
    target: Table
    draft: Table
    depth: int = 3
    draft_topk: int | None = None
    target_mask: tuple[bool, ...] | None = None
    target_temperature: float = 1.0
    target_top_k: int | None = None
    target_top_p: float | None = None
    stop_ids: frozenset[int] = field(default_factory=frozenset)
    fp32: bool = False
    seed: int = 0
    request_id: str = "demo"
    generation: int = 0
    context_id: str = ""
    verification: str = "token"  # "token" (tokenwise) or "block" (Sun et al. 2025)

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def _distribution(self, weights: Row) -> Categorical:
        ids = range(len(weights))
        if self.fp32:
            return fp32_weights(self.vocab_size, ids, weights)
        return Categorical(self.vocab_size, ids, weights)

    def target_model(self) -> Model:
        def target(prefix: Prefix) -> Categorical:
            return self._distribution(self.target.weights_after(prefix))

        return target

    def draft_model(self) -> Model:
        k = self.draft_topk

        def draft(prefix: Prefix) -> Categorical:
            q = self._distribution(self.draft.weights_after(prefix))
            return q if k is None else q.sparse_topk(k)

        return draft

    def processor(self) -> Processor:
        steps: list[Processor] = []
        if self.target_temperature != 1:
            steps.append(Temperature(self.target_temperature))
        if self.target_top_k is not None:
            steps.append(TopK(self.target_top_k))
        if self.target_top_p is not None and self.target_top_p != 1:
            steps.append(TopP(self.target_top_p))
        if self.target_mask is not None:
            steps.append(Mask(tuple(self.target_mask)))
        if not steps:
            return identity_processor
        return steps[0] if len(steps) == 1 else compose(*steps)

    @property
    def owner(self) -> Owner:
        return Owner(self.request_id, self.generation)

    @property
    def context(self) -> str:
        """The context id: given, or a digest of everything the models and processor depend on."""
        if self.context_id:
            return self.context_id
        settings = (self.vocab_size, self.target, self.draft, self.draft_topk, self.target_mask,
                    self.target_temperature, self.target_top_k, self.target_top_p, self.fp32)
        return "toy-" + hashlib.sha256(repr(settings).encode()).hexdigest()[:12]

    def streams(self, round_id: int) -> RandomStreams:
        return RandomStreams(self.seed, self.owner, round_id)

    def verifier(self, prefix: Prefix = ()) -> Verifier:
        """The session of this scenario's verification scheme (a BlockVerifier for "block")."""
        session = verifier_class(self.verification)
        return session(self.owner, prefix, self.context, self.target_model(), processor=self.processor(),
                       stop_ids=frozenset(self.stop_ids))

    def with_changes(self, **changes: object) -> Scenario:
        return replace(self, **changes)


@dataclass(frozen=True)
class Round:
    """One played round: the drafted block, the verifier's result and the event trace."""

    round_id: int
    prefix: Prefix
    block: Block  # a Tree (specviz.core.tree) for the tree rules
    result: Result
    trace: Trace


def play_round(scenario: Scenario, verifier: Verifier, round_id: int) -> Round:
    """Draft from the verifier's committed prefix and verify, recording one trace for both."""
    streams = scenario.streams(round_id)
    trace = Trace()
    prefix = verifier.prefix
    # a chain for tokenwise and block, a tree for "multi:K" / "multi-distinct:K" (the registry decides)
    block = draft_round(scenario.verification, scenario.draft_model(), prefix, streams, depth=scenario.depth,
                        context_id=scenario.context, stop_ids=frozenset(scenario.stop_ids), trace=trace)
    result = verifier.verify(block, streams, trace=trace)
    return Round(round_id, prefix, block, result, trace)


def play(scenario: Scenario, rounds: int, prefix: Prefix = ()) -> list[Round]:
    """Play up to rounds rounds from prefix, stopping early when the request stops."""
    verifier = scenario.verifier(prefix)
    played: list[Round] = []
    for round_id in range(rounds):
        played.append(play_round(scenario, verifier, round_id))
        if verifier.stopped:
            break
    return played


def table_from_dict(data: dict, kind: str) -> Table:
    """A Table from the golden file's {'start': [...], 'rows': [[...], ...] | None}; kind 'fp32'/'float' -> floats."""
    def read(text: str) -> Weight:
        value = weight_from_text(text)
        return float(value) if kind in ("fp32", "float") else value

    start = tuple(read(w) for w in data["start"])
    rows = data.get("rows")
    parsed = None if rows is None else tuple(tuple(read(w) for w in row) for row in rows)
    return Table(start, parsed)


def scenario_from_golden(case: dict, labels: Sequence[str] | None = None) -> Scenario:
    """A Scenario from one case of the golden verifier_scenarios.json."""
    size = case["vocab_size"]
    return Scenario(
        vocab=tuple(labels) if labels else tuple(str(i) for i in range(size)),
        target=table_from_dict(case["target"], case["weights"]),
        draft=table_from_dict(case["draft"], case["weights"]),
        depth=case["depth"],
        draft_topk=case["draft_topk"],
        target_mask=None if case["target_mask"] is None else tuple(case["target_mask"]),
        stop_ids=frozenset(case["stop_ids"]),
        fp32=case["weights"] == "fp32",
        seed=case["seed"],
        request_id=case["request_id"],
        generation=case["generation"],
        context_id="ctx",
    )


def weight_text(weight: Weight) -> str:
    """A weight as text that weight_from_text reads back exactly (floats by repr)."""
    return repr(weight) if isinstance(weight, float) else str(weight)


# --- numbers from text: ASCII digits only, exact, bounded --------------------------------------------
# One grammar for every number a document, a link or the weights table holds. Python's own int() and
# float() also read '３', '٣' and '0_3'; a scenario is shared between people, so only what every reader
# sees as a number is one.
_INTEGER = re.compile(r"[+-]?[0-9]+")
_FRACTION = re.compile(r"([+-]?[0-9]+)/([0-9]+)")
_DECIMAL = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?")
_NON_FINITE = ("nan", "inf", "infinity")


@dataclass(frozen=True)
class JsonNumber:
    """A JSON number kept as its text (a decimal, a too-long integer, NaN, Infinity) until its field reads it.

    ``json.loads`` would turn 1e-400 into 0.0 and refuse a 5,000-digit integer as "not JSON";
    ``read_json`` keeps such numbers as text so that each field reads them exactly, with its own name.
    """

    text: str

    def __repr__(self) -> str:
        return _short(self.text, quote=False)


def max_weight_digits() -> int:
    """The most digits one number's text may have: Python's limit for integer text (its default when unlimited)."""
    return sys.get_int_max_str_digits() or sys.int_info.default_max_str_digits


def _digits(text: str) -> int:
    """Length of the longest run of digits: each run is one integer to Python."""
    return max((len(run) for run in re.findall(r"[0-9]+", text)), default=0)


def _short(text: str, keep: int = 12, quote: bool = True) -> str:
    """text for a message, its middle cut when long ('1234…7890', with its length)."""
    if len(text) > 2 * keep + 1:
        text = f"{text[:keep]}…{text[-keep:]} ({len(text):,} characters)"
    return repr(text) if quote else text


def _hint(text: str) -> str:
    """Why text that looks numeric is not read: digits other than ASCII 0-9, or '_' between digits."""
    if any(not char.isascii() and char.isnumeric() for char in text):
        return " (only the ASCII digits 0-9 are read)"
    if "_" in text:
        return " (write the digits without '_')"
    return ""


def _check_length(text: str, where: str, advice: str) -> None:
    limit = max_weight_digits()
    if _digits(text) > limit:
        raise ScenarioError(where, f"{_short(text)} has a number of {_digits(text)} digits; at most {limit} "
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
    if _INTEGER.fullmatch(text):
        return int(text)
    fraction = _FRACTION.fullmatch(text)
    if fraction:
        if int(fraction[2]) == 0:
            raise ScenarioError(where, f"{_short(text)} has a zero denominator")
        return Fraction(int(fraction[1]), int(fraction[2]))
    if "/" in text:
        raise ScenarioError(where, f"{_short(text)} is not a fraction such as 1/3{_hint(text)}")
    if text.lstrip("+-").lower() in _NON_FINITE:
        return float(text)
    return _decimal(text, where)


def _decimal(text: str, where: str) -> Weight:
    """'0.25' -> 0.25; outside the float range the exact value ('1e-400' -> Fraction(1, 10**400))."""
    match = _DECIMAL.fullmatch(text)
    if match is None or not (match[2] or match[3]):
        raise ScenarioError(where, f"{_short(text)} is not a number; write e.g. 3, 0.25 or 1/3{_hint(text)}")
    value = float(text)
    mantissa = match[2] + (match[3] or "")
    if value != 0 and math.isfinite(value) or not mantissa.strip("0"):
        return value  # a float that holds it (as Python reads it), or an exact zero
    scale = int(match[4] or 0) - len(match[3] or "")
    limit = max_weight_digits()
    if len(mantissa.lstrip("0")) + abs(scale) > limit:
        size = "large" if scale > 0 else "small"
        raise ScenarioError(where, f"{_short(text)} needs {len(mantissa.lstrip('0')) + abs(scale)} digits to be "
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
    if not _INTEGER.fullmatch(text):
        raise ScenarioError(where, f"{_short(text)} is not a whole number; write e.g. 0, 3 or 42{_hint(text)}")
    return int(text)


def real_from_text(text: str | JsonNumber, where: str, allowed: str) -> float:
    """A finite float from text ('0.7', '2', '1/2'), ASCII digits only; ScenarioError naming where otherwise.

    allowed says what the field takes; it ends every refusal ('a temperature is a number > 0').
    """
    value = weight_from_text(text, where)
    return float(check_real(value, where, allowed, _short(text if isinstance(text, str) else text.text)))


def check_real(value: object, where: str, allowed: str, shown: str | None = None) -> int | float | Fraction:
    """value unchanged if it is a real number a float holds (finite, not flushed to 0); ScenarioError otherwise."""
    if isinstance(value, JsonNumber):
        return real_from_text(value, where, allowed)
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise ScenarioTypeError(where, f"expected a number, got {_got(value)}; {allowed}")
    shown = shown or (_got(value) if _show(value).startswith("of") else _show(value))
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


# --- reading JSON exactly and safely -------------------------------------------------------------------
MAX_JSON_CHARS = 5_000_000  # a Playground file with its trace is a few kB
MAX_JSON_DEPTH = 20  # a scenario file nests 7 levels (file -> trace -> events -> ...)


def read_json(text: str | bytes, where: str = "file") -> object:
    """JSON text as Python data, its numbers read exactly (``JsonNumber`` where int or float would not).

    Raises ScenarioError (naming ``where``) for text that is not UTF-8 or not JSON, that is larger
    than MAX_JSON_CHARS, nests deeper than MAX_JSON_DEPTH (where ``json`` itself would raise
    RecursionError) or repeats a key in one object (``json`` would keep the last silently).
    """
    if len(text) > MAX_JSON_CHARS:
        raise ScenarioError(where, f"has {len(text):,} characters; a scenario file has at most {MAX_JSON_CHARS:,}")
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise ScenarioError(where, f"is not UTF-8 text (byte {error.start} cannot be decoded); a scenario "
                                       "file is JSON in UTF-8") from None
    try:
        data = json.loads(text.removeprefix("\ufeff"), parse_int=_json_int, parse_float=JsonNumber,
                          parse_constant=JsonNumber, object_pairs_hook=_json_object)
    except json.JSONDecodeError as error:
        raise ScenarioError(where, f"is not JSON ({error.msg} at line {error.lineno}, column {error.colno})") from None
    except RecursionError:  # json's scanner recurses once per level: the text nests about a thousand deep
        raise ScenarioError(where, f"nests too deeply (over a thousand levels); a scenario file nests at most "
                                   f"{MAX_JSON_DEPTH}") from None
    depth = _nesting(data)
    if depth > MAX_JSON_DEPTH:
        raise ScenarioError(where, f"nests more than {MAX_JSON_DEPTH} levels deep; a scenario file nests at most "
                                   f"{MAX_JSON_DEPTH}")
    return data


def _json_int(text: str) -> int | JsonNumber:
    """An integer literal as an int, or as JsonNumber when longer than Python reads (its field refuses it)."""
    return int(text) if _digits(text) <= max_weight_digits() else JsonNumber(text)


def _json_object(pairs: list[tuple[str, object]]) -> dict:
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise ScenarioError("file", f"the key {_short(twice)} appears twice in one object; each field is given once")
    return data


def _nesting(data: object) -> int:
    """How deep lists and objects nest in data (0 for a number), without recursion."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (list, dict)):
            deepest = max(deepest, depth)
            if depth <= MAX_JSON_DEPTH:
                stack.extend((item, depth + 1) for item in (value.values() if isinstance(value, dict) else value))
    return deepest

def _table_to_dict(table: Table) -> dict:
    rows = None if table.rows is None else [[weight_text(w) for w in row] for row in table.rows]
    return {"start": [weight_text(w) for w in table.start], "rows": rows}


def scenario_to_dict(scenario: Scenario) -> dict:
    """Plain JSON data for a Scenario (weights as exact text); inverse of scenario_from_dict."""
    data = {
        "vocab": list(scenario.vocab),
        "target": _table_to_dict(scenario.target),
        "draft": _table_to_dict(scenario.draft),
        "depth": scenario.depth,
        "draft_topk": scenario.draft_topk,
        "target_mask": None if scenario.target_mask is None else list(scenario.target_mask),
        "target_temperature": scenario.target_temperature,
        "target_top_k": scenario.target_top_k,
        "target_top_p": scenario.target_top_p,
        "stop_ids": sorted(scenario.stop_ids),
        "fp32": scenario.fp32,
        "seed": scenario.seed,
        "request_id": scenario.request_id,
        "generation": scenario.generation,
        "context_id": scenario.context_id,
    }
    if scenario.verification != "token":  # absent means tokenwise: older links and files stay valid
        data["verification"] = scenario.verification
    return data


TEMPERATURE_ALLOWED = "a temperature is a finite number > 0 (1 leaves p unchanged)"
TOP_P_ALLOWED = "top-p is a number in (0, 1] (1 keeps every token)"


def scenario_from_dict(data: dict) -> Scenario:
    """A Scenario from scenario_to_dict's data (missing optional keys take their defaults).

    Raises ScenarioError (a ValueError) or ScenarioTypeError (also a TypeError), each naming the
    field, its value (abbreviated) and what is allowed, for a document it cannot read exactly:
    wrong JSON types, numbers no float or int holds, tables or a mask without one entry per token,
    stop ids outside the vocabulary. Value ranges are left to the core, so a scenario with, e.g.,
    an all-zero p or depth 9 still loads and can explain itself. Never another exception.
    """
    data = _object(data, "scenario", required=("vocab", "target", "draft"), optional=_OPTIONAL)
    _check_raw_shapes(data)  # before any weight is read: a table of a million weights is refused at once
    defaults = Scenario(vocab=("a",), target=Table((1,)), draft=Table((1,)))
    mask = _optional(data, "target_mask", lambda v: tuple(_list_of(v, "target_mask", _bool)))
    scenario = Scenario(
        vocab=tuple(_list_of(data["vocab"], "vocab", _str)),
        target=_table(data["target"], "target"),
        draft=_table(data["draft"], "draft"),
        depth=_int(data.get("depth", defaults.depth), "depth"),
        draft_topk=_optional(data, "draft_topk", lambda v: _int(v, "draft_topk")),
        target_mask=mask,
        target_temperature=_real(data.get("target_temperature", 1.0), "target_temperature", TEMPERATURE_ALLOWED),
        target_top_k=_optional(data, "target_top_k", lambda v: _int(v, "target_top_k")),
        target_top_p=_optional(data, "target_top_p", lambda v: _real(v, "target_top_p", TOP_P_ALLOWED)),
        stop_ids=frozenset(_list_of(data.get("stop_ids", []), "stop_ids", _int)),
        fp32=_bool(data.get("fp32", False), "fp32"),
        seed=_int(data.get("seed", defaults.seed), "seed"),
        request_id=_str(data.get("request_id", defaults.request_id), "request_id"),
        generation=_int(data.get("generation", defaults.generation), "generation"),
        context_id=_str(data.get("context_id", ""), "context_id"),
        verification=_verification(data.get("verification", "token")),
    )
    check_shapes(scenario)
    return scenario


def check_shapes(scenario: Scenario, names: dict[str, str] | None = None) -> None:
    """ScenarioError unless every per-token list has one entry per token and stop ids are tokens.

    A table, mask or stop id that does not fit the vocabulary cannot be shown as written (the
    Playground would pad or drop it), so it is refused whole. When vocab disagrees with every
    table, vocab is named; otherwise the list that disagrees with vocab. names maps the document's
    field names to a caller's (a link's 'p' for 'target').
    """
    names = names or {}
    v = scenario.vocab_size
    tables = {"target": scenario.target, "draft": scenario.draft}
    widths = {len(t.start) for t in tables.values()}
    if len(widths) == 1 and v not in widths:
        raise ScenarioError(names.get("vocab", "vocab"), f"has {_count(v, 'label')} but each table row has "
                                                         f"{_count(widths.pop(), 'weight')}; give one label per weight")
    for key, table in tables.items():
        name = names.get(key, key)
        _check_row(table.start, v, f"{name}.start")
        if table.rows is not None:
            if len(table.rows) != v:
                raise ScenarioError(f"{name}.rows", f"has {_count(len(table.rows), 'row')} for the {v} tokens of "
                                                    "vocab; give one row after each token")
            for i, row in enumerate(table.rows):
                _check_row(row, v, f"{name}.rows[{i}]")
    if scenario.target_mask is not None and len(scenario.target_mask) != v:
        raise ScenarioError(names.get("target_mask", "target_mask"),
                            f"has {_count(len(scenario.target_mask), 'value')} for the {v} tokens of vocab; give one "
                            "true or false per token")
    for stop in sorted(scenario.stop_ids):
        if not 0 <= stop < v:
            raise ScenarioError(names.get("stop_ids", "stop_ids"),
                                f"{_show(stop)} is not a token of the {v}-token vocab; stop ids are 0 to {v - 1}")


def _check_raw_shapes(data: dict) -> None:
    """check_shapes on the document's list lengths alone, when vocab and both tables are lists as they should be."""
    def shape(table: object) -> Table | None:
        if not isinstance(table, dict) or not isinstance(table.get("start"), list):
            return None
        rows = table.get("rows")
        if rows is not None and not (isinstance(rows, list) and all(isinstance(row, list) for row in rows)):
            return None
        zeros = None if rows is None else tuple((0,) * len(row) for row in rows)
        return Table((0,) * len(table["start"]), zeros)

    target, draft = shape(data["target"]), shape(data["draft"])
    if isinstance(data["vocab"], list) and target is not None and draft is not None:
        check_shapes(Scenario(vocab=tuple(data["vocab"]), target=target, draft=draft))


def _check_row(row: Row, v: int, where: str) -> None:
    if len(row) != v:
        raise ScenarioError(where, f"has {_count(len(row), 'weight')} for the {v} tokens of vocab; give one weight "
                                   "per token")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"


# --- reading a scenario document field by field ----------------------------------------------------
_OPTIONAL = ("depth", "draft_topk", "target_mask", "target_temperature", "target_top_k", "target_top_p",
             "stop_ids", "fp32", "seed", "request_id", "generation", "context_id", "verification")
_JSON_TYPES = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
               dict: "an object", type(None): "null", JsonNumber: "the number", Fraction: "the fraction"}


def _kind(value: object) -> str:
    return _JSON_TYPES.get(type(value), f"a {type(value).__name__}")


def _show(value: object) -> str:
    """value for a message: short, and safe at any size or depth (no repr of a nested or huge value)."""
    if isinstance(value, str):
        return _short(value)
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
        return _short(value.text, quote=False)
    if isinstance(value, (int, float, Fraction)):
        return _short(repr(value) if isinstance(value, float) else str(value), quote=False)
    return ""


def _got(value: object) -> str:
    return f"{_kind(value)} {_show(value)}".strip()


def _object(value: object, field: str, *, required: Sequence[str], optional: Sequence[str] = ()) -> dict:
    """value as a dict with every required key and no key outside required + optional."""
    if not isinstance(value, dict):
        raise ScenarioTypeError(field, f"expected an object with {', '.join(required)}, got {_got(value)}")
    missing = [key for key in required if key not in value]
    if missing:
        raise ScenarioError(field, f"missing {', '.join(repr(k) for k in missing)} (a scenario needs "
                                   f"{', '.join(required)})")
    unknown = sorted(_short(str(key)) for key in value if key not in (*required, *optional))
    if unknown:
        listed = ", ".join(unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        raise ScenarioError(field, f"unknown field(s) {listed}; known: {', '.join((*required, *optional))}")
    return value


def _optional(data: dict, key: str, read):
    value = data.get(key)
    return None if value is None else read(value)


def _list_of(value: object, field: str, read) -> list:
    if not isinstance(value, (list, tuple)):
        raise ScenarioTypeError(field, f"expected a list, got {_got(value)}")
    return [read(item, f"{field}[{i}]") for i, item in enumerate(value)]


def _str(value: object, field: str) -> str:
    if not isinstance(value, str):
        raise ScenarioTypeError(field, f"expected a string, got {_got(value)}")
    return value


def _verification(value: object) -> str:
    try:
        return check_verification(_str(value, "verification"))
    except VerificationError as error:
        raise ScenarioError("verification", str(error)) from None


def _bool(value: object, field: str) -> bool:
    if not isinstance(value, bool):
        raise ScenarioTypeError(field, f"expected true or false, got {_got(value)}")
    return value


def _int(value: object, field: str) -> int:
    """A whole number; a JSON integer longer than Python reads is refused as too long, with its field."""
    if isinstance(value, JsonNumber) and _INTEGER.fullmatch(value.text):
        return int_from_text(value, field)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScenarioTypeError(field, f"expected a whole number, got {_got(value)}")
    return _check_size(value, field)


def _check_size(value: int | Fraction, field: str):
    """value unless it (or a part of a fraction) has more digits than Python writes as text: it could not be saved."""
    limit = max_weight_digits()
    parts = (value.numerator, value.denominator) if isinstance(value, Fraction) else (value,)
    # 3 bits per digit is below log2(10): a part that short is surely below 10**limit (no big power to build)
    if any(abs(part).bit_length() > 3 * limit and abs(part) >= 10**limit for part in parts):
        raise ScenarioError(field, f"{_got(value)} has more than {limit} digits (Python's limit for integer "
                                   "text), so it is too large to represent here")
    return value


def _real(value: object, field: str, allowed: str) -> int | float:
    """A real setting of a document: a JSON number a float holds (written back as a JSON number)."""
    if isinstance(value, Fraction):
        raise ScenarioTypeError(field, f"expected a number, got {_got(value)}; {allowed}")
    return check_real(value, field, allowed)


def _weight(value: object, field: str) -> Weight:
    """A weight: exact text ('3', '1/3', '0.25') or a JSON number, read alike; finite, as the core will need it."""
    if isinstance(value, (str, JsonNumber)):
        value = weight_from_text(value, field)
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise ScenarioTypeError(field, f"expected a weight (a number, or text such as '1/3'), got {_got(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ScenarioError(field, f"the weight {_show(value)} is not finite; use a finite number >= 0")
    return value if isinstance(value, float) else _check_size(value, field)


def _table(value: object, field: str) -> Table:
    data = _object(value, field, required=("start",), optional=("rows",))
    start = tuple(_list_of(data["start"], f"{field}.start", _weight))
    rows = _optional(data, "rows", lambda v: _list_of(v, f"{field}.rows", lambda row, where: tuple(
        _list_of(row, where, _weight))))
    return Table(start, None if rows is None else tuple(rows))
