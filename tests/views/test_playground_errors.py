"""Failures on the Playground page (issue 23 item 4, app side): a SpecvizError anywhere is a refused input that
says what to change; anything else is a bug report with a line to copy; never a traceback, never "Unexpected
error - undo the last edit". The lecture-script and scenario uploads refuse any SpecvizError the same way."""

from __future__ import annotations

import json

import pytest
from player_support import has_player, press
from test_playground import SHARE_TAB, app, open_tab

from specviz.core import SupportError
from specviz.playground import lecture, narrative, presets, share
from specviz.scenario import ScenarioError


def errors(at) -> str:
    return "\n".join(e.value for e in at.error)


def no_traceback(at) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert "Unexpected error" not in errors(at)


def test_a_bug_in_the_step_view_is_a_bug_report_and_the_rest_of_the_page_stays(monkeypatch):
    at = app()

    def broken(scenario, step):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(narrative, "step_view", broken)
    press(at, "next_round")  # a round not built yet: its frames read the step view
    no_traceback(at)
    assert "This is a bug in specviz" in errors(at) and "Undo" not in errors(at)
    assert any(c.value.startswith("ZeroDivisionError: division by zero (at ") for c in at.code)
    assert at.slider(key="pg_depth").value == 3 and not has_player(at)  # the sidebar and the tabs remain


def test_a_refusal_in_the_step_view_says_what_to_change(monkeypatch):
    at = app()

    def refused(scenario, step):
        raise SupportError("support is empty")

    monkeypatch.setattr(narrative, "step_view", refused)
    press(at, "next_round")
    no_traceback(at)
    assert "A distribution has no support" in errors(at) and "bug" not in errors(at)


@pytest.mark.parametrize("error, words", [
    (ScenarioError("entries[0].scenario.p", "expected 6 weights, got 2"), "Correct entries[0].scenario.p"),
    (ZeroDivisionError("division by zero"), "This is a bug in specviz"),
])
def test_a_lecture_script_upload_refuses_any_error_in_its_box(monkeypatch, error, words):
    def reader(text):
        raise error

    monkeypatch.setattr(lecture, "lecture_from_json", reader)
    at = open_tab(app(), SHARE_TAB)
    at.file_uploader(key="pg_lecture_upload").upload("l.json", b"{}", "application/json").run()
    no_traceback(at)
    text = errors(at) + " ".join(c.value for c in at.caption)
    assert words in text, text
    if isinstance(error, ScenarioError):
        assert "The lecture script was not loaded" in errors(at) and "expected 6 weights, got 2" in errors(at)
    assert "pg_lecture" not in at.session_state or at.session_state["pg_lecture"] is None


def test_a_lecture_script_whose_scenario_does_not_play_is_refused_naming_the_entry():
    data = lecture.lecture_to_dict(lecture.example_lecture())
    data["entries"][0]["scenario"]["target"] = {"start": [0, 0, 0, 0, 0, 0]}
    at = open_tab(app(), SHARE_TAB)
    at.file_uploader(key="pg_lecture_upload").upload("l.json", json.dumps(data).encode(), "application/json").run()
    no_traceback(at)
    assert "The lecture script was not loaded" in errors(at) and "entries[0]" in errors(at)


def test_a_scenario_file_that_fails_with_any_specviz_error_is_refused_unopened(monkeypatch):
    def reader(text):
        raise ScenarioError("scenario.depth", "expected a whole number, got 'x'")

    monkeypatch.setattr(share, "import_json", reader)
    at = open_tab(app(), SHARE_TAB)
    at.file_uploader(key="pg_upload").upload("s.json", b"{}", "application/json").run()
    no_traceback(at)
    assert "scenario.depth: expected a whole number" in errors(at)
    assert not any(b.key == "pg_undo" for b in at.button)  # nothing was loaded: nothing to undo
    assert at.session_state["pg_scenario"] == presets.default_scenario()
