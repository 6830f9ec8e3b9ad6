"""The bundled SmolLM2-135M-Instruct (installed by `make test`): loaded once for this module."""

from __future__ import annotations

import numpy as np
import pytest

from specviz.models import GenerationSettings, generate, parse_draft
from specviz.models.lm import CausalLM
from specviz.models.text import token_pieces

pytestmark = pytest.mark.slow
PROMPT = "Name three colours."


def test_loads_with_its_vocabulary(smollm2):
    assert smollm2.vocab_size == 49152
    assert smollm2.n_layers == 30
    assert smollm2.is_chat and 2 in smollm2.stop_ids


def test_same_seed_same_text(smollm2):
    settings = GenerationSettings(depth=3, seed=7, max_new_tokens=8)
    a = generate(smollm2, PROMPT, parse_draft("early-exit:20"), settings, top_n=None)
    b = generate(smollm2, PROMPT, parse_draft("early-exit:20"), settings, top_n=None)
    assert a.tokens == b.tokens and a.origins == b.origins
    assert "".join(token_pieces(smollm2.tokenizer, a.tokens)) == smollm2.tokenizer.decode(a.tokens)


def test_short_generations_commit_tokens_of_every_kind(smollm2):
    origins: set[str] = set()
    for seed in range(1, 5):
        gen = generate(smollm2, PROMPT, parse_draft("target:temperature=1.5"),
                       GenerationSettings(depth=3, seed=seed, max_new_tokens=12), top_n=None)
        origins.update(gen.origins)
        if origins == {"accepted", "correction", "bonus"}:
            break
    assert origins == {"accepted", "correction", "bonus"}


def test_trace_p_is_the_target_softmax_at_that_prefix(smollm2):
    gen = generate(smollm2, PROMPT, parse_draft("early-exit:12"), GenerationSettings(depth=2, seed=3, max_new_tokens=4),
                   keep_raw=True)
    cold = CausalLM(smollm2.model, smollm2.vocab_size, smollm2.device)
    events = [e for r in gen.rounds for e in r.trace.events if e.kind in ("check", "bonus")]
    assert events
    for event in events[:4]:
        np.testing.assert_allclose(event.p.to_numpy(), cold.probs_uncached(event.prefix), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("implementation", ["sdpa", "eager"])
def test_one_tree_pass_gives_every_node_the_path_by_path_p(smollm2, implementation):
    """Issue 27 on the real model: a tree of 10 nodes over a 40-token cache, within 1e-5 of each path scored alone."""
    from specviz.models.tree_attention import tree_support

    assert tree_support(smollm2.model, smollm2.vocab_size, smollm2.device, CausalLM).one_pass
    smollm2.model.set_attn_implementation(implementation)
    try:
        lm = CausalLM(smollm2.model, smollm2.vocab_size, smollm2.device, tree=True)
        prefix = tuple(range(1000, 1040))
        lm.probs(prefix[:-1])
        paths = [(9, 10, 11), (9, 12), (13,), (13, 14, 15), (16, 9), (13, 14, 17)]
        lm.prefetch_tree(prefix, paths)
        assert lm.forwards == 2
        keys = {prefix + p[:i] for p in paths for i in range(len(p) + 1)}
        worst = max(float(np.abs(lm.memo[k] - lm.probs_uncached(k)).max()) for k in keys)
        assert worst <= 1e-5, worst
    finally:
        smollm2.model.set_attn_implementation("sdpa")


def test_a_lookup_tree_generation_uses_one_target_pass_per_round(smollm2):
    settings = GenerationSettings(depth=4, seed=2, max_new_tokens=16, temperature=0.5,
                                  verification="multi-distinct:2")
    gen = generate(smollm2, "Repeat exactly: one two three, one two four, one two five.", parse_draft("lookup:3"),
                   settings, top_n=None)
    assert gen.tree_scoring.one_pass and sum(r.target_forwards for r in gen.rounds) == len(gen.rounds)
    assert any(r.nodes > r.depth for r in gen.rounds)  # some round drafted disagreeing continuations
