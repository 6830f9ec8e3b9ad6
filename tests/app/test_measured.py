"""The real-model page's measured speedup on the Theory page's speedup curves; the Playground's measurement, a
refusal said why, and a bug said as one (never swallowed)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from specviz.app import measured
from specviz.core.errors import VerificationError
from specviz.playground import narrative, presets, state
from specviz.plots import theory_figures as plots

POINT = {"acceptance_rate": 0.9, "cost_ratio": 0.001, "depth": 5, "verify_ratio": 1.6, "measured_speedup": 2.8,
         "predicted_speedup": 2.9}


def test_speedup_points_read_what_the_page_publishes_and_skip_the_malformed():
    session = {measured.SPEEDUPS: {"Real model, lookup:3": POINT, "broken": {"acceptance_rate": 0.5}}}
    (point,) = measured.speedup_points(session)
    assert point.source == "Real model, lookup:3" and point.depth == 5 and point.verify_ratio == 1.6
    assert measured.speedup_points({}) == [] and measured.speedup_points({measured.SPEEDUPS: 3}) == []


def test_the_point_and_the_formula_at_its_cost_ratio_go_on_the_curves():
    (point,) = measured.speedup_points({measured.SPEEDUPS: {"m": POINT}})
    fig = plots.add_speedup_points(plots.leviathan_curves(0.05), [point])
    measured_trace, formula_trace = fig.data[-2], fig.data[-1]
    assert list(measured_trace.x) == [0.9] and list(measured_trace.y) == [2.8]
    assert formula_trace.y[0] > 3  # the formula at c = 0.001, g = 5 assumes a flat verification pass


def test_the_theory_page_shows_the_point_with_the_flat_pass_note():
    page = str(Path(__file__).resolve().parents[2] / "views" / "theory.py")
    at = AppTest.from_file(page, default_timeout=60)
    at.session_state[measured.SPEEDUPS] = {"Real model, lookup:3": POINT}
    at.run()
    assert not at.exception
    captions = " ".join(c.value for c in at.caption)
    assert "measured 2.80x" in captions and "a 6-token pass cost 1.60 single passes" in captions


def _playground_session(step: int = 3) -> dict:
    return {measured.PLAYGROUND_SCENARIO: presets.default_scenario(), measured.PLAYGROUND_STATE: state.PlayState(step)}


def test_the_playgrounds_statistics_are_measured_at_its_step():
    collected = measured.collect(_playground_session())
    assert collected.notes == [] and collected.bugs == []
    (found,) = collected.found
    assert found.measurement.source == "Playground" and found.measurement.checks >= 1


def test_a_refused_scenario_measures_nothing_and_says_why(monkeypatch):
    def refuse(scenario, step):
        raise VerificationError("verification 'x': not here")

    monkeypatch.setattr(narrative, "step_view", refuse)
    collected = measured.collect(_playground_session())
    assert collected.found == [] and collected.bugs == []
    assert collected.notes == ["The Playground's scenario measures nothing here: verification 'x': not here"]


def test_a_bug_is_said_as_one_and_logged_never_swallowed(monkeypatch, caplog):
    def broken(scenario, step):
        raise TypeError("a bug")

    monkeypatch.setattr(narrative, "step_view", broken)
    with caplog.at_level(logging.ERROR, logger="specviz"):
        collected = measured.collect(_playground_session())
    assert collected.found == [] and collected.notes == []
    (bug,) = collected.bugs
    assert bug.startswith("This is a bug in specviz") and "TypeError: a bug" in bug
    assert any(record.exc_info and record.exc_info[0] is TypeError for record in caplog.records)


@pytest.mark.parametrize("step", [None, "3", 2.0])
def test_a_malformed_step_measures_nothing(step):
    session = _playground_session()
    session[measured.PLAYGROUND_STATE] = type("Play", (), {"step": step})()
    assert measured.collect(session) == measured.Collected()
