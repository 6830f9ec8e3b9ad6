"""Issue 25 item 1: one bounded reader for rule names, reached from links, files, the command line and theory.

Every spelling the reader accepts names its rule's one canonical name, which reads back to the same rule;
everything else is refused as a VerificationError (a SpecvizError and a ValueError) with a one-line message
of bounded length, fast, whatever the input's length: never Python's own ValueError, never a hang. The same
names go through every surface (a scenario file, a link, ``python -m specviz play --verification``,
theory) and are read alike there. The strategies live in tests/rule_name_strategies.py.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rule_name_strategies import HOSTILE_TEXT, hostile_names, valid_names

from specviz import theory
from specviz.core import Categorical, SpecvizError, VerificationError, check_verification, rule
from specviz.core.verification import MAX_NAME_LENGTH, number_name, read_number
from specviz.playground import presets, share, tree_limits
from specviz.playground.explain import PlaygroundError
from specviz.scenario import ScenarioError, scenario_from_dict, scenario_to_dict

QUICK = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BASE = presets.default_scenario(False)


def _assert_refusal(error: Exception, name: object) -> None:
    assert isinstance(error, VerificationError) and isinstance(error, SpecvizError) and isinstance(error, ValueError)
    message = str(error)
    assert "\n" not in message and len(message) < 600, message
    assert message.startswith("verification"), message


@QUICK
@given(valid_names())
def test_every_spelling_reads_to_its_canonical_name_and_back(case):
    spelling, canonical = case
    found = rule(spelling)
    assert found.name == canonical and len(canonical) <= MAX_NAME_LENGTH
    assert rule(canonical) == found  # the canonical name reads back to the same rule
    assert found.name.isascii()


@QUICK
@given(hostile_names())
def test_a_hostile_name_is_refused_in_one_line_or_read_to_a_canonical_rule(name):
    try:
        found = rule(name)
    except VerificationError as error:
        _assert_refusal(error, name)
    else:
        assert isinstance(name, str) and len(name) <= MAX_NAME_LENGTH and name.isascii()
        assert rule(found.name) == found


@pytest.mark.parametrize("name", HOSTILE_TEXT, ids=lambda n: repr(n[:24]))
def test_the_audit_names_are_refused(name):
    with pytest.raises(VerificationError) as refused:
        rule(name)
    _assert_refusal(refused.value, name)


def test_issue_25_cases():
    with pytest.raises(VerificationError, match="exponent at most 64"):  # built 10^99999999 and hung
        rule("typical:1e-99999999")
    with pytest.raises(VerificationError, match="at most 64 characters, got 'multi:"):  # Python's int() ValueError
        rule("multi:" + "7" * 5_000)
    # one rule, one name: these spellings are one rule, named typical:0.5
    assert {rule(n).name for n in ("typical:0.5", "typical:2/4", "typical:.5", "typical:5e-1", "typical:0.50")} == \
        {"typical:0.5"}
    for name in ("typical: 0.5", "typical:1_0/3_0", "typical:１/２"):  # spaces, underscores, other digits: refused
        with pytest.raises(VerificationError, match="ASCII digits"):
            rule(name)
    assert rule("typical:10/30").name == "typical:1/3" and rule("multi:002").name == "multi:2"


def test_one_reader_for_every_engine_rule():
    """ensemble, threshold and typical read their numbers as typical always did: one spelling per rule."""
    assert {rule(n).name for n in ("ensemble:0.5", "ensemble:2/4", "ensemble:.5", "ensemble:5e-1")} == {"ensemble:0.5"}
    assert {rule(n).name for n in ("threshold:1,1", "threshold:1.0,10/10", "threshold:1,1,1")} == {"threshold:1,1"}
    assert rule("threshold:1/2,0.80,03").name == "threshold:0.5,0.8,3"
    assert rule("typical:9/100,3/10").name == "typical:0.09" and rule("typical-sample:.09").name == \
        "typical-sample:0.09"
    assert rule("ensemble:10/30").settings.weight == Fraction(1, 3) and rule("ensemble:10/30").name == "ensemble:1/3"
    for name in ("ensemble: 0.5", "threshold:1_0,1", "typical:0.09,０.3"):  # spaces, underscores, other digits
        with pytest.raises(VerificationError, match="ASCII digits"):
            rule(name)
    with pytest.raises(VerificationError, match="exponent at most 64"):
        rule("threshold:1,1e-99999999")


@pytest.mark.parametrize(("value", "name"), [
    (Fraction(1, 2), "0.5"), (Fraction(9, 100), "0.09"), (Fraction(1, 3), "1/3"), (Fraction(1, 1024), "0.0009765625"),
    (Fraction(1, 10**13), "1e-13"), (Fraction(125, 10**15), "1.25e-13"), (Fraction(1, 2**41), "1/2199023255552"),
    (Fraction(99, 100), "0.99")])
def test_a_number_is_named_once_and_reads_back(value, name):
    assert number_name(value) == name and read_number(name) == value


def test_a_name_that_cannot_read_back_is_refused():
    with pytest.raises(VerificationError, match="cannot be named within the limits"):
        rule("typical:0.000001e-64")  # 1e-70: no exponent of at most 64 names it


# --- every surface reads a name alike ------------------------------------------------------------------
def _through_a_file(name: object) -> str:
    data = scenario_to_dict(BASE)
    data["verification"] = name
    try:
        return scenario_from_dict(data).verification
    except ScenarioError as error:
        assert error.field == "verification" and "\n" not in str(error), error
        raise


def _through_a_link(name: str) -> str:
    query = share.scenario_to_query(BASE, 0)
    query["verification"] = name
    try:
        return share.scenario_from_query(query)[0].verification
    except PlaygroundError as error:
        assert error.field == "verification" and "\n" not in str(error) and len(str(error)) < 600, error
        raise


def _through_theory(name: object) -> str:
    p, q = Categorical.dense([1, 2]), Categorical.dense([2, 1])
    return theory.round_models(lambda prefix: p, draft=lambda prefix: q, depth=1, verification=name).verification


@QUICK
@given(st.one_of(valid_names().map(lambda case: case[0]), hostile_names()))
def test_files_links_and_theory_read_a_name_as_the_registry_does(name):
    try:
        playable = check_verification(name)
    except VerificationError:
        playable = None
    try:
        expected = rule(name).name
    except VerificationError:
        expected = None
    for surface in (_through_a_file, _through_a_link):
        if surface is _through_a_link and (not isinstance(name, str) or not name):
            continue  # a link holds text only, and reads an empty value as an absent one (tokenwise)
        try:
            got = surface(name)
        except (ScenarioError, PlaygroundError):
            got = None
        shown = playable
        if surface is _through_a_link and playable is not None and tree_limits.width_refusal(playable):
            shown = None  # a link opens in the Playground, which refuses trees wider than its switch
        assert got == shown, (surface.__name__, name)
    if name is None:
        return  # theory reads None as "not given": the source's own rule
    try:
        got = _through_theory(name)
    except VerificationError as error:
        _assert_refusal(error, name)
        got = None
    assert got == expected


@settings(max_examples=40, deadline=None)
@given(st.one_of(valid_names().map(lambda case: case[0]), st.sampled_from(HOSTILE_TEXT[:60])))
def test_the_command_line_reads_a_name_as_the_registry_does(name):
    from specviz import cli
    from specviz.cli.args import UsageError

    try:
        expected = check_verification(name)
    except VerificationError:
        expected = None
    try:
        got = cli.parse(["play", "--verification", name]).verification
    except UsageError as error:  # the command line prints it and exits 2
        assert "\n" not in str(error) and len(str(error)) < 700, error
        got = None
    if expected is not None:  # the command line also reads the rules' short labels, in any case
        assert got == expected
