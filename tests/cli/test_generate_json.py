"""`generate --json` reports the model's vocabulary as a top-level `vocab_size` (issue 33), for a GPT-2-sized model
and for a tiny Gemma 3 at Gemma's own 262,144 tokens (sliding-window layers, a lookup tree by exact match)."""

from __future__ import annotations

import io
import json

import pytest

from specviz import cli
from specviz.models.tiny import save_tiny

GEMMA_VOCAB = 262_144
PROMPT = "w1 w2 w3 w1 w2 w4 w1 w2 w5 w1 w2 w3 w1 w2"


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    return str(save_tiny(tmp_path_factory.mktemp("tiny-gpt2-json"), arch="gpt2"))


@pytest.fixture(scope="module")
def gemma_sized(tmp_path_factory):
    return str(save_tiny(tmp_path_factory.mktemp("tiny-gemma-262k"), arch="gemma3", vocab_size=GEMMA_VOCAB))


def _json(*argv: str) -> dict:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["generate", PROMPT, *argv, "--json", "--top-n", "2", "--device", "cpu"], out=out, err=err)
    assert code == 0, err.getvalue()
    return json.loads(out.getvalue())


def test_json_reports_vocab_size_for_a_gpt2_sized_model(tiny_dir):
    data = _json("--model", str(tiny_dir), "--draft", "lookup:2", "--max-new-tokens", "4")
    assert data["vocab_size"] == 50_257 and data["context_length"] == 256


def test_json_reports_gemma_s_vocabulary_and_how_its_tree_was_scored(gemma_sized):
    data = _json("--model", gemma_sized, "--draft", "lookup:2", "--max-new-tokens", "8", "--depth", "3",
                 "--verification", "exact-match:2")
    assert data["vocab_size"] == GEMMA_VOCAB and data["settings"]["verification"] == "exact-match:2"
    scoring = data["tree_scoring"]
    assert scoring["one_pass"] and "sliding window of 4 composed with the tree mask" in scoring["reason"]
    assert all(r["target_forwards"] == 1 for r in data["rounds"])
    assert data["summary"]["chain_same_draws"] is not None
    checks = [e for r in data["rounds"] for e in r["events"] if e["kind"] == "tree_check"]
    assert checks and all("sample" in e for e in checks)  # exact match's events carry the target's sample
