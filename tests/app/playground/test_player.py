"""The player's session side: a report of the browser's step is taken only for the scenario shown, Python says a
step the browser must take with a new seq (and only then), and the data is the session's part with the round's
cached frames."""

from __future__ import annotations

import json

from specviz.app.playground import player
from specviz.app.playground.session import PlaygroundSession
from specviz.playground import presets, state
from specviz.playground.lecture import Entry, Lecture

FAR = presets.apply_preset(presets.default_scenario(), "far apart").with_changes(seed=1)


def session_over(scenario=FAR, step=0) -> PlaygroundSession:
    pg = PlaygroundSession({})
    pg.scenario, pg.state = scenario, state.PlayState(step=step)
    return pg


def test_the_token_names_the_scenario():
    assert player.token(FAR) == player.token(FAR.with_changes()) != player.token(FAR.with_changes(seed=2))


def test_a_report_is_taken_only_for_the_scenario_shown():
    pg = session_over()
    pg.player_inbox = [{"name": "at", "token": player.token(FAR.with_changes(seed=9)), "step": 5},
                       {"name": "at", "token": player.token(FAR), "step": "5"},
                       {"name": "at", "token": player.token(FAR), "step": 3}]
    player.adopt(pg)
    assert pg.state.step == 3 and pg.player_browser == 3 and pg.player_inbox == []


def test_seq_changes_only_when_python_moved_the_step():
    pg = session_over(step=2)
    first = player.session_data(pg, FAR, False)
    assert first["step"] == 2 and first["token"] == player.token(FAR)
    again = player.session_data(pg, FAR, False)
    assert again["seq"] == first["seq"]  # the browser keeps stepping where it is
    pg.state = state.PlayState(step=5, playing=True, notice="said once")
    moved = player.session_data(pg, FAR, False)
    assert moved["seq"] == first["seq"] + 1 and moved["playing"] and moved["notice"] == "said once"
    assert not pg.state.playing and pg.state.notice == ""  # Play and the notice are the browser's from here


def test_a_lecture_bounds_the_browsers_steps_to_its_entry():
    pg = session_over(step=1)
    pg.lecture = Lecture((Entry(FAR, 1, until=4, title="a rejection"), Entry(FAR, 0)), title="T")
    data = player.session_data(pg, FAR, True)
    assert data["bounds"] == [1, 4] and data["presenter"]
    assert data["lecture"] == {"text": "entry 1/2 · steps 2 to 5 · a rejection · lecture “T”", "previous": False,
                               "next": True}


def test_the_payload_is_the_sessions_part_around_the_rounds_frames():
    pg = session_over(step=8)
    data = json.loads(player.payload(pg, FAR, False))
    timeline = state.timeline_for(FAR)
    round_id = timeline.round_of(8)
    assert data["round"]["round"] == round_id and data["round"]["first"] <= 8 <= data["round"]["last"]
    assert data["step"] == 8 and data["link"] == {"key": "at", "offset": 1, "drop": ["step"], "path": "playground"}
    assert [t["key"] for t in data["targets"]][0] == "first check"
