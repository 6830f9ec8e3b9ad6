"""The model's own limits, checked before any generation: its context length, and what a model folder holds.

Pure where it can be (`context_limit`, `check_context` take numbers and configs), so the command line
and the page refuse a prompt or --max-new-tokens the model cannot hold in one line, before a long
generation ends in an IndexError deep inside the model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from specviz.core.errors import SpecvizError

# config fields that hold the longest sequence a model can process, by architecture family
LIMIT_FIELDS = ("max_position_embeddings", "n_positions", "max_sequence_length", "seq_length", "n_ctx")
MODEL_FOLDER_NEEDS = ("a model folder needs config.json (the architecture and its context length), the weights "
                      "(model.safetensors or pytorch_model.bin) and the tokenizer (tokenizer.json or "
                      "tokenizer_config.json), as `save_pretrained` writes them; or give one .gguf file")


class ContextLengthError(SpecvizError, ValueError):
    """The prompt plus the new tokens do not fit in the model's context length."""


def context_limit(config: Any) -> int | None:
    """The longest token sequence the model's config allows (None when the config names none)."""
    if config is None:
        return None
    if hasattr(config, "get_text_config"):
        config = config.get_text_config()
    for name in LIMIT_FIELDS:
        value = config.get(name) if isinstance(config, dict) else getattr(config, name, None)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def check_context(prompt_tokens: int, max_new_tokens: int, limit: int | None, *, model: str = "the model") -> None:
    """Refuse a generation whose longest sequence (prompt + max_new_tokens) exceeds the context length.

    The round loop never drafts past max_new_tokens (the last rounds draft fewer tokens), so the
    longest sequence any pass sees, draft or target, is prompt + max_new_tokens: the draft depth adds
    nothing to it. limit None (a config that names no limit) checks nothing.
    """
    if limit is None:
        return
    needed = prompt_tokens + max_new_tokens
    if needed <= limit:
        return
    if prompt_tokens >= limit:
        raise ContextLengthError(f"the prompt has {prompt_tokens:,} tokens, and {model}'s context length is "
                                 f"{limit:,} tokens (prompt + max-new-tokens at most {limit:,}); shorten the prompt")
    raise ContextLengthError(f"the prompt ({prompt_tokens:,} tokens) plus max-new-tokens ({max_new_tokens:,}) is "
                             f"{needed:,} tokens, beyond {model}'s context length of {limit:,} tokens; use "
                             f"max-new-tokens at most {limit - prompt_tokens:,} or a shorter prompt")


def limit_before_load(where: str) -> int | None:
    """The context length from a folder's (or the local hub cache's) config.json, without loading the model.

    None when no config.json is at hand (a .gguf file keeps its limit inside; it is checked after loading).
    """
    path = Path(where).expanduser() / "config.json"
    if not path.is_file():
        try:
            import huggingface_hub

            cached = huggingface_hub.try_to_load_from_cache(where, "config.json")
        except (ImportError, ValueError, OSError):  # no huggingface_hub, not a hub id (HFValidationError),
            return None  # or an unreadable cache: nothing to read before loading
        if not isinstance(cached, str):
            return None
        path = Path(cached)
    try:
        return context_limit(json.loads(path.read_text()))
    except (OSError, ValueError):
        return None
