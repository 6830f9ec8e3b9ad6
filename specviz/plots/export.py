"""Figures for slides: one round of a scenario as files, one per step (``python -m specviz export``).

``round_steps(scenario, round_id)`` is the round's step indices; ``pages`` builds each step's page with the
Playground's own builder (``step_page.build``, presenter type by default: what a room reads); ``write_round``
writes, into one folder:

* ``step-05-check.svg`` / ``.png``: the step's main chart, through kaleido (an optional extra: plotly's
  static-image engine, which drives Chromium), one export server for the whole round;
* ``step-05-draw.svg``: the step's draw on [0, 1), where the step draws (plain SVG: no kaleido);
* ``round-2.html``: the whole round as a self-contained slide deck (plotly.js inlined, no network): one
  screen per step with its chart, its draw, its words and the committed text; → / PageDown and ← / PageUp
  move between steps. Needs no kaleido.

``kaleido_problem()`` says (None when it can) why SVG and PNG cannot be written here, and how to install
kaleido; the command refuses an image format before any slow work starts.
"""

from __future__ import annotations

import html
import os
import re
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import SpecvizError
from ..scenario import Scenario
from . import step_html, step_page
from .files import write_whole
from .step_page import StepPage

FORMATS = ("html", "svg", "png")
IMAGE_FORMATS = ("svg", "png")
CHROMIUM = Path("/usr/bin/chromium")  # Debian's Chromium: kaleido's browser where BROWSER_PATH says nothing
WIDTH = 1000  # px of an exported chart (its height is the chart's own); a PNG is drawn at SCALE times it
SCALE = 2
INSTALL = ("SVG and PNG need kaleido, an optional extra (plotly's static-image engine; it drives Chromium): "
           "pip install -r requirements-export.txt (kaleido==1.5.1, choreographer==1.4.0), with Chromium "
           "installed (apt-get install chromium; set BROWSER_PATH to another Chrome or Chromium). "
           "The HTML deck needs neither: --format html.")


class ExportError(SpecvizError, ValueError):
    """An export that cannot be made as asked (a format, a round, an image engine that is missing)."""


def kaleido_problem() -> str | None:
    """Why SVG and PNG cannot be written here (None: they can): kaleido missing, or no browser for it."""
    try:
        import kaleido  # noqa: F401
    except ImportError:
        return "kaleido is not installed. " + INSTALL
    browser = os.environ.get("BROWSER_PATH")
    if browser and not Path(browser).is_file():
        return f"BROWSER_PATH={browser} is not a file. " + INSTALL
    return None


def check_formats(formats: Sequence[str]) -> tuple[str, ...]:
    """The formats asked for, checked: known names, and an image engine for SVG or PNG (before any work)."""
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


def write_round(scenario: Scenario, round_id: int, folder: Path, formats: Sequence[str] = ("html",), *,
                presenter: bool = True, on_image: Callable[[Path], None] | None = None) -> Exported:
    """Write round ``round_id``'s figures (per step) and its HTML deck into ``folder``, as ``formats`` ask."""
    formats = check_formats(formats)
    steps = round_steps(scenario, round_id)
    built = pages(scenario, steps, presenter)
    folder.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    for step, page in built:
        if page.draw_svg is not None:
            path = folder / f"step-{step + 1:02d}-draw.svg"
            write_whole(path, standalone_svg(page.draw_svg))
            files.append(path)
    image_formats = [f for f in formats if f in IMAGE_FORMATS]
    seconds, images = 0.0, 0
    if image_formats:
        figures = [(folder / f"step-{step + 1:02d}-{slug(page)}", page.figure) for step, page in built]
        written, seconds = write_images(figures, image_formats, on_image)
        files += written
        images = len(written)
    if "html" in formats:
        path = folder / deck_name(round_id)
        write_whole(path, deck_html(scenario, round_id, built))
        files.append(path)
    return Exported(folder, tuple(files), len(built), seconds, images)


def deck_name(round_id: int) -> str:
    """'round-1.html' for the first round (round_id 0): file names count rounds and steps from 1, as people do."""
    return f"round-{round_id + 1}.html"


# --- the HTML deck ------------------------------------------------------------------------------------------
def standalone_svg(svg: str) -> str:
    """The page's inline draw strip as a file of its own (an XML declaration; a fixed width instead of 100%)."""
    width = re.search(r"viewBox='0 0 (\d+)", svg)
    body = svg.replace("width='100%'", f"width='{width[1]}'" if width else "width='440'", 1)
    return "<?xml version='1.0' encoding='UTF-8'?>\n" + body + "\n"


def _bold(text: str) -> str:
    """Escaped text with the narration's **bold** as <b>."""
    return re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", html.escape(text, quote=False))


@dataclass
class _Deck:
    sections: list[str] = field(default_factory=list)
    figures: list[str] = field(default_factory=list)


DECK_CSS = """
body {margin: 0; font-family: Inter, 'Source Sans Pro', Arial, sans-serif; color: #000; background: #fff;}
section {box-sizing: border-box; height: 100vh; padding: 2.2vh 3vw; display: grid; grid-template-rows: auto auto 1fr;
         scroll-snap-align: start; border-bottom: 1px solid #eee;}
html {scroll-snap-type: y mandatory;}
.caption {color: #555; font-size: 1.05rem;}
h2 {font-size: 1.7rem; margin: 0.3rem 0 0.6rem 0;}
.body {display: grid; grid-template-columns: 3fr 2fr; gap: 2vw; align-items: start; min-height: 0;}
.body li {font-size: 1.3rem; line-height: 1.45; margin-bottom: 0.3rem;}
.chart {width: 100%;}
.title {font-size: 2rem; margin-top: 30vh; text-align: center;}
"""

DECK_JS = """
(() => {
  const sections = [...document.querySelectorAll('section')];
  const at = () => sections.findIndex(s => s.getBoundingClientRect().top > -window.innerHeight / 2);
  document.addEventListener('keydown', (event) => {
    const forward = ['ArrowRight', 'PageDown', ' '].includes(event.key);
    const back = ['ArrowLeft', 'PageUp'].includes(event.key);
    if (!forward && !back) return;
    event.preventDefault();
    const next = Math.min(Math.max(at() + (forward ? 1 : -1), 0), sections.length - 1);
    sections[next].scrollIntoView({behavior: 'instant', block: 'start'});
  });
})();
"""


def deck_html(scenario: Scenario, round_id: int, built: Sequence[tuple[int, StepPage]]) -> str:
    """The round as one self-contained HTML file: plotly.js inlined, one screen per step, keys to move."""
    from plotly.offline import get_plotlyjs

    from .. import narration
    from ..core.verification import rule
    from ..playground.narrative import step_view

    deck = _Deck()
    title = (f"specviz: round {round_id} under {rule(scenario.verification).label}, seed {scenario.seed}, "
             f"depth {scenario.depth}")
    deck.sections.append(f"<section><div class='title'><b>{html.escape(title)}</b><br><span class='caption'>"
                         f"{len(built)} steps · → or PageDown for the next, ← or PageUp for the previous</span>"
                         "</div></section>")
    for index, (step, page) in enumerate(built):
        view = step_view(scenario, step)
        bullets = "".join(f"<li>{_bold(line)}</li>" for line in view.lines)
        exact = step_html.exact_values_html(narration.exact_values(view.event, scenario.vocab))
        draw = page.draw_svg or ""
        deck.sections.append(
            f"<section id='step-{step + 1}'><div class='caption'>{html.escape(page.caption)}</div>"
            f"<h2>{html.escape(page.headline)}</h2><div class='body'><div><div class='chart' id='chart-{index}'></div>"
            f"{step_html.committed_markdown(view, scenario.vocab, True)}</div><div>{draw}<ul>{bullets}</ul>{exact}"
            "</div></div></section>")
        deck.figures.append(page.figure.to_json(validate=False))
    charts = ",\n".join(deck.figures)
    script = (f"const figures = [{charts}];\n"
              "figures.forEach((f, i) => Plotly.newPlot('chart-' + i, f.data, f.layout, "
              "{displaylogo: false, modeBarButtons: [['toImage']], "
              "toImageButtonOptions: {format: 'svg', filename: 'specviz-step-' + (i + 1)}}));")
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            f"<title>{html.escape(title)}</title><style>{DECK_CSS}</style>"
            f"<script>{get_plotlyjs()}</script></head><body>{''.join(deck.sections)}"
            f"<script>{script}</script><script>{DECK_JS}</script></body></html>\n")


def summary(exported: Exported) -> str:
    """One line: what was written where, and the images' time."""
    kinds = sorted({p.suffix.lstrip(".") for p in exported.files})
    line = f"wrote {len(exported.files)} files ({', '.join(kinds)}) for {exported.steps} steps to {exported.folder}"
    if exported.images:
        line += (f"; {exported.images} images in {exported.image_seconds:.1f} s "
                 f"({exported.image_seconds / exported.images:.2f} s each, the export server's start included)")
    return line
