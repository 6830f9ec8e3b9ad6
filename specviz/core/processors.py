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

from .arithmetic import check_categorical
from .categorical import Categorical, fp32_weights
from .errors import ProcessorError
from .verifier import Prefix, Processor, processed

_LARGEST_TEMPERATURE = float(np.finfo(np.float64).max)


def _given(distribution: object) -> None:
    check_categorical(distribution, "the distribution a processor is given")


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"an int of {len(text)} digits"


@dataclass(frozen=True)
class Temperature:
    """Softmax(log p / t) quantized to FP32; t = 1 returns p unchanged."""

    t: float

    def __post_init__(self) -> None:
        value = self.t
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ProcessorError(f"temperature must be a number, got {value!r} of type {type(value).__name__}; "
                                 "use 1 for no change")
        # ints beyond the float range cannot scale float logits; tiny positive values mean near-greedy
        if not 0 < value <= _LARGEST_TEMPERATURE or (isinstance(value, float) and not math.isfinite(value)):
            raise ProcessorError(
                f"temperature must be in (0, {_LARGEST_TEMPERATURE:g}] (a positive finite float), got {_short(value)}; "
                "use 1 for no change, a small value such as 0.01 for near-greedy"
            )

    def __call__(self, prefix: Prefix, distribution: Categorical) -> Categorical:
        _given(distribution)
        if self.t == 1:
            return distribution
        probs = distribution.to_numpy()
        support = probs > 0
        t = float(self.t)
        logits = np.full(probs.shape, -np.inf)
        with np.errstate(over="ignore", under="ignore"):
            logits[support] = np.log(probs[support]) / t
            top = logits[support].max()
            if not np.isfinite(top):
                # a tiny t sends every log p < 0 to -inf: scale the gaps to the mode instead, which
                # keeps the mode (and exact ties with it) at weight 1: near-greedy, as t -> 0 means
                logs = np.log(probs[support])
                logits[support] = (logs - logs.max()) / t
                top = 0.0
            weights = np.exp(logits - top)
        return fp32_weights(distribution.vocab_size, range(distribution.vocab_size), weights)


@dataclass(frozen=True)
class TopK:
    """Keep the k most probable tokens (ties: smaller id), renormalized exactly."""

    k: int

    def __post_init__(self) -> None:
        if type(self.k) is not int or self.k < 1:
            raise ProcessorError(f"top-k must be an int >= 1, got {self.k!r}")

    def __call__(self, prefix: Prefix, distribution: Categorical) -> Categorical:
        _given(distribution)
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
        _given(distribution)
        if self.top_p == 1:
            return distribution
        kept = distribution.nucleus_size(Fraction(self.top_p))
        return distribution.sparse_topk(kept)


@dataclass(frozen=True)
class Mask:
    """Zero every token whose flag is False (a grammar or an allow-list), renormalized."""

    allowed: tuple[bool, ...]

    def __call__(self, prefix: Prefix, distribution: Categorical) -> Categorical:
        _given(distribution)
        return distribution.masked(self.allowed)


@dataclass(frozen=True)
class Compose:
    """Apply processors left to right."""

    steps: tuple[Processor, ...]

    def __call__(self, prefix: Prefix, distribution: Categorical) -> Categorical:
        for step in self.steps:
            distribution = processed(step, prefix, distribution)
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
