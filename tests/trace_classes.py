"""The event classes of ``specviz/core/trace.py``, for the tests that check each layer has one entry per class."""

from __future__ import annotations

import dataclasses
import inspect

from specviz.core import trace


def event_classes() -> list[type]:
    """Every event class core/trace.py defines: a dataclass with a ``kind``, by name."""
    found = [cls for _, cls in inspect.getmembers(trace, inspect.isclass)
             if dataclasses.is_dataclass(cls) and hasattr(cls, "kind") and cls.__module__ == trace.__name__]
    assert len(found) >= 25, "the trace's classes were not found (a refactor must not hide them)"
    return sorted(found, key=lambda cls: cls.__name__)
