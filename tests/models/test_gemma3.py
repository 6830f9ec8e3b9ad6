"""Gemma 3's code path on a tiny random Gemma3 built here: sliding-window layers whose window (4 positions) is
shorter than the tree's context, the tree mask composed with the window, one target pass per round.

The real Gemma 3 270M (the opt-in extra) is in test_gemma3_real.py (slow)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from specviz.models import GenerationSettings, Session, parse_draft
from specviz.models import tree_attention as ta
from specviz.models.lm import CausalLM, early_exit_view
from specviz.models.tiny import save_tiny, tiny_gemma3

VOCAB = 1000
WINDOW = 4
TOL = 1e-5  # the bound on |p_tree - p_path| at every node
PATHS = [(9, 10, 11), (9, 12), (13,), (13, 14, 15), (16, 9), (13, 14, 17)]  # siblings, cousins, depth 3
PREFIX = tuple(range(20, 32))  # 12 tokens: three windows long
CPU = torch.device("cpu")
PROMPT = "w1 w2 w3 w1 w2 w4 w1 w2 w5 w1 w2 w3 w1 w2 w4 w1 w2"


@pytest.fixture(scope="module", params=["sdpa", "eager"])
def gemma(request):
    model = tiny_gemma3(VOCAB, window=WINDOW)
    if request.param == "eager":
        model.config._attn_implementation = "eager"
    ta.forget_checks()
    return model


@pytest.fixture(scope="module")
def gemma_dir(tmp_path_factory):
    return save_tiny(tmp_path_factory.mktemp("tiny-gemma3"), arch="gemma3", vocab_size=VOCAB, window=WINDOW)


@pytest.fixture(scope="module")
def gemma_loaded(gemma_dir):
    from specviz.models import load_model

    return load_model(str(gemma_dir), "cpu")


def _keys(prefix, paths):
    return sorted({prefix + path[:i] for path in paths for i in range(len(path) + 1)})


def _path_by_path(model, prefix, paths) -> dict:
    """Every node scored path by path: one forward per root-to-leaf path, the model building its own masks."""
    lm = CausalLM(model, VOCAB, CPU, tree=False)
    lm.probs(prefix[:3])
    lm.prefetch_tree(prefix, paths)
    return lm.memo


def test_the_model_has_sliding_layers_with_a_window_shorter_than_the_tree_context(gemma):
    windows = ta.layer_windows(gemma)
    assert windows == {"full_attention": None, "sliding_attention": WINDOW}
    assert len(PREFIX) + max(len(p) for p in PATHS) > 3 * WINDOW


def test_tree_scoring_equals_path_by_path_scoring_within_1e_5_across_the_window(gemma):
    lm = CausalLM(gemma, VOCAB, CPU)
    lm.probs(PREFIX[:3])  # a cache shorter than the prefix: its tail is fed in the same pass as the tree
    lm.prefetch_tree(PREFIX, PATHS)
    assert lm.forwards == 2  # the prefix's tail and every node: ONE pass
    per_path = _path_by_path(gemma, PREFIX, PATHS)
    keys = _keys(PREFIX, PATHS)
    worst = max(float(np.abs(lm.memo[k] - per_path[k]).max()) for k in keys)
    assert worst <= TOL
    assert max(float(np.abs(lm.memo[k] - lm.probs_uncached(k)).max()) for k in keys) <= TOL  # and without a cache


def test_without_the_window_in_the_mask_the_tree_would_be_wrong(gemma):
    """The composition matters: the same tree pass with the window left out of the mask misses by far more."""
    lm = CausalLM(gemma, VOCAB, CPU)
    lm.windows = None  # one plain tree mask for every layer
    lm.probs(PREFIX[:3])
    lm.prefetch_tree(PREFIX, PATHS)
    per_path = _path_by_path(gemma, PREFIX, PATHS)
    assert max(float(np.abs(lm.memo[k] - per_path[k]).max()) for k in _keys(PREFIX, PATHS)) > 1e-3


def test_the_cache_keeps_every_position_so_crop_and_gather_stay_exact(gemma):
    lm = CausalLM(gemma, VOCAB, CPU)
    lm.prefetch_tree(PREFIX, PATHS)
    assert ta.plain_kv_cache(lm.cache)  # no sliding layer that forgets: the window is the mask's
    for committed in [(13, 14, 17, 99), (9, 12, 98), (16, 97)]:
        lm.sync(PREFIX + committed)
        after = PREFIX + committed
        assert lm.cached == list(after[:-1]) and not lm.tree_keys  # the accepted path was kept, nothing re-fed
        assert float(np.abs(lm.probs(after) - lm.probs_uncached(after)).max()) <= TOL
        lm.reset()
        lm.prefetch_tree(PREFIX, PATHS)


def test_the_self_check_composes_the_window_and_says_so(gemma):
    ta.forget_checks()
    support = ta.tree_support(gemma, VOCAB, CPU, CausalLM)
    assert support.one_pass and support.gather
    assert f"sliding window of {WINDOW} composed with the tree mask" in support.reason
    assert f"probe prefix of {WINDOW + 3} tokens" in support.reason


def test_a_tree_mask_without_the_window_is_caught_by_the_self_check(gemma, monkeypatch):
    """The self-check decides: a mask that forgets the window disagrees with path-by-path scoring past the window."""
    monkeypatch.setattr("specviz.models.lm.tree_masks",
                        lambda seen, columns, rows, windows, dtype, device: ta.float_mask(seen, dtype, device))
    support = ta._check(gemma, VOCAB, CPU, CausalLM)
    assert not support.one_pass and "ignores or mangles the tree mask" in support.reason and support.worst > 1e-3
    assert "one target pass per root-to-leaf path" in support.words


def test_a_window_too_long_to_probe_falls_back_with_its_reason():
    model = tiny_gemma3(64, window=ta.MAX_PROBED_WINDOW + 1)
    support = ta._check(model, 64, CPU, CausalLM)
    assert not support.one_pass and "too long for the self-check to probe" in support.reason


def test_a_sliding_window_without_layer_types_falls_back():
    from transformers import MistralConfig, MistralForCausalLM

    config = MistralConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                           num_attention_heads=2, num_key_value_heads=1, sliding_window=4, max_position_embeddings=64)
    support = ta._check(MistralForCausalLM(config).eval(), 64, CPU, CausalLM)
    assert not support.one_pass and support.reason == "its sliding-window layers take no mask per layer type"


def test_an_early_exit_view_keeps_its_layers_windows(gemma):
    view = early_exit_view(gemma, 2)
    assert ta.layer_windows(view) == {"sliding_attention": WINDOW} or ta.layer_windows(view) is None
    lm = CausalLM(view, VOCAB, CPU)
    lm.prefetch_tree(PREFIX, PATHS)
    assert max(float(np.abs(lm.memo[k] - lm.probs_uncached(k)).max()) for k in _keys(PREFIX, PATHS)) <= TOL


# --- sessions on the tiny Gemma: every draft, chains and trees, one target pass per round --------------------


@pytest.mark.parametrize("verification", ["multi-distinct:3", "multi:2"])
def test_a_lookup_tree_on_gemma_uses_one_target_pass_per_round_and_exact_p(gemma_loaded, verification):
    settings = GenerationSettings(depth=4, seed=3, max_new_tokens=16, ignore_eos=True, verification=verification)
    session = Session(gemma_loaded, parse_draft("lookup:2"), settings, PROMPT, keep_raw=True)
    gen = session.run()
    assert gen.tree_scoring is not None and gen.tree_scoring.one_pass
    assert "sliding window of 4" in gen.tree_scoring.reason
    assert sum(r.target_forwards for r in gen.rounds) == len(gen.rounds)  # target_forwards == rounds
    assert any(r.nodes > r.depth for r in gen.rounds)  # a real tree: the continuations disagreed somewhere
    cold = CausalLM(gemma_loaded.model, gemma_loaded.vocab_size, CPU)
    events = [e for r in gen.rounds for e in r.trace.events if e.kind in ("tree_check", "bonus", "check")]
    for event in events[:16]:
        np.testing.assert_allclose(event.p.to_numpy(), cold.probs_uncached(event.prefix), rtol=0, atol=TOL)


@pytest.mark.parametrize("draft", ["early-exit:2", "early-exit:1", "target:temperature=1.5"])
def test_model_drafts_draft_chains_and_trees_on_gemma(gemma_loaded, draft):
    for verification in ("token", "multi-distinct:2"):
        settings = GenerationSettings(depth=3, seed=1, max_new_tokens=8, ignore_eos=True, verification=verification)
        gen = Session(gemma_loaded, parse_draft(draft), settings, PROMPT).run()
        assert len(gen.tokens) == 8
        assert sum(r.target_forwards for r in gen.rounds) == len(gen.rounds)
