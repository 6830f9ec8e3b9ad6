"""A whole draft tree scored in one forward: the mask, p at every node against path-by-path scoring, the
accepted path kept in the cache, the self-check and its fallback, and exactness of what tree rounds commit."""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import nn

from specviz.core import fp32_weights
from specviz.models import GenerationSettings, Session, parse_draft
from specviz.models import tree_attention as ta
from specviz.models.lm import CausalLM

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))  # tree_law.py: the verifier's exact laws
from tree_law import autoregressive_law, extend, played_law  # noqa: E402

PROMPT = "w1 w2 w3 w1 w2 w4 w1 w2 w5 w1 w2"
PATHS = [(9, 10, 11), (9, 12), (13,), (13, 14, 15), (16, 9), (13, 14, 17)]  # siblings, cousins, depth 3
TOL = 1e-5  # the bound on |p_tree - p_path| at every node
VOCAB = 3  # the exactness enumeration's vocabulary (every integer draw of a round is played)


def _eager(folder) -> nn.Module:
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(str(folder), attn_implementation="eager").eval()


@pytest.fixture(scope="module", params=["gpt2-sdpa", "gpt2-eager", "llama-sdpa", "llama-eager"])
def model(request, tiny, tiny_dir, tiny_llama, tiny_llama_dir):
    arch, implementation = request.param.split("-")
    loaded, folder = (tiny, tiny_dir) if arch == "gpt2" else (tiny_llama, tiny_llama_dir)
    return loaded.model if implementation == "sdpa" else _eager(folder)


def _worst(lm: CausalLM, keys) -> float:
    return max(float(np.abs(lm.memo[k] - lm.probs_uncached(k)).max()) for k in keys)


def test_the_mask_shows_each_row_the_prefix_its_ancestors_and_itself():
    root = (1, 2, 3)
    rows = [(1, 2, 3), (1, 2, 3, 7), (1, 2, 3, 8), (1, 2, 3, 7, 9)]  # the prefix's last token, then nodes
    seen = ta.visibility(2, 3, [], rows)
    assert seen.tolist() == [[True, True, True, False, False, False],
                             [True, True, True, True, False, False],
                             [True, True, True, False, True, False],
                             [True, True, True, True, False, True]]
    later = ta.visibility(3, 3, [(1, 2, 3, 7), (1, 2, 3, 8)], [(1, 2, 3, 8, 5), (1, 2, 3, 7, 9)])
    assert later.tolist() == [[True] * 3 + [False, True, True, False], [True] * 3 + [True, False, False, True]]
    mask = ta.float_mask(seen, torch.float32, torch.device("cpu"))
    assert mask.shape == (1, 1, 4, 6) and mask[0, 0, 0, 3] == torch.finfo(torch.float32).min and mask[0, 0, 3, 3] == 0
    del root


def test_p_at_every_node_of_one_tree_pass_equals_path_by_path_scoring(model):
    lm = CausalLM(model, 50257, torch.device("cpu"))
    assert lm.tree_support.one_pass, lm.tree_support
    prefix = (1, 2, 3, 4, 5, 6, 7)
    lm.probs(prefix[:3])  # a cache shorter than the prefix: its tail is fed in the same pass
    lm.prefetch_tree(prefix, PATHS)
    assert lm.forwards == 2 and lm.tokens_scored == 3 + 4 + 10  # 4 prefix tokens, then 10 distinct nodes once
    keys = {prefix + path[:i] for path in PATHS for i in range(len(path) + 1)}
    assert set(lm.memo) >= keys
    assert _worst(lm, keys) <= TOL


def test_a_tree_grown_level_by_level_over_its_own_cache_matches_too(model):
    lm = CausalLM(model, 50257, torch.device("cpu"))
    prefix = (5, 6, 7, 8)
    lm.probs(prefix)
    lm.prefetch_tree(prefix, [(9,), (13,)])  # level 1
    lm.prefetch_tree(prefix, [(9, 10), (9, 12), (13, 14)])  # level 2 attends to level 1 in the cache
    assert len(lm.tree_keys) == 5 and lm.forwards == 3
    assert lm.probs(prefix + (13, 14, 15)) is lm.memo[prefix + (13, 14, 15)] and lm.forwards == 4  # a lone node
    assert _worst(lm, list(lm.memo)) <= TOL


def test_p_does_not_depend_on_the_order_siblings_were_drawn_in(tiny_llama):
    one, other = (CausalLM(tiny_llama.model, 50257, torch.device("cpu")) for _ in range(2))
    prefix = (3, 1, 4, 1, 5)
    one.prefetch_tree(prefix, PATHS)
    other.prefetch_tree(prefix, [tuple(p) for p in reversed(PATHS)])
    assert set(one.memo) == set(other.memo)
    assert all(np.array_equal(one.memo[k], other.memo[k]) for k in one.memo)  # rows fed in one sorted order


@pytest.mark.parametrize("committed", [(9, 12, 99), (13, 14, 17, 99), (16, 98), (97,)])
def test_the_accepted_path_stays_in_the_cache_and_the_next_pass_is_exact(model, committed):
    lm = CausalLM(model, 50257, torch.device("cpu"))
    prefix = (1, 2, 3, 4, 5, 6, 7)
    lm.prefetch_tree(prefix, PATHS)
    lm.sync(prefix + committed)
    assert lm.cached == list(prefix + committed[:-1]) and not lm.tree_keys  # the drafted part was kept, no re-feed
    scored = lm.tokens_scored
    after = prefix + committed
    assert float(np.abs(lm.probs(after) - lm.probs_uncached(after)).max()) <= TOL
    assert lm.tokens_scored == scored + 1


class IgnoresMasks(nn.Module):
    """A model whose forward drops the attention mask: an architecture that ignores custom masks."""

    def __init__(self, inner: nn.Module):
        super().__init__()
        self.inner = inner
        self.config = inner.config

    def forward(self, **kwargs):
        kwargs.pop("attention_mask", None)
        return self.inner(**kwargs)


def test_a_model_that_ignores_the_mask_falls_back_to_one_pass_per_path(tiny_llama):
    wrapped = IgnoresMasks(tiny_llama.model)
    support = ta.tree_support(wrapped, 50257, torch.device("cpu"), CausalLM)
    assert not support.one_pass and "ignores or mangles the tree mask" in support.reason and support.worst > 1e-3
    assert "one target pass per root-to-leaf path" in support.words
    lm = CausalLM(wrapped, 50257, torch.device("cpu"))
    prefix = (1, 2, 3, 4)
    lm.prefetch_tree(prefix, PATHS)
    assert lm.forwards == 5  # five leaves: (9, 10, 11), (9, 12), (13, 14, 15), (13, 14, 17), (16, 9)
    assert _worst(lm, list(lm.memo)) <= TOL


def test_a_boolean_mask_on_eager_attention_is_caught_by_the_self_check(tiny_llama_dir, monkeypatch):
    """Eager attention adds the mask to its scores: a boolean mask adds 1 and 0, silently wrong."""
    eager = _eager(tiny_llama_dir)
    monkeypatch.setattr("specviz.models.lm.tree_masks",
                        lambda seen, columns, rows, windows, dtype, device: torch.from_numpy(seen)[None, None])
    support = ta._check(eager, 50257, torch.device("cpu"), CausalLM)
    assert not support.one_pass and support.worst > 1e-3


def test_an_attention_without_custom_masks_is_refused_before_any_pass(tiny_llama_dir):
    model = _eager(tiny_llama_dir)
    model.config._attn_implementation = "flash_attention_2"
    support = ta._check(model, 50257, torch.device("cpu"), CausalLM)
    assert not support.one_pass and support.reason == "attention implementation 'flash_attention_2' takes no custom " \
                                                      "tree mask"


def test_a_fallback_session_says_so_and_still_verifies_the_same_p(tiny_llama, monkeypatch):
    settings = GenerationSettings(depth=3, seed=2, max_new_tokens=8, ignore_eos=True, verification="multi-distinct:3")
    one = Session(tiny_llama, parse_draft("lookup:2"), settings, PROMPT, keep_raw=True)
    fallback = Session(tiny_llama, parse_draft("lookup:2"), settings, PROMPT, keep_raw=True)
    fallback.target_lm._tree = ta.TreeSupport(False, "tested")
    fallback.generation.tree_scoring = fallback.target_lm.tree_support
    a, b = one.run(), fallback.run()
    assert a.tokens == b.tokens  # the same p up to float noise: the same integer draws here
    assert sum(r.target_forwards for r in a.rounds) == len(a.rounds)
    assert sum(r.target_forwards for r in b.rounds) > len(b.rounds)
    from specviz.models.stats import format_summary, summarize

    assert "one target pass per root-to-leaf path (tested)" in format_summary(summarize(b, 3))
    assert "one target pass per round (tree attention mask)" in format_summary(summarize(a, 3))


# --- every draft drafts a tree, in one target pass per round --------------------------------------------


@pytest.mark.parametrize("draft", ["early-exit:1", "bf16", "target:temperature=1.5", "early-exit:2"])
@pytest.mark.parametrize("verification", ["multi:2", "multi-distinct:2"])
def test_model_drafts_draft_trees_scored_in_one_target_pass_per_round(tiny_llama, draft, verification):
    settings = GenerationSettings(depth=3, seed=3, max_new_tokens=10, ignore_eos=True, verification=verification)
    session = Session(tiny_llama, parse_draft(draft), settings, PROMPT, keep_raw=True)
    gen = session.run()
    assert sum(r.target_forwards for r in gen.rounds) == len(gen.rounds)  # target_forwards == rounds
    cold = CausalLM(tiny_llama.model, tiny_llama.vocab_size, tiny_llama.device)
    checked = [e for r in gen.rounds for e in r.trace.events if e.kind in ("tree_check", "bonus")]
    assert checked
    for event in checked[:12]:
        np.testing.assert_allclose(event.p.to_numpy(), cold.probs_uncached(event.prefix), rtol=0, atol=TOL)
    lm = session.draft.lm
    if lm is not None and lm is not session.target_lm:  # a model draft: one forward per level, as a chain's
        assert lm.forwards == sum(r.depth for r in gen.rounds if not r.plain)
    else:  # the target drafts for itself: its drafting passes, one per level, are counted apart
        assert sum(r.draft_target_forwards for r in gen.rounds) == sum(r.depth for r in gen.rounds)
    for record in gen.rounds:  # a full width-2 tree; shallower only where the tokens left cap the depth
        q_checks = [e for e in record.trace.of_kind("tree_draft")]
        assert record.depth == max(1, min(settings.depth, settings.max_new_tokens - record.start - 1))
        assert record.nodes == len(q_checks) == sum(2 ** level for level in range(1, record.depth + 1))


# --- the committed tokens are exact samples of the tree pass's p ------------------------------------------


@pytest.fixture(scope="module")
def tiny_vocab_models():
    """Two Llama-shaped models over a vocabulary of 3: the target and the draft, every p from tree passes."""
    from transformers import LlamaConfig, LlamaForCausalLM

    def build(seed: int) -> nn.Module:
        torch.manual_seed(seed)
        config = LlamaConfig(vocab_size=VOCAB, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                             num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=64)
        return LlamaForCausalLM(config).eval()
    return build(0), build(1)


def _tree_pass_model(model: nn.Module, prefix: tuple[int, ...], depth: int):
    """prefix -> Categorical, every node below prefix (all 3 + 9 + ... of them) scored in ONE tree pass."""
    lm = CausalLM(model, VOCAB, torch.device("cpu"))
    paths = [()]
    for _ in range(depth):
        paths = [p + (x,) for p in paths for x in range(VOCAB)]
    lm.prefetch_tree(prefix, paths)
    assert lm.forwards == 1
    dists = {key: fp32_weights(VOCAB, range(VOCAB), row) for key, row in lm.memo.items()}
    return lambda context: dists[context]


@pytest.mark.parametrize(("width", "distinct", "depth"), [(2, False, 2), (2, True, 2), (3, True, 1)])
def test_tree_rounds_commit_exact_samples_of_the_tree_pass_p(tiny_vocab_models, width, distinct, depth):
    """The verifier's exactness test (tests/core/tree_law.py: the real code on every integer draw) on p and q
    served by tree passes: the committed tokens follow p exactly, with Fractions."""
    target, draft = tiny_vocab_models
    prefix = (1, 2, 0)
    p_model = _tree_pass_model(target, prefix, depth + 1)
    q_model = _tree_pass_model(draft, prefix, depth)
    law = played_law(p_model, q_model, prefix, depth, width, distinct)
    assert sum(law.values()) == Fraction(1)
    assert extend(law, p_model, prefix, depth + 1, frozenset()) == autoregressive_law(p_model, prefix, depth + 1,
                                                                                      frozenset())
