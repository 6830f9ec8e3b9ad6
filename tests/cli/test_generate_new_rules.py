"""`specviz generate` runs traversal verification and SGLang as it runs on a tiny model folder: one target pass per
round over the whole tree, the rule's own events in the JSON, and `play` narrates both."""

from __future__ import annotations

import io
import json

import pytest

from specviz.cli import main

PROMPT = "w1 w2 w3 w1 w2 w4 w1 w2 w5 w1 w2"


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    from specviz.models.tiny import save_tiny

    return str(save_tiny(tmp_path_factory.mktemp("cli-rules-tiny"), arch="llama"))


@pytest.fixture(autouse=True)
def _cost_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SPECVIZ_CACHE_DIR", str(tmp_path))


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("rule, draft, check", [("traversal:2", "early-exit:1", "traversal_check"),
                                                ("sglang:0.5,0.8,2", "lookup:2", "threshold_check")])
def test_generate_runs_the_rule_in_one_target_pass_per_round(tiny_dir, rule, draft, check):
    code, out, err = _run("generate", PROMPT, "--model", tiny_dir, "--draft", draft, "--depth", "3",
                          "--max-new-tokens", "8", "--verification", rule, "--no-chat", "--json", "--top-n", "2")
    assert code == 0, err
    data = json.loads(out)
    assert data["summary"]["verification"] == rule
    assert data["summary"]["target_forwards"] == data["summary"]["rounds"]
    drafting = [r for r in data["rounds"] if not r["plain"]]
    assert drafting and all(r["shape"] == "tree" for r in drafting)
    assert any(e["kind"] == check for r in drafting for e in r["events"])


@pytest.mark.parametrize("rule, words", [("traversal:2", "traversal at node"), ("sglang:0.5,0.8,2", "top-K tree")])
def test_play_narrates_the_rule(rule, words):
    code, out, err = _run("play", "--preset", "close", "--rounds", "2", "--depth", "2", "--verification", rule)
    assert code == 0, err
    assert words in out


def test_vllm_names_are_read_by_the_command_line():
    code, out, err = _run("play", "--preset", "close", "--rounds", "1", "--verification", "probabilistic")
    assert code == 0, err
    code, out, err = _run("play", "--preset", "close", "--rounds", "1", "--verification", "strict")
    assert "exact" in out + err  # strict reads as exact-match: played where the core plays it, else refused by name
