"""Every refusal turns into a plain-language Problem, never an exception."""

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
    problem = explain.explain(RuntimeError("boom"))
    assert "boom" in problem.detail and problem.fix
    assert "How to fix" in problem.markdown()
    assert explain.explain(PlaygroundError("bad")).detail == "bad"


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
    assert "Undo last edit" in explain.explain(edit).fix and not explain.explain(edit).unreadable
    link = PlaygroundError("The link's p: has 3 weights for the 6 tokens of vocab.", field="p", unreadable=True)
    problem = explain.explain(link)
    assert problem.unreadable and "cannot be opened" in problem.title and "Undo" not in problem.fix
