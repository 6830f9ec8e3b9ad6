"""Scoring a whole draft tree in one forward: the tree attention mask, the KV gather, and the self-check.

A tree pass feeds every node of a draft tree (and, first, the prefix tokens not cached yet) in one
forward over the prefix's KV cache. Each row may attend to the cached prefix, to its own ancestors
and to itself, never to a sibling or a cousin; its position is the cached length plus its depth.
The mask is a float tensor of 0 (visible) and finfo(dtype).min (hidden), added to the attention
scores: sdpa and eager attention both take it, and eager with a *boolean* mask would add 1 and 0
(silently wrong, which the self-check would catch).

Sliding-window layers (Gemma 3: five of every six layers see only the last 512 positions) get the
tree mask composed with their window: a row at position i sees a key at position j only when j > i − W,
positions going by depth in the tree, as transformers' own ``sliding_window_overlay`` decides it for a
chain. The model then receives one mask per layer type (``{"full_attention": …, "sliding_attention":
…}``, the form its forward accepts), and its KV cache keeps every position in every layer (a
``DynamicCache`` without the model's config: plain per-token layers), so that a window is a mask, never
a cache that forgets, and crop and gather stay exact.

Whether a model scores trees this way correctly is decided once per model object by
``tree_support``: a probe tree (siblings, cousins, depth 2) scored in one pass against the same nodes
scored path by path (one forward per root-to-leaf path, the model building its own masks), with a
prefix longer than the sliding window where there is one, so that the window's edge falls inside the
probe. A model whose attention implementation takes no custom mask (flash attention, flex attention),
whose sliding window it cannot be told per layer type, whose cache is not a plain per-token KV cache
(state-space layers) or whose probe disagrees falls back to one forward per root-to-leaf path, and
says so (``TreeSupport.reason``).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

Key = tuple[int, ...]
MASKABLE = ("sdpa", "eager")  # attention implementations that add a custom 4D mask to their scores
PROBE_PREFIX = 6  # tokens of the self-check's prefix (a sliding window's length + 3 where the model has one)
FULL, SLIDING = "full_attention", "sliding_attention"  # the layer types whose masks the tree pass composes
MAX_PROBED_WINDOW = 1024  # a longer sliding window would make the self-check's prefix too long to score at load
TOLERANCE = {torch.float32: 1e-4, torch.float64: 1e-6}  # largest |p_tree - p_path| the self-check accepts
HALF_TOLERANCE = 3e-2  # bfloat16 / float16: a tree pass and a path pass round differently


@dataclass(frozen=True)
class TreeSupport:
    """How this model scores a draft tree: one pass with a tree mask, or one forward per root-to-leaf path."""

    one_pass: bool
    reason: str  # why (the probe's agreement, or what stops a tree pass)
    gather: bool = False  # the accepted path's keys and values can be kept after a tree pass (no re-feed)
    worst: float | None = None  # the probe's largest |p_tree - p_path|

    @property
    def words(self) -> str:
        """One line for the page and --json."""
        if self.one_pass:
            return "one target pass per round (tree attention mask)"
        return f"one target pass per root-to-leaf path ({self.reason})"

    def to_dict(self) -> dict[str, Any]:
        return {"one_pass": self.one_pass, "reason": self.reason, "gather": self.gather, "worst": self.worst,
                "words": self.words}


def is_prefix(short: Key, long: Key) -> bool:
    """True when short is a prefix of long (or equal to it)."""
    return len(short) <= len(long) and long[: len(short)] == short


def visibility(base: int, root: int, cached_tree: Sequence[Key], rows: Sequence[Key]) -> np.ndarray:
    """Which cache entries and rows each row may attend to: bool (rows, base + tree entries + rows).

    base: plain cached positions; root: the length of the prefix the tree grows from (the rows of
    lengths base + 1 .. root are that prefix's uncached tail, fed first); cached_tree: keys of the
    tree entries after the plain cache; rows: the keys fed now (a key is the whole sequence up to and
    including the row's token). An entry or row is visible to a row exactly when its key is a prefix
    of the row's key: the prefix is visible to every node, and a node sees only its own ancestors.
    """
    tail = root - base
    fed = base + len(cached_tree)  # the first column of the rows fed now
    index = {key[root:]: base + j for j, key in enumerate(cached_tree)}
    index.update((key[root:], fed + j) for j, key in enumerate(rows) if j >= tail)
    seen = np.zeros((len(rows), fed + len(rows)), dtype=bool)
    seen[:, :base] = True
    for i in range(tail):  # the prefix's tail: causal
        seen[i, fed: fed + i + 1] = True
    for i in range(tail, len(rows)):
        seen[i, fed: fed + tail] = True
        relative = rows[i][root:]
        for depth in range(1, len(relative) + 1):  # every ancestor in the tree, and the row itself
            seen[i, index[relative[:depth]]] = True
    return seen


def float_mask(seen: np.ndarray, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """The additive 4D mask (1, 1, rows, columns): 0 where visible, finfo(dtype).min where hidden."""
    hidden = torch.from_numpy(~seen).to(device)
    mask = torch.zeros(hidden.shape, dtype=dtype, device=device)
    mask.masked_fill_(hidden, torch.finfo(dtype).min)
    return mask[None, None]


def model_dtype_of(model: nn.Module) -> torch.dtype:
    """The floating dtype the model computes in (its first floating parameter's)."""
    for parameter in model.parameters():
        if parameter.is_floating_point():
            return parameter.dtype
    return torch.float32


def plain_kv_cache(cache: Any) -> bool:
    """True when every layer of the cache is a plain growing key/value store (gather and crop are exact)."""
    from transformers.cache_utils import DynamicLayer

    layers = getattr(cache, "layers", None)
    return bool(layers) and all(type(layer) is DynamicLayer for layer in layers)


def gather_positions(cache: Any, positions: Sequence[int], device: torch.device) -> None:
    """Keep only these cache positions, in this order, in every layer (the accepted path of a tree)."""
    index = torch.tensor(list(positions), dtype=torch.long, device=device)
    for layer in cache.layers:
        if getattr(layer, "is_initialized", False) and layer.keys is not None and layer.keys.numel():
            layer.keys = layer.keys.index_select(-2, index)
            layer.values = layer.values.index_select(-2, index)


def _attention_implementation(model: nn.Module) -> str:
    config = getattr(model, "config", None)
    return str(getattr(config, "_attn_implementation", None) or "sdpa")


def layer_windows(model: nn.Module) -> dict[str, int | None] | None:
    """Each attention layer type's sliding window (None: full attention) when the model has sliding layers named
    by type (Gemma 2 and 3, ...); None when one mask serves every layer (no sliding window at all)."""
    text = model.config.get_text_config()
    kinds = set(getattr(text, "layer_types", None) or ())
    window = getattr(text, "sliding_window", None)
    if SLIDING not in kinds or not isinstance(window, int):
        return None
    return {kind: window if kind == SLIDING else None for kind in kinds}


def _unmaskable_window(model: nn.Module) -> str | None:
    """Why this model's sliding window cannot be composed with a tree mask (None: it can, or it has none)."""
    text = model.config.get_text_config()
    kinds = set(getattr(text, "layer_types", None) or ())
    windows = layer_windows(model)
    if windows is None:  # a window the model applies to every layer (Mistral) or to layers it does not name
        sliding = any("sliding" in str(k) for k in kinds) or bool(getattr(text, "use_sliding_window", False)) or (
            not kinds and isinstance(getattr(text, "sliding_window", None), int)
            and getattr(text, "use_sliding_window", None) is not False)
        return "its sliding-window layers take no mask per layer type" if sliding else None
    unknown = sorted(kinds - {FULL, SLIDING})
    if unknown:
        return f"layer types {unknown} have no tree mask here"
    if windows[SLIDING] > MAX_PROBED_WINDOW:
        return f"its sliding window ({windows[SLIDING]:,} positions) is too long for the self-check to probe"
    return None


def tree_masks(seen: np.ndarray, columns: np.ndarray, rows: np.ndarray, windows: dict[str, int | None] | None,
               dtype: torch.dtype, device: torch.device) -> torch.Tensor | dict[str, torch.Tensor]:
    """The additive mask of a tree pass, or one per layer type where sliding layers see only their window.

    columns and rows are the positions of the cache entries and of the rows fed (a tree node's position is its
    prefix length plus its depth - 1); a sliding layer hides a key at position j from a row at position i
    unless j > i − W (transformers' ``sliding_window_overlay``).
    """
    if windows is None:
        return float_mask(seen, dtype, device)
    masks = {}
    for kind, window in windows.items():
        visible = seen if window is None else seen & (columns[None, :] > rows[:, None] - window)
        masks[kind] = float_mask(visible, dtype, device)
    return masks


def full_cache(model: nn.Module) -> Any:
    """A KV cache that keeps every position in every layer (sliding layers included), or None to let the model
    make its own: needed where a sliding window is a mask (``layer_windows``), so crop and gather stay exact."""
    if layer_windows(model) is None:
        return None
    from transformers.cache_utils import DynamicCache

    return DynamicCache()


def _probe_tree(vocab: int) -> list[Key]:
    """A small tree as drafted paths: two root children, two and one grandchildren (siblings and cousins)."""
    a, b, c, d, e = ((7 + 11 * i) % vocab for i in range(5))
    return [(a,), (a, c), (a, d), (b,), (b, e)]


_CHECKED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def tree_support(model: nn.Module, vocab: int, device: torch.device, scorer: Callable[..., Any]) -> TreeSupport:
    """Whether this model scores a tree in one pass exactly like path by path (checked once per model object).

    scorer(model, vocab, device, tree=True) builds the scorer under test (specviz.models.lm.CausalLM).
    """
    if model not in _CHECKED:
        _CHECKED[model] = _check(model, vocab, device, scorer)
    return _CHECKED[model]


def _check(model: nn.Module, vocab: int, device: torch.device, scorer: Callable[..., Any]) -> TreeSupport:
    implementation = _attention_implementation(model)
    if implementation not in MASKABLE:
        return TreeSupport(False, f"attention implementation {implementation!r} takes no custom tree mask")
    unmaskable = _unmaskable_window(model)
    if unmaskable is not None:
        return TreeSupport(False, unmaskable)
    windows = layer_windows(model)
    window = windows[SLIDING] if windows else None
    length = PROBE_PREFIX if window is None else window + 3  # the window's edge falls inside the probe
    prefix = tuple((3 + 5 * i) % vocab for i in range(length))
    paths = _probe_tree(vocab)
    lm, reference = scorer(model, vocab, device, tree=True), scorer(model, vocab, device, tree=False)
    after = prefix + paths[2] + (1,)
    try:
        for one in (lm, reference):
            one.probs(prefix[:-2])  # a cache to build on, as in a generation
            one.prefetch_tree(prefix, paths)
        if not plain_kv_cache(lm.cache):
            return TreeSupport(False, f"the model's cache ({type(lm.cache).__name__}) is not a plain key/value cache")
        keys = [prefix] + [prefix + path[:i] for path in paths for i in range(1, len(path) + 1)]
        worst = max(float(np.abs(lm.memo[key] - reference.memo[key]).max()) for key in keys)
        lm.sync(after)  # keep the path (a, d): the gather under test
        reference.sync(after)
        worst_after = float(np.abs(lm.probs(after) - reference.probs(after)).max())
    except (RuntimeError, ValueError, TypeError, IndexError, KeyError) as error:  # a forward refusing the mask
        return TreeSupport(False, f"the tree pass failed: {type(error).__name__}: {str(error)[:120]}")
    tolerance = TOLERANCE.get(model_dtype_of(model), HALF_TOLERANCE)
    if worst > tolerance:
        return TreeSupport(False, f"the probe tree's p differed from path-by-path scoring by {worst:.1e} "
                                  f"(> {tolerance:g}): the model ignores or mangles the tree mask", worst=worst)
    gather = worst_after <= tolerance
    where = "" if window is None else (f", its sliding window of {window} composed with the tree mask (a probe "
                                       f"prefix of {length} tokens)")
    return TreeSupport(True, f"{implementation} attention{where}; the probe tree matched path-by-path scoring "
                             f"within {worst:.1e}", gather=gather, worst=worst)


def forget_checks() -> None:
    """Drop every memoised self-check (tests)."""
    _CHECKED.clear()
