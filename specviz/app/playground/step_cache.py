"""One step's page, built once per (scenario, step, presenter) and shared by every session of the process.

A step's page (``plots.step_page.build`` over ``narrative.step_view``) is a pure function of the link's
state: a class that follows the lecturer's link walks the same steps, so each is built once, not once per
student and Step. A cached page keeps its charts as ``FrozenFigure``: the figure's dict, made once, which
Streamlit reads on every render instead of deep-copying plotly's object tree (a tenth of a Step's CPU), and
about 10 KB a chart instead of about 200 KB a page. The cache is bounded (least recently used first out) and
its pages are read-only.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any

import plotly.graph_objects as go

from ...playground import narrative
from ...plots import step_page
from ...plots.step_page import StepPage
from ...scenario import Scenario

PAGES = 1024  # about 25 KB a cached page at V = 12 (figures frozen): 25 MB at most, many links' lectures
Key = tuple[Scenario, int, bool]


class FrozenFigure(go.Figure):
    """A chart as Streamlit reads it: ``st.plotly_chart`` takes a figure's ``to_dict()`` and serialises that.

    Holds only the dict, made once: no plotly object tree and no copy per render. Read-only, and only
    ``to_dict`` (and ``spec``) work: it is made for ``st.plotly_chart``, nothing else of ``go.Figure``.
    """

    def __init__(self, figure: go.Figure) -> None:  # not go.Figure's: no object tree is built
        self._spec = figure.to_dict()

    @property
    def spec(self) -> dict[str, Any]:
        return self._spec

    def to_dict(self) -> dict[str, Any]:
        return self._spec

    def __repr__(self) -> str:
        return f"FrozenFigure({self._spec.get('layout', {}).get('title', {}).get('text', '')!r})"


def frozen(page: StepPage) -> StepPage:
    """The page with its charts frozen."""
    history = None if page.history is None else FrozenFigure(page.history)
    return replace(page, figure=FrozenFigure(page.figure), history=history)


@dataclass(frozen=True)
class CacheInfo:
    hits: int
    misses: int
    size: int


class StepPages:
    """A bounded, thread-safe LRU of built step pages (Streamlit runs each session's script in its own thread)."""

    def __init__(self, capacity: int = PAGES) -> None:
        self.capacity = capacity
        self._pages: OrderedDict[Key, tuple[int, StepPage]] = OrderedDict()
        self._lock = threading.Lock()
        self._hits = self._misses = 0

    def get(self, scenario: Scenario, step: int, presenter: bool) -> tuple[int, StepPage]:
        """The step shown (clamped to the events that can be played) and its page, from the cache or built.

        Built outside the lock: two sessions may both build a page, and a refusal (the core's, or a bug) is
        raised to the caller and never cached.
        """
        key = (scenario, step, presenter)
        with self._lock:
            found = self._pages.get(key)
            if found is not None:
                self._pages.move_to_end(key)
                self._hits += 1
                return found
            self._misses += 1
        view = narrative.step_view(scenario, step)
        built = (view.step, frozen(step_page.build(view, scenario, presenter)))
        with self._lock:
            self._pages[key] = built
            self._pages.move_to_end(key)
            while len(self._pages) > self.capacity:
                self._pages.popitem(last=False)
        return built

    def info(self) -> CacheInfo:
        with self._lock:
            return CacheInfo(self._hits, self._misses, len(self._pages))

    def clear(self) -> None:
        with self._lock:
            self._pages.clear()
            self._hits = self._misses = 0


pages = StepPages()
