"""A round for the player: its frames in order, the tables they show, the jump targets' lines, and a step that
cannot be drawn shown as one plain error (the rest of the round still plays)."""

from __future__ import annotations

import json

from specviz.core.trace import CheckEvent
from specviz.player import frames, round_frames
from specviz.playground import jump, presets
from specviz.playground.state import timeline_for

FAR = presets.apply_preset(presets.default_scenario(), "far apart").with_changes(seed=1)


def test_a_round_holds_its_steps_in_order_and_the_rounds_before_it():
    timeline = timeline_for(FAR)
    timeline.ensure_rounds(3)
    payload = round_frames.payload(FAR, 2, False)
    assert payload["schema"] == round_frames.SCHEMA and payload["round"] == 2
    assert (payload["first"], payload["last"]) == (timeline.starts[2], timeline.round_end(2))
    assert [f["step"] for f in payload["frames"]] == list(range(payload["first"], payload["last"] + 1))
    assert [f["finished"] for f in payload["frames"]][:-1] == [2] * (len(payload["frames"]) - 1)
    assert payload["frames"][-1]["finished"] == 3  # the round's result finishes it
    assert [row["round"] for row in payload["rounds"]["rows"]] == ["1", "2", "3"]
    assert [r["round"] for r in payload["history"]["rounds"]] == [0, 1, 2]
    assert round_frames.payload(FAR, 2, True)["history"] is None  # presenter mode draws no history
    json.dumps(payload)


def test_jump_flags_and_the_lines_a_jump_says_where_the_player_is_already():
    timeline = timeline_for(FAR)
    timeline.ensure_rounds(1)
    payload = round_frames.payload(FAR, 0, False)
    events = timeline.rounds[0].trace.events
    for frame, event in zip(payload["frames"], events):
        assert (jump.ROUND_END in frame["flags"]) == jump.is_round_end(event)
        assert (jump.NEXT_CORRECTION in frame["flags"]) == jump.is_correction(event)
    end = payload["last"]
    assert payload["here"][f"round end@{end}"] == jump.here_notice(jump.ROUND_END, timeline, end)
    assert payload["first_rejection"] == jump.find(timeline.events, 0, jump.FIRST_REJECTION)


def test_a_step_that_cannot_be_drawn_is_one_error_naming_its_event(monkeypatch):
    def broken(event, ctx):
        raise ZeroDivisionError("no room")

    monkeypatch.setitem(frames.BUILDERS, CheckEvent, broken)
    payload = round_frames.payload(FAR, 0, False)
    errors = [f for f in payload["frames"] if "error" in f]
    assert errors and all(f["event"] == "CheckEvent" for f in errors)
    assert errors[0]["error"].startswith("The step player cannot draw this step (CheckEvent, kind 'check'): "
                                         "ZeroDivisionError: no room")
    assert errors[0]["caption"].startswith("Step ") and errors[0]["headline"]
    assert any("error" not in f for f in payload["frames"])  # the rest of the round still plays
