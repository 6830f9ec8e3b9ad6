"""Medusa's typical acceptance transcribed in numpy, as an independent check of ``specviz.core.medusa``.

Source: FasterDecoding/Medusa at commit e2a5d20c048a9b0a4092e6933c34313687422518, ``medusa/model/utils.py``:
``evaluate_posterior`` (its ``sampling == 'typical'`` branches), ``get_typical_posterior_mask``,
``get_typical_one_token``, and the first-token choice of ``generate_candidates`` (``argmax`` when
``temperature == 0 or fast``, else ``get_typical_one_token``); ``update_inference_inputs`` keeps
``candidates[best, :accept_length + 1]`` and the logits at ``accept_length``, from which the next round's
first token is chosen. float32 throughout (torch.softmax of float32 logits). ``torch.multinomial`` is a
stand-in ``multinomial(probs) -> index`` (its own sampler is not transcribed). ``evaluate_posterior`` passes
``get_typical_posterior_mask`` a sixth positional argument (``fast``) that its five-parameter signature does
not take; ``evaluate_posterior_slow`` calls it with the five it has.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

FLOAT = np.float32


def softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=-1, keepdims=True)


def _threshold(probs: np.ndarray, posterior_threshold: float, posterior_alpha: float) -> np.ndarray:
    entropy = -np.sum(probs * np.log(probs + FLOAT(1e-5)), axis=-1)
    return np.minimum(np.ones_like(entropy) * FLOAT(posterior_threshold), np.exp(-entropy) * FLOAT(posterior_alpha))


def evaluate_posterior_fast(logits: np.ndarray, candidates: np.ndarray, temperature: float,
                            posterior_threshold: float, posterior_alpha: float) -> tuple[int, int]:
    """evaluate_posterior(..., sampling='typical', fast=True): (best_candidate, accept_length)."""
    posterior_prob = softmax(logits[:, :-1].astype(FLOAT) / FLOAT(temperature))
    candidates_prob = np.take_along_axis(posterior_prob, candidates[:, 1:, None], axis=-1)[..., 0]
    threshold = _threshold(posterior_prob, posterior_threshold, posterior_alpha)
    posterior_mask = candidates_prob > threshold
    candidates_accept_length = np.cumprod(posterior_mask, axis=1).sum(axis=1)
    accept_length = int(candidates_accept_length.max())
    if accept_length == 0:
        return 0, 0
    best_candidates = np.flatnonzero(candidates_accept_length == accept_length)
    likelihood = np.sum(np.log(candidates_prob[best_candidates, :accept_length]), axis=-1)
    return int(best_candidates[np.argmax(likelihood)]), accept_length


def get_typical_posterior_mask(logits, candidates, temperature, posterior_threshold, posterior_alpha,
                               multinomial: Callable[[np.ndarray], int]) -> np.ndarray:
    logits = logits[:, :-1].astype(FLOAT) / FLOAT(temperature)
    n_samples, n_tokens = logits.shape[0], logits.shape[1]
    logits = logits.reshape(n_samples * n_tokens, -1)
    probs = softmax(logits)
    threshold = _threshold(probs, posterior_threshold, posterior_alpha)
    indices_to_remove = probs < threshold[:, None]
    logits = np.where(indices_to_remove, -np.inf, logits)
    sampled_tokens = np.array([multinomial(row) for row in softmax(logits)]).reshape(n_samples, n_tokens)
    return (candidates[:, 1:] == sampled_tokens).astype(int)


def evaluate_posterior_slow(logits, candidates, temperature, posterior_threshold, posterior_alpha,
                            multinomial: Callable[[np.ndarray], int]) -> tuple[int, int]:
    """evaluate_posterior(..., sampling='typical', fast=False), with the mask called on its five arguments."""
    posterior_mask = get_typical_posterior_mask(logits, candidates, temperature, posterior_threshold,
                                                posterior_alpha, multinomial)
    candidates_accept_length = np.cumprod(posterior_mask, axis=1).sum(axis=1)
    accept_length = int(candidates_accept_length.max())
    if accept_length == 0:
        return 0, 0
    return int(np.argmax(candidates_accept_length)), accept_length


def get_typical_one_token(logit, temperature, posterior_threshold, posterior_alpha,
                          multinomial: Callable[[np.ndarray], int]) -> int:
    logit = logit.astype(FLOAT) / FLOAT(temperature)
    probs = softmax(logit)
    threshold = _threshold(probs, posterior_threshold, posterior_alpha)
    logit = np.where(probs < threshold, -np.inf, logit)
    return multinomial(softmax(logit))


def first_candidate(logit, temperature, posterior_threshold, posterior_alpha, fast, multinomial) -> int:
    """generate_candidates' choice of the first candidate from the target's logits at the last position."""
    if temperature == 0 or fast:
        return int(np.argmax(logit))
    return get_typical_one_token(logit, temperature, posterior_threshold, posterior_alpha, multinomial)


def medusa_round(target_rows: np.ndarray, drafts: list[int], posterior_threshold: float, posterior_alpha: float,
                 fast: bool, multinomial: Callable[[np.ndarray], int], base: int = 0) -> tuple[tuple[int, ...], int]:
    """One round on a single candidate chain: (the tokens committed after the base token, accept_length).

    ``target_rows[i]`` are the target's probabilities after the base token and drafts[:i] (g + 1 rows); the
    committed tokens are the accepted drafts and the next round's first candidate.
    """
    logits = np.log(np.maximum(target_rows, 1e-38)).astype(FLOAT)[None]
    candidates = np.array([[base, *drafts]])
    if fast:
        best, accept_length = evaluate_posterior_fast(logits, candidates, 1.0, posterior_threshold, posterior_alpha)
    else:
        best, accept_length = evaluate_posterior_slow(logits, candidates, 1.0, posterior_threshold,
                                                      posterior_alpha, multinomial)
    following = first_candidate(logits[best, accept_length], 1.0, posterior_threshold, posterior_alpha, fast,
                                multinomial)
    return (*drafts[:accept_length], following), accept_length


def inverse_cdf(probs: np.ndarray, u: float) -> int:
    cdf = np.cumsum(probs.astype(np.float64))
    return int(min(np.searchsorted(cdf, u * cdf[-1], side="right"), len(probs) - 1))
