"""Every refusal turns into a plain-language Problem, never an exception; every other exception into a bug report."""

import pytest

from specviz.playground import explain, presets
from specviz.playground.explain import PlaygroundError
from specviz.scenario import Table


def base(markov=False):
    return presets.default_scenario(markov)


def titles(s):
    return " | ".join(p.title for p in explain.check_scenario(s))


@pytest.mark.parametrize("name", list(presets.PRESETS))
@pytest.mark.parametrize("markov", [False, True])
def test_presets_have_no_problems(name, markov):
    assert explain.check_scenario(presets.apply_preset(base(markov), name, markov)) == []


@pytest.mark.parametrize("change, words", [
    ({"target": Table((0,) * 6)}, "target has no support"),
    ({"draft": Table((0,) * 6)}, "draft has no support"),
    ({"target_mask": (False, False, False, False, True, True), "target": Table((1, 1, 1, 1, 0, 0))},
     "Every token the target allows has weight 0: the target has no support"),
    ({"target": Table((-1, 1, 1, 1, 1, 1))}, "negative or not finite"),
    ({"target": Table((float("inf"), 1, 1, 1, 1, 1))}, "negative or not finite"),
    ({"target": Table((10**40, 1, 1, 1, 1, 1)), "fp32": True}, "too large for FP32"),
    ({"target": Table(("x", 1, 1, 1, 1, 1))}, "not a number"),
    ({"vocab": ("a",), "target": Table((1,)), "draft": Table((1,))}, "not accepted"),
    ({"vocab": tuple("abcdefghijklm")}, "not accepted"),
    ({"vocab": ("a", "a", "b", "c", "d", "e")}, "not accepted"),
    ({"target": Table((1, 1, 1))}, "not accepted"),
    ({"depth": 6}, "not valid"),
    ({"draft_topk": 9}, "Top-k"),
    ({"target_top_k": 0}, "Top-k"),
    ({"target_temperature": 0.0}, "out of range"),
    ({"target_top_p": 0.0}, "out of range"),
    ({"target_mask": (True, False)}, "mask"),
    ({"stop_ids": frozenset({6})}, "outside the vocabulary"),
    ({"request_id": ""}, "session"),
    ({"generation": -1}, "session"),
])
def test_refusals_are_explained(change, words):
    found = titles(base().with_changes(**change))
    assert words.lower() in found.lower(), found


def test_markov_row_problem_names_the_previous_token():
    s = base(markov=True)
    rows = list(s.draft.rows)
    rows[2] = (0,) * 6
    problems = explain.check_scenario(s.with_changes(draft=Table(s.draft.start, tuple(rows))))
    assert len(problems) == 1
    assert "after ‘sat’" in problems[0].title and "draft has no support" in problems[0].title


def test_markov_wrong_row_count():
    s = base(markov=True)
    bad = s.with_changes(target=Table(s.target.start, s.target.rows[:3]))
    assert "one per token" in explain.check_scenario(bad)[0].detail


def test_explain_covers_any_exception():
    problem = explain.problem_of(RuntimeError("boom"))
    assert "boom" in problem.detail and problem.fix and problem.bug
    assert "How to fix" in problem.markdown()
    assert explain.problem_of(PlaygroundError("bad")).detail == "bad"
    assert explain.explain is explain.problem_of  # the name the command line still calls


def test_check_vocab():
    explain.check_vocab(("a", "b"))
    for bad in [("a",), ("a", ""), ("a", "a"), tuple(str(i) for i in range(13))]:
        with pytest.raises(PlaygroundError):
            explain.check_vocab(bad)


def test_playground_errors_are_library_errors_and_say_whether_anything_was_loaded():
    from specviz.core import SpecvizError

    edit = PlaygroundError("The label ‘a’ appears twice; every token needs its own label.")
    assert isinstance(edit, SpecvizError) and isinstance(edit, ValueError)
    assert (edit.field, edit.unreadable) == ("", False)
    assert "Undo last edit" in explain.problem_of(edit).fix and not explain.problem_of(edit).unreadable
    link = PlaygroundError("The link's p: has 3 weights for the 6 tokens of vocab.", field="p", unreadable=True)
    problem = explain.problem_of(link)
    assert problem.unreadable and "cannot be opened" in problem.title and "Undo" not in problem.fix


# --- issue 23 item 4: refusals by type, bugs as bugs ------------------------------------------------------------
def test_a_bug_is_a_bug_report_never_advice_to_undo():
    def boom():
        raise RuntimeError("boom\nsecond line")

    try:
        boom()
    except RuntimeError as error:
        problem = explain.problem_of(error)
    assert problem.bug and problem.title == explain.BUG_TITLE == "This is a bug in specviz"
    assert problem.detail.startswith("RuntimeError: boom (at tests/playground/test_explain.py:")
    assert problem.detail.endswith(" in boom)") and "second line" not in problem.detail  # one line to copy
    assert "Undo the last edit" not in problem.fix and "Unexpected" not in problem.markdown()
    assert explain.bug_report(KeyError("x")).detail == "KeyError: 'x'"  # never raised: no frame to name


def test_every_error_the_library_raises_on_purpose_is_a_refusal_not_a_bug():
    import inspect

    from specviz.core import errors

    for name, kind in vars(errors).items():
        if inspect.isclass(kind) and issubclass(kind, errors.SpecvizError):
            problem = explain.problem_of(kind("something"))
            assert not problem.bug and problem.title and problem.fix, name


def test_refusals_are_chosen_by_type_never_by_the_words_of_the_message():
    from specviz.core import SessionError, WeightValueError

    s = base().with_changes(fp32=True, target=Table((10**40, 1, 1, 1, 1, 1)))
    # the words of a message do not decide: a weight too large for FP32 is found from the weights themselves
    too_large = explain.problem_of(WeightValueError("weight 0 is 1e40"), model="target p", scenario=s)
    assert "too large for FP32" in too_large.title
    negative = s.with_changes(target=Table((-1, 1, 1, 1, 1, 1)))
    said = explain.problem_of(WeightValueError("FP32 overflow"), model="target p", scenario=negative)
    assert "negative or not finite" in said.title
    stopped = explain.problem_of(SessionError("request has already stopped"))
    other = explain.problem_of(SessionError("generation must be >= 0"))
    assert stopped.title == other.title and "Reset" in stopped.fix


def test_a_file_that_was_not_loaded_names_the_field_to_correct():
    from specviz.playground.lecture import LectureError
    from specviz.scenario import ScenarioError

    refused = LectureError("entries[1].scenario.depth", "expected 1 to 5, got 9")
    problem = explain.file_problem(refused, "lecture script")
    assert problem.title == "The lecture script was not loaded" and problem.unreadable and not problem.bug
    assert "entries[1].scenario.depth: expected 1 to 5, got 9" in problem.detail
    assert problem.fix.startswith("Correct entries[1].scenario.depth in the file")
    assert "Correct scenario.p" in explain.file_problem(ScenarioError("scenario.p", "bad"), "lecture script").fix
    assert explain.file_problem(ValueError("not ours"), "lecture script").bug


def test_medusa_truncating_every_token_is_explained_as_the_rule_s_settings():
    from specviz.core.medusa import TypicalSupportError

    error = TypicalSupportError("Medusa's typical truncation removes every token: every p(x) is below the "
                                "threshold T ≈ 0.333343; Lower DELTA or EPS")
    problem = explain.problem_of(error)
    assert "positive weight" not in problem.fix and "ε or δ" in problem.fix and "fast" in problem.fix
    assert problem.line() == str(error)  # its detail starts as its title says: one line, said once
    assert explain.problem_of(ValueError("x")).line() == "This is a bug in specviz: ValueError: x"


@pytest.mark.parametrize("query, words", [
    ({"vocab": "a,b,c", "p": "1,-1,2", "q": "1,1,1"}, "Weight 2 (‘b’) of the target p is -1"),
    ({"vocab": "a,b,c", "p": "1,1e39,2", "q": "1,1,1", "fp32": "1"}, "Weight 2 (‘b’) of the target p is 1e+39"),
    ({"vocab": "a,b", "p": "1,1;1,1;1,-2", "q": "1,1;1,1;1,1"}, "Weight 2 (‘b’) of the target p after ‘b’ is -2"),
])
def test_a_refused_weight_is_named_as_a_link_names_it_counted_from_1(query, words):
    from specviz.playground import share

    problems = explain.check_scenario(share.scenario_from_query(query).scenario)
    assert len(problems) == 1 and problems[0].detail.startswith(words), problems[0].detail
    assert "position" not in problems[0].detail  # the core's 0-based index is not what a person reads
    with pytest.raises(PlaygroundError, match="Weight 2 \\(‘b’\\) of the link's p"):
        share.scenario_from_query({**query, "p": query["p"].replace("-", "x").replace("1e39", "x")})
