"""A causal LM with one KV cache that serves next-token FP32 probabilities keyed by prefix."""

from __future__ import annotations

import copy
import time
from typing import Any

import numpy as np
import torch
from torch import nn

Prefix = tuple[int, ...]


def _common_length(a: list[int] | tuple[int, ...], b: tuple[int, ...]) -> int:
    """Length of the longest common prefix of a and b."""
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


def softmax_fp32(logits: torch.Tensor, temperature: float = 1.0) -> np.ndarray:
    """Logits (any dtype, any device) to FP32 probabilities on the CPU; the cast comes before the softmax."""
    logits = logits.float()
    if temperature != 1.0:
        logits = logits / temperature
    return torch.softmax(logits, dim=-1).cpu().numpy()


class CausalLM:
    """One model and one KV cache; `probs(prefix)` is the next-token distribution after prefix.

    Results are memoised by prefix, so within a round every position is computed once
    and the verifier sees a pure function of the prefix. `prefetch` computes a whole
    drafted block in one forward; `sync` rolls the cache back to the committed prefix.
    """

    def __init__(self, model: nn.Module, vocab_size: int, device: torch.device, temperature: float = 1.0):
        if not temperature > 0:
            raise ValueError(f"temperature must be > 0, got {temperature}")
        self.model = model
        self.temperature = float(temperature)
        self.vocab_size = vocab_size
        self.device = device
        self.cache: Any = None
        self.cached: list[int] = []
        self.memo: dict[Prefix, np.ndarray] = {}
        self.forwards = 0
        self.forward_seconds = 0.0
        self.tokens_scored = 0  # input positions fed to forwards (a pass over more tokens costs more)

    def probs(self, prefix: Prefix) -> np.ndarray:
        """FP32 next-token probabilities after prefix (length vocab_size)."""
        if prefix not in self.memo:
            self._run(prefix, len(prefix))
        return self.memo[prefix]

    def prefetch(self, prefix: Prefix, drafted: tuple[int, ...]) -> None:
        """Compute probs after prefix + drafted[:i] for every i in one forward."""
        seq = (*prefix, *drafted)
        for start in range(len(prefix), len(seq) + 1):
            if seq[:start] not in self.memo:
                self._run(seq, start)
                return

    def sync(self, committed: Prefix) -> None:
        """Forget memoised positions and roll the KV cache back to what committed still shares."""
        self.memo.clear()
        keep = _common_length(self.cached, committed[:-1])
        self._crop(keep)

    def reset(self) -> None:
        """Drop the cache and the memo."""
        self.cache, self.cached = None, []
        self.memo.clear()

    def _crop(self, keep: int) -> None:
        """Keep the first `keep` cached positions (rollback of a rejected tail)."""
        if self.cache is None or keep >= len(self.cached):
            return
        if keep == 0:
            self.cache, self.cached = None, []
            return
        try:
            self.cache.crop(keep - len(self.cached))
        except (RuntimeError, ValueError):
            self.cache, self.cached = None, []
            return
        del self.cached[keep:]

    @torch.no_grad()
    def _run(self, seq: Prefix, start: int) -> None:
        """One forward giving probs after seq[:j] for j = start..len(seq)."""
        if start < 1:
            raise ValueError("a prefix needs at least one token")
        self._crop(min(_common_length(self.cached, seq), start - 1))
        keep = len(self.cached)
        ids = torch.tensor([seq[keep:]], dtype=torch.long, device=self.device)
        began = time.perf_counter()
        out = self.model(input_ids=ids, cache=self.cache, use_cache=True)
        logits = out.logits[0, start - 1 - keep:, : self.vocab_size]
        probs = softmax_fp32(logits, self.temperature)
        self.forward_seconds += time.perf_counter() - began
        self.forwards += 1
        self.tokens_scored += ids.shape[1]
        self.cache = out.cache
        self.cached = list(seq)
        width = probs.shape[-1]
        for j in range(start, len(seq) + 1):
            row = probs[j - start]
            if width < self.vocab_size:
                row = np.pad(row, (0, self.vocab_size - width))
            self.memo[seq[:j]] = row

    @torch.no_grad()
    def probs_uncached(self, prefix: Prefix) -> np.ndarray:
        """Reference path: a full forward without any cache (for tests)."""
        ids = torch.tensor([prefix], dtype=torch.long, device=self.device)
        logits = self.model(input_ids=ids, use_cache=False).logits[0, -1, : self.vocab_size]
        return softmax_fp32(logits, self.temperature)


def _decoder(model: nn.Module) -> tuple[str, nn.Module, str]:
    """(attribute of the base model, the base model, attribute of its layer list)."""
    for base_name in ("model", "transformer", "gpt_neox", "decoder"):
        base = getattr(model, base_name, None)
        for layers_name in ("layers", "h", "blocks"):
            if isinstance(getattr(base, layers_name, None), nn.ModuleList):
                return base_name, base, layers_name
    raise ValueError(f"early exit: cannot find the decoder layers of {type(model).__name__}")


def _shallow(module: nn.Module) -> nn.Module:
    """A new module object sharing parameters and submodules, with its own submodule table."""
    view = copy.copy(module)
    view._modules = dict(module._modules)
    return view


def early_exit_view(model: nn.Module, layers: int) -> nn.Module:
    """The first `layers` decoder layers + the final norm + the LM head, sharing the weights."""
    base_name, base, layers_name = _decoder(model)
    total = len(getattr(base, layers_name))
    if not 1 <= layers <= total:
        raise ValueError(f"early exit needs 1..{total} layers, got {layers}")
    config = copy.deepcopy(model.config)
    text = config.get_text_config()
    text.num_hidden_layers = layers
    if isinstance(getattr(text, "layer_types", None), list):
        text.layer_types = text.layer_types[:layers]
    base_view = _shallow(base)
    base_view._modules[layers_name] = nn.ModuleList(list(getattr(base, layers_name))[:layers])
    base_view.config = text
    view = _shallow(model)
    view._modules[base_name] = base_view
    view.config = config
    return view
