"""The primitives a frame is drawn from, as plain data: bar sets, threshold lines, labelled marks, draw strips.

Every value a person may read goes with its exact text (``exact``: '3/10 ≈ 0.3000', '1/10^400'): the browser
draws the float and shows the text, it never formats a number itself. Every element that should move between
two frames carries a ``key``; an element that grows out of another names it in ``grow`` (a key, and whether it is
read in the frame before or in its own), and ``stage`` orders the parts of one transition. Nothing here says what
an event means: the builders in ``frames`` decide that.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from .. import formats
from ..core import Categorical
from ..plots.draw_strip import DrawStrip

Data = dict[str, Any]
ZERO, ONE = Fraction(0), Fraction(1)
Y_TICKS = (0, 0.2, 0.4, 0.6, 0.8, 1.0)


def exact(value: Fraction | int) -> str:
    """A value as the page writes it: '3/10 ≈ 0.3000', long integers folded ('≈ 0.3000 (exact: ...)')."""
    return formats.fraction_folded(value)


def short(value: Fraction | int) -> str:
    """A value short enough for a title or an axis: '9/13', else '≈ 0.6923'."""
    return formats.fit(value, 9, places=4)


def probs(c: Categorical) -> list[Fraction]:
    """Exact probabilities of every vocabulary id (0 where unlisted)."""
    total = c.total
    return [Fraction(t, total) for t in c.ticket_ints()]


def grows(key: str, frame: str = "old") -> Data:
    """Where an element starts: the element ``key`` of the frame before (``old``) or of its own frame (``new``)."""
    return {"key": key, "frame": frame}


def series(key: str, name: str, cue: str, values: Sequence[Fraction | None], *, panel: int = 0, slot: int = 0,
           slots: int = 1, stack: str | None = None, kind: str = "bar", highlight: int | None = None,
           opacity: float = 1.0, grow: Data | None = None, stage: int = 0, legend: bool = True,
           symbol: str = "") -> Data:
    """One set of values over the tokens (or another category axis), each with its exact text.

    kind: 'bar', 'marker' (a symbol at the value), 'tick' (a short level across the column) or 'line' (a polyline
    through the columns). ``slot`` of ``slots`` places side-by-side bars; series with the same ``stack`` and slot
    pile up in order. ``symbol`` names the value in a hover ('p', 'min(p, q)'). A value None draws nothing there.
    """
    data: Data = {"key": key, "name": name, "cue": cue, "kind": kind, "panel": panel, "slot": slot,
                  "slots": slots, "values": [None if v is None else float(v) for v in values],
                  "exact": ["" if v is None else exact(v) for v in values],
                  "symbol": symbol or name}
    if stack is not None:
        data["stack"] = stack
    if highlight is not None:
        data["highlight"] = highlight
    if opacity != 1.0:
        data["opacity"] = opacity
    if grow is not None:
        data["grow"] = grow
    if stage:
        data["stage"] = stage
    if not legend:
        data["legend"] = False
    return data


def panel(labels: Sequence[str], *, y_max: float = 1.08, y_title: str = "probability", x_title: str = "token",
          ticks: Sequence[float] | None = Y_TICKS, share: Data | None = None) -> Data:
    """One plot area: its categories (left to right), the y range and its ticks (None: a few round ones up to
    y_max), the axis titles."""
    data: Data = {"labels": list(labels), "y_max": y_max, "y_ticks": list(nice_ticks(y_max) if ticks is None
                                                                            else ticks),
                  "y_title": y_title, "x_title": x_title}
    if share is not None:
        data["share"] = share
    return data


def nice_ticks(top: float, most: int = 5) -> list[float]:
    """Ticks at multiples of 1, 2 or 5 times a power of ten, at most ``most`` + 1 of them, from 0 to ``top``."""
    import math

    rough = max(top, 1e-12) / most
    base = 10 ** math.floor(math.log10(rough))
    step = next(m * base for m in (1, 2, 5, 10) if m * base >= rough * (1 - 1e-9))
    return [round(k * step, 10) for k in range(int(top / step + 1e-9) + 1)]


def level(y: Fraction, label: str, *, panel_index: int = 0, dash: bool = True) -> Data:
    """A horizontal threshold across a panel (S, T), its value and exact text."""
    return {"panel": panel_index, "y": float(y), "label": label, "exact": exact(y), "dash": dash}


def mark(at: int, y: Fraction | float, text: str, *, panel_index: int = 0) -> Data:
    """An arrow with a label over one category's column (the drafted, checked or drawn token)."""
    return {"panel": panel_index, "at": at, "y": min(float(y), 1.0), "text": text}


def share_bar(value: Fraction, name: str, meaning: str) -> Data:
    """A share of p as its own bar on [0, 1] above a panel (the tree's r's share of p)."""
    return {"value": float(value), "text": f"{name} {equals(value)}", "exact": exact(value), "meaning": meaning}


def equals(value: Fraction) -> str:
    """'= 9/13' or '≈ 0.5452' (a value too long to show whole)."""
    text = short(value)
    return text if text.startswith("≈") else f"= {text}"


def bars(title: str, panels: Sequence[Data], data: Sequence[Data], *, levels: Sequence[Data] = (),
         marks: Sequence[Data] = ()) -> Data:
    """A chart of one or two panels side by side, each a set of bars, markers, ticks and lines."""
    chart: Data = {"type": "bars", "title": title, "panels": list(panels), "series": list(data)}
    if levels:
        chart["levels"] = list(levels)
    if marks:
        chart["marks"] = list(marks)
    return chart


def strip(drawn: DrawStrip, *, key: str = "u") -> Data:
    """The draw u = draw / range on [0, 1) against its labelled segments (exact ends in each hover)."""
    segments = [{"label": s.label, "start": float(s.start), "end": float(s.end), "cue": s.cue,
                 "hover": f"{s.label}: [{formats.fraction(s.start)}, {formats.fraction(s.end)})"}
                for s in drawn.segments]
    u = drawn.u
    return {"title": drawn.title, "segments": segments, "chosen": drawn.chosen, "u": float(u),
            "u_text": f"u = {formats.fixed(u, 4)}", "key": key,
            "hover": f"draw {formats.thousands(drawn.draw)} of 0..{formats.thousands(drawn.draw_range - 1)}, "
                     f"u = {exact(u)}"}


def no_draw(title: str, why: str) -> Data:
    """A strip's place when the outcome needs no draw (p(x) = 0: rejected whatever u is)."""
    return {"title": title, "none": why}
