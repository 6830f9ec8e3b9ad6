"""The scenario document: a Scenario as plain JSON data and back (files, links, lectures), and the golden file's cases.

``scenario_to_dict`` writes weights as exact text; ``scenario_from_dict`` reads them back field by
field, each refusal a ScenarioError naming the field, the value (abbreviated) and what is allowed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from ..core import VerificationError, check_verification
from ..core.validation import Weight
from .model import Scenario, Table
from .reading import (
    INTEGER,
    JsonNumber,
    check_real,
    check_size,
    describe,
    got,
    int_from_text,
    short_text,
    weight_from_text,
    weight_text,
)
from .reading_errors import ScenarioError, ScenarioTypeError
from .shapes import check_raw_shapes, check_shapes


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
    check_raw_shapes(data)  # before any weight is read: a table of a million weights is refused at once
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


# --- reading a scenario document field by field ----------------------------------------------------
_OPTIONAL = ("depth", "draft_topk", "target_mask", "target_temperature", "target_top_k", "target_top_p",
             "stop_ids", "fp32", "seed", "request_id", "generation", "context_id", "verification")


def _object(value: object, field: str, *, required: Sequence[str], optional: Sequence[str] = ()) -> dict:
    """value as a dict with every required key and no key outside required + optional."""
    if not isinstance(value, dict):
        raise ScenarioTypeError(field, f"expected an object with {', '.join(required)}, got {got(value)}")
    missing = [key for key in required if key not in value]
    if missing:
        raise ScenarioError(field, f"missing {', '.join(repr(k) for k in missing)} (a scenario needs "
                                   f"{', '.join(required)})")
    unknown = sorted(short_text(str(key)) for key in value if key not in (*required, *optional))
    if unknown:
        listed = ", ".join(unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        raise ScenarioError(field, f"unknown field(s) {listed}; known: {', '.join((*required, *optional))}")
    return value


def _optional(data: dict, key: str, read):
    value = data.get(key)
    return None if value is None else read(value)


def _list_of(value: object, field: str, read) -> list:
    if not isinstance(value, (list, tuple)):
        raise ScenarioTypeError(field, f"expected a list, got {got(value)}")
    return [read(item, f"{field}[{i}]") for i, item in enumerate(value)]


def _str(value: object, field: str) -> str:
    if not isinstance(value, str):
        raise ScenarioTypeError(field, f"expected a string, got {got(value)}")
    return value


MAX_RULE_NAME_CHARS = 64  # 'multi-distinct:8' has 16; a name is refused by its length before the registry reads it


def _verification(value: object) -> str:
    name = _str(value, "verification")
    if len(name) > MAX_RULE_NAME_CHARS:
        raise ScenarioError("verification", f"{short_text(name)} is not a rule name: a rule name has at most "
                                            f"{MAX_RULE_NAME_CHARS} characters (e.g. 'token', 'block', 'multi:2')")
    try:
        return check_verification(name)
    except VerificationError as error:
        raise ScenarioError("verification", str(error)) from None


def _bool(value: object, field: str) -> bool:
    if not isinstance(value, bool):
        raise ScenarioTypeError(field, f"expected true or false, got {got(value)}")
    return value


def _int(value: object, field: str) -> int:
    """A whole number; a JSON integer longer than Python reads is refused as too long, with its field."""
    if isinstance(value, JsonNumber) and INTEGER.fullmatch(value.text):
        return int_from_text(value, field)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScenarioTypeError(field, f"expected a whole number, got {got(value)}")
    return check_size(value, field)


def _real(value: object, field: str, allowed: str) -> int | float:
    """A real setting of a document: a JSON number a float holds (written back as a JSON number)."""
    if isinstance(value, Fraction):
        raise ScenarioTypeError(field, f"expected a number, got {got(value)}; {allowed}")
    return check_real(value, field, allowed)


def _weight(value: object, field: str) -> Weight:
    """A weight: exact text ('3', '1/3', '0.25') or a JSON number, read alike; finite, as the core will need it."""
    if isinstance(value, (str, JsonNumber)):
        value = weight_from_text(value, field)
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise ScenarioTypeError(field, f"expected a weight (a number, or text such as '1/3'), got {got(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ScenarioError(field, f"the weight {describe(value)} is not finite; use a finite number >= 0")
    return value if isinstance(value, float) else check_size(value, field)


def _table(value: object, field: str) -> Table:
    data = _object(value, field, required=("start",), optional=("rows",))
    start = tuple(_list_of(data["start"], f"{field}.start", _weight))
    rows = _optional(data, "rows", lambda v: _list_of(v, f"{field}.rows", lambda row, where: tuple(
        _list_of(row, where, _weight))))
    return Table(start, None if rows is None else tuple(rows))
