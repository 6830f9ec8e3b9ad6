"""A scenario and the current step as a URL query string, and as a JSON file with its trace.

Query keys (values are plain strings; defaults are left out to keep links short)::

    vocab   labels separated by ',' (a literal ',' or '\\' in a label is escaped with '\\')
    p, q    weights separated by ','; Markov mode: the start row, then one row per previous
            token, rows separated by ';' (weights are exact text: 3, 1/3, 0.25)
    depth   1..5                      draft_topk   k (absent: keep all)
    temperature, top_k, top_p         target processor (absent: no change)
    mask    one '1'/'0' per token     stop   token ids separated by ','
    fp32    '1' when on               seed, request, generation, context
    verification  'block' for block verification (absent: tokenwise, so older links are unchanged)
    step    the event index of the animation

``scenario_from_query`` is the inverse of ``scenario_to_query``; it raises
``PlaygroundError`` (plain language) on text it cannot read. Range checks are left to
``explain.check_scenario`` so that a link with, e.g., an all-zero p still opens and
explains itself.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..core.trace import Trace
from ..core.verification import check_verification
from ..scenario import Scenario, Table, scenario_from_dict, scenario_to_dict, weight_from_text, weight_text
from .explain import PlaygroundError

FORMAT = "specviz-playground"
VERSION = 1
SCENARIO_KEYS = ("vocab", "p", "q", "depth", "draft_topk", "temperature", "top_k", "top_p", "mask", "stop",
                 "fp32", "seed", "request", "generation", "context", "verification")
QUERY_KEYS = (*SCENARIO_KEYS, "step")


# --- small text codecs --------------------------------------------------------------------------
def _escape(label: str) -> str:
    return label.replace("\\", "\\\\").replace(",", "\\,")


def split_labels(text: str) -> tuple[str, ...]:
    """Split 'a,b\\,c' into ('a', 'b,c'): the inverse of joining escaped labels with ','."""
    labels, current, escaped = [], [], False
    for char in text:
        if escaped:
            current.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == ",":
            labels.append("".join(current))
            current = []
        else:
            current.append(char)
    labels.append("".join(current))
    return tuple(labels)


def parse_weight(text: str, where: str = "") -> int | float | Fraction:
    """'3' -> 3, '1/3' -> Fraction(1, 3), '0.25' -> 0.25; PlaygroundError on anything else.

    Negative or huge values parse (the core explains them); 'nan', 'inf' and words do not.
    """
    where = f" {where}" if where else ""
    try:
        value = weight_from_text(text)
    except (ValueError, ZeroDivisionError):
        raise PlaygroundError(f"The weight ‘{text}’{where} is not a number; type e.g. 3, 0.25 or 1/3.") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise PlaygroundError(f"The weight ‘{text}’{where} is not finite; use a finite number ≥ 0.")
    return value


def _row_text(row: tuple) -> str:
    return ",".join(weight_text(w) for w in row)


def table_to_text(table: Table) -> str:
    rows = [table.start] + list(table.rows or ())
    return ";".join(_row_text(r) for r in rows)


def table_from_text(text: str, name: str, markov: bool | None = None) -> Table:
    rows = [tuple(parse_weight(w, f"in {name}") for w in row.split(",")) for row in text.split(";")]
    if len(rows) == 1 and not markov:
        return Table(rows[0])
    return Table(rows[0], tuple(rows[1:]))


def _int(params: Mapping[str, str], key: str, default: int | None) -> int | None:
    if key not in params or params[key] == "":
        return default
    try:
        return int(params[key])
    except ValueError:
        raise PlaygroundError(f"The link's {key} ‘{params[key]}’ is not a whole number.") from None


def _float(params: Mapping[str, str], key: str, default: float | None) -> float | None:
    if key not in params or params[key] == "":
        return default
    try:
        value = float(params[key])
    except ValueError:
        raise PlaygroundError(f"The link's {key} ‘{params[key]}’ is not a number.") from None
    return int(value) if value.is_integer() and key == "temperature" and value == 1 else value


# --- the query-string API ---------------------------------------------------------------------
def scenario_to_query(scenario: Scenario, step: int = 0) -> dict[str, str]:
    """The scenario and animation step as query parameters (str -> str), defaults omitted."""
    query: dict[str, str] = {
        "vocab": ",".join(_escape(v) for v in scenario.vocab),
        "p": table_to_text(scenario.target),
        "q": table_to_text(scenario.draft),
        "depth": str(scenario.depth),
    }
    if scenario.draft_topk is not None:
        query["draft_topk"] = str(scenario.draft_topk)
    if scenario.target_temperature != 1:
        query["temperature"] = repr(float(scenario.target_temperature))
    if scenario.target_top_k is not None:
        query["top_k"] = str(scenario.target_top_k)
    if scenario.target_top_p is not None:
        query["top_p"] = repr(float(scenario.target_top_p))
    if scenario.target_mask is not None:
        query["mask"] = "".join("1" if a else "0" for a in scenario.target_mask)
    if scenario.stop_ids:
        query["stop"] = ",".join(str(s) for s in sorted(scenario.stop_ids))
    if scenario.fp32:
        query["fp32"] = "1"
    query["seed"] = str(scenario.seed)
    if scenario.request_id != "demo":
        query["request"] = scenario.request_id
    if scenario.generation:
        query["generation"] = str(scenario.generation)
    if scenario.context_id:
        query["context"] = scenario.context_id
    if scenario.verification != "token":  # absent means tokenwise: older links stay as they were
        query["verification"] = scenario.verification
    query["step"] = str(step)
    return query


def has_scenario(params: Mapping[str, str]) -> bool:
    """Whether a query string carries a scenario (at least vocab, p and q)."""
    return all(k in params for k in ("vocab", "p", "q"))


def scenario_from_query(params: Mapping[str, str]) -> tuple[Scenario, int]:
    """The (scenario, step) a query string describes; PlaygroundError if it cannot be read."""
    missing = [k for k in ("vocab", "p", "q") if k not in params]
    if missing:
        raise PlaygroundError(f"The link is missing {', '.join(missing)}: it does not describe a scenario.")
    vocab = tuple(s.strip() for s in split_labels(params["vocab"]))
    markov = ";" in params["p"] or ";" in params["q"]
    target = table_from_text(params["p"], "p", markov)
    draft = table_from_text(params["q"], "q", markov)
    mask = params.get("mask")
    if mask is not None and mask != "" and set(mask) - {"0", "1"}:
        raise PlaygroundError(f"The link's mask ‘{mask}’ must be one 1 or 0 per token.")
    stops: frozenset[int] = frozenset()
    if params.get("stop"):
        try:
            stops = frozenset(int(s) for s in params["stop"].split(","))
        except ValueError:
            raise PlaygroundError(f"The link's stop tokens ‘{params['stop']}’ must be token numbers.") from None
    temperature = _float(params, "temperature", 1.0)
    verification = params.get("verification") or "token"
    try:
        verification = check_verification(verification)
    except ValueError as error:
        raise PlaygroundError(f"The link's verification ‘{verification}’ cannot be played: {error}.") from None
    scenario = Scenario(
        vocab=vocab,
        target=target,
        draft=draft,
        depth=_int(params, "depth", 3),
        draft_topk=_int(params, "draft_topk", None),
        target_mask=None if not mask else tuple(c == "1" for c in mask),
        target_temperature=1.0 if temperature == 1 else temperature,
        target_top_k=_int(params, "top_k", None),
        target_top_p=_float(params, "top_p", None),
        stop_ids=stops,
        fp32=params.get("fp32", "0") in ("1", "true", "True"),
        seed=_int(params, "seed", 0),
        request_id=params.get("request", "demo"),
        generation=_int(params, "generation", 0),
        context_id=params.get("context", ""),
        verification=verification,
    )
    step = _int(params, "step", 0)
    return scenario, max(0, step)


def query_string(query: Mapping[str, str]) -> str:
    """'?vocab=...&p=...' for a link (percent-encoded)."""
    from urllib.parse import urlencode

    return "?" + urlencode(dict(query))


# --- JSON download / upload ------------------------------------------------------------------
def export_json(scenario: Scenario, step: int, trace: Trace | None = None) -> str:
    """The scenario, the step and (optionally) the trace so far as a JSON document."""
    data: dict[str, Any] = {"format": FORMAT, "version": VERSION, "scenario": scenario_to_dict(scenario),
                            "step": step}
    if trace is not None:
        data["trace"] = trace.to_dict(top_n=None)
    return json.dumps(data, indent=2, ensure_ascii=False)


def import_json(text: str | bytes) -> tuple[Scenario, int]:
    """(scenario, step) from export_json's document (or a bare scenario_to_dict); PlaygroundError otherwise."""
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError):
        raise PlaygroundError("The file is not JSON: load a file the Playground downloaded.") from None
    if not isinstance(data, dict):
        raise PlaygroundError("The file does not hold a scenario object.")
    body = data.get("scenario", data)
    if not isinstance(body, dict):
        raise PlaygroundError("The file's “scenario” is not an object of fields (vocab, target, draft, …).")
    try:
        scenario = scenario_from_dict(body)
    except KeyError as error:  # a missing field (older scenario_from_dict raises a bare KeyError)
        field = error.args[0] if error.args else "?"
        raise PlaygroundError(f"The file's scenario cannot be read: the field ‘{field}’ is missing.") from None
    except (TypeError, ValueError, ZeroDivisionError) as error:
        raise PlaygroundError(f"The file's scenario cannot be read: {error}") from None
    step = data.get("step", 0)
    if type(step) is not int or step < 0:
        step = 0
    return scenario, step
