"""Lecture scripts read as scenario files are (exact numbers, limits) and held to the Playground's tree_limits.

Every refusal is a LectureError naming the field; nothing slow runs before it.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from scenario_strategies import lectures

from specviz.playground import lecture, presets, share, tree_limits
from specviz.playground.explain import PlaygroundError
from specviz.playground.lecture import LectureError, LectureTypeError
from specviz.scenario import read_json, scenario_from_dict, scenario_to_dict


def scenario(name="far apart", **changes):
    return presets.apply_preset(presets.default_scenario(), name).with_changes(**changes)


def entry(step=0, **changes):
    return {"scenario": scenario_to_dict(scenario(**changes)), "step": step}


def text(*entries, **top):
    return json.dumps({"format": lecture.FORMAT, "version": 1, "entries": list(entries), **top})


def refused(source, field, *words, kind=LectureError):
    with pytest.raises(kind) as info:
        lecture.lecture_from_json(source) if isinstance(source, (str, bytes)) else lecture.lecture_from_dict(source)
    assert info.value.field == field, str(info.value)
    for word in words:
        assert word in str(info.value), str(info.value)
    assert "\n" not in str(info.value) and len(str(info.value)) < 600
    return info.value


# --- the scenario reader: numbers exact, as in a scenario file ------------------------------------------------
def test_weights_read_exactly_as_a_scenario_file_reads_them():
    doc = entry()
    doc["scenario"]["target"]["start"] = ["@tiny@", "@tenth@", 1, 1, 1, 1]
    source = text(doc).replace('"@tiny@"', "1e-400").replace('"@tenth@"', "0.1")
    talk = lecture.lecture_from_json(source)
    weights = talk.entries[0].scenario.target.start
    assert weights[0] == Fraction(1, 10**400)  # json.loads made it 0.0
    file_scenario = scenario_from_dict(read_json(json.dumps({"x": 0}).replace('{"x": 0}', json.dumps(
        doc["scenario"]).replace('"@tiny@"', "1e-400").replace('"@tenth@"', "0.1"))))
    assert talk.entries[0].scenario == file_scenario  # 0.1 is what a scenario file makes of it, draw for draw


def test_a_huge_integer_step_and_deep_nesting_are_refused_in_words():
    refused(text(entry()).replace('"step": 0', '"step": ' + "9" * 5000), "entries[0].step",
            "a number of 5,000 digits")
    refused("[" * 5000 + "]" * 5000, "", "nests more than 10 levels deep", "a lecture script nests at most 10")
    refused("[" * 15 + "]" * 15, "", "nests more than 10 levels deep")


def test_duplicate_keys_and_oversized_files_are_refused():
    refused('{"format": "specviz-lecture", "format": "x", "entries": []}', "",
            "the file repeats the key 'format' in one object")
    refused(" " * (lecture.MAX_LECTURE_CHARS + 1), "", "a lecture script has at most 2,000,000")
    refused(b"\xff\xfe", "", "not UTF-8")
    with pytest.raises(LectureTypeError, match="the file is an integer, not JSON text"):
        lecture.lecture_from_json(12)


def test_titles_are_bounded_and_one_line():
    refused(text(entry(), title="x" * 1_000_000), "title", "1,000,000 characters", "at most 200")
    refused(text({**entry(), "title": "a\nb"}), "entries[0].title", "line break")
    refused(text(entry(), title="a\u2028b"), "title", "line break")
    assert lecture.lecture_from_json(text(entry(), title="t" * 200)).title == "t" * 200
    assert lecture.lecture_from_json(text(entry(), title="👩\u200d💻 Spéculatif · 推测")).title.startswith("👩")


# --- the Playground's limits ----------------------------------------------------------------------------
def test_a_wide_deep_tree_at_a_far_step_is_refused_at_once():
    refused(text(entry(step=10**6, verification="multi:8", depth=5)), "entries[0].step", "from 0 to 10,000",
            "1000000")
    refused(text(entry(verification="multi:8", depth=5)), "entries[0].scenario.verification",
            "'multi:8' drafts 8 children per node", "1 to 4")
    refused(text(entry(verification="multi:3", depth=4)), "entries[0].scenario.verification",
            "drafts 120 tokens a round", "at most 40", "depth 3 or less")
    assert lecture.lecture_from_json(text(entry(verification="multi:3", depth=3)))


@pytest.mark.parametrize("change, field, words", [
    ({"seed": -1}, "seed", "seeds are 0 to 2^53"),
    ({"seed": 2**60}, "seed", "seeds are 0 to 2^53"),
    ({"generation": -2}, "generation", "generations are 0"),
    ({"target_temperature": 5.0}, "target_temperature", "slider goes from 0.1 to 3.0"),
    ({"target_temperature": 0.123456}, "target_temperature", "steps of 0.0001"),
    ({"target_top_p": 0.01}, "target_top_p", "0.05 to 1"),
    ({"depth": 0}, "depth", "expected 1 to 5, got 0"),
])
def test_settings_the_controls_cannot_hold_are_refused_not_changed(change, field, words):
    refused(text(entry(**change)), f"entries[0].scenario.{field}", words, "outside" if field != "depth" else "")


def test_a_vocabulary_outside_the_playground_is_refused_before_its_weights_are_read():
    doc = entry()
    doc["scenario"]["vocab"] = [f"t{i}" for i in range(100_000)]
    doc["scenario"]["target"] = {"start": ["x"] * 100_000}  # never read: the vocabulary is refused first
    refused(text(doc), "entries[0].scenario.vocab", "100,000 tokens", "2 to 12")


def test_the_steps_of_a_lecture_are_bounded_in_all():
    many = [entry(step=400, seed=i) for i in range(30)]
    refused(text(*many), "entries", "add up to 12,000", "at most 10,000")


def test_only_lecture_errors_come_out():
    for bad in ({"format": lecture.FORMAT, "version": True, "entries": [entry()]},
                {"format": ["x"] * 10, "entries": [entry()]},
                {"format": "x" * 10**6, "entries": [entry()]}):
        error = refused(bad, "version" if "version" in bad else "format")
        assert len(str(error)) < 300


# --- a scenario file in the lecture box, and the other way round ----------------------------------------
def test_a_scenario_file_loaded_as_a_lecture_says_so():
    file_text = share.export_json(scenario(), 3)
    error = refused(file_text, "", "this is a scenario file, not a lecture script", "Load a downloaded scenario")
    assert "missing 'entries'" not in str(error)
    refused(json.dumps(scenario_to_dict(scenario())), "", "this is a scenario file")


def test_a_lecture_loaded_as_a_scenario_file_says_so():
    with pytest.raises(PlaygroundError, match="is a lecture script, not a scenario file") as info:
        share.import_json(text(entry()))
    assert info.value.unreadable


# --- links and files keep the width the switch can show ---------------------------------------------------
def test_a_link_or_file_wider_than_the_switch_is_refused_not_clamped():
    wide = scenario(verification="multi:8", depth=1)
    with pytest.raises(PlaygroundError, match="'multi:8' drafts 8 children per node; the Playground draws trees "
                                              "of 1 to 4") as info:
        share.scenario_from_query(share.scenario_to_query(wide, 0))
    assert info.value.unreadable and info.value.field == "verification"
    with pytest.raises(PlaygroundError, match="The file's verification: 'multi-distinct:5'"):
        share.import_json(share.export_json(scenario(verification="multi-distinct:5", depth=1), 0))
    assert share.scenario_from_query(share.scenario_to_query(scenario(verification="multi:4", depth=2), 0))


def test_the_library_copies_of_the_page_limits_agree_with_the_page():
    from specviz.app.playground.rule_switch import MAX_PLAYGROUND_WIDTH
    from specviz.plots.tree_figures import MAX_TREE_NODES

    assert tree_limits.MAX_PLAYGROUND_WIDTH == MAX_PLAYGROUND_WIDTH
    assert tree_limits.MAX_TREE_NODES == MAX_TREE_NODES


# --- every generated script loads or is refused with a LectureError ------------------------------------------
def _loads(talk: lecture.Lecture) -> bool:
    try:
        lecture.check_steps(lecture.lecture_from_json(lecture.lecture_to_json(talk)))
    except LectureError:
        return False
    return True


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lectures())
def test_every_lecture_script_loads_or_is_refused_naming_the_field(case):
    source, mutation, original = case
    try:
        talk = lecture.lecture_from_json(source)
        lecture.check_steps(talk)
    except LectureError as error:  # a SpecvizError and a ValueError; nothing else may come out
        message = str(error)
        assert "\n" not in message and len(message) < 600, message
        assert message.startswith(f"{error.field}: " if error.field else "")
        if mutation.kind == "none":  # a valid script is refused only for a scenario that cannot play its steps
            assert error.field.startswith("entries["), message
        elif mutation.field.startswith("entries[") and mutation.kind not in ("count", "duplicate") \
                and _loads(original):  # the refusal names the mutated entry (the others were fine)
            entry = mutation.field.split(".")[0]
            assert error.field.startswith(entry) or error.field in ("", "entries"), (mutation, message)
        return
    # what may still load: a value the field takes after all (a weight 1e-400, a title '３', a step in range,
    # an optional key left out, version 1); never an unknown key, a control or a tree outside the Playground's
    assert mutation.kind in ("none", "literal", "type", "unicode", "step", "title", "missing", "version"), mutation
    assert lecture.lecture_from_json(lecture.lecture_to_json(talk)) == talk  # what loaded is what it writes
    if mutation.kind == "none":
        assert talk == original
    for item in talk.entries:  # every entry within the Playground's limits, as the page will open it
        assert tree_limits.width_refusal(item.scenario.verification) is None
        assert tree_limits.size_refusal(item.scenario.verification, item.scenario.depth) is None
        assert 2 <= item.scenario.vocab_size <= 12 and 0 <= item.step <= lecture.MAX_STEP
