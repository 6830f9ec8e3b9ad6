"""One layer of error words (``narration.problems``): the page and the command line say a refusal alike."""

from __future__ import annotations

import io

from specviz import cli
from specviz.core import SpecvizError, WeightValueError
from specviz.models.model_errors import ModelSettingError
from specviz.narration import problems
from specviz.playground import explain, share
from specviz.scenario.reading_errors import PlaygroundError


def test_the_playground_names_the_same_words_it_does_not_hold_a_copy():
    for name in ("Problem", "problem_of", "bug_line", "bug_report", "file_problem", "BUG_TITLE", "BUG_FIX"):
        assert getattr(explain, name) is getattr(problems, name), name
    assert explain.PlaygroundError is PlaygroundError


def test_a_refusal_with_its_own_words_reads_as_the_page_says_it():
    error = WeightValueError("weight -1 is negative")
    problem = problems.problem_of(error)
    assert not problem.bug
    assert problems.refusal_line(error) == problem.line()
    assert problem.title in problems.refusal_line(error) or problem.detail in problems.refusal_line(error)


def test_a_refusal_without_its_own_words_reads_as_its_message():
    error = ModelSettingError("--depth 99 is not allowed;\n  use 1..8")
    assert problems.refusal_line(error) == "--depth 99 is not allowed; use 1..8"  # one line, as the pages show it


def test_export_says_a_refused_file_in_the_words_the_playground_shows_for_it(tmp_path):
    for text in ("{not json", '{"vocab": ["a", "b"], "p": [1, -1]}'):
        bad = tmp_path / "bad.json"
        bad.write_text(text, encoding="utf-8")
        try:
            share.import_json(text)  # what the Playground reads when this file is loaded
        except SpecvizError as error:
            page = problems.problem_of(error)
        out, err = io.StringIO(), io.StringIO()
        code = cli.main(["export", str(bad), "--out", str(tmp_path / "out")], out, err)
        assert code == 2 and err.getvalue() == f"specviz export: {page.line()}\n"
        assert page.title in err.getvalue() and page.unreadable  # the page's box: cannot be opened, nothing loaded
