"""One figure builder per event class of the trace, looked up exactly (``plots.figure_builders.FIGURES``)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from trace_classes import event_classes

from specviz.core import trace
from specviz.core.categorical import Categorical
from specviz.plots import figure_builders
from specviz.plots import step_figures as plots  # registers the chain's and the tree's builders, and the rules'


def test_every_event_class_of_the_trace_has_a_figure_builder():
    missing = [c.__name__ for c in event_classes() if c not in figure_builders.FIGURES]
    assert not missing, f"no figure builder (plots.figure_builders.plots) for: {', '.join(missing)}"


def test_traversal_is_drawn_by_the_tree_path():
    assert figure_builders.FIGURES[trace.TraversalCheckEvent] is figure_builders.FIGURES[trace.TreeCheckEvent]
    assert figure_builders.FIGURES[trace.TraversalCorrectionEvent] is plots._tree_figures  # noqa: SLF001


def test_a_class_is_entered_once():
    with pytest.raises(AssertionError, match="two figure builders"):
        figure_builders.plots(trace.CheckEvent)(lambda event, at: None)


def test_a_subclass_without_a_builder_is_refused_not_drawn_as_its_parent():
    class NewCheckEvent(trace.CheckEvent):
        pass

    p = Categorical.dense([1, 1])
    event = NewCheckEvent(0, 0, (), p, p, 0, Fraction(1, 2), Fraction(1, 2), Fraction(1), 0, 1, True)
    with pytest.raises(AssertionError, match="no figure for NewCheckEvent"):
        plots.event_figures(event, [event], ("a", "b"), 2)
