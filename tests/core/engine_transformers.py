"""transformers' ``_speculative_sampling`` transcribed in numpy, as an independent check of ``specviz.core.ensemble``.

Source: transformers 5.24.0 (the version installed here), ``src/transformers/generation/utils.py``,
``_speculative_sampling(candidate_input_ids, candidate_logits, candidate_length, new_logits,
assistant_ensemble_weight)``, transcribed statement by statement for one sequence (batch size 1, as assisted
decoding requires), in float32 as the caller casts ``new_logits``. Two stand-ins, passed in: ``rand(n)`` for
``torch.rand_like`` and ``multinomial(probs)`` for ``torch.multinomial(probs, 1)`` (torch's own sampler is
not transcribed; the default is an inverse-CDF sample, the same law).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

FLOAT = np.float32


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


def inverse_cdf(probs: np.ndarray, u: float) -> int:
    """The first index whose cumulative probability exceeds u·sum (the default multinomial stand-in)."""
    cdf = np.cumsum(probs.astype(np.float64))
    return int(min(np.searchsorted(cdf, u * cdf[-1], side="right"), len(probs) - 1))


def speculative_sampling(candidate_tokens: list[int], candidate_logits: np.ndarray, new_logits: np.ndarray,
                         assistant_ensemble_weight: float | None, rand: Callable[[int], np.ndarray],
                         multinomial: Callable[[np.ndarray], int]) -> tuple[list[int], int]:
    """(valid_tokens, n_matches) for candidate_logits (gamma, V) and new_logits (gamma + 1, V)."""
    candidate_length = len(candidate_tokens)
    new_candidate_input_ids = np.asarray(candidate_tokens)
    q = softmax(candidate_logits.astype(FLOAT))
    q_i = q[np.arange(candidate_length), new_candidate_input_ids]
    p = softmax(new_logits.astype(FLOAT))
    p_i = p[np.arange(candidate_length), new_candidate_input_ids]
    if assistant_ensemble_weight is not None:
        w = FLOAT(assistant_ensemble_weight)
        probability_ratio = FLOAT(1.0) - w + w * (p_i / q_i)
    else:
        probability_ratio = p_i / q_i
    r_i = rand(candidate_length).astype(FLOAT)
    is_accepted = r_i <= probability_ratio
    n_matches = int(((~is_accepted).cumsum() < 1).sum())
    gamma = candidate_logits.shape[0]
    p_n_plus_1 = p[n_matches]
    if n_matches < gamma:
        q_n_plus_1 = q[n_matches]
        p_prime = np.clip(p_n_plus_1 - q_n_plus_1, 0, None)
        p_prime_sum = p_prime.sum()
        if assistant_ensemble_weight is not None and p_prime_sum <= np.finfo(FLOAT).tiny:
            p_prime = p_n_plus_1
        else:
            p_prime = p_prime / p_prime_sum
    else:
        p_prime = p_n_plus_1
    t = multinomial(p_prime)
    return [int(x) for x in new_candidate_input_ids[:n_matches]] + [t], n_matches


def log_probs(probs: np.ndarray) -> np.ndarray:
    """Logits whose softmax is probs (zeros become -inf)."""
    with np.errstate(divide="ignore"):
        return np.log(probs)
