"""The scenario reader's exceptions: every refusal names the field of the document it comes from."""

from __future__ import annotations

from ..core.errors import SpecvizError


class ScenarioError(SpecvizError, ValueError):
    """A scenario document (JSON, a dict, a weight's text) cannot be read; ``field`` names where."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.reason = message  # the message without the field, for callers that name the place in their words


class ScenarioTypeError(ScenarioError, TypeError):
    """A field of a scenario document has the wrong JSON type (a string where a boolean belongs, ...)."""


class PlaygroundError(SpecvizError, ValueError):
    """An input the Playground refuses before the core sees it (vocabulary, table shape, link text).

    ``field`` names the input ('p', 'step', 'file', ...; '' when the message says it alone).
    ``unreadable`` is True for a link or file that could not be opened at all: nothing of it was
    loaded, so there is no edit to undo and no nearest setting being played.
    """

    def __init__(self, message: str, *, field: str = "", unreadable: bool = False):
        super().__init__(message)
        self.field = field
        self.unreadable = unreadable
