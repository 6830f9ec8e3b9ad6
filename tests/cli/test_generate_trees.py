"""`specviz generate` with tree rules on a tiny model folder: the JSON summary, the race of three, refusals."""

from __future__ import annotations

import io
import json

import pytest

from specviz.cli import main

PROMPT = "w1 w2 w3 w1 w2 w4 w1 w2 w5 w1 w2"


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    from specviz.models.tiny import save_tiny

    return str(save_tiny(tmp_path_factory.mktemp("cli-tree-tiny"), arch="llama"))


@pytest.fixture(autouse=True)
def _cost_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SPECVIZ_CACHE_DIR", str(tmp_path))


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("draft", ["lookup:2", "early-exit:1"])
def test_a_tree_generation_reports_one_pass_per_round_and_its_nodes_in_json(tiny_dir, draft):
    code, out, err = _run("generate", PROMPT, "--model", tiny_dir, "--draft", draft, "--depth", "3",
                          "--max-new-tokens", "8", "--verification", "multi-distinct:2", "--no-chat", "--json",
                          "--top-n", "2")
    assert code == 0, err
    data = json.loads(out)
    summary = data["summary"]
    for key in ("rounds", "target_forwards", "tokens", "tokens_per_target_forward", "tokens_per_s"):
        assert key in summary
    assert summary["target_forwards"] == summary["rounds"] and summary["verification"] == "multi-distinct:2"
    assert summary["nodes_per_pass"] > 0 and summary["tree_width"] == 2
    assert data["tree_scoring"]["one_pass"] and data["tree_scoring"] == summary["tree_scoring"]
    drafting = [r for r in data["rounds"] if not r["plain"]]
    assert drafting and all(r["shape"] == "tree" and r["nodes"] >= r["depth"] for r in drafting)
    assert any(e["kind"] == "tree_check" for r in drafting for e in r["events"])


def test_the_text_summary_says_how_the_tree_was_scored(tiny_dir):
    code, out, err = _run("generate", PROMPT, "--model", tiny_dir, "--draft", "lookup:2", "--depth", "3",
                          "--max-new-tokens", "6", "--verification", "multi:2", "--no-chat", "--color", "never")
    assert code == 0, err
    assert "tree scoring: one target pass per round (tree attention mask)" in out
    assert "drafted nodes per target pass" in out and "   depth  reached  accepted" in out


def test_a_tree_race_runs_plain_the_chain_and_the_tree(tiny_dir):
    code, out, err = _run("generate", PROMPT, "--model", tiny_dir, "--draft", "lookup:2", "--depth", "3",
                          "--max-new-tokens", "6", "--verification", "multi-distinct:2", "--no-chat", "--race",
                          "--color", "never")
    assert code == 0, err
    lines = out.splitlines()
    assert "--- chain (lookup:2) ---" in lines and "--- speculative (lookup:2) ---" in lines
    header = next(line for line in lines if line.startswith("median race, seed"))
    assert header.split()[-3:] == ["plain", "chain", "speculative"]
    assert "the tree" in lines[-1] and "the chain's speed" in lines[-1]


@pytest.mark.parametrize(("argv", "words"), [
    (("--draft", "early-exit:1", "--depth", "5", "--verification", "multi:3"), "363 nodes per round"),
    (("--draft", "lookup:2", "--verification", "multi-distinct:6"), "width K in 1..4, got K = 6"),
])
def test_a_tree_real_models_cannot_run_is_refused_before_the_model_loads(tiny_dir, argv, words):
    code, _, err = _run("generate", PROMPT, "--model", tiny_dir, *argv)
    assert code == 2 and words in err and "loading" not in err


def test_the_help_names_the_tree_limits_real_models_have():
    from specviz.cli import parse
    from specviz.cli.parser import build_parser
    from specviz.models.round_shapes import MAX_TREE_NODES, MAX_TREE_WIDTH

    text = " ".join(build_parser()._subparsers._group_actions[0].choices["generate"].format_help().split())
    assert f"trees of K ≤ {MAX_TREE_WIDTH}" in text and f"at most {MAX_TREE_NODES} nodes" in text
    assert parse(["generate", "x", "--verification", "Multi-Distinct:3"]).verification == "multi-distinct:3"
