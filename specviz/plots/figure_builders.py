"""Which plotly figures draw each trace event: one builder per event class, looked up exactly.

``FIGURES`` maps each event class of ``specviz.core.trace`` to the function that draws its step as a plotly
figure and a draw strip (the PNG export, ``specviz export --format png``, and the Compare tab; the page's step
player draws frames, ``specviz.player.frames``). A class is looked up exactly, never through its base class, so a
new subclass of ``CheckEvent`` is not drawn as its parent with min(1, p/q): ``tests/plots/test_figure_builders.py``
fails naming any class of ``core/trace.py`` without an entry. To draw a new event, write ``@plots(NewEvent)`` over
a function ``(event, at: Round) -> (figure, strip)`` in its rule's figure module; the chain's and the tree's
builders are in ``plots.step_figures``, the engine rules' in ``plots.engine_rule_figures``, exact match's in
``plots.exact_match_figures``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import plotly.graph_objects as go  # noqa: F401 - the return types

from ..core.trace import Event
from . import style
from . import tree_figures as tree
from .draw_strip import DrawStrip

Figures = tuple[go.Figure, DrawStrip | None]


@dataclass(frozen=True)
class Round:
    """What a builder reads besides its event: the round's events, the words, the depth and the projector's type."""

    event: Event
    events: Sequence[Event]  # the round's events, the event among them
    vocab: Sequence[str]
    depth: int
    presenter: bool = False

    @cached_property
    def upto(self) -> int:
        """The event's index among the round's events."""
        return next(i for i, e in enumerate(self.events) if e is self.event)

    @cached_property
    def tree(self) -> bool:
        """A draft tree's round (its events are drawn beside the tree)."""
        return tree.is_tree_round(self.events)

    @cached_property
    def labels(self) -> list[str]:
        """The tokens escaped for plotly (``style.token_labels``)."""
        return style.token_labels(self.vocab)


Build = Callable[[Any, Round], Figures]
FIGURES: dict[type, Build] = {}


def plots(*classes: type) -> Callable[[Build], Build]:
    """Register a builder for these event classes (each exactly: a subclass needs its own entry)."""

    def enter(build: Build) -> Build:
        for cls in classes:
            if cls in FIGURES:
                raise AssertionError(f"{cls.__name__} has two figure builders")  # a bug in the module that registers
            FIGURES[cls] = build
        return build

    return enter


def build_of(event: Event) -> Build:
    """The builder of this event's exact class; a class without one is a bug in specviz (an AssertionError naming
    it: every event class of ``core/trace.py`` has its entry, as the tests check)."""
    build = FIGURES.get(type(event))
    if build is None:
        raise AssertionError(f"no figure for {type(event).__name__}: register one with plots.figure_builders.plots")
    return build


def own(event: Event, at: Round, module: str) -> Figures | None:
    """The figures of this event when ``module`` registered its builder; None for any other event."""
    build = FIGURES.get(type(event))
    return None if build is None or build.__module__ != module else build(event, at)
