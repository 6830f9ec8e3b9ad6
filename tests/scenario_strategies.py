"""Hypothesis strategies over scenarios, scenario documents and link query strings, valid and mutated.

A mutated input carries what was changed (``Mutation``), so a test can check that the answer
names that field, or that the note says what was adjusted. Imported by tests (tests/ is on
sys.path through its conftest.py).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from fractions import Fraction

from hypothesis import strategies as st

from specviz.playground import share
from specviz.scenario import Scenario, Table

LABEL = st.text(st.characters(exclude_categories=("Cs", "Cc", "Zs", "Zl", "Zp")), min_size=1, max_size=4)
WEIGHT = st.one_of(st.integers(0, 50), st.fractions(min_value=0, max_value=10, max_denominator=40),
                   st.floats(0, 100, allow_nan=False, allow_infinity=False))
# digits Python's int() and float() read but a scenario must not: full-width, Arabic-Indic, Devanagari, N'Ko
UNICODE_NUMBERS = ["３", "٣", "٠٫٥", "०", "߃", "１/３", "0_3", "1_000", "1e_3", "٣/٤", "3\u0663", "²"]
# JSON number literals that int() and float() would change: read exactly, or refused naming the field
JSON_LITERALS = ["1e-400", "1e400", "-0.0", "NaN", "Infinity", "-Infinity", "1e-5000", "2.5e-320", "1E+2", "0e9999",
                 "12345678901234567890123", "-1"]
LONG_DIGITS = st.integers(4301, 6000).map(lambda n: "7" * n)
JSON_VALUE = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
                          lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                      max_size=3), max_leaves=8)


@st.composite
def scenarios(draw) -> Scenario:
    """Any scenario the Playground can write into a link or a file (labels need no surrounding spaces)."""
    v = draw(st.integers(2, 6))
    vocab = tuple(draw(st.lists(LABEL.map(str.strip).filter(bool), min_size=v, max_size=v, unique=True)))
    markov = draw(st.booleans())

    def table() -> Table:
        row = st.lists(WEIGHT, min_size=v, max_size=v).map(tuple)
        return Table(draw(row), tuple(draw(row) for _ in range(v)) if markov else None)

    maybe = lambda strategy: draw(st.none() | strategy)  # noqa: E731
    return Scenario(
        vocab=vocab, target=table(), draft=table(), depth=draw(st.integers(1, 5)),
        draft_topk=maybe(st.integers(1, v)),
        target_mask=maybe(st.lists(st.booleans(), min_size=v, max_size=v).map(tuple)),
        target_temperature=draw(st.just(1.0) | st.floats(0.1, 3.0)),
        target_top_k=maybe(st.integers(1, v)), target_top_p=maybe(st.floats(0.05, 1.0)),
        stop_ids=frozenset(draw(st.sets(st.integers(0, v - 1), max_size=2))), fp32=draw(st.booleans()),
        seed=draw(st.integers(0, 2**53 - 1)), request_id=draw(st.text(max_size=6)),
        generation=draw(st.integers(0, 100)), context_id=draw(st.text(max_size=6)),
        verification=draw(st.sampled_from(["token", "block"])))


@dataclass(frozen=True)
class Mutation:
    """What a mutation changed: kind, the field (a document path 'target.start[1]' or a link key), the value."""

    kind: str
    field: str = ""
    value: object = None

    @property
    def head(self) -> str:
        """The top-level name of the field ('target' for 'target.start[1]')."""
        return re.match(r"[a-z_0-9]*", self.field)[0]


# --- scenario documents (the Playground's JSON file) ------------------------------------------------------
def _paths(doc: dict) -> list[tuple]:
    """Every place in a file's document a mutation may touch."""
    body = doc["scenario"]
    paths: list[tuple] = [("format",), ("version",), ("step",), ("scenario",)]
    paths += [("scenario", key) for key in body]
    for table in ("target", "draft"):
        paths += [("scenario", table, "start"), ("scenario", table, "rows")]
        paths += [("scenario", table, "start", i) for i in range(len(body[table]["start"]))]
        if body[table]["rows"]:
            paths += [("scenario", table, "rows", 0), ("scenario", table, "rows", 0, 0)]
    return paths


def _field(path: tuple) -> str:
    """A path as the reader names it: ('scenario', 'target', 'start', 1) -> 'target.start[1]'."""
    parts = path[1:] if path[0] == "scenario" and len(path) > 1 else path
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else ("." if text else "") + part
    return text


def _set(doc: dict, path: tuple, value: object) -> None:
    target = doc
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value


def _delete(doc: dict, path: tuple) -> None:
    target = doc
    for part in path[:-1]:
        target = target[part]
    if isinstance(target, dict):
        del target[path[-1]]
    else:
        target.pop(path[-1])


PLACEHOLDER = "@@literal@@"


@st.composite
def documents(draw) -> tuple[str, Mutation, Scenario, int]:
    """A Playground file's text, valid or mutated in one way, with the mutation and the scenario it came from."""
    scenario, step = draw(scenarios()), draw(st.integers(0, 40))
    doc = json.loads(share.export_json(scenario, step))
    kind = draw(st.sampled_from(["none", "type", "literal", "long", "unicode", "nest", "missing", "extra", "version",
                                 "format", "step", "shape"]))
    path = draw(st.sampled_from(_paths(doc)))
    literal = None
    if kind == "type":
        _set(doc, path, draw(JSON_VALUE))
    elif kind in ("literal", "long", "nest"):
        if kind == "nest":
            depth = draw(st.sampled_from([19, 25, 3000]))
            literal = "[" * depth + "1" + "]" * depth
        else:
            literal = draw(st.sampled_from(JSON_LITERALS) if kind == "literal" else LONG_DIGITS)
        _set(doc, path, PLACEHOLDER)
    elif kind == "unicode":
        _set(doc, path, draw(st.sampled_from(UNICODE_NUMBERS)))
    elif kind == "missing" and len(path) <= 2:
        _delete(doc, path)
    elif kind == "extra":
        place = draw(st.sampled_from([(), ("scenario",), ("scenario", "target")]))
        _set(doc, (*place, draw(st.sampled_from(["depht", "Vocab", "x" * 40, "étape"]))), 1)
        path = place or ("file",)
    elif kind == "version":
        path = ("version",)
        _set(doc, path, draw(st.integers(-3, 10**30) | st.floats() | st.text(max_size=3)))
    elif kind == "format":
        path = ("format",)
        _set(doc, path, draw(st.text(max_size=20)))
    elif kind == "step":
        path = ("step",)
        _set(doc, path, draw(st.integers(-10**30, 10**30)))
    elif kind == "shape":
        path = draw(st.sampled_from([("scenario", "vocab"), ("scenario", "target", "start"),
                                     ("scenario", "draft", "start"), ("scenario", "target_mask"),
                                     ("scenario", "stop_ids")]))
        _reshape(doc, path, draw(st.integers(-2, 2)))
    else:
        kind, path = "none", ()
    text = json.dumps(doc, ensure_ascii=draw(st.booleans()))
    if literal is not None:
        text = text.replace(json.dumps(PLACEHOLDER), literal)
    return text, Mutation(kind, _field(path) if path else "", literal), scenario, step


def _reshape(doc: dict, path: tuple, change: int) -> None:
    """A list made longer or shorter (or, for stop ids, one id past the vocabulary)."""
    body = doc["scenario"]
    v = len(body["vocab"])
    if path[-1] == "stop_ids":
        _set(doc, path, [v + max(change, 0)])
        return
    if path[-1] == "target_mask" and body["target_mask"] is None:
        body["target_mask"] = [True] * v
    target = doc
    for part in path:
        target = target[part]
    items = list(target)
    items = items[: max(len(items) + change, 0)] if change < 0 else items + items[:1] * (change or 1)
    _set(doc, path, items)


# --- link query strings ------------------------------------------------------------------------------------
INT_KEYS = ("depth", "draft_topk", "top_k", "seed", "generation")
LINK_TEXT = st.one_of(st.text(max_size=8), st.sampled_from(UNICODE_NUMBERS + JSON_LITERALS + ["", " 3 ", "+4", "-0"]),
                      LONG_DIGITS, st.integers(-10**20, 10**20).map(str))


@st.composite
def links(draw) -> tuple[dict[str, str], Mutation, Scenario, int]:
    """A link's query parameters, valid or mutated in one way, with the mutation and the scenario it came from."""
    scenario, step = draw(scenarios()), draw(st.integers(0, 40))
    params = share.scenario_to_query(scenario, step)
    kind = draw(st.sampled_from(["none", "value", "drop", "unknown", "step", "fp32", "short", "weight"]))
    key = draw(st.sampled_from(share.QUERY_KEYS))
    if kind == "value":
        params[key] = draw(LINK_TEXT)
    elif kind == "drop" and key in params:
        del params[key]
    elif kind == "unknown":
        key = draw(st.sampled_from(["utm_source", "Step", "p2", "x" * 30, "presenter2"]))
        params[key] = draw(st.text(max_size=4))
    elif kind == "step":
        key = "step"
        params[key] = str(draw(st.integers(-10**6, 10**6)))
    elif kind == "fp32":
        key = "fp32"
        params[key] = draw(st.sampled_from(["2", "yes", "on", "0", "1", "true", "", "１"]))
    elif kind == "short":
        key = draw(st.sampled_from(["p", "q", "mask", "vocab"]))
        params[key] = _shorten(params.get(key, "1" * scenario.vocab_size) if key != "mask" else
                               params.get("mask", "1" * scenario.vocab_size))
    elif kind == "weight":
        key = draw(st.sampled_from(["p", "q"]))
        cells = params[key].split(",")
        cells[draw(st.integers(0, len(cells) - 1))] = draw(st.sampled_from(JSON_LITERALS + UNICODE_NUMBERS))
        params[key] = ",".join(cells)
    else:
        kind, key = "none", ""
    return params, Mutation(kind, key, params.get(key)), scenario, step


def _shorten(text: str) -> str:
    if "," in text:
        return text.rsplit(",", 1)[0]
    return text[:-1]


def exact(literal: str) -> Fraction:
    """The exact value of an ASCII decimal literal (Fraction reads it without float rounding)."""
    return Fraction(literal)
