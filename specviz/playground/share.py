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
    at      the step as the player's label counts it: at=1 is Step 1, the first event (counts start at 1)
    step    read from older links only: the event index from 0 (step=0 is Step 1); never written now

``scenario_from_query`` and ``import_json`` read links and files with the scenario documents'
reader (``scenario.scenario_from_dict``: ASCII digits only, numbers exact, one entry per token).
Each returns an ``Opened``: the ``(scenario, step)`` pair, plus ``notes``, one short phrase per
value it adjusted or ignored (a negative step, ``fp32=2``, an unknown key). What cannot be read
raises ``PlaygroundError`` with ``unreadable=True``: nothing of the link or file is loaded.
Value ranges (an all-zero p, depth 9) are left to ``explain.check_scenario`` and
``form.fit_to_controls`` so that such a link still opens and explains itself; ``state.fit_step``
says when a step lies past the last event the scenario plays.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..core.medusa import delta_note, spelled_out
from ..core.trace import Trace
from ..core.validation import Weight
from ..scenario import (
    TEMPERATURE_ALLOWED,
    TOP_P_ALLOWED,
    Scenario,
    ScenarioError,
    ScenarioTypeError,
    Table,
    check_shapes,
    int_from_text,
    read_json,
    real_from_text,
    scenario_from_dict,
    scenario_to_dict,
    weight_from_text,
    weight_text,
)
from . import tree_limits
from .explain import PlaygroundError
from .presets import MAX_VOCAB

FORMAT = "specviz-playground"
VERSION = 1
LECTURE_FORMAT = "specviz-lecture"  # lecture.FORMAT (lecture imports form, which imports this module)
SCENARIO_KEYS = ("vocab", "p", "q", "depth", "draft_topk", "temperature", "top_k", "top_p", "mask", "stop",
                 "fp32", "seed", "request", "generation", "context", "verification")
STEP_KEY, OLD_STEP_KEY = "at", "step"  # the step from 1 (as the label reads), and older links' index from 0
QUERY_KEYS = (*SCENARIO_KEYS, STEP_KEY, OLD_STEP_KEY)
PAGE_KEYS = ("presenter",)  # read by the page itself; any other key is ignored with a note
FILE_KEYS = ("format", "version", "scenario", "step", "trace")  # 'trace' is written for readers, not read back
_FP32 = {"1": True, "true": True, "True": True, "0": False, "false": False, "False": False, "": False}


class Opened(tuple):
    """What a link or file opens: the pair ``(scenario, step)`` as before, plus ``notes``.

    ``notes`` holds one short phrase per value that was adjusted or ignored while reading
    ('step -3 → 0 (steps count from 0)'), for the page's one-line note; empty when the link or
    file was read exactly as written.
    """

    notes: tuple[str, ...]

    def __new__(cls, scenario: Scenario, step: int, notes: Sequence[str] = ()) -> Opened:
        opened = super().__new__(cls, (scenario, step))
        opened.notes = tuple(notes)
        return opened

    @property
    def scenario(self) -> Scenario:
        return self[0]

    @property
    def step(self) -> int:
        return self[1]


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

def parse_weight(text: str, where: str = "") -> Weight:
    """One weight of the page's form or of a link: ``scenario.weight_from_text`` (the one weight reader), finite.

    '3' -> 3, '1/3' -> Fraction(1, 3), '0.25' -> 0.25, '1e-400' -> Fraction(1, 10**400) (exact, as
    in a scenario file). Negative or huge values parse (the core explains them); 'nan', 'inf',
    words, '３' and '0_3' raise PlaygroundError with the reader's words (where names the cell).
    """
    place = f"Weight {where}".rstrip() if where else "The weight"
    try:
        value = weight_from_text(text, "weight")
    except ScenarioError as error:
        raise PlaygroundError(f"{place}: {error.reason}.", field="weight") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise PlaygroundError(f"{place}: ‘{text}’ is not finite; use a finite number ≥ 0.", field="weight")
    return value


def _row_text(row: tuple) -> str:
    return ",".join(weight_text(w) for w in row)


def table_to_text(table: Table) -> str:
    rows = [table.start] + list(table.rows or ())
    return ";".join(_row_text(r) for r in rows)


def table_from_text(text: str, name: str, markov: bool | None = None, labels: Sequence[str] = ()) -> Table:
    """A table from a link's 'w,w;w,w' (start row, then Markov rows); PlaygroundError naming the cell (from 1)."""
    rows = [tuple(parse_weight(w, _cell(name, r, i, labels)) for i, w in enumerate(row.split(",")))
            for r, row in enumerate(text.split(";"))]
    if len(rows) == 1 and not markov:
        return Table(rows[0])
    return Table(rows[0], tuple(rows[1:]))


def _cell(name: str, row: int, index: int, labels: Sequence[str] = ()) -> str:
    """'2 (‘cat’) of the link's p (the row after ‘the’)': weights counted from 1, tokens named by label."""
    def token(i: int) -> str:
        return f"‘{_short(labels[i])}’" if 0 <= i < len(labels) else f"token {i + 1}"

    cell = f"{index + 1}" + (f" ({token(index)})" if index < len(labels) else "")
    where = "" if not row else f" (the row after {token(row - 1)})" if labels else f" (row {row + 1})"
    return f"{cell} of the link's {name}{where}"


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
        query["verification"] = spelled_out(scenario.verification)  # typical:EPS,0.3: not an old link
    query[STEP_KEY] = str(step + 1)  # the label's Step N: a link reads as the page does
    return query

def has_scenario(params: Mapping[str, str]) -> bool:
    """Whether a query string carries a scenario (at least vocab, p and q)."""
    return all(k in params for k in ("vocab", "p", "q"))


# --- reading a link ---------------------------------------------------------------------------
_LINK_NAMES = {"target": "p", "draft": "q", "target_mask": "mask", "stop_ids": "stop", "draft_topk": "draft_topk",
               "target_top_k": "top_k", "target_top_p": "top_p", "target_temperature": "temperature",
               "request_id": "request", "context_id": "context"}


def _refuse_link(message: str, field: str) -> PlaygroundError:
    return PlaygroundError(message, field=field, unreadable=True)


def _link_value(params: Mapping[str, str], key: str, read: Callable[[str, str], Any]) -> Any:
    """read(value, key) for a present, nonempty key (None otherwise); its ScenarioError in the link's words."""
    text = params.get(key, "")
    if text == "":
        return None
    try:
        return read(text, key)
    except ScenarioError as error:
        raise _refuse_link(f"The link's {key}: {error.reason}.", key) from None


def _mask(text: str, key: str) -> list[bool]:
    if set(text) - {"0", "1"}:
        raise ScenarioError(key, f"‘{_short(text)}’ must be one 1 or 0 per token")
    return [c == "1" for c in text]


def _stops(text: str, key: str) -> list[int]:
    return [int_from_text(s, key) for s in text.split(",")]


def _short(text: str, keep: int = 24) -> str:
    """text for a message: control characters escaped, the middle of a long text cut."""
    text = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)
    return text if len(text) <= 2 * keep + 1 else f"{text[:keep]}…{text[-keep:]}"


def _query_document(params: Mapping[str, str]) -> dict:
    """The link's scenario as a scenario document (numbers already read, in the link's words)."""
    markov = ";" in params["p"] or ";" in params["q"]
    doc: dict[str, Any] = {
        "vocab": [s.strip() for s in split_labels(params["vocab"])],
        "target": _link_table(params, "p", markov),
        "draft": _link_table(params, "q", markov),
        "depth": _link_value(params, "depth", int_from_text),
        "draft_topk": _link_value(params, "draft_topk", int_from_text),
        "target_mask": _link_value(params, "mask", _mask),
        "target_temperature": _link_value(params, "temperature",
                                          lambda t, k: real_from_text(t, k, TEMPERATURE_ALLOWED)),
        "target_top_k": _link_value(params, "top_k", int_from_text),
        "target_top_p": _link_value(params, "top_p", lambda t, k: real_from_text(t, k, TOP_P_ALLOWED)),
        "stop_ids": _link_value(params, "stop", _stops),
        "seed": _link_value(params, "seed", int_from_text),
        "request_id": params.get("request"),
        "generation": _link_value(params, "generation", int_from_text),
        "context_id": params.get("context"),
        "verification": params.get("verification") or None,
    }
    if doc["target_temperature"] == 1:
        doc["target_temperature"] = 1.0
    return {key: value for key, value in doc.items() if value is not None}


def _check_link_shapes(params: Mapping[str, str]) -> None:
    """ScenarioError (as scenario.check_shapes words it) unless p and q have one weight per token and row."""
    markov = ";" in params["p"] or ";" in params["q"]

    def shape(text: str) -> Table:
        rows = [(0,) * (row.count(",") + 1) for row in text.split(";")]
        return Table(rows[0]) if len(rows) == 1 and not markov else Table(rows[0], tuple(rows[1:]))

    vocab = split_labels(params["vocab"])
    _check_vocab_size(len(vocab), "vocab")
    check_shapes(Scenario(vocab=vocab, target=shape(params["p"]), draft=shape(params["q"])))


def _check_vocab_size(size: int, field: str) -> None:
    """More tokens than the Playground holds, refused before a weight is read (100,000 of them take seconds)."""
    if size > MAX_VOCAB:
        raise ScenarioError(field, f"has {size:,} tokens; the Playground plays vocabularies of 2 to {MAX_VOCAB}")


def _link_table(params: Mapping[str, str], key: str, markov: bool) -> dict:
    """The link's p or q as a scenario document's table; a weight it cannot read refuses the whole link."""
    try:
        table = table_from_text(params[key], key, markov, [s.strip() for s in split_labels(params["vocab"])])
    except PlaygroundError as error:
        raise _refuse_link(str(error), key) from None
    return {"start": list(table.start), "rows": None if table.rows is None else [list(r) for r in table.rows]}


def _link_field(field: str, markov: bool, labels: Sequence[str] = ()) -> str:
    """A scenario document's field as the link names it ('target.rows[2]' -> 'p row after ‘sat’', the token by its
    label; 'token 3' when the label is not known: tokens count from 1 for people)."""
    head = re.match(r"[a-z_]*", field)[0]
    rest = field[len(head):]

    def after(found: re.Match) -> str:
        i = int(found[1])
        return f" row after ‘{_short(labels[i])}’" if i < len(labels) else f" row after token {i + 1}"

    rest = re.sub(r"^\.rows\[(\d+)\]", after, rest)
    rest = rest.replace(".start", " start row" if markov else "").replace(".rows", " rows")
    return _LINK_NAMES.get(head, head) + rest


def _link_notes(params: Mapping[str, str]) -> list[str]:
    """One phrase per key that is ignored: unknown keys, and an fp32 value that is neither on nor off."""
    notes = []
    unknown = [k for k in params if k not in (*QUERY_KEYS, *PAGE_KEYS)]
    if unknown:
        listed = ", ".join(f"‘{_short(k)}’" for k in unknown[:5]) + (" …" if len(unknown) > 5 else "")
        notes.append(f"unknown key{'s' * (len(unknown) > 1)} {listed} ignored (not a Playground setting)")
    fp32 = params.get("fp32", "")
    if fp32 not in _FP32:
        notes.append(f"fp32 ‘{_short(fp32)}’ ignored: FP32 stays off (fp32=1 turns it on)")
    notes += filter(None, [delta_note(params.get("verification"))])  # an old typical:EPS: Medusa's δ changed
    return notes


def _link_step(params: Mapping[str, str], notes: list[str]) -> int:
    """The event index a link opens at: ``at`` counts from 1 (Step 1 is index 0); an older link's ``step`` keeps
    its meaning, the index from 0, so it opens the step it always opened."""
    at = _link_value(params, STEP_KEY, int_from_text)  # None when absent or empty, as every key
    if at is not None:
        if at < 1:
            notes.append(f"at {at} → 1 (steps count from 1)")
            at = 1
        if params.get(OLD_STEP_KEY, "") != "":
            notes.append(f"step ignored: at={at} names the step")
        return at - 1
    step = _link_value(params, OLD_STEP_KEY, int_from_text) or 0
    if step < 0:
        notes.append(f"step {step} → 0 (an older link's step counts from 0: step=0 is Step 1)")
        step = 0
    return step


def scenario_from_query(params: Mapping[str, str]) -> tuple[Scenario, int]:
    """The (scenario, step) a query string describes, as an ``Opened`` with its notes.

    PlaygroundError (``unreadable``) if the link cannot be read: a missing key, a number that is
    not plain ASCII text, a table or mask without one entry per token, a stop id outside the
    vocabulary, an unplayable verification rule. Nothing of such a link is loaded.
    """
    missing = [k for k in ("vocab", "p", "q") if k not in params]
    if missing:
        raise _refuse_link(f"The link is missing {', '.join(missing)}: it does not describe a scenario.", missing[0])
    notes = _link_notes(params)
    try:
        _check_link_shapes(params)  # before any weight is read: a p of 100,000 cells is refused at once
        doc = _query_document(params)
        doc["fp32"] = _FP32.get(params.get("fp32", ""), False)
        scenario = scenario_from_dict(doc)
    except ScenarioError as error:
        field = _link_field(error.field, ";" in params["p"] or ";" in params["q"],
                            [s.strip() for s in split_labels(params["vocab"])])
        if error.field == "verification":
            raise _refuse_link(f"The link's verification ‘{_short(str(doc['verification']))}’ cannot be played: "
                               f"{error.reason}.", "verification") from None
        raise _refuse_link(f"The link's {field}: {error.reason}.", field.split(" ")[0]) from None
    wide = tree_limits.width_refusal(scenario.verification)
    if wide:  # the width slider holds 1..4: opening it would show (and then play) another width
        raise _refuse_link(f"The link's verification: {wide}.", "verification")
    return Opened(scenario, _link_step(params, notes), notes)


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
    """(scenario, step) from export_json's document (or a bare scenario_to_dict), as an ``Opened`` with notes.

    PlaygroundError (``unreadable``) for a file that is not UTF-8 JSON, nests too deeply, comes from
    another app (its ``format``) or a newer specviz (its ``version``), has an unknown field, or
    holds a scenario ``scenario_from_dict`` refuses; the message names the field and its value.
    """
    try:
        data = read_json(text, "file")
        body, step, notes = _file_parts(data)
        if isinstance(body, dict) and isinstance(body.get("vocab"), list):
            _check_vocab_size(len(body["vocab"]), "vocab")
        scenario = scenario_from_dict(body)
    except ScenarioError as error:
        where = "The file" if error.field == "file" else f"The file's {error.field}:"
        raise PlaygroundError(f"{where} {error.reason}.", field=error.field, unreadable=True) from None
    wide = tree_limits.width_refusal(scenario.verification)
    if wide:  # the width slider holds 1..4: opening it would show (and then play) another width
        raise PlaygroundError(f"The file's verification: {wide}.", field="verification", unreadable=True)
    return Opened(scenario, step, notes)


def _file_parts(data: object) -> tuple[object, int, list[str]]:
    """(the scenario document, the step, notes) of a file; a bare scenario document has step 0."""
    if not isinstance(data, dict):
        raise ScenarioTypeError("file", f"holds {_kind(data)}; a Playground file holds one object with "
                                        "format, version, scenario and step")
    if "scenario" not in data and "format" not in data:
        return data, 0, []
    if data.get("format") == LECTURE_FORMAT or ("entries" in data and "scenario" not in data):
        raise ScenarioError("file", "is a lecture script, not a scenario file: load it with “Load a lecture "
                                    "script” in the Share tab")
    unknown = sorted(_short(str(k)) for k in data if k not in FILE_KEYS)
    if unknown:
        raise ScenarioError("file", f"has unknown field(s) {', '.join(unknown[:5])}; a Playground file holds "
                                    f"{', '.join(FILE_KEYS)}")
    if "format" in data and data["format"] != FORMAT:
        raise ScenarioError("format", f"{_shown(data['format'])} is not this app's; a Playground file has format "
                                      f"‘{FORMAT}’")
    version = data.get("version", VERSION)
    if type(version) is not int or not 1 <= version <= VERSION:
        raise ScenarioError("version", f"{_shown(version)} is not a version this specviz reads; it reads version "
                                       f"{VERSION} (a newer specviz wrote a higher one)")
    if "scenario" not in data:
        raise ScenarioError("file", "has no ‘scenario’; a Playground file holds format, version, scenario and step")
    notes: list[str] = []
    step = data.get("step", 0)
    if type(step) is not int:
        raise ScenarioTypeError("step", f"expected a whole number ≥ 0, got {_shown(step)}")
    if step < 0:
        notes.append(f"step {step} → 0 (steps count from 0)")
        step = 0
    return data["scenario"], step, notes


def _kind(value: object) -> str:
    return {list: "a list", str: "a string", type(None): "null", bool: "a boolean"}.get(type(value), "a number")


def _shown(value: object) -> str:
    """A file's value for a message, abbreviated (never a repr of a nested or huge value)."""
    if isinstance(value, str):
        return f"‘{_short(value)}’"
    if isinstance(value, (list, dict)):
        return _kind(value) if isinstance(value, list) else "an object"
    if type(value) is int and value.bit_length() > 80:
        return "a number of about " + f"{int(value.bit_length() * 0.30103) + 1} digits"
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    return _short(str(value))
