"""A causal LM with one KV cache that serves next-token FP32 probabilities keyed by prefix."""

from __future__ import annotations

import copy
import inspect
import time
import weakref
from collections.abc import Iterable
from typing import Any

import numpy as np
import torch
from torch import nn

from specviz.models.model_errors import ModelSettingError
from specviz.models.tree_attention import (
    TreeSupport,
    full_cache,
    gather_positions,
    is_prefix,
    layer_windows,
    model_dtype_of,
    plain_kv_cache,
    tree_masks,
    tree_support,
    visibility,
)

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
    drafted block in one forward; `prefetch_tree` a whole draft tree (see
    specviz.models.tree_attention); `sync` rolls the cache back to the committed prefix,
    keeping an accepted tree path's keys and values where the cache allows it.

    The cache holds `cached` (a plain sequence) and, after a tree pass, `tree_keys`: the
    tree's entries after it, each named by its whole sequence (its key). `tree` forces the
    tree scoring on (True) or off (False); None asks the model's self-check.
    """

    def __init__(self, model: nn.Module, vocab_size: int, device: torch.device, temperature: float = 1.0, *,
                 tree: bool | TreeSupport | None = None):
        if not temperature > 0:
            raise ModelSettingError(f"temperature must be > 0, got {temperature}")
        self.model = model
        self.temperature = float(temperature)
        self.vocab_size = vocab_size
        self.device = device
        self.cache: Any = None
        self.cached: list[int] = []
        self.tree_keys: list[Prefix] = []
        self.memo: dict[Prefix, np.ndarray] = {}
        self.forwards = 0
        self.forward_seconds = 0.0
        self.tokens_scored = 0  # input positions fed to forwards (a pass over more tokens costs more)
        self._tree = TreeSupport(tree, "forced", gather=tree) if isinstance(tree, bool) else tree
        self.windows = layer_windows(model)  # sliding windows per layer type (None: one mask for every layer)
        self._keeps_logits = _takes_logits_to_keep(model)

    @property
    def tree_support(self) -> TreeSupport:
        """How this model scores a tree (the self-check runs on first use, once per model object)."""
        if self._tree is None:
            self._tree = tree_support(self.model, self.vocab_size, self.device, CausalLM)
        return self._tree

    def probs(self, prefix: Prefix) -> np.ndarray:
        """FP32 next-token probabilities after prefix (length vocab_size)."""
        if prefix not in self.memo:
            if self.tree_keys and len(prefix) > len(self.cached) and is_prefix(tuple(self.cached), prefix):
                self._run_tree(tuple(self.cached), [prefix])  # a node of the tree being drafted
            else:
                self._run(prefix, len(prefix))
        return self.memo[prefix]

    def prefetch(self, prefix: Prefix, drafted: tuple[int, ...]) -> None:
        """Compute probs after prefix + drafted[:i] for every i in one forward."""
        seq = (*prefix, *drafted)
        for start in range(len(prefix), len(seq) + 1):
            if seq[:start] not in self.memo:
                self._run(seq, start)
                return

    def prefetch_tree(self, prefix: Prefix, paths: Iterable[tuple[int, ...]]) -> None:
        """Compute probs after prefix and after prefix + every prefix of every path (a draft tree's nodes).

        One forward with a tree mask where the model supports it (`tree_support`), else one forward per
        root-to-leaf path, in sorted order. Either way rows are fed in sorted order, so p at a node does
        not depend on the order siblings were drawn in.
        """
        keys = {prefix + path[:i] for path in paths for i in range(len(path) + 1)}
        missing = sorted(key for key in keys if key not in self.memo)
        if not missing:
            return
        if self.tree_support.one_pass:
            self._run_tree(prefix, missing)
            return
        leaves = [key for key in missing if not any(len(o) > len(key) and o[: len(key)] == key for o in missing)]
        for leaf in leaves:
            self.prefetch(prefix, leaf[len(prefix):])

    def sync(self, committed: Prefix) -> None:
        """Forget memoised positions and roll the KV cache back to what committed still shares."""
        self.memo.clear()
        if self.tree_keys:
            self._keep_path(committed[:-1])
        keep = _common_length(self.cached, committed[:-1])
        self._crop(keep)

    def reset(self) -> None:
        """Drop the cache and the memo."""
        self.cache, self.cached, self.tree_keys = None, [], []
        self.memo.clear()

    def _crop(self, keep: int) -> None:
        """Keep the first `keep` plain cached positions and drop every tree entry (rollback of a rejected tail)."""
        if self.cache is None or (keep >= len(self.cached) and not self.tree_keys):
            return
        keep = min(keep, len(self.cached))
        if keep == 0:
            self.reset_cache()
            return
        try:
            self.cache.crop(keep - len(self.cached) - len(self.tree_keys))
        except (RuntimeError, ValueError):
            self.reset_cache()
            return
        del self.cached[keep:]
        self.tree_keys = []

    def reset_cache(self) -> None:
        """Drop the KV cache (the memo stays)."""
        self.cache, self.cached, self.tree_keys = None, [], []

    def _keep_path(self, target: Prefix) -> None:
        """After a tree pass: keep the tree entries on target's path as plain cache (gather), drop the rest."""
        base = tuple(self.cached)
        path = sorted((key for key in self.tree_keys if is_prefix(key, target)), key=len)
        if not path or not self.tree_support.gather or not plain_kv_cache(self.cache):
            self._crop(len(self.cached))
            return
        positions = list(range(len(base))) + [len(base) + self.tree_keys.index(key) for key in path]
        if positions == list(range(len(positions))):  # already in place: cropping the rest is enough
            self.cache.crop(len(positions) - len(base) - len(self.tree_keys))
        else:
            gather_positions(self.cache, positions, self.device)
        self.cached = list(path[-1])
        self.tree_keys = []

    def _forward(self, wanted: int, **inputs: Any) -> Any:
        """The model's forward over the cache, with logits for the last `wanted` rows only where it can (a row of
        Gemma's 262,144 logits costs more than its 18 layers)."""
        if self.cache is None:
            self.cache = full_cache(self.model)  # sliding windows as masks: every position kept (None: the model's)
        if self._keeps_logits:
            inputs["logits_to_keep"] = wanted
        return self.model(cache=self.cache, use_cache=True, **inputs)

    @torch.no_grad()
    def _run(self, seq: Prefix, start: int) -> None:
        """One forward giving probs after seq[:j] for j = start..len(seq)."""
        if start < 1:
            raise AssertionError("a prefix needs at least one token")  # callers hold the prompt
        self._crop(min(_common_length(self.cached, seq), start - 1))
        keep = len(self.cached)
        ids = torch.tensor([seq[keep:]], dtype=torch.long, device=self.device)
        wanted = len(seq) - start + 1
        began = time.perf_counter()
        out = self._forward(wanted, input_ids=ids)
        logits = out.logits[0, -wanted:, : self.vocab_size]
        probs = softmax_fp32(logits, self.temperature)
        self.forward_seconds += time.perf_counter() - began
        self.forwards += 1
        self.tokens_scored += ids.shape[1]
        self.cache = out.cache
        self.cached = list(seq)
        for j in range(start, len(seq) + 1):
            self.memo.setdefault(seq[:j], self._padded(probs[j - start]))

    @torch.no_grad()
    def _run_tree(self, root: Prefix, missing: list[Prefix]) -> None:
        """One forward with a tree mask giving probs after every key in missing (each extends root or is root)."""
        root_needed = root in missing
        if self.tree_keys and (tuple(self.cached) != root or root_needed):
            self._crop(len(self.cached))
        if not self.tree_keys:
            self._crop(min(_common_length(self.cached, root), len(root) - root_needed))
        if not root:
            raise AssertionError("a prefix needs at least one token")  # callers hold the prompt
        present = set(self.tree_keys)
        nodes = {key for key in missing if len(key) > len(root)}
        for key in list(nodes):  # ancestors neither cached nor asked for are fed too
            nodes.update(key[:n] for n in range(len(root) + 1, len(key)) if key[:n] not in present)
        rows = [root[: j + 1] for j in range(len(self.cached), len(root))] + sorted(nodes)
        base = len(self.cached)
        seen = visibility(base, len(root), self.tree_keys, rows)
        at = np.array([len(key) - 1 for key in rows])  # a row's position: its prefix length plus its depth - 1
        columns = np.concatenate([np.arange(base), [len(key) - 1 for key in self.tree_keys], at]).astype(int)
        mask = tree_masks(seen, columns, at, self.windows, model_dtype_of(self.model), self.device)
        ids = torch.tensor([[key[-1] for key in rows]], dtype=torch.long, device=self.device)
        positions = torch.tensor([at.tolist()], dtype=torch.long, device=self.device)
        first = len(rows) - len(nodes) - (1 if root_needed else 0)  # the first row whose probs are wanted
        began = time.perf_counter()
        out = self._forward(len(rows) - first, input_ids=ids, position_ids=positions, attention_mask=mask)
        probs = softmax_fp32(out.logits[0, -(len(rows) - first):, : self.vocab_size], self.temperature)
        self.forward_seconds += time.perf_counter() - began
        self.forwards += 1
        self.tokens_scored += len(rows)
        self.cache = out.cache
        self.cached = list(root)
        self.tree_keys += sorted(nodes)
        for key, row in zip(rows[first:], probs):  # a p already served this round never changes
            self.memo.setdefault(key, self._padded(row))

    def _padded(self, row: np.ndarray) -> np.ndarray:
        """A probability row at the full vocabulary size (an LM head narrower than the tokenizer pads with 0)."""
        width = row.shape[-1]
        return row if width >= self.vocab_size else np.pad(row, (0, self.vocab_size - width))

    @torch.no_grad()
    def probs_uncached(self, prefix: Prefix) -> np.ndarray:
        """Reference path: a full forward without any cache (for tests)."""
        ids = torch.tensor([prefix], dtype=torch.long, device=self.device)
        keep = {"logits_to_keep": 1} if self._keeps_logits else {}
        logits = self.model(input_ids=ids, use_cache=False, **keep).logits[0, -1, : self.vocab_size]
        return softmax_fp32(logits, self.temperature)


def _takes_logits_to_keep(model: nn.Module) -> bool:
    """True when the model's forward names logits_to_keep (transformers' causal LMs)."""
    try:
        return "logits_to_keep" in inspect.signature(model.forward).parameters
    except (TypeError, ValueError):  # a forward without a signature to read
        return False


def _decoder(model: nn.Module) -> tuple[str, nn.Module, str]:
    """(attribute of the base model, the base model, attribute of its layer list)."""
    for base_name in ("model", "transformer", "gpt_neox", "decoder"):
        base = getattr(model, base_name, None)
        for layers_name in ("layers", "h", "blocks"):
            if isinstance(getattr(base, layers_name, None), nn.ModuleList):
                return base_name, base, layers_name
    raise ModelSettingError(f"early exit: cannot find the decoder layers of {type(model).__name__}; pick another draft")


def _shallow(module: nn.Module) -> nn.Module:
    """A new module object sharing parameters and submodules, with its own submodule table."""
    view = copy.copy(module)
    view._modules = dict(module._modules)
    return view


_VIEWS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def early_exit_view(model: nn.Module, layers: int) -> nn.Module:
    """The first `layers` decoder layers + the final norm + the LM head, sharing the weights.

    One view per model and layer count, made once: every session drafting with it shares it (and
    its tree self-check, which is memoised per model object).
    """
    views = _VIEWS.setdefault(model, {})
    if layers not in views:
        views[layers] = _early_exit_view(model, layers)
    return views[layers]


def _early_exit_view(model: nn.Module, layers: int) -> nn.Module:
    base_name, base, layers_name = _decoder(model)
    total = len(getattr(base, layers_name))
    if not 1 <= layers <= total:
        raise ModelSettingError(f"early exit needs 1..{total} layers, got {layers}")
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
