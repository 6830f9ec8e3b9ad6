"""Lecture scripts: reading and checking the file (errors name entry and field), and walking it."""

from __future__ import annotations

import json

import pytest

from specviz.playground import lecture, presets, state
from specviz.playground.lecture import Cursor, Entry, Lecture, LectureError, LectureTypeError
from specviz.scenario import Table, scenario_to_dict


def scenario(name="far apart", **changes):
    return presets.apply_preset(presets.default_scenario(), name).with_changes(**changes)


def document(*entries):
    return {"format": lecture.FORMAT, "version": 1, "entries": list(entries)}


def entry(name="far apart", step=0, **extra):
    return {"scenario": scenario_to_dict(scenario(name)), "step": step, **extra}


def test_round_trip_keeps_every_entry():
    original = Lecture((Entry(scenario(), 2, 5, "first"), Entry(scenario("p = q", verification="block"), 0)),
                       title="demo")
    assert lecture.lecture_from_json(lecture.lecture_to_json(original)) == original


def test_example_lecture_round_trips_and_its_steps_exist():
    example = lecture.example_lecture()
    assert lecture.lecture_from_json(lecture.lecture_to_json(example)) == example
    lecture.check_steps(example)


@pytest.mark.parametrize(("data", "field", "words"), [
    ({"entries": []}, "", "missing 'format'"),
    ({"format": "specviz-playground", "entries": []}, "format", "expected 'specviz-lecture'"),
    ({**document(), "version": 2}, "version", "expected 1, got 2"),
    (document(), "entries", "expected 1 to 100 entries, got 0"),
    ({**document(), "entries": {"a": 1}}, "entries", "expected a list of entries, got an object"),
    (document(entry(), 3), "entries[1]", "expected an object with scenario, step, got an integer"),
    (document(entry(), {"scenario": {}}), "entries[1]", "missing 'step'"),
    (document(entry(extra=1)), "entries[0]", "unknown field(s) 'extra'"),
    (document(entry(step=-1)), "entries[0].step", "expected a whole number from 0 to 10,000, got -1"),
    (document(entry(step="2")), "entries[0].step", "got a string '2'"),
    (document(entry(step=4, until=3)), "entries[0].until", "expected a whole number from 4 to 10,000, got 3"),
    (document(entry(title=7)), "entries[0].title", "expected a string, got an integer 7"),
    ({**document(entry()), "title": ["x"]}, "title", "expected a string"),
])
def test_structural_errors_name_the_field(data, field, words):
    with pytest.raises(LectureError) as info:
        lecture.lecture_from_dict(data)
    assert info.value.field == field
    assert words in str(info.value)
    assert str(info.value).startswith(f"{field}: " if field else words[:5])


def test_scenario_errors_name_entry_and_scenario_field():
    bad = entry()
    bad["scenario"]["target"]["start"][2] = "x"
    with pytest.raises(LectureError) as info:
        lecture.lecture_from_dict(document(entry(), bad))
    assert info.value.field == "entries[1].scenario.target.start[2]"
    assert "'x' is not a number" in str(info.value)
    typed = entry()
    typed["scenario"]["fp32"] = "yes"
    with pytest.raises(LectureTypeError) as info:
        lecture.lecture_from_dict(document(typed))
    assert info.value.field == "entries[0].scenario.fp32"
    missing = entry()
    del missing["scenario"]["draft"]
    with pytest.raises(LectureError, match=r"^entries\[0\]\.scenario: missing 'draft'"):
        lecture.lecture_from_dict(document(missing))


def test_unplayable_scenarios_are_refused_with_the_entry():
    deep = entry()
    deep["scenario"]["depth"] = 9
    with pytest.raises(LectureError, match=r"^entries\[0\]\.scenario\.depth: expected 1 to 5, got 9"):
        lecture.lecture_from_dict(document(deep))
    zeros = entry()
    zeros["scenario"]["target"]["start"] = ["0"] * 6
    with pytest.raises(LectureError, match=r"^entries\[0\]\.scenario: the scenario does not play"):
        lecture.lecture_from_dict(document(zeros))
    unknown = entry()
    unknown["scenario"]["verification"] = "greedy"
    with pytest.raises(LectureError, match=r"^entries\[0\]\.scenario\.verification: verification must be one of"):
        lecture.lecture_from_dict(document(unknown))


def test_not_json_names_line_and_column():
    with pytest.raises(LectureError, match=r"not JSON \(Expecting value at line 2, column 1"):
        lecture.lecture_from_json('{"format":\n}')
    with pytest.raises(LectureError, match="not UTF-8"):
        lecture.lecture_from_json(b"\xff\xfe")


def test_check_steps_names_a_step_past_the_stop():
    stopping = scenario("far apart", target=Table((0, 0, 0, 0, 0, 1)),
                        stop_ids=frozenset({5}))
    events = state.timeline_for(stopping)
    events.ensure_rounds(3)
    count = len(events.events)
    doc = Lecture((Entry(scenario(), 0), Entry(stopping, 0, until=count + 4)))
    with pytest.raises(LectureError) as info:
        lecture.check_steps(doc)
    assert info.value.field == "entries[1].until"
    assert f"step {count + 4} does not exist: the scenario has {count} steps" in str(info.value)
    assert "stop token" in str(info.value)


def test_forward_walks_each_entry_then_the_next():
    first, second = scenario(), scenario("p = q")
    doc = Lecture((Entry(first, 1), Entry(second, 0, until=2)))
    end_first = lecture.entry_end(doc.entries[0])
    timeline = state.timeline_for(first)
    assert timeline.events[end_first].kind == "result" and timeline.round_of(end_first) == 0
    cursor = lecture.start(doc)
    visited = [cursor]
    while not lecture.at_end(doc, cursor):
        cursor = lecture.forward(doc, cursor)
        visited.append(cursor)
    assert visited == [Cursor(0, s) for s in range(1, end_first + 1)] + [Cursor(1, 0), Cursor(1, 1), Cursor(1, 2)]
    assert lecture.forward(doc, cursor) == cursor  # the end: nothing further
    back = [cursor]
    while back[-1] != lecture.start(doc):
        back.append(lecture.back(doc, back[-1]))
    assert back == visited[::-1]
    assert lecture.back(doc, back[-1]) == back[-1]


def test_progress_names_entry_and_steps():
    doc = Lecture((Entry(scenario(), 0, until=3, title="rejection"), Entry(scenario("p = q"), 0)), title="T")
    assert lecture.progress(doc, Cursor(0, 2)) == "Lecture “T” · entry 1/2 · rejection · steps 0 to 3"


def test_json_file_is_the_documented_shape():
    data = json.loads(lecture.lecture_to_json(Lecture((Entry(scenario(), 0, title="t"),))))
    assert set(data) == {"format", "version", "entries"}
    assert data["entries"][0].keys() == {"scenario", "step", "title"}
