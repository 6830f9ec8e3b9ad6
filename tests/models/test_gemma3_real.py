"""Gemma 3 270M itself (the opt-in extra, `make gemma`): 262,144 tokens, sliding-window layers, lookup trees in one
target pass. Loaded once for this module (30-80 s on a 2-core CPU); skipped, saying why, where the extra is absent."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from specviz.models import GenerationSettings, generate, parse_draft
from specviz.models.bundled import GEMMA3, gguf_context_length
from specviz.models.lm import CausalLM

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not GEMMA3.installed(), reason=f"{GEMMA3.missing()} (CI installs it: make gemma)")]
LIST = ("Repeat this list exactly:\n\nThe cat sat on the mat.\nThe cat sat on the hat.\nThe cat sat on the rug.\n"
        "The dog ran to the park.\nThe dog ran to the lake.\nThe dog ran to the shop.\n")


@pytest.fixture(scope="module")
def gemma():
    from specviz.models import load_model

    return load_model("gemma3-270m", "cpu")


def test_loads_with_its_vocabulary_context_and_layers(gemma):
    assert gemma.vocab_size == GEMMA3.vocab_size == 262_144
    assert gemma.context_length == GEMMA3.context_length == 32_768 and gemma.n_layers == GEMMA3.layers == 18
    assert "Gemma Terms of Use" in gemma.terms and 1 in gemma.stop_ids
    from specviz.models.bundled import gemma_file

    assert gguf_context_length(gemma_file()) == GEMMA3.context_length  # the facts refused by, read back


def test_the_self_check_composes_the_sliding_window_and_scores_a_tree_in_one_pass(gemma):
    lm = CausalLM(gemma.model, gemma.vocab_size, gemma.device)
    support = lm.tree_support
    assert support.one_pass and "sliding window of 512 composed with the tree mask" in support.reason, support


def test_a_lookup_tree_on_gemma_uses_one_target_pass_per_round_and_never_trails_its_chain(gemma):
    settings = GenerationSettings(depth=5, seed=1, max_new_tokens=24, temperature=0.5, verification="exact-match:3",
                                  chat=False)
    gen = generate(gemma, LIST, parse_draft("lookup:3"), settings, top_n=None, keep_raw=True)
    assert sum(r.target_forwards for r in gen.rounds) == len(gen.rounds)
    assert all(r.chain_tokens is not None and r.chain_tokens <= len(r.tokens) for r in gen.rounds)
    cold = CausalLM(gemma.model, gemma.vocab_size, gemma.device, 0.5)
    events = [e for r in gen.rounds for e in r.trace.events if e.kind in ("tree_check", "bonus")][:3]
    for event in events:
        np.testing.assert_allclose(event.p.to_numpy(), cold.probs_uncached(event.prefix), rtol=0, atol=1e-5)


def test_generate_json_reports_the_vocabulary_and_the_race_runs(gemma, monkeypatch):
    from specviz import cli

    monkeypatch.setattr("specviz.models.load_model", lambda *a, **k: gemma)
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["generate", LIST, "--model", "gemma3-270m", "--draft", "lookup:3", "--depth", "4",
                     "--max-new-tokens", "8", "--verification", "exact-match:3", "--json", "--top-n", "2",
                     "--no-chat", "--device", "cpu"], out=out, err=err)
    assert code == 0, err.getvalue()
    data = json.loads(out.getvalue())
    assert data["vocab_size"] == 262_144 and data["model"] == "gemma3-270m" and data["tree_scoring"]["one_pass"]
    assert "Gemma Terms of Use" in err.getvalue()
