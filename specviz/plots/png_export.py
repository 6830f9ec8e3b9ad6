"""Figures for slides, the plotly side: a round's steps and their charts as PNG through kaleido.

``round_steps(scenario, round_id)`` is the round's step indices; ``pages`` builds each step's page with the
Playground's plotly figure builders (``step_page.build``, presenter type by default: what a room reads) and
``write_images`` writes their charts as PNG through kaleido (an optional extra: plotly's static-image engine,
which drives Chromium), one export server for the round. The round's HTML deck and each step's SVG are the step
player's own (``specviz.player.round_export``, which writes a round in every format); ``kaleido_problem()`` says (None
when it can) why PNG cannot be written here, and how to install kaleido; a format that cannot be written is
refused before any slow work starts.
"""

from __future__ import annotations

import os
import re
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import SpecvizError
from ..scenario import Scenario
from . import step_page
from .step_page import StepPage
from .whole_files import write_whole

FORMATS = ("html", "svg", "png")
IMAGE_FORMATS = ("png",)  # through kaleido; SVG is the step player's own drawing (specviz.player.round_export)
CHROMIUM = Path("/usr/bin/chromium")  # Debian's Chromium: kaleido's browser where BROWSER_PATH says nothing
WIDTH = 1000  # px of an exported chart (its height is the chart's own); a PNG is drawn at SCALE times it
SCALE = 2
INSTALL = ("PNG needs kaleido, an optional extra (plotly's static-image engine; it drives Chromium): "
           "pip install -r requirements-export.txt (kaleido==1.5.1, choreographer==1.4.0), with Chromium "
           "installed (apt-get install chromium; set BROWSER_PATH to another Chrome or Chromium). "
           "The HTML deck needs neither: --format html.")


class ExportError(SpecvizError, ValueError):
    """An export that cannot be made as asked (a format, a round, an image engine that is missing)."""


def kaleido_problem() -> str | None:
    """Why PNG cannot be written here (None: it can): kaleido missing, or no browser for it."""
    try:
        import kaleido  # noqa: F401
    except ImportError:
        return "kaleido is not installed. " + INSTALL
    browser = os.environ.get("BROWSER_PATH")
    if browser and not Path(browser).is_file():
        return f"BROWSER_PATH={browser} is not a file. " + INSTALL
    return None


def check_formats(formats: Sequence[str]) -> tuple[str, ...]:
    """The formats asked for, checked: known names, and kaleido for PNG (before any work; the player's export checks
    what SVG needs)."""
    unknown = [f for f in formats if f not in FORMATS]
    if unknown or not formats:
        raise ExportError(f"--format takes {', '.join(FORMATS)} (comma-separated), got "
                          f"{', '.join(repr(f) for f in unknown) or 'nothing'}")
    if any(f in IMAGE_FORMATS for f in formats):
        problem = kaleido_problem()
        if problem:
            raise ExportError(problem)
    return tuple(dict.fromkeys(formats))


def round_steps(scenario: Scenario, round_id: int) -> range:
    """The step indices of round ``round_id`` (played as the Playground plays it); ExportError past the last."""
    from ..playground.state import timeline_for

    timeline = timeline_for(scenario)
    played = timeline.ensure_rounds(round_id + 1)
    if played <= round_id:
        why = f" ({timeline.error})" if timeline.error else " (the request stopped)" if timeline.stopped else ""
        raise ExportError(f"round {round_id} does not exist: the scenario plays rounds 0 to {played - 1}{why}")
    return range(timeline.starts[round_id], timeline.round_end(round_id) + 1)


def round_of(scenario: Scenario, step: int) -> int:
    """The round that holds ``step`` (the last played one for a step past the end); NoRoundError if none plays."""
    from ..playground.state import round_holding

    return round_holding(scenario, step)


@dataclass(frozen=True)
class Exported:
    """What ``write_round`` wrote, and how long the images took (seconds, the export server's start included)."""

    folder: Path
    files: tuple[Path, ...]
    steps: int
    image_seconds: float = 0.0
    images: int = 0


def pages(scenario: Scenario, steps: Sequence[int], presenter: bool = True) -> list[tuple[int, StepPage]]:
    """(step, page) of each step: the Playground's own figures and HTML."""
    from ..playground.narrative import step_view

    return [(step, step_page.build(step_view(scenario, step), scenario, presenter)) for step in steps]


def slug(page: StepPage) -> str:
    """'check', 'block-decision', 'tree-check': the step's kind, from its caption's phase."""
    phase = page.caption.rsplit(" · ", 1)[-1].split(":")[0]
    return re.sub(r"[^a-z0-9]+", "-", phase.lower()).strip("-")[:40]


def write_images(figures: Sequence[tuple[Path, object]], formats: Sequence[str],
                 on_image: Callable[[Path], None] | None = None) -> tuple[list[Path], float]:
    """Every (path stem, figure) in each image format, through one kaleido export server; (files, seconds)."""
    import kaleido
    import plotly.io as pio

    if CHROMIUM.is_file():
        os.environ.setdefault("BROWSER_PATH", str(CHROMIUM))
    written: list[Path] = []
    start = time.perf_counter()
    kaleido.start_sync_server(silence_warnings=True)
    warnings.filterwarnings("ignore", message="The kopts argument is ignored", category=UserWarning)
    try:
        for stem, figure in figures:
            height = figure.layout.height or 470
            for fmt in formats:
                path = stem.with_suffix(f".{fmt}")
                write_whole(path, pio.to_image(figure, format=fmt, width=WIDTH, height=height,
                                               scale=SCALE if fmt == "png" else 1, validate=False))
                written.append(path)
                if on_image:
                    on_image(path)
    finally:
        kaleido.stop_sync_server(silence_warnings=True)
    return written, time.perf_counter() - start


def summary(exported: Exported) -> str:
    """One line: what was written where, and the images' time."""
    kinds = sorted({p.suffix.lstrip(".") for p in exported.files})
    line = f"wrote {len(exported.files)} files ({', '.join(kinds)}) for {exported.steps} steps to {exported.folder}"
    if exported.images:
        line += (f"; {exported.images} images in {exported.image_seconds:.1f} s "
                 f"({exported.image_seconds / exported.images:.2f} s each, the export server's start included)")
    return line
