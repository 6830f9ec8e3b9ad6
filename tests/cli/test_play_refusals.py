"""`specviz play` refuses a scenario it cannot play in one true line (flag, value, what to change), before output."""

from __future__ import annotations

import io
import json

import pytest

from specviz.cli import main

TYPICAL = ["play", "--verification", "typical-sample:0.5,1", "--preset", "disjoint supports"]


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out, err), out.getvalue(), err.getvalue()


def test_a_sampled_medusa_rule_that_keeps_no_token_is_one_true_line():
    code, out, err = run(*TYPICAL)
    assert code == 2 and out == ""  # refused before anything is narrated (no legend after a refusal)
    assert err.count("\n") == 1 and err.startswith("specviz play: error: --verification 'typical-sample:0.5,1'")
    assert "--preset 'disjoint supports'" in err and "round 1" in err
    assert "Lower DELTA or EPS" in err  # the advice that fits: every weight here is positive
    assert "positive weight" not in err and "**" not in err and "How to fix" not in err


def test_its_json_is_refused_before_anything_is_written_too():
    code, out, err = run(*TYPICAL, "--json")
    assert code == 2 and out == "" and err.count("\n") == 1 and "Lower DELTA or EPS" in err


@pytest.mark.parametrize("rule", ["typical:0.5,1", "typical-sample:0.09", "token"])
def test_the_same_preset_plays_under_rules_that_keep_a_token(rule):
    code, out, err = run("play", "--verification", rule, "--preset", "disjoint supports", "--rounds", "2", "--json")
    assert code == 0, err
    assert len(json.loads(out)["rounds"]) == 2
