"""The bundled SmolLM2-135M-Instruct (installed by `make test`): loaded once for this module."""

from __future__ import annotations

import numpy as np
import pytest

from specviz.models import Settings, generate, parse_draft
from specviz.models.lm import CausalLM
from specviz.models.text import token_pieces

pytestmark = pytest.mark.slow
PROMPT = "Name three colours."


def test_loads_with_its_vocabulary(smollm2):
    assert smollm2.vocab_size == 49152
    assert smollm2.n_layers == 30
    assert smollm2.is_chat and 2 in smollm2.stop_ids


def test_same_seed_same_text(smollm2):
    settings = Settings(depth=3, seed=7, max_new_tokens=8)
    a = generate(smollm2, PROMPT, parse_draft("early-exit:20"), settings, top_n=None)
    b = generate(smollm2, PROMPT, parse_draft("early-exit:20"), settings, top_n=None)
    assert a.tokens == b.tokens and a.origins == b.origins
    assert "".join(token_pieces(smollm2.tokenizer, a.tokens)) == smollm2.tokenizer.decode(a.tokens)


def test_short_generations_commit_tokens_of_every_kind(smollm2):
    origins: set[str] = set()
    for seed in range(1, 5):
        gen = generate(smollm2, PROMPT, parse_draft("target:temperature=1.5"),
                       Settings(depth=3, seed=seed, max_new_tokens=12), top_n=None)
        origins.update(gen.origins)
        if origins == {"accepted", "correction", "bonus"}:
            break
    assert origins == {"accepted", "correction", "bonus"}


def test_trace_p_is_the_target_softmax_at_that_prefix(smollm2):
    gen = generate(smollm2, PROMPT, parse_draft("early-exit:12"), Settings(depth=2, seed=3, max_new_tokens=4),
                   keep_raw=True)
    cold = CausalLM(smollm2.model, smollm2.vocab_size, smollm2.device)
    events = [e for r in gen.rounds for e in r.trace.events if e.kind in ("check", "bonus")]
    assert events
    for event in events[:4]:
        np.testing.assert_allclose(event.p.to_numpy(), cold.probs_uncached(event.prefix), rtol=1e-4, atol=1e-6)
