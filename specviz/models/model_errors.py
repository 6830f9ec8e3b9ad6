"""The models layer's refusals: every one a SpecvizError (the page shows it as a refusal, not a bug)."""

from __future__ import annotations

from specviz.core.errors import SpecvizError


class ModelSettingError(SpecvizError, ValueError):
    """A real-model setting is out of range: depth, draft, early-exit layers, tree width or size, races."""


class ModelLoadError(SpecvizError, RuntimeError):
    """A model could not be loaded; the message says what to do."""
