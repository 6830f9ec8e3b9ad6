"""Session-state plumbing of the Real models page, kept out of the page so it can be tested.

Presets map to widget values; a model load runs in a worker thread while the page shows each
stage and the elapsed time; live rendering is throttled so the page keeps up with the model.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from specviz.models.drafts import DraftSpec, parse_draft
from specviz.models.presets import Preset

# widget key -> draft kind, in the order of the page's draft selector
DRAFT_CHOICES = {"Prompt lookup (n-gram, one-hot q)": "lookup", "Early exit (first k layers)": "early-exit",
                 "Target re-processed (temperature, top-k)": "target", "Same model in bfloat16": "bf16",
                 "Second model (same tokenizer)": "model"}
DRAFT_NAMES = {kind: name for name, kind in DRAFT_CHOICES.items()}


def preset_state(preset: Preset, n_layers: int) -> dict[str, Any]:
    """The page's widget values for a preset (early-exit layers clipped to the model's depth)."""
    spec = parse_draft(preset.draft)
    state: dict[str, Any] = {"rm_prompt": preset.prompt, "rm_draft": DRAFT_NAMES[spec.kind], "rm_depth": preset.depth,
                             "rm_temperature": preset.temperature, "rm_top_k": preset.top_k, "rm_top_p": preset.top_p,
                             "rm_max_new": preset.max_new_tokens, "rm_draft_top_k": 0}
    if spec.kind == "early-exit":
        state["rm_layers"] = min(spec.layers, n_layers)
    if spec.kind == "lookup":
        state["rm_ngram"] = spec.ngram
    return state


def draft_from_widgets(kind: str, values: dict[str, Any], n_layers: int) -> DraftSpec:
    """The DraftSpec the page's draft widgets describe."""
    if kind == "early-exit":
        return DraftSpec("early-exit", layers=min(int(values.get("rm_layers", 8)), n_layers))
    if kind == "target":
        return DraftSpec("target", temperature=float(values.get("rm_draft_t", 1.5)),
                         top_k=int(values.get("rm_draft_k", 0)))
    if kind == "lookup":
        return DraftSpec("lookup", ngram=int(values.get("rm_ngram", 3)))
    if kind == "bf16":
        return DraftSpec("bf16")
    return DraftSpec("model", model=str(values.get("rm_draft_model", "")).strip())


class BackgroundLoad:
    """A model load running in a worker thread; the page polls `text`, `fraction` and `elapsed`.

    Cached per model spec by the page, so every visitor waits on the same load.
    """

    def __init__(self, load: Callable[..., Any]):
        self.text, self.fraction = "Starting", 0.0
        self.began = time.perf_counter()
        self._result: Any = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._work, args=(load,), name="specviz-model-load", daemon=True)
        self._thread.start()

    def _stage(self, text: str, fraction: float) -> None:
        self.text, self.fraction = text, fraction

    def _work(self, load: Callable[..., Any]) -> None:
        try:
            self._result = load(stage=self._stage)
        except BaseException as error:  # noqa: BLE001 - handed to whoever asks for the result
            self._error = error

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.began

    @property
    def done(self) -> bool:
        return not self._thread.is_alive()

    def wait(self, seconds: float) -> None:
        self._thread.join(seconds)

    def result(self) -> Any:
        """The loaded model; raises the load's error (waits if still loading)."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._result


def follow(load: BackgroundLoad, report: Callable[[BackgroundLoad], None], *, poll_s: float = 0.25) -> Any:
    """Report the load's progress until it finishes, then return its result (or raise its error)."""
    while not load.done:
        report(load)
        load.wait(poll_s)
    return load.result()


class Throttle:
    """True at most every `interval` seconds (and always when forced): cheap live rendering."""

    def __init__(self, interval: float = 0.2, clock: Callable[[], float] = time.perf_counter):
        self.interval = interval
        self.clock = clock
        self.last = -float("inf")

    def __call__(self, force: bool = False) -> bool:
        now = self.clock()
        if force or now - self.last >= self.interval:
            self.last = now
            return True
        return False
