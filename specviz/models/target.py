"""The verifier's target model: a pure function prefix -> Categorical served from a KV-cached LM."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from specviz.core import Categorical, fp32_weights
from specviz.models.lm import CausalLM, Prefix


class TargetModel:
    """Memoised `prefix -> Categorical` over a CausalLM; `prefetch` a block before verifying it."""

    def __init__(self, lm: CausalLM):
        self.lm = lm
        self.vocab_size = lm.vocab_size
        self._ids = range(lm.vocab_size)
        self._dists: dict[Prefix, Categorical] = {}

    def __call__(self, prefix: Prefix) -> Categorical:
        """The exact FP32 distribution of the next token after prefix."""
        dist = self._dists.get(prefix)
        if dist is None:
            dist = fp32_weights(self.vocab_size, self._ids, self.lm.probs(prefix))
            self._dists[prefix] = dist
        return dist

    def prefetch(self, prefix: Prefix, drafted: Sequence[int]) -> None:
        """One forward over the drafted block, so verify's calls are served from the memo."""
        self.lm.prefetch(prefix, tuple(drafted))

    def prefetch_tree(self, prefix: Prefix, paths: Sequence[tuple[int, ...]]) -> None:
        """One forward over every node of a draft tree (each path: the drafted tokens from the root to a node)."""
        self.lm.prefetch_tree(prefix, paths)

    def sync(self, committed: Prefix) -> None:
        """Drop memoised positions and roll the KV cache back to the committed prefix."""
        self._dists.clear()
        self.lm.sync(committed)


def encode_prompt(tokenizer: Any, text: str, *, chat: bool) -> tuple[int, ...]:
    """Prompt token ids, through the chat template when asked and available; never empty."""
    if chat and getattr(tokenizer, "chat_template", None):
        ids = tokenizer.apply_chat_template([{"role": "user", "content": text}], add_generation_prompt=True,
                                            tokenize=True, return_dict=False)
        if isinstance(ids, dict) or hasattr(ids, "keys"):
            ids = ids["input_ids"]
    else:
        ids = tokenizer(text, add_special_tokens=True)["input_ids"]
    if hasattr(ids, "tolist"):
        ids = ids.tolist()
    if ids and isinstance(ids[0], list):
        ids = ids[0]
    ids = [int(i) for i in ids]
    if not ids:
        fallback = next((t for t in (tokenizer.bos_token_id, tokenizer.eos_token_id) if t is not None), 0)
        ids = [int(fallback)]
    return tuple(ids)
