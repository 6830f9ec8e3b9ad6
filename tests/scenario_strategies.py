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


TREE_RULES = [f"{family}:{k}" for family in ("multi", "multi-distinct") for k in range(1, 5)]


@st.composite
def scenarios(draw, trees: bool = False) -> Scenario:
    """Any scenario the Playground can write into a link or a file (labels need no surrounding spaces).

    trees: the verification may also be a tree the Playground's switch offers (widths 1 to 4).
    """
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
        verification=draw(st.sampled_from(["token", "block", *(TREE_RULES if trees else [])])))


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
    scenario, step = draw(scenarios(trees=True)), draw(st.integers(0, 40))
    doc = json.loads(share.export_json(scenario, step))
    kind = draw(st.sampled_from(["none", "type", "literal", "long", "unicode", "nest", "missing", "extra", "version",
                                 "format", "step", "shape", "wide"]))
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
    elif kind == "wide":  # a tree wider than the Playground's switch: refused, never clamped to width 4
        path = ("scenario", "verification")
        _set(doc, path, f"{draw(st.sampled_from(['multi', 'multi-distinct']))}:{draw(st.integers(5, 8))}")
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
    scenario, step = draw(scenarios(trees=True)), draw(st.integers(0, 40))
    params = share.scenario_to_query(scenario, step)
    kind = draw(st.sampled_from(["none", "value", "drop", "unknown", "step", "old step", "fp32", "short", "weight",
                                 "wide"]))
    key = draw(st.sampled_from(share.QUERY_KEYS))
    if kind == "value":
        params[key] = draw(LINK_TEXT)
    elif kind == "drop" and key in params:
        del params[key]
    elif kind == "unknown":
        key = draw(st.sampled_from(["utm_source", "Step", "p2", "x" * 30, "presenter2"]))
        params[key] = draw(st.text(max_size=4))
    elif kind == "step":  # the step as the label reads it (at=1 is Step 1)
        key = "at"
        params[key] = str(draw(st.integers(-10**6, 10**6)))
    elif kind == "old step":  # an older link: its step, from 0
        del params["at"]
        key = "step"
        params[key] = str(draw(st.integers(-10**6, 10**6)))
    elif kind == "fp32":
        key = "fp32"
        params[key] = draw(st.sampled_from(["2", "yes", "on", "0", "1", "true", "", "１"]))
    elif kind == "short":
        key = draw(st.sampled_from(["p", "q", "mask", "vocab"]))
        params[key] = _shorten(params.get(key, "1" * scenario.vocab_size) if key != "mask" else
                               params.get("mask", "1" * scenario.vocab_size))
    elif kind == "wide":
        key = "verification"
        params[key] = f"{draw(st.sampled_from(['multi', 'multi-distinct']))}:{draw(st.integers(5, 8))}"
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


# --- lecture scripts ---------------------------------------------------------------------------------------
@st.composite
def playground_scenarios(draw) -> Scenario:
    """A scenario the Playground's controls hold as it is (a lecture entry it can open unchanged)."""
    from specviz.core.tree import tree_size
    from specviz.core.verification import rule
    from specviz.playground import form, tree_limits

    scenario = draw(scenarios(trees=True))
    width = rule(scenario.verification).width
    depth = min(scenario.depth, max(d for d in range(1, 6) if tree_size(d, width) <= tree_limits.MAX_TREE_NODES))
    return form.fit_to_controls(scenario.with_changes(depth=depth), 5)[0]


LECTURE_KINDS = ["none", "type", "literal", "long", "unicode", "nest", "missing", "extra", "version", "format",
                 "step", "title", "scenario-file", "wide", "big-tree", "duplicate", "count", "vocab", "control"]


def _lecture_paths(doc: dict) -> list[tuple]:
    """Every place in a lecture's document a mutation may touch (the first entry's scenario in full)."""
    paths: list[tuple] = [("format",), ("version",), ("entries",)] + [("title",)] * ("title" in doc)
    for i, item in enumerate(doc["entries"]):
        paths += [("entries", i), ("entries", i, "step"), ("entries", i, "scenario")]
        paths += [("entries", i, key) for key in ("title", "until") if key in item]
    body = doc["entries"][0]["scenario"]
    paths += [("entries", 0, "scenario", key) for key in body]
    paths += [("entries", 0, "scenario", "target", "start", i) for i in range(len(body["target"]["start"]))]
    return paths


def _lecture_field(path: tuple) -> str:
    """A path as the lecture reader names it: ('entries', 0, 'scenario', 'seed') -> 'entries[0].scenario.seed'."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else ("." if text else "") + part
    return text


def _lecture_value(draw, doc, path, context):
    """A type, literal, long-number, nesting or Unicode mutation at path; returns (path, the literal or None)."""
    kind = context["kind"]
    if kind == "type":
        _set(doc, path, draw(JSON_VALUE))
        return path, None
    if kind == "unicode":
        _set(doc, path, draw(st.sampled_from(UNICODE_NUMBERS)))
        return path, None
    if kind == "nest":
        depth = draw(st.sampled_from([9, 12, 3000]))
        literal = "[" * depth + "1" + "]" * depth
    else:
        literal = draw(st.sampled_from(JSON_LITERALS) if kind == "literal" else LONG_DIGITS)
    _set(doc, path, PLACEHOLDER)
    return path, literal


def _lecture_missing(draw, doc, path, context):
    if path[-1] == "entries" or isinstance(path[-1], int):
        return None, None
    _delete(doc, path)
    return path, None


def _lecture_extra(draw, doc, path, context):
    place = draw(st.sampled_from([(), ("entries", 0), ("entries", 0, "scenario")]))
    _set(doc, (*place, draw(st.sampled_from(["stpe", "Entries", "x" * 40, "étape"]))), 1)
    return place, None


def _lecture_version(draw, doc, path, context):
    _set(doc, ("version",), draw(st.integers(-3, 10**30) | st.floats() | st.text(max_size=3) | st.booleans()))
    return ("version",), None


def _lecture_format(draw, doc, path, context):
    _set(doc, ("format",), draw(st.text(max_size=20) | st.sampled_from(["specviz-playground", "x" * 5000])))
    return ("format",), None


def _lecture_step(draw, doc, path, context):
    path = ("entries", draw(st.integers(0, len(doc["entries"]) - 1)), draw(st.sampled_from(["step", "until"])))
    _set(doc, path, draw(st.integers(-10**30, 10**30) | st.integers(0, 12_000)))
    return path, None


def _lecture_title(draw, doc, path, context):
    path = draw(st.sampled_from([("title",), ("entries", 0, "title")]))
    _set(doc, path, draw(st.sampled_from(["x" * 201, "x" * 10**6, "a\nb", "\x00", "ok"])))
    return path, None


def _lecture_scenario_file(draw, doc, path, context):
    """The Playground's scenario file, or a bare scenario document, in the lecture box (the whole text)."""
    first = context["original"].entries[0].scenario
    replacement = json.loads(share.export_json(first, 0)) if draw(st.booleans()) else doc["entries"][0]["scenario"]
    doc.clear()
    doc.update(replacement)
    return (), None


def _lecture_tree(draw, doc, path, context):
    """A tree wider than the switch ('wide'), or one past the 40 nodes the animation draws ('big-tree')."""
    path = ("entries", 0, "scenario", "verification")
    width = draw(st.integers(5, 8)) if context["kind"] == "wide" else 4
    _set(doc, path, f"{draw(st.sampled_from(['multi', 'multi-distinct']))}:{width}")
    if context["kind"] == "big-tree":
        doc["entries"][0]["scenario"]["depth"] = draw(st.integers(3, 5))
    return path, None


def _lecture_count(draw, doc, path, context):
    doc["entries"] = [] if draw(st.booleans()) else doc["entries"][:1] * draw(st.integers(101, 300))
    return ("entries",), None


def _lecture_vocab(draw, doc, path, context):
    path = ("entries", 0, "scenario", "vocab")
    _set(doc, path, [f"t{i}" for i in range(draw(st.sampled_from([0, 1, 13, 5000])))])
    return path, None


def _lecture_control(draw, doc, path, context):
    """A setting the Playground's controls cannot hold (they would change it on opening)."""
    field, value = draw(st.sampled_from([("seed", -1), ("seed", 2**53), ("generation", -1),
                                         ("target_temperature", 7.5), ("target_temperature", 0.05),
                                         ("target_top_p", 0.001), ("depth", 6)]))
    path = ("entries", 0, "scenario", field)
    _set(doc, path, value)
    return path, None


_LECTURE_MUTATIONS = {"type": _lecture_value, "literal": _lecture_value, "long": _lecture_value,
                      "unicode": _lecture_value, "nest": _lecture_value, "missing": _lecture_missing,
                      "extra": _lecture_extra, "version": _lecture_version, "format": _lecture_format,
                      "step": _lecture_step, "title": _lecture_title, "scenario-file": _lecture_scenario_file,
                      "wide": _lecture_tree, "big-tree": _lecture_tree, "count": _lecture_count,
                      "vocab": _lecture_vocab, "control": _lecture_control}


@st.composite
def lectures(draw) -> tuple[str, Mutation, object]:
    """A lecture script's text, valid or mutated in one way, with the mutation and the Lecture it came from.

    Entries are scenarios the Playground holds unchanged, at steps 0 to 30 (playing them to check the
    steps takes milliseconds). Mutation.field is the lecture reader's path of what was changed.
    """
    from specviz.playground import lecture

    entries = []
    for index in range(draw(st.integers(1, 3))):
        step = draw(st.integers(0, 30))
        until = draw(st.none() | st.integers(step, step + 10))
        title = draw(st.sampled_from(["", f"e{index}"]))
        entries.append(lecture.Entry(draw(playground_scenarios()), step, until, title))
    original = lecture.Lecture(tuple(entries), draw(st.sampled_from(["", "Talk", "Spéculatif · 推测"])))
    doc = lecture.lecture_to_dict(original)
    kind = draw(st.sampled_from(LECTURE_KINDS))
    path, literal = draw(st.sampled_from(_lecture_paths(doc))), None
    if kind in _LECTURE_MUTATIONS:
        path, literal = _LECTURE_MUTATIONS[kind](draw, doc, path, {"kind": kind, "original": original})
        if path is None:
            kind, path = "none", ()
    elif kind != "duplicate":
        kind, path = "none", ()
    text = json.dumps(doc, ensure_ascii=draw(st.booleans()))
    if literal is not None:
        text = text.replace(json.dumps(PLACEHOLDER), literal)
    if kind == "duplicate":  # one key twice in one object: json.loads would keep the last silently
        text, path = text.replace('"step": ', '"step": 0, "step": ', 1), ()
    return text, Mutation(kind, _lecture_field(path), literal), original


# --- trees built by hand -------------------------------------------------------------------------------------
TREE_KINDS = ["none", "children-none", "children-list", "children-other", "child-other", "drop-child", "extra-child",
              "token", "path", "q", "width", "depth", "distinct", "root-q", "stops", "prefix", "leaf-children"]
_ODD_VALUES = [None, 0, -1, 9, 2.0, "2", True, (), [], b"x", Fraction(1, 2)]


def _tree_node_mutation(draw, tree, kind, node, v):
    """One field of one node replaced (children, token, path, q); None when kind is not a node's."""
    import numpy as np

    from specviz.core import Categorical

    changes = {
        "children-none": lambda: {"children": None},
        "children-list": lambda: {"children": list(node.children)},
        "children-other": lambda: {"children": draw(st.sampled_from([3, "ab", (1, 2), iter(())]))},
        "token": lambda: {"token": draw(st.sampled_from([v, -1, np.int64(node.token), True, "a", 10**30,
                                                          float(node.token)]))},
        "path": lambda: {"path": draw(st.sampled_from([list(node.path), (*node.path, 0), (), None]))},
        "q": lambda: {"q": draw(st.sampled_from([None, Categorical.dense([1] * (v + 1)), [1, 2]] if node.children
                                                else [Categorical.dense([1] * v), [1, 2]]))},  # a leaf has none
    }
    if kind not in changes:
        return None
    return _replace_node(tree, node.path, **changes[kind]())


def _tree_field_mutation(draw, tree, kind, v, stops, prefix):
    """One field of the tree itself replaced; None when kind is not the tree's."""
    from dataclasses import replace

    from specviz.core import Categorical

    odd = draw(st.sampled_from([value for value in _ODD_VALUES if kind != "distinct" or type(value) is not bool]))
    values = {
        "width": lambda: {"width": odd}, "depth": lambda: {"fixed_depth": odd}, "distinct": lambda: {"distinct": odd},
        "root-q": lambda: {"q": draw(st.sampled_from([None, [1, 2], Categorical.dense([1] * (v + 2))]))},
        "stops": lambda: {"stop_ids": draw(st.sampled_from([[*stops], frozenset({v}), None, "ab"]))},
        "prefix": lambda: {"prefix": draw(st.sampled_from([(*prefix, 0), list(prefix), None]))},
        "child-other": lambda: {"children": (*tree.children[:-1], odd)},
        "extra-child": lambda: {"children": (*tree.children, tree.children[0])},
    }
    if kind not in values:
        return None
    return replace(tree, **values[kind]())


@st.composite
def tree_cases(draw):
    """(tree, mutation, (prefix, stop_ids, target)): a drafted tree, valid or mutated in one way, and its session.

    A tree from propose_tree on a small random model (width 1 to 3, depth 1 to 3, i.i.d. or distinct),
    then one field of the tree or of one node replaced by what a hand-built tree might hold.
    """
    from dataclasses import replace

    from specviz.core import Categorical, Owner, RandomStreams, propose_tree

    v = draw(st.integers(2, 5))
    weights = st.lists(st.integers(0, 4), min_size=v, max_size=v).filter(any)
    p_row, q_row = draw(weights), draw(weights)
    prefix = tuple(draw(st.lists(st.integers(0, v - 1), max_size=3)))
    stops = frozenset(draw(st.sets(st.integers(0, v - 1), max_size=1)))

    def draft(context):
        return Categorical.dense(q_row)

    def target(context):
        return Categorical.dense(p_row)

    tree = propose_tree(draft, prefix, RandomStreams(draw(st.integers(0, 99)), Owner("req", 0), 0),
                        depth=draw(st.integers(1, 3)), width=draw(st.integers(1, 3)), context_id="ctx",
                        distinct=draw(st.booleans()), stop_ids=stops)
    nodes = tree.nodes()
    kind, node = draw(st.sampled_from(TREE_KINDS)), draw(st.sampled_from(nodes))
    mutated = _tree_node_mutation(draw, tree, kind, node, v)
    field = f"node {list(node.path)}"
    if mutated is None:
        mutated, field = _tree_field_mutation(draw, tree, kind, v, stops, prefix), "tree"
    inner, leaves = [n for n in nodes if n.children], [n for n in nodes if not n.children]
    if mutated is None and kind == "drop-child" and inner:
        parent = draw(st.sampled_from(inner))
        mutated, field = _replace_node(tree, parent.path, children=parent.children[:-1]), f"node {list(parent.path)}"
    elif mutated is None and kind == "leaf-children" and leaves:
        leaf = draw(st.sampled_from(leaves))
        extra = (replace(leaf, path=(*leaf.path, 0)),)
        mutated, field = _replace_node(tree, leaf.path, children=extra), f"node {list(leaf.path)}"
    if mutated is None:
        mutated, kind, field = tree, "none", ""
    return mutated, Mutation(kind, field, None), (prefix, stops, target)


def _replace_node(tree, at: tuple, **changes):
    """tree with the node at ``at`` (sibling indices from the root) rebuilt with changes, its ancestors too."""
    from dataclasses import replace

    def rebuild(children: tuple, rest: tuple):
        index, below = rest[0], rest[1:]
        child = children[index]
        new = replace(child, **changes) if not below else replace(child, children=rebuild(child.children, below))
        return (*children[:index], new, *children[index + 1:])

    return replace(tree, children=rebuild(tree.children, at))
