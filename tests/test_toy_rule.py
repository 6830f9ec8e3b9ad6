"""A toy rule proves the house (issue 35): a new rule is one entry per layer, and each completeness test names the
entry a layer still lacks.

The toy is a family ``toy`` with its settings and their declaration (``PARAMS``), and its own check event, a
subclass of ``CheckEvent`` with a field of its own. Everything is added to the live tables and registries with
``monkeypatch`` (taken out again after each test), never to the package's files:

* the family: every layer table of its scope (``core.verification.TABLES``) names it missing, once; one entry per
  table and the table test passes;
* the event: the words (``narration.tellers.WORDS``), the figures (``plots.figure_builders.FIGURES``) and the
  frames (``player.frames.BUILDERS``) each name it missing, and refuse to tell or draw it as its parent (a
  ``CheckEvent``, with min(1, p/q)); one entry in each and every layer shows the toy's own words and drawings.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from dataclasses import dataclass
from fractions import Fraction

import pytest
from trace_classes import event_classes

import specviz
from specviz import narration
from specviz.core import trace, verification
from specviz.core.categorical import Categorical
from specviz.core.rule_params import Param, RuleParams, number_name
from specviz.core.trace import CheckEvent
from specviz.core.verification import FAMILIES, TABLES, Unsupported
from specviz.narration import tellers
from specviz.player import frames
from specviz.plots import figure_builders, style
from specviz.plots import step_figures as plots

TOY = "toy"


@dataclass(frozen=True)
class ToySettings:
    """The toy's one parameter: the chance C its coin keeps a draft."""

    coin: Fraction

    @property
    def name(self) -> str:
        return f"{TOY}:{number_name(self.coin)}"


PARAMS = RuleParams(ToySettings, (
    Param("coin", "C", "Toy coin C", "the toy's coin", help="keeps a draft with chance C, whatever p and q",
          stops=("0.25", "0.5", "0.75"), default="0.5"),
), head=TOY)


@dataclass(frozen=True)
class ToyCheckEvent(CheckEvent):
    """The toy's check: the draft kept with chance ``coin`` (``acceptance``), not min(1, p/q)."""

    coin: Fraction


ToyCheckEvent.__module__ = trace.__name__  # as if core/trace.py declared it


@pytest.fixture
def toy_event(monkeypatch) -> ToyCheckEvent:
    """The toy's event class, declared in the trace (every completeness test reads the trace's classes)."""
    monkeypatch.setattr(trace, "ToyCheckEvent", ToyCheckEvent, raising=False)
    p, q = Categorical.dense([3, 1]), Categorical.dense([1, 1])
    return ToyCheckEvent(0, 0, (), p, q, 0, Fraction(3, 4), Fraction(1, 2), Fraction(1, 3), 0, 3, True,
                         coin=Fraction(1, 3))


# --- the family: one entry per layer table ---------------------------------------------------------------------------
def import_every_module() -> None:
    """Import the whole package, so that every layer's tables have registered themselves (as the table test does)."""
    for info in pkgutil.walk_packages(specviz.__path__, prefix="specviz."):
        if not info.name.endswith(".__main__"):
            importlib.import_module(info.name)


def _tables_missing(family: str) -> list[str]:
    return [table.layer for table in TABLES if family in table.missing()]


def test_a_new_family_needs_one_entry_in_each_layer_table_and_the_table_test_names_each(monkeypatch):
    import_every_module()
    assert _tables_missing(TOY) == []  # not registered yet: no table owes it anything
    monkeypatch.setitem(FAMILIES, TOY, True)  # a playable family
    owed = _tables_missing(TOY)
    assert "core.verification.PARAMS_BY_FAMILY" in owed and len(owed) == len(set(owed))  # each table once
    assert all(table.layer in owed or TOY not in table.missing() for table in TABLES)
    for table in TABLES:  # one entry each (the parameters' table gets the declaration, the others a stand-in)
        if table.layer in owed:
            entry = PARAMS if table.layer == "core.verification.PARAMS_BY_FAMILY" else Unsupported("a toy")
            monkeypatch.setitem(table._entries, TOY, entry)  # noqa: SLF001 - a test's one entry per table
    assert _tables_missing(TOY) == []
    assert verification.declared(TOY) is PARAMS and PARAMS.read("toy:1/3") == ToySettings(Fraction(1, 3))
    assert PARAMS.settings({"coin": "0.25"}).name == "toy:0.25"  # the controls' values, both ways


def test_leaving_one_table_out_is_named_by_the_table_test(monkeypatch):
    import_every_module()
    monkeypatch.setitem(FAMILIES, TOY, True)
    owed = _tables_missing(TOY)
    left_out = owed[-1]
    for table in TABLES:
        if table.layer in owed[:-1]:
            monkeypatch.setitem(table._entries, TOY, Unsupported("a toy"))  # noqa: SLF001
    assert _tables_missing(TOY) == [left_out]


# --- the event: one entry per layer's registry ------------------------------------------------------------------------
def _missing_words() -> list[str]:
    return [c.__name__ for c in event_classes() if c not in tellers.WORDS]


def _missing_figures() -> list[str]:
    return [c.__name__ for c in event_classes() if c not in figure_builders.FIGURES]


def _missing_frames() -> list[str]:
    return [c.__name__ for c in event_classes() if c not in frames.BUILDERS]


def _toy_words(event: ToyCheckEvent, vocab, f) -> tuple[str, list[str]]:
    return (f"Round {event.round_id + 1}: the toy's coin keeps ‘{vocab[event.token]}’",
            [f"Kept with chance C = {f.exact(event.coin)}, whatever p and q."])


def _toy_figure(event: ToyCheckEvent, at: figure_builders.Round):
    return style.figure([], style.layout(title=f"The toy's coin: C = {event.coin}")), None


def _toy_frame(event: ToyCheckEvent, ctx) -> frames.Drawing:
    return frames.Drawing({"kind": "toy", "coin": str(event.coin)})


def _register(monkeypatch, *, words=True, figure=True, frame=True) -> None:
    if words:
        monkeypatch.setitem(tellers.WORDS, ToyCheckEvent, tellers.Words(
            values=lambda event, vocab: [("C", event.coin)], narrate=_toy_words))
    if figure:
        monkeypatch.setitem(figure_builders.FIGURES, ToyCheckEvent, _toy_figure)
    if frame:
        monkeypatch.setitem(frames.BUILDERS, ToyCheckEvent, _toy_frame)


def test_the_toy_event_is_found_and_every_layer_names_it_missing(toy_event):
    assert ToyCheckEvent in event_classes()
    assert "ToyCheckEvent" in _missing_words()
    assert "ToyCheckEvent" in _missing_figures()
    assert "ToyCheckEvent" in _missing_frames()


def test_without_its_entries_the_toy_is_refused_never_told_or_drawn_as_a_check(toy_event):
    setting = narration.Setting(("a", "b"), 1)
    with pytest.raises(AssertionError, match="ToyCheckEvent"):
        narration.sentences(toy_event, setting)
    with pytest.raises(AssertionError, match="ToyCheckEvent"):
        plots.event_figures(toy_event, [toy_event], setting.vocab, 1)
    with pytest.raises(AssertionError, match="ToyCheckEvent"):
        frames.drawing(toy_event, None)  # type: ignore[arg-type]


@pytest.mark.parametrize("left_out", ["words", "figure", "frame"])
def test_one_entry_per_layer_and_the_one_left_out_is_named(monkeypatch, toy_event, left_out):
    _register(monkeypatch, **{left_out: False})
    missing = {"words": _missing_words(), "figure": _missing_figures(), "frame": _missing_frames()}
    for layer, names in missing.items():
        assert ("ToyCheckEvent" in names) == (layer == left_out), (layer, names)


def test_with_one_entry_in_each_layer_the_toy_speaks_and_draws_its_own_rule(monkeypatch, toy_event):
    _register(monkeypatch)
    setting = narration.Setting(("a", "b"), 1)
    head, lines = narration.sentences(toy_event, setting)
    assert head == "Round 1: the toy's coin keeps ‘a’" and lines == ["Kept with chance C = 1/3, whatever p and q."]
    assert "min(1" not in " ".join(lines)  # not the parent's tokenwise words
    terminal = narration.tell(toy_event, setting, profile=narration.TERMINAL)
    assert terminal == (head, lines)  # one entry serves the page and the terminal
    assert narration.committed_by(toy_event) == [(0, "accepted")]  # as every check that keeps its draft (origin)
    figure, strip = plots.event_figures(toy_event, [toy_event], setting.vocab, 1)
    assert re.search(r"toy's coin: C = 1/3", figure.layout.title.text) and strip is None
    assert frames.drawing(toy_event, None) == frames.Drawing({"kind": "toy", "coin": "1/3"})  # type: ignore[arg-type]
