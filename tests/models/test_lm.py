"""The KV-cached LM: cached and uncached paths give the same distributions, rollback included."""

from __future__ import annotations

import numpy as np
import pytest

from specviz.models.lm import CausalLM, early_exit_view


def _random_walk(lm: CausalLM, rng: np.random.Generator, rounds: int = 6) -> None:
    """Draft-verify-rollback rounds with random tokens; every served distribution matches a cold forward."""
    committed = tuple(int(t) for t in rng.integers(0, lm.vocab_size - 1, size=5))
    for _ in range(rounds):
        drafted = tuple(int(t) for t in rng.integers(0, lm.vocab_size - 1, size=int(rng.integers(1, 5))))
        lm.prefetch(committed, drafted)
        forwards = lm.forwards
        for i in range(len(drafted) + 1):
            prefix = committed + drafted[:i]
            np.testing.assert_allclose(lm.probs(prefix), lm.probs_uncached(prefix), rtol=1e-4, atol=1e-6)
        assert lm.forwards == forwards  # verify's calls are served from the prefetched block
        keep = int(rng.integers(0, len(drafted) + 1))
        committed = committed + drafted[:keep] + (int(rng.integers(0, lm.vocab_size - 1)),)
        lm.sync(committed)
        assert len(lm.cached) <= len(committed) - 1


@pytest.mark.parametrize("fixture", ["tiny", "tiny_llama"])
def test_cached_equals_uncached(fixture, request):
    loaded = request.getfixturevalue(fixture)
    lm = CausalLM(loaded.model, loaded.vocab_size, loaded.device)
    _random_walk(lm, np.random.default_rng(0))


def test_cached_equals_uncached_with_temperature(tiny_llama):
    lm = CausalLM(tiny_llama.model, tiny_llama.vocab_size, tiny_llama.device, temperature=0.7)
    _random_walk(lm, np.random.default_rng(1), rounds=3)


def test_probabilities_are_a_softmax_over_the_vocabulary(tiny):
    lm = CausalLM(tiny.model, tiny.vocab_size, tiny.device)
    probs = lm.probs((1, 2, 3))
    assert probs.shape == (50257,) and probs.dtype == np.float32
    assert abs(float(probs.sum(dtype=np.float64)) - 1) < 1e-4


@pytest.mark.parametrize("fixture", ["tiny", "tiny_llama"])
def test_early_exit_view(fixture, request):
    loaded = request.getfixturevalue(fixture)
    prefix = (5, 6, 7, 8)
    full = CausalLM(loaded.model, loaded.vocab_size, loaded.device).probs(prefix)
    same = CausalLM(early_exit_view(loaded.model, 2), loaded.vocab_size, loaded.device).probs(prefix)
    one = CausalLM(early_exit_view(loaded.model, 1), loaded.vocab_size, loaded.device)
    np.testing.assert_array_equal(full, same)
    assert np.abs(one.probs(prefix) - full).max() > 1e-6
    _random_walk(one, np.random.default_rng(2), rounds=3)
    assert len(loaded.model.config.get_text_config().to_dict()) and loaded.n_layers == 2  # the model is untouched
    with pytest.raises(ValueError, match="early exit needs"):
        early_exit_view(loaded.model, 3)
