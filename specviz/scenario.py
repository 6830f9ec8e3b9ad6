"""Toy scenarios: small vocabularies whose p and q are tables of weights, fixed or Markov.

A Scenario is the plain-data description the Playground, the exactness lab, the
edge-case gallery and the golden replay share. It builds the target and draft
models (pure functions of the prefix), the target processor and the streams, and
plays rounds with a trace.
"""

from __future__ import annotations

import hashlib
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


def parse_weight(text: str | int | float, kind: str) -> Weight:
    """A weight from its text: 'fraction' -> Fraction, 'int' -> int, 'fp32'/'float' -> float."""
    if not isinstance(text, str):
        return text
    if kind == "fraction":
        return Fraction(text)
    if kind == "int":
        return int(text)
    return float(text)


def table_from_dict(data: dict, kind: str) -> Table:
    """A Table from the golden file's {'start': [...], 'rows': [[...], ...] | None}."""
    start = tuple(parse_weight(w, kind) for w in data["start"])
    rows = data.get("rows")
    parsed = None if rows is None else tuple(tuple(parse_weight(w, kind) for w in row) for row in rows)
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


def max_weight_digits() -> int | None:
    """The most digits Python reads as one integer (None: no limit), the bound on a weight's text."""
    limit = sys.get_int_max_str_digits()
    return limit or None


def _digits(text: str) -> int:
    """Length of the longest run of digits: each run is one integer to Python."""
    return max((len(run) for run in re.findall(r"[0-9]+", text)), default=0)


def weight_from_text(text: str | int | float, where: str = "weight") -> Weight:
    """A weight from text: '3/7' and '2' are exact, '0.25' or '1e-3' stay floats.

    Raises ScenarioError (naming ``where``) for text that is not a number, a zero denominator,
    more digits than Python reads as an integer, or a float that overflows to infinity or
    underflows to 0: nothing is altered silently. The literals 'nan' and 'inf' pass as floats
    (the core refuses them with its own message).
    """
    if not isinstance(text, str):
        return text
    text = text.strip()
    limit = max_weight_digits()
    if limit is not None and _digits(text) > limit:
        raise ScenarioError(where, f"{_short(text)} has a number of {_digits(text)} digits; at most {limit} "
                                   "digits can be read (Python's limit for integer text), so it is too large "
                                   "to represent here; scale the weights down (only their ratios matter)")
    if "/" in text:
        try:
            return Fraction(text)
        except ZeroDivisionError:
            raise ScenarioError(where, f"{text!r} has a zero denominator") from None
        except ValueError:
            raise ScenarioError(where, f"{text!r} is not a fraction such as 1/3") from None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        raise ScenarioError(where, f"{text!r} is not a number; write e.g. 3, 0.25 or 1/3") from None
    if math.isinf(value) and not _names_infinity(text):
        raise ScenarioError(where, f"{text!r} is too large for a float (max ≈ 1.8e308); write it as an "
                                   "integer, or scale the weights down (only their ratios matter)")
    if value == 0 and Fraction(text) != 0:
        raise ScenarioError(where, f"{text!r} is below the float range and would become 0; write it "
                                   "exactly as a fraction, or scale the weights up (only their ratios matter)")
    return value


def _names_infinity(text: str) -> bool:
    return text.lstrip("+-").lower() in ("inf", "infinity")


def _short(text: str, keep: int = 12) -> str:
    return repr(text) if len(text) <= 2 * keep + 1 else f"'{text[:keep]}…{text[-keep:]}'"


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


def scenario_from_dict(data: dict) -> Scenario:
    """A Scenario from scenario_to_dict's data (missing optional keys take their defaults).

    Raises ScenarioError (a ValueError) or ScenarioTypeError (also a TypeError), each naming the
    field, for a document it cannot read exactly; value ranges are left to the core, so a
    scenario with, e.g., an all-zero p still loads and can explain itself.
    """
    data = _object(data, "scenario", required=("vocab", "target", "draft"), optional=_OPTIONAL)
    defaults = Scenario(vocab=("a",), target=Table((1,)), draft=Table((1,)))
    mask = _optional(data, "target_mask", lambda v: tuple(_list_of(v, "target_mask", _bool)))
    return Scenario(
        vocab=tuple(_list_of(data["vocab"], "vocab", _str)),
        target=_table(data["target"], "target"),
        draft=_table(data["draft"], "draft"),
        depth=_int(data.get("depth", defaults.depth), "depth"),
        draft_topk=_optional(data, "draft_topk", lambda v: _int(v, "draft_topk")),
        target_mask=mask,
        target_temperature=_number(data.get("target_temperature", 1.0), "target_temperature"),
        target_top_k=_optional(data, "target_top_k", lambda v: _int(v, "target_top_k")),
        target_top_p=_optional(data, "target_top_p", lambda v: _number(v, "target_top_p")),
        stop_ids=frozenset(_list_of(data.get("stop_ids", []), "stop_ids", _int)),
        fp32=_bool(data.get("fp32", False), "fp32"),
        seed=_int(data.get("seed", defaults.seed), "seed"),
        request_id=_str(data.get("request_id", defaults.request_id), "request_id"),
        generation=_int(data.get("generation", defaults.generation), "generation"),
        context_id=_str(data.get("context_id", ""), "context_id"),
        verification=_verification(data.get("verification", "token")),
    )


# --- reading a scenario document field by field ----------------------------------------------------
_OPTIONAL = ("depth", "draft_topk", "target_mask", "target_temperature", "target_top_k", "target_top_p",
             "stop_ids", "fp32", "seed", "request_id", "generation", "context_id", "verification")
_JSON_TYPES = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
               dict: "an object", type(None): "null"}


def _kind(value: object) -> str:
    return _JSON_TYPES.get(type(value), f"a {type(value).__name__}")


def _object(value: object, field: str, *, required: Sequence[str], optional: Sequence[str] = ()) -> dict:
    """value as a dict with every required key and no key outside required + optional."""
    if not isinstance(value, dict):
        raise ScenarioTypeError(field, f"expected an object with {', '.join(required)}, got {_kind(value)}")
    missing = [key for key in required if key not in value]
    if missing:
        raise ScenarioError(field, f"missing {', '.join(repr(k) for k in missing)} (a scenario needs "
                                   f"{', '.join(required)})")
    unknown = sorted(str(key) for key in value if key not in (*required, *optional))
    if unknown:
        raise ScenarioError(field, f"unknown field(s) {', '.join(repr(k) for k in unknown)}; known: "
                                   f"{', '.join((*required, *optional))}")
    return value


def _optional(data: dict, key: str, read):
    value = data.get(key)
    return None if value is None else read(value)


def _list_of(value: object, field: str, read) -> list:
    if not isinstance(value, (list, tuple)):
        raise ScenarioTypeError(field, f"expected a list, got {_kind(value)}")
    return [read(item, f"{field}[{i}]") for i, item in enumerate(value)]


def _str(value: object, field: str) -> str:
    if not isinstance(value, str):
        raise ScenarioTypeError(field, f"expected a string, got {_kind(value)} {value!r}")
    return value


def _verification(value: object) -> str:
    try:
        return check_verification(_str(value, "verification"))
    except VerificationError as error:
        raise ScenarioError("verification", str(error)) from None


def _bool(value: object, field: str) -> bool:
    if not isinstance(value, bool):
        raise ScenarioTypeError(field, f"expected true or false, got {_kind(value)} {value!r}")
    return value


def _int(value: object, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScenarioTypeError(field, f"expected an integer, got {_kind(value)} {value!r}")
    return value


def _number(value: object, field: str) -> int | float | Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise ScenarioTypeError(field, f"expected a number, got {_kind(value)} {value!r}")
    return value


def _weight(value: object, field: str) -> Weight:
    """A weight: exact text ('3', '1/3', '0.25'), or a number; finite, as the core will need it."""
    if isinstance(value, str):
        value = weight_from_text(value, field)
    value = _number(value, field)
    if isinstance(value, float) and not math.isfinite(value):
        raise ScenarioError(field, f"the weight {value!r} is not finite; use a finite number >= 0")
    return value


def _table(value: object, field: str) -> Table:
    data = _object(value, field, required=("start",), optional=("rows",))
    start = tuple(_list_of(data["start"], f"{field}.start", _weight))
    rows = _optional(data, "rows", lambda v: _list_of(v, f"{field}.rows", lambda row, where: tuple(
        _list_of(row, where, _weight))))
    return Table(start, None if rows is None else tuple(rows))
