"""Target processors that compose: temperature, top-k, top-p and boolean masks.

Each is a pure function of (prefix, distribution) -> distribution. Temperature is
the only float step: it rescales log-probabilities (the logits up to a constant)
and quantizes the softmax to FP32 *before* the exact stage, as the reference's
fp32_weights prescribes. Top-k, top-p and masks are exact.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .categorical import Categorical, fp32_weights
from .errors import ProcessorError
from .verifier import Prefix, Processor


@dataclass(frozen=True)
class Temperature:
    """Softmax(log p / t) quantized to FP32; t = 1 returns p unchanged."""

    t: float

    def __post_init__(self) -> None:
        if isinstance(self.t, bool) or not isinstance(self.t, (int, float)) or not math.isfinite(self.t) or self.t <= 0:
            raise ProcessorError(f"temperature must be a finite number > 0, got {self.t!r}; use 1 for no change")

    def __call__(self, prefix: Prefix, distribution: Categorical) -> Categorical:
        if self.t == 1:
            return distribution
        probs = distribution.to_numpy()
        support = probs > 0
        logits = np.full(probs.shape, -np.inf)
        logits[support] = np.log(probs[support]) / self.t
        weights = np.exp(logits - logits[support].max())
        return fp32_weights(distribution.vocab_size, range(distribution.vocab_size), weights)


@dataclass(frozen=True)
class TopK:
    """Keep the k most probable tokens (ties: smaller id), renormalized exactly."""

    k: int

    def __post_init__(self) -> None:
        if type(self.k) is not int or self.k < 1:
            raise ProcessorError(f"top-k must be an int >= 1, got {self.k!r}")

    def __call__(self, prefix: Prefix, distribution: Categorical) -> Categorical:
        return distribution.sparse_topk(min(self.k, distribution.vocab_size))


@dataclass(frozen=True)
class TopP:
    """Keep the smallest most-probable set whose exact mass reaches top_p (nucleus sampling)."""

    top_p: float

    def __post_init__(self) -> None:
        value = self.top_p
        if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)) or not 0 < value <= 1:
            raise ProcessorError(f"top-p must be in (0, 1], got {value!r}; use 1 for no change")

    def __call__(self, prefix: Prefix, distribution: Categorical) -> Categorical:
        if self.top_p == 1:
            return distribution
        kept = distribution.nucleus_size(Fraction(self.top_p))
        return distribution.sparse_topk(kept)


@dataclass(frozen=True)
class Mask:
    """Zero every token whose flag is False (a grammar or an allow-list), renormalized."""

    allowed: tuple[bool, ...]

    def __call__(self, prefix: Prefix, distribution: Categorical) -> Categorical:
        return distribution.masked(self.allowed)


@dataclass(frozen=True)
class Compose:
    """Apply processors left to right."""

    steps: tuple[Processor, ...]

    def __call__(self, prefix: Prefix, distribution: Categorical) -> Categorical:
        for step in self.steps:
            distribution = step(prefix, distribution)
        return distribution


def temperature(t: float) -> Temperature:
    return Temperature(t)


def top_k(k: int) -> TopK:
    return TopK(k)


def top_p(p: float) -> TopP:
    return TopP(p)


def mask(allowed: Sequence[bool]) -> Mask:
    return Mask(tuple(allowed))


def compose(*steps: Processor) -> Compose:
    return Compose(tuple(steps))
