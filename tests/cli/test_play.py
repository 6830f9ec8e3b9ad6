"""`specviz play`: the streamed narration matches the Playground's, and JSON version 2 holds the whole trace."""

from __future__ import annotations

import io
import json

import pytest

from specviz.cli import main
from specviz.cli.play import FORMAT, VERSION, expand
from specviz.core.trace import event_to_dict
from specviz.playground import narrative, presets
from specviz.scenario import play


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def _scenario(preset: str, depth: int, seed: int, verification: str = "token"):
    base = presets.apply_preset(presets.default_scenario(False), preset, False)
    return base.with_changes(depth=depth, seed=seed, verification=verification)


def _version_1(scenario, rounds: int) -> list[dict]:
    """The rounds as `play --json` wrote them before version 2: every prefix in full."""
    return [{"round_id": r.round_id, "prefix": list(r.prefix), "tokens": list(r.result.tokens),
             "accepted_drafts": r.result.accepted_drafts, "rejected": r.result.rejected,
             "stopped": r.result.stopped, "events": [event_to_dict(e, top_n=None) for e in r.trace]}
            for r in play(scenario, rounds)]


@pytest.mark.parametrize("preset, verification", [("far apart", "token"), ("close", "block"), ("stop-heavy", "token"),
                                                  ("far apart", "multi:2"), ("close", "multi-distinct:3")])
def test_version_2_expands_to_the_full_trace(preset, verification):
    code, out, _ = _run("play", "--preset", preset, "--rounds", "12", "--depth", "4", "--seed", "3",
                        "--verification", verification, "--json")
    data = json.loads(out)
    assert code == 0 and (data["format"], data["version"]) == (FORMAT, VERSION)
    expected = _version_1(_scenario(preset, 4, 3, verification), 12)
    assert expand(data)["rounds"] == expected
    assert expand(data)["scenario"] == data["scenario"]


def test_version_2_gives_each_prefix_once():
    data = json.loads(_run("play", "--rounds", "40", "--depth", "5", "--json")[1])
    events = [e for r in data["rounds"] for e in r["events"]]
    assert not any("prefix" in e for e in events) and not any("prefix" in r for r in data["rounds"])
    assert all(len(e.get("prefix_tail", [])) <= 5 for e in events)  # at most the round's drafts
    lengths = [r["prefix_length"] for r in data["rounds"]]
    assert lengths == [sum(len(r["tokens"]) for r in data["rounds"][:i]) for i in range(len(lengths))]


def test_expand_leaves_version_1_alone():
    old = {"scenario": {}, "rounds": [{"round_id": 0, "prefix": [], "tokens": [1], "events": []}]}
    assert expand(old) == old


def test_text_headlines_are_the_playground_s():
    scenario = _scenario("far apart", 3, 2, "block")
    code, out, _ = _run("play", "--preset", "far apart", "--rounds", "6", "--depth", "3", "--seed", "2",
                        "--verification", "block", "--color", "never")
    headlines = [line for line in out.splitlines() if line.startswith("Round ")]
    events = [e for r in play(scenario, 6) for e in r.trace]
    assert code == 0 and headlines == [narrative.step_view(scenario, i).headline for i in range(len(events))]


def test_rounds_past_the_playground_s_limit_are_narrated_as_themselves():
    # the Playground stops at 200 rounds; the command line once repeated round 199's headline after it
    _, out, _ = _run("play", "--preset", "p = q", "--rounds", "203", "--depth", "1", "--color", "never")
    assert "Round 202 commits 2 tokens" in out and out.count("Round 199 commits") == 1


def test_tree_rounds_are_narrated_and_marked():
    code, out, _ = _run("play", "--preset", "far apart", "--rounds", "4", "--verification", "MULTI:2", "--color",
                        "never")
    scenario = _scenario("far apart", 3, 0, "multi:2")
    tokens = [t for r in play(scenario, 4) for t in r.result.tokens]
    marked = out.splitlines()[-2]
    assert code == 0 and "drafting the tree" in out
    assert marked.replace("[", "").replace("]", "").replace("{", "").replace("}", "").split() == \
        [scenario.vocab[t] for t in tokens]
