"""Scenario: the toy description the pages share; round trips and plays like the core."""

import json
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specviz.core import SpecvizError
from specviz.scenario import (
    Scenario,
    ScenarioError,
    ScenarioTypeError,
    Table,
    play,
    scenario_from_dict,
    scenario_to_dict,
    weight_from_text,
)


def make(**kw):
    base = dict(vocab=("the", "cat", "sat"), target=Table((Fraction(1, 2), 1, 0.25)),
                draft=Table((1, 1, 1), ((1, 0, 0), (0, 1, 0), (0, 0, 1))), depth=2, seed=3)
    base.update(kw)
    return Scenario(**base)


def test_round_trip_through_dict():
    s = make(stop_ids=frozenset({2}), target_mask=(True, True, False), fp32=True, draft_topk=2)
    assert scenario_from_dict(scenario_to_dict(s)) == s


def test_context_depends_on_the_settings():
    assert make().context != make(target_top_k=1).context
    assert make(context_id="fixed").context == "fixed"


def test_play_is_reproducible_and_continues_from_the_committed_prefix():
    first, second = play(make(), 4), play(make(), 4)
    assert [r.result for r in first] == [r.result for r in second]
    for before, after in zip(first, first[1:]):
        assert after.prefix == before.prefix + before.result.tokens


def test_markov_rows_follow_the_previous_token():
    s = make(target=Table((1, 1, 1), ((0, 1, 0), (0, 0, 1), (1, 0, 0))), draft=Table((1, 1, 1)))
    tokens = sum((r.result.tokens for r in play(s, 5)), ())
    for a, b in zip(tokens, tokens[1:]):
        assert b == (a + 1) % 3


# --- reading scenario documents: every malformed one raises ScenarioError naming the field ------------


def good_dict(**changes):
    data = scenario_to_dict(make(stop_ids=frozenset({2})))
    data.update(changes)
    return data


def refused(data, kind=ScenarioError) -> ScenarioError:
    with pytest.raises(kind) as info:
        scenario_from_dict(data)
    assert isinstance(info.value, SpecvizError)
    return info.value


def test_an_empty_document_names_the_missing_fields():
    error = refused({})
    assert error.field == "scenario" and "'vocab'" in str(error) and "'target'" in str(error)


def test_a_missing_table_is_named():
    data = good_dict()
    del data["target"]
    assert "missing 'target'" in str(refused(data))


def test_a_zero_denominator_is_a_value_error_with_its_place():
    data = good_dict()
    data["draft"]["start"][1] = "1/0"
    error = refused(data)
    assert error.field == "draft.start[1]" and "zero denominator" in str(error)
    assert not isinstance(error, ZeroDivisionError)


@pytest.mark.parametrize("value", ["false", "true", 0, 1, None])
def test_fp32_accepts_real_booleans_only(value):
    error = refused(good_dict(fp32=value), ScenarioTypeError)
    assert error.field == "fp32" and isinstance(error, TypeError) and isinstance(error, ValueError)
    assert scenario_from_dict(good_dict(fp32=False)).fp32 is False


def test_mixed_stop_ids_name_the_bad_entry():
    error = refused(good_dict(stop_ids=[1, "a"]), ScenarioTypeError)
    assert error.field == "stop_ids[1]" and "'a'" in str(error)


def test_a_5001_digit_weight_is_finite_but_too_large_to_represent():
    data = good_dict()
    data["target"]["start"][0] = "1" * 5001
    message = str(refused(data))
    assert "target.start[0]" in message and "5001 digits" in message and "too large to represent" in message
    assert "finite" not in message
    assert weight_from_text("1" * 4000) == int("1" * 4000)  # below Python's limit it stays exact


@pytest.mark.parametrize("text, words", [("abc", "not a number"), ("1/x", "not a fraction"),
                                         ("1e-5000", "too small to represent"), ("1e5000", "too large to represent")])
def test_weight_text_that_would_change_value_is_refused(text, words):
    with pytest.raises(ScenarioError, match=words):
        weight_from_text(text)


# issue 19 asked for 1e-400 to be read alike as text and as a JSON number: both are now exact (the old
# assertions here refused the text "1e400" / "1e-400" as outside the float range; a float cannot hold
# them, but the core is exact, so they are read as the int 10**400 and the Fraction 1/10**400).
@pytest.mark.parametrize("text, exact", [("1e-400", Fraction(1, 10**400)), ("1e400", 10**400),
                                         ("-2.5e-400", Fraction(-25, 10**401)), ("0e-99999", 0)])
def test_decimals_outside_the_float_range_are_read_exactly(text, exact):
    assert weight_from_text(text) == exact


def test_non_finite_and_wrongly_typed_weights_and_fields():
    assert "not finite" in str(refused(good_dict(target={"start": ["nan", 1, 1]})))
    assert refused(good_dict(target={"start": [[1], 1, 1]}), ScenarioTypeError).field == "target.start[0]"
    assert refused(good_dict(target={"start": [1, 1, 1], "rows": "x"}), ScenarioTypeError).field == "target.rows"
    assert refused(good_dict(vocab=["a", 2, "c"]), ScenarioTypeError).field == "vocab[1]"
    assert refused(good_dict(depth=True), ScenarioTypeError).field == "depth"
    assert refused(good_dict(target_mask=[1, 0, 1]), ScenarioTypeError).field == "target_mask[0]"
    assert "unknown field(s) 'depht'" in str(refused(good_dict(depht=4)))
    assert refused([1, 2], ScenarioTypeError).field == "scenario"


def test_ranges_are_left_to_the_core():
    s = scenario_from_dict(good_dict(depth=9, target={"start": [0, 0, 0]}))
    assert s.depth == 9 and s.target.start == (0, 0, 0)


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                 max_size=3), max_leaves=8)
_keys = st.sampled_from(sorted(good_dict()) + ["target.start", "draft.rows"])


@settings(max_examples=300, deadline=None)
@given(key=_keys, value=_json)
def test_any_corrupted_field_raises_only_the_librarys_errors(key, value):
    data = json.loads(json.dumps(good_dict()))
    if "." in key:
        table, part = key.split(".")
        data[table][part] = value
    else:
        data[key] = value
    try:
        scenario_from_dict(data)
    except ScenarioError as error:
        assert isinstance(error, (ValueError, TypeError)) and error.field.split("[")[0].split(".")[0] in (
            key.split(".")[0], "scenario")


# --- issue 19: any document, valid or mutated, is read exactly or refused naming the field ----------------
_PYTHON_ODDITIES = st.sampled_from([10**5000, -(10**5000), Fraction(1, 10**5000), float("nan"), float("inf"),
                                    Fraction(1, 3), 10**400, "1e-400", "３", "0_3", "1/0", None, True, []])


def _deep(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


@settings(max_examples=300, deadline=None)
@given(key=_keys, value=_PYTHON_ODDITIES | st.integers(1, 5000).map(_deep))
def test_python_values_no_json_holds_are_refused_naming_the_field_or_read_exactly(key, value):
    data = json.loads(json.dumps(good_dict()))
    if "." in key:
        table, part = key.split(".")
        data[table][part] = value
    else:
        data[key] = value
    try:
        scenario = scenario_from_dict(data)
    except ScenarioError as error:
        message = str(error)
        assert message.startswith(error.field) and len(message) < 400, message
        assert error.field.split("[")[0].split(".")[0] in (key.split(".")[0], "scenario")
        return
    assert scenario_from_dict(json.loads(json.dumps(scenario_to_dict(scenario)))) == scenario  # writable, exact
