"""Links and files, valid and mutated: each one opens exactly (with a note for every adjustment) or is
refused as unreadable with a message that names the field; never another exception.

Issue 19 (scenario files) and issue 20 item 6 (links and files). The strategies live in
tests/scenario_strategies.py.
"""

import json
import math
import re
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scenario_strategies import JSON_LITERALS, Mutation, documents, links, scenarios

from specviz.core import SpecvizError
from specviz.playground import explain, form, presets, share, state
from specviz.playground.explain import PlaygroundError
from specviz.scenario import Scenario, ScenarioError, read_json, scenario_from_dict, weight_from_text

QUICK = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _head(field: str) -> str:
    return re.match(r"[a-z_0-9]*", field)[0]


def _assert_names_the_field(error: PlaygroundError) -> None:
    assert isinstance(error, SpecvizError) and isinstance(error, ValueError)
    assert error.unreadable and error.field, error
    message = str(error)
    assert "\n" not in message and len(message) < 600, message
    assert error.field in message or (error.field == "file" and message.startswith("The file ")), message


def _assert_plays_or_explains(scenario: Scenario) -> None:
    """A scenario that opened is shown as read: check_scenario explains it, fit_to_controls notes plainly."""
    explain.check_scenario(scenario)  # a list of problems, never an exception
    _, notes = form.fit_to_controls(scenario, 5)
    assert not any(word in note for note in notes for word in ("None", "nan", "inf")), notes


# --- files ---------------------------------------------------------------------------------------------
# the fields a refusal may name for a mutation at a field (a table's shape is checked against vocab)
_FILE_RELATED = {"vocab": {"vocab", "target", "draft"}, "target": {"target", "vocab"}, "draft": {"draft", "vocab"}}


@QUICK
@given(documents())
def test_every_file_opens_as_written_or_is_refused_naming_the_field(case):
    text, mutation, scenario, step = case
    try:
        opened = share.import_json(text)
    except PlaygroundError as error:
        _assert_names_the_field(error)
        assert mutation.kind != "none", error
        allowed = {"file", "scenario", mutation.head, *_FILE_RELATED.get(mutation.head, ())}
        assert _head(error.field) in allowed, (mutation, str(error))
        return
    read, read_step = opened
    assert isinstance(read, Scenario) and type(read_step) is int and read_step >= 0
    assert share.import_json(share.export_json(read, read_step)) == (read, read_step)  # nothing half-read
    _assert_plays_or_explains(read)
    if mutation.kind == "none":
        assert opened == (scenario, step) and opened.notes == ()
    elif mutation.kind == "step" and json.loads(text)["step"] < 0:
        assert read_step == 0 and any(note.startswith("step ") for note in opened.notes)
    else:
        assert opened.notes == ()
    if mutation.kind == "literal" and _head(mutation.field) in ("target", "draft") and "[" in mutation.field:
        weight = _weight_at(read, mutation.field)
        assert weight == weight_from_text(mutation.value)  # the JSON number is read as its text is
        if float(mutation.value) in (0, math.inf) and Fraction(mutation.value) != 0:  # no float holds it: exact
            assert Fraction(weight) == Fraction(mutation.value)


def _weight_at(scenario: Scenario, field: str):
    table = getattr(scenario, _head(field))
    indices = [int(i) for i in re.findall(r"\[(\d+)\]", field)]
    row = table.rows[indices[0]] if ".rows" in field else table.start
    return row[indices[-1]]


@pytest.mark.parametrize("literal", JSON_LITERALS)
def test_a_json_number_and_its_text_are_read_alike(literal):
    data = read_json(f'{{"vocab": ["a", "b"], "target": {{"start": [{literal}, 1]}}, "draft": {{"start": [1, 1]}}}}')
    as_text = {"vocab": ["a", "b"], "target": {"start": [literal, 1]}, "draft": {"start": [1, 1]}}
    outcomes = []
    for document in (data, as_text):
        try:
            outcomes.append(("read", scenario_from_dict(document).target.start[0]))
        except ScenarioError as error:
            assert error.field == "target.start[0]"
            outcomes.append(("refused", error.reason))
    assert outcomes[0] == outcomes[1]


def test_the_audit_cases_of_issue_19():
    good = json.loads(share.export_json(presets.default_scenario(), 3))

    def opened(change=None, text=None):
        data = json.loads(json.dumps(good))
        if change:
            change(data)
        return share.import_json(text if text is not None else json.dumps(data))

    def refused(words, change=None, text=None):
        with pytest.raises(PlaygroundError) as info:
            opened(change, text)
        _assert_names_the_field(info.value)
        assert words in str(info.value), str(info.value)
        return info.value

    refused("nests more than 20 levels deep", text="[" * 100_000 + "]" * 100_000)
    weight = opened(text=json.dumps(good).replace('"start": ["6"', '"start": [1e-400'))[0].target.start[0]
    assert weight == Fraction(1, 10**400)  # the JSON number is exact, as its text "1e-400" is
    assert weight_from_text("1e-400") == weight
    assert refused("expected a whole number ≥ 0, got ‘3’", lambda d: d.update(step="3")).field == "step"
    refused("is not this app's", lambda d: d.update(format="other-app"))
    refused("reads version 1", lambda d: d.update(version=2))
    for digits in ("３", "٣", "0_3"):
        error = refused("is not a number", lambda d, x=digits: d["scenario"]["target"]["start"].__setitem__(0, x))
        assert error.field == "target.start[0]"
    error = refused("5000 digits", text=json.dumps(good).replace('"seed": 0', '"seed": ' + "7" * 5000))
    assert error.field == "seed" and "not JSON" not in str(error)
    error = refused("is not a number; a temperature",
                    text=json.dumps(good).replace('"target_temperature": 1.0', '"target_temperature": NaN'))
    assert error.field == "target_temperature"
    assert opened(lambda d: d.update(step=-3)).notes == ("step -3 → 0 (steps count from 0)",)


def test_a_file_that_cannot_be_read_is_explained_without_undo():
    with pytest.raises(PlaygroundError) as info:
        share.import_json(b"\xff\xfe garbage")
    problem = explain.explain(info.value)
    assert problem.unreadable and "Undo" not in problem.fix and "Nothing of it was loaded" in problem.fix
    assert not explain.explain(PlaygroundError("The label ‘a’ appears twice")).unreadable  # a form edit: Undo


# --- links ---------------------------------------------------------------------------------------------
_LINK_RELATED = {"vocab": {"vocab", "p", "q"}, "p": {"p", "q", "vocab"}, "q": {"q", "p", "vocab"}}
_ON_OFF = ("1", "true", "True", "0", "false", "False", "")


@QUICK
@given(links())
def test_every_link_opens_as_written_or_is_refused_naming_the_key(case):
    params, mutation, scenario, step = case
    try:
        opened = share.scenario_from_query(params)
    except PlaygroundError as error:
        _assert_names_the_field(error)
        assert mutation.kind != "none", error
        assert error.field in {mutation.field, *_LINK_RELATED.get(mutation.field, ())}, (mutation, str(error))
        return
    read, read_step = opened
    again = share.scenario_from_query(share.scenario_to_query(read, read_step))
    assert again == (read, read_step) and again.notes == ()  # what opened is exactly what a new link says
    _assert_plays_or_explains(read)
    _assert_notes_say_what_changed(params, mutation, opened)
    if mutation.kind == "none":
        assert opened == (scenario, step)


def _assert_notes_say_what_changed(params: dict, mutation: Mutation, opened: share.Opened) -> None:
    read, read_step = opened
    expected = []
    if mutation.kind == "unknown":
        expected.append(mutation.field[:24])
    if params.get("fp32", "") not in _ON_OFF:
        expected.append("fp32")
        assert read.fp32 is False
    at, old = params.get("at", ""), params.get("step", "")
    if at != "":  # at= reads as the label (from 1); an older key beside it is ignored, with a note
        if int(at) < 1:
            expected.append("at")
        assert read_step == max(int(at), 1) - 1  # no other step is moved while reading
        if old != "":
            expected.append("step ignored")
    elif old != "":  # an older link's step keeps its meaning: the index from 0
        if old.startswith("-"):
            expected.append("step")
        assert read_step == max(int(old), 0)
    assert len(opened.notes) == len(expected), (opened.notes, mutation)
    for word, note in zip(expected, opened.notes):
        assert word in note
    if mutation.kind == "value" and mutation.field in ("depth", "draft_topk", "seed", "generation") \
            and params[mutation.field] != "":  # an empty value means the key is absent
        assert getattr(read, mutation.field) == int(params[mutation.field])  # no silent clamp while reading


def test_the_audit_cases_of_issue_20():
    query = share.scenario_to_query(presets.default_scenario(), 0)
    old = {k: v for k, v in query.items() if k != "at"}  # an older link: its step from 0
    read = share.scenario_from_query(old | {"step": "-3", "fp32": "2", "utm_source": "mail"})
    assert read[1] == 0 and not read[0].fp32 and len(read.notes) == 3
    line = form.alterations_line(list(read.notes))
    assert "step -3 → 0" in line and "fp32 ‘2’ ignored" in line and "‘utm_source’ ignored" in line
    read = share.scenario_from_query(query | {"at": "-3"})  # a link of today: its step from 1
    assert read[1] == 0 and read.notes == ("at -3 → 1 (steps count from 1)",)
    assert share.scenario_from_query(query | {"presenter": "1"}).notes == ()  # the page's own key
    _, notes = form.fit_to_controls(share.scenario_from_query(query | {"top_p": "2.5"})[0], 5)
    assert notes == ["top-p 2.5 → off (the slider goes from 0.05 to 1 and keeps 4 decimals)"]
    for bad, field, words in [({"p": "1,2,3"}, "p", "has 3 weights for the 6 tokens"),
                              ({"mask": "101"}, "mask", "has 3 values for the 6 tokens"),
                              ({"stop": "9"}, "stop", "9 is not a token of the 6-token vocab"),
                              ({"temperature": "nan"}, "temperature", "is not a number"),
                              ({"depth": "３"}, "depth", "only the ASCII digits"),
                              ({"p": "1,x,1,1,1,1"}, "p", "is not a number")]:
        with pytest.raises(PlaygroundError) as info:
            share.scenario_from_query(query | bad)
        _assert_names_the_field(info.value)
        assert info.value.field == field and words in str(info.value), str(info.value)
    assert share.scenario_from_query(query | {"p": "1e-400,1,1,1,1,1"})[0].target.start[0] == Fraction(1, 10**400)


def test_the_weight_1e400_is_a_number_in_the_form():
    assert share.parse_weight("1e-400") == Fraction(1, 10**400)
    assert form.normalized_text(("1e-400", "1"))[0] != "⚠ not a number"
    with pytest.raises(PlaygroundError, match="only the ASCII digits"):
        share.parse_weight("３", "for ‘a’ in p")


@settings(max_examples=60, deadline=None)
@given(scenarios(), st.integers(-5, 10**9))
def test_a_step_past_the_end_is_moved_to_the_last_event_with_a_note(scenario, step):
    assume(not explain.check_scenario(scenario))  # a refused scenario opens with its refusal, at no step
    fitted, note = state.fit_step(scenario, step)
    if step <= 0:
        assert (fitted, note) == (0 if step < 0 else step, "")  # a negative step is the reader's note
        return
    timeline = state.timeline_for(scenario)
    available = timeline.ensure_events(step + 1)
    if available > step:
        assert (fitted, note) == (step, "")
    else:
        assert fitted == max(available - 1, 0) and f"Step {step + 1} → Step {fitted + 1}" in note


def test_the_seed_box_reads_ascii_digits_only():
    assert form.seed_from_text("1,000") == 1000  # a typed thousands separator is kept as before
    for bad in ("４２", "٤٢"):
        with pytest.raises(PlaygroundError, match="ASCII digits"):
            form.seed_from_text(bad)


def test_a_vocabulary_larger_than_the_playground_is_refused_before_its_weights_are_read():
    labels = ",".join(f"t{i}" for i in range(100_000))
    ones = ",".join(["1"] * 100_000)
    with pytest.raises(PlaygroundError, match="The link's vocab: has 100,000 tokens; the Playground plays "
                                              "vocabularies of 2 to 12") as info:
        share.scenario_from_query({"vocab": labels, "p": ones, "q": "x" * 10})  # q is never read
    assert info.value.unreadable and info.value.field == "vocab"
    body = {"vocab": [f"t{i}" for i in range(13)], "target": {"start": ["no"] * 13}, "draft": {"start": [1] * 13}}
    with pytest.raises(PlaygroundError, match="The file's vocab: has 13 tokens"):
        share.import_json(json.dumps({"format": share.FORMAT, "scenario": body, "step": 0}))


def test_a_rule_name_is_refused_by_its_length_before_the_registry_reads_it():
    query = share.scenario_to_query(presets.default_scenario(), 0) | {"verification": "multi:" + "9" * 5000}
    with pytest.raises(PlaygroundError, match=r"is not a rule name: a rule name has at most 64 characters") as info:
        share.scenario_from_query(query)
    assert info.value.field == "verification" and len(str(info.value)) < 300
    with pytest.raises(ScenarioError, match="at most 64 characters"):
        scenario_from_dict({**json.loads(share.export_json(presets.default_scenario(), 0))["scenario"],
                            "verification": "x" * 65})
