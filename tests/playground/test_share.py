"""Query-string and JSON sharing of a scenario and the animation step."""

import json
from fractions import Fraction

import pytest

from specviz.playground import presets, share, state
from specviz.playground.explain import PlaygroundError
from specviz.scenario import Scenario, Table


@pytest.mark.parametrize("name", list(presets.PRESETS))
@pytest.mark.parametrize("markov", [False, True])
def test_presets_round_trip(name, markov):
    s = presets.apply_preset(presets.default_scenario(markov), name, markov)
    query = share.scenario_to_query(s, 7)
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in query.items())
    assert share.scenario_from_query(query) == (s, 7)


def test_every_setting_round_trips():
    s = Scenario(
        vocab=("a,b", "back\\slash", "c", " d "[1:2]),
        target=Table((Fraction(1, 3), 0.25, 2, 0)),
        draft=Table((1, 1, 1e-3, 5)),
        depth=5, draft_topk=2, target_mask=(True, False, True, True), target_temperature=0.7,
        target_top_k=3, target_top_p=0.9, stop_ids=frozenset({1, 3}), fp32=True, seed=123,
        request_id="lecture 3", generation=2, context_id="ctx")
    query = share.scenario_to_query(s, 11)
    back, step = share.scenario_from_query(query)
    assert back == s and step == 11
    assert isinstance(back.target.start[0], Fraction) and isinstance(back.target.start[1], float)


def test_defaults_are_left_out():
    query = share.scenario_to_query(presets.default_scenario(), 0)
    assert set(query) == {"vocab", "p", "q", "depth", "seed", "at"} and query["at"] == "1"  # Step 1: at=1


def test_markov_rows_use_semicolons():
    s = presets.default_scenario(markov=True)
    query = share.scenario_to_query(s)
    assert query["p"].count(";") == s.vocab_size
    assert share.scenario_from_query(query)[0].target.rows == s.target.rows


@pytest.mark.parametrize("bad", [
    {"p": "1,abc"}, {"p": "1,nan"}, {"q": "1/0,1"}, {"depth": "three"}, {"stop": "x"}, {"mask": "1x"},
    {"seed": "1.5"}, {"temperature": "hot"},
])
def test_unreadable_links_raise_plain_errors(bad):
    query = share.scenario_to_query(presets.default_scenario(), 0) | bad
    with pytest.raises(PlaygroundError):
        share.scenario_from_query(query)


def test_missing_keys():
    assert not share.has_scenario({"step": "1"})
    with pytest.raises(PlaygroundError, match="missing"):
        share.scenario_from_query({"vocab": "a,b"})


def test_out_of_range_values_still_parse():
    query = share.scenario_to_query(presets.default_scenario(), 0) | {"p": "-1,0,0,0,0,0", "depth": "9"}
    s, _ = share.scenario_from_query(query)
    assert s.target.start[0] == -1 and s.depth == 9


def test_negative_step_is_clamped():
    query = share.scenario_to_query(presets.default_scenario(), 0) | {"step": "-4"}
    assert share.scenario_from_query(query)[1] == 0


def test_query_string_is_percent_encoded():
    text = share.query_string({"vocab": "a b,c"})
    assert text == "?vocab=a+b%2Cc"


def test_json_round_trip_with_trace():
    s = presets.apply_preset(presets.default_scenario(), "far apart")
    timeline = state.timeline_for(s)
    timeline.ensure_rounds(2)
    text = share.export_json(s, 5, timeline.rounds[0].trace)
    data = json.loads(text)
    assert data["format"] == share.FORMAT and data["step"] == 5
    assert data["trace"]["events"][0]["kind"] == "draft"
    assert share.import_json(text) == (s, 5)
    assert share.import_json(text.encode()) == (s, 5)


def test_json_accepts_a_bare_scenario_dict():
    from specviz.scenario import scenario_to_dict

    s = presets.default_scenario(markov=True)
    assert share.import_json(json.dumps(scenario_to_dict(s))) == (s, 0)


@pytest.mark.parametrize("text", ["not json", "[1, 2]", '{"scenario": {"vocab": ["a"]}}', b"\xff\xfe"])
def test_json_garbage_is_refused(text):
    with pytest.raises(PlaygroundError):
        share.import_json(text)


def test_split_labels_escapes():
    assert share.split_labels("a\\,b,c\\\\,d") == ("a,b", "c\\", "d")
