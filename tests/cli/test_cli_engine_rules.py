"""python -m specviz play --verification with the engine rules: the registry's names through the command line, their
narration in the terminal profile (the rule's own acceptance), their JSON trace, and their refusals in one line."""

from __future__ import annotations

import io
import json

import pytest

from specviz.cli import main

CASES = [("ensemble:0.5", "min(1, 1 − W + W·p(x)/q(x))"), ("threshold:0.5,0.8", "min(1, p(x)/A)"),
         ("threshold:1,1,2", "One coin for the node"), ("typical:0.09", "Medusa's threshold T"),
         ("TYPICAL:9/100", "Medusa's threshold T")]


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("name, said", CASES, ids=[c[0] for c in CASES])
def test_play_narrates_each_engine_rule_in_its_own_words(name, said):
    code, out, err = _run("play", "--preset", "close", "--rounds", "3", "--depth", "2", "--seed", "1",
                          "--verification", name, "--color", "never")
    assert code == 0, err
    assert said in out and "min(1, p/q)" not in out and "**" not in out


def test_play_json_carries_the_engine_rules_events():
    data = json.loads(_run("play", "--preset", "close", "--rounds", "2", "--depth", "2", "--seed", "3",
                           "--verification", "threshold:0.6,0.9,2", "--json")[1])
    assert data["scenario"]["verification"] == "threshold:0.6,0.9,2"
    kinds = {e["kind"] for r in data["rounds"] for e in r["events"]}
    assert {"tree_draft", "threshold_check", "result"} <= kinds
    check = next(e for r in data["rounds"] for e in r["events"] if e["kind"] == "threshold_check")
    assert {"mass", "single", "bound", "threshold_single", "threshold_acc"} <= set(check)


@pytest.mark.parametrize("name, says", [("ensemble:0", "W (the ensemble weight) must be a number in (0, 1]"),
                                        ("threshold:1,1,9", "K (distinct drafts per node"),
                                        ("typical:0.09,2", "DELTA"), ("greedy-draft", "evaluated by theory only")])
def test_a_bad_engine_rule_is_refused_in_one_line(name, says):
    code, _, err = _run("play", "--verification", name)
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1
