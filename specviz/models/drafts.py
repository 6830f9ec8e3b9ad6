"""Drafts that share the target's tokenizer: early exit, the processed target, prompt lookup, a second model."""

from __future__ import annotations

import copy
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from specviz.core import Categorical, Processor, fp32_weights
from specviz.core.errors import SpecvizError
from specviz.core.processors import Temperature, TopK, compose
from specviz.models.lm import CausalLM, Prefix, early_exit_view
from specviz.models.loading import LoadedModel
from specviz.models.model_errors import ModelSettingError
from specviz.models.target import TargetModel

KINDS = ("early-exit", "target", "lookup", "bf16", "model")
MAX_NGRAM = 8  # longest n-gram prompt lookup matches (the command line's --draft lookup:N uses the same bound)


class TokenizerMismatchError(SpecvizError, ValueError):
    """Draft and target do not share one tokenizer, so their token ids mean different things."""


@dataclass(frozen=True)
class DraftSpec:
    """What to draft with; `parse_draft` reads the command-line form."""

    kind: str = "early-exit"
    layers: int = 8
    temperature: float = 1.0
    top_k: int = 0
    ngram: int = 3
    model: str = ""

    def label(self) -> str:
        """Short name, also the draft part of the verifier's context id."""
        if self.kind == "early-exit":
            return f"early-exit:{self.layers}"
        if self.kind == "target":
            return f"target:temperature={self.temperature:g},top_k={self.top_k}"
        if self.kind == "lookup":
            return f"lookup:{self.ngram}"
        if self.kind == "bf16":
            return "bf16"
        return f"model:{self.model}"


def parse_draft(text: str) -> DraftSpec:
    """Parse 'early-exit:8', 'target:temperature=1.5,top_k=20', 'lookup:3', 'bf16' or 'model:ID_OR_FOLDER'."""
    kind, _, arg = text.strip().partition(":")
    kind = kind.lower()
    try:
        if kind in ("early-exit", "early_exit", "ee"):
            return DraftSpec("early-exit", layers=int(arg) if arg else 8)
        if kind == "target":
            options = dict(part.split("=", 1) for part in arg.split(",") if part)
            unknown = set(options) - {"temperature", "top_k"}
            if unknown:
                raise ModelSettingError(f"unknown option(s) {sorted(unknown)}")
            return DraftSpec("target", temperature=float(options.get("temperature", 1.0)),
                             top_k=int(options.get("top_k", 0)))
        if kind in ("lookup", "prompt-lookup"):
            return DraftSpec("lookup", ngram=check_ngram(int(arg) if arg else 3))
        if kind == "bf16" and not arg:
            return DraftSpec("bf16")
        if kind == "model" and arg:
            return DraftSpec("model", model=arg)
    except ValueError as error:  # int() and float() of the option's text, or check_ngram's refusal
        raise ModelSettingError(f"bad draft {text!r}: {error}") from error
    raise ModelSettingError(
        f"bad draft {text!r}: use early-exit:K, target:temperature=T,top_k=K, lookup:N, bf16 or model:HUB_ID_OR_FOLDER"
    )


def check_ngram(ngram: int) -> int:
    """The n-gram length of prompt lookup, refused outside 1..MAX_NGRAM (a longer one never matches in practice)."""
    if isinstance(ngram, bool) or not isinstance(ngram, int) or not 1 <= ngram <= MAX_NGRAM:
        raise ModelSettingError(f"the n-gram length N of lookup:N must be a whole number in 1..{MAX_NGRAM}, "
                                f"got {ngram!r}")
    return ngram


def shape_probs(probs: np.ndarray, *, top_k: int = 0, top_p: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """(ids, weights) of the draft's q: the top-k, then the top-p, of FP32 probabilities (numpy, fast)."""
    ids = np.arange(probs.size)
    if 0 < top_k < probs.size:
        ids = np.argpartition(-probs, top_k - 1)[:top_k]
    if top_p < 1.0:
        ranked = ids[np.argsort(-probs[ids], kind="stable")]
        mass = np.cumsum(probs[ranked], dtype=np.float64)
        ids = ranked[: int(np.searchsorted(mass, top_p * mass[-1])) + 1]
    ids = np.sort(ids)
    weights = probs[ids]
    if not (weights > 0).any():
        weights = np.ones_like(weights)
    return ids, weights


class Draft:
    """A proposal model: a pure function prefix -> q over the target's vocabulary."""

    label: str = "draft"
    lm: CausalLM | None = None

    def __call__(self, prefix: Prefix) -> Categorical:
        raise NotImplementedError

    def sync(self, committed: Prefix) -> None:
        """Roll back after a round (the target's own cache is synced by the caller)."""

    def prefetch_level(self, root: Prefix, paths: list[tuple[int, ...]]) -> None:
        """Score q after root + each path in one pass where the draft runs a model (a tree level); else nothing."""


class SharedTargetDraft(Draft):
    """q = a processed p: the target's own distribution (early exit at full depth, or the target re-processed)."""

    def __init__(self, target: TargetModel, processor: Processor, label: str):
        self.target = target
        self.processor = processor
        self.label = label
        self.lm = target.lm

    def __call__(self, prefix: Prefix) -> Categorical:
        return self.processor(prefix, self.target(prefix))

    def prefetch_level(self, root: Prefix, paths: list[tuple[int, ...]]) -> None:
        self.target.prefetch_tree(root, paths)


class LMDraft(Draft):
    """q from a second forward pass (early-exit layers or another model), shaped with top-k / top-p."""

    def __init__(self, lm: CausalLM, label: str, *, top_k: int = 0, top_p: float = 1.0):
        self.lm = lm
        self.label = label
        self.top_k = top_k
        self.top_p = top_p
        self._dists: dict[Prefix, Categorical] = {}

    def __call__(self, prefix: Prefix) -> Categorical:
        dist = self._dists.get(prefix)
        if dist is None:
            ids, weights = shape_probs(self.lm.probs(prefix), top_k=self.top_k, top_p=self.top_p)
            dist = fp32_weights(self.lm.vocab_size, ids, weights)
            self._dists[prefix] = dist
        return dist

    def sync(self, committed: Prefix) -> None:
        self._dists.clear()
        self.lm.sync(committed)

    def prefetch_level(self, root: Prefix, paths: list[tuple[int, ...]]) -> None:
        self.lm.prefetch_tree(root, paths)


def lookup_token(prefix: Prefix, ngram: int) -> int | None:
    """The token that followed the latest earlier match of the longest suffix (ngram..1 tokens); None: no match."""
    n_tokens = len(prefix)
    for n in range(min(ngram, n_tokens - 1), 0, -1):
        suffix = prefix[n_tokens - n:]
        for start in range(n_tokens - n - 1, -1, -1):
            if prefix[start:start + n] == suffix:
                return prefix[start + n]
    return None


def lookup_chain(prefix: Prefix, ngram: int, depth: int) -> tuple[int, ...]:
    """Up to depth tokens proposed by repeated lookups; shorter (even empty) where the match runs out."""
    chain: list[int] = []
    while len(chain) < depth:
        token = lookup_token(prefix + tuple(chain), ngram)
        if token is None:
            break
        chain.append(token)
    return tuple(chain)


class LookupDraft(Draft):
    """Prompt lookup: an n-gram match in the context proposes one token with a one-hot q.

    It drafts only where a match exists: `plan` fixes the round's depth before any draw (the
    match is deterministic), and a round without a match is a plain target sample.
    """

    def __init__(self, vocab_size: int, ngram: int = 3):
        check_ngram(ngram)
        self.vocab_size = vocab_size
        self.ngram = ngram
        self.label = f"lookup:{ngram}"

    def plan(self, prefix: Prefix, depth: int) -> tuple[int, ...]:
        """The tokens this round will draft (the one-hot q makes every draw certain)."""
        return lookup_chain(prefix, self.ngram, depth)

    def __call__(self, prefix: Prefix) -> Categorical:
        token = lookup_token(prefix, self.ngram)
        if token is None:  # plan() keeps this from happening inside a round
            raise AssertionError("prompt lookup has no n-gram match here: the round should be a plain target sample")
        return Categorical(self.vocab_size, [token], [1])


def check_same_tokenizer(target: LoadedModel, draft: LoadedModel) -> None:
    """Refuse a draft whose tokenizer maps text to different ids than the target's."""
    mine, theirs = target.tokenizer.get_vocab(), draft.tokenizer.get_vocab()
    if mine != theirs:
        raise TokenizerMismatchError(
            f"the draft {draft.name!r} (vocabulary of {len(theirs)} tokens) does not share the tokenizer of the "
            f"target {target.name!r} (vocabulary of {len(mine)} tokens); pick a draft from the same model family"
        )


_HALF_COPIES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def half_precision_copy(model: Any) -> Any:
    """The same weights in bfloat16 (a second copy, made once per model): close to p, but not free."""
    import torch

    if model not in _HALF_COPIES:
        _HALF_COPIES[model] = copy.deepcopy(model).to(torch.bfloat16).eval().requires_grad_(False)
    return _HALF_COPIES[model]


def build_draft(spec: DraftSpec, target: LoadedModel, target_model: TargetModel, *,
                target_processor: Processor, top_k: int = 0, top_p: float = 1.0, draft_top_k: int = 0,
                draft_model: LoadedModel | None = None) -> Draft:
    """The draft for spec; top_k/top_p are the target's settings, draft_top_k cuts q's support further."""
    vocab = target.vocab_size
    temperature = target_model.lm.temperature
    shaping = {"top_k": min(k for k in (top_k, draft_top_k, vocab) if k > 0), "top_p": top_p}
    if spec.kind == "lookup":
        return LookupDraft(vocab, spec.ngram)
    if spec.kind == "target":
        steps: list[Processor] = [target_processor]
        if spec.temperature != 1.0:
            steps.append(Temperature(spec.temperature))
        if spec.top_k or draft_top_k:
            steps.append(TopK(min(k for k in (spec.top_k, draft_top_k) if k > 0)))
        return SharedTargetDraft(target_model, compose(*steps), spec.label())
    if spec.kind == "early-exit":
        if not 1 <= spec.layers <= target.n_layers:
            raise ModelSettingError(f"early exit needs 1..{target.n_layers} layers for {target.name!r}, "
                                    f"got {spec.layers}")
        if spec.layers == target.n_layers:
            steps = [target_processor] + ([TopK(draft_top_k)] if draft_top_k else [])
            return SharedTargetDraft(target_model, compose(*steps), spec.label())
        view = early_exit_view(target.model, spec.layers)
        return LMDraft(CausalLM(view, vocab, target.device, temperature), spec.label(), **shaping)
    if spec.kind == "bf16":
        return LMDraft(CausalLM(half_precision_copy(target.model), vocab, target.device, temperature), spec.label(),
                       **shaping)
    if spec.kind == "model":
        if draft_model is None:
            raise ModelSettingError("a model draft needs its loaded model (draft_model=...)")
        check_same_tokenizer(target, draft_model)
        lm = CausalLM(draft_model.model, vocab, draft_model.device, temperature)
        return LMDraft(lm, spec.label(), **shaping)
    raise ModelSettingError(f"unknown draft kind {spec.kind!r}; one of {', '.join(KINDS)}")
