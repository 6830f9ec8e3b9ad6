"""A round for slides, every format: the step player's HTML deck, each step's SVG drawn by the player, PNG charts.

``write_round(scenario, round_id, folder, formats)`` writes, into one folder:

* ``round-2.html``: the whole round as the step player in one self-contained file (``deck``): opened from disk
  with no network it plays with the Playground's motion, keys and labels (file names count rounds and steps
  from 1, as the page shows them: round-2 is the second round);
* ``step-05-checking.svg``: each step's drawing (its chart and its draw), drawn by the player itself in Chromium
  (``deck.drawings``), with its styles written into the file;
* ``step-05-checking.png``: each step's chart through kaleido (``specviz.plots.png_export``, an optional extra).

The names ``python -m specviz export`` reads (``check_formats``, ``round_of``, ``round_steps``, ``summary``, ...)
are ``specviz.plots.png_export``'s, with SVG's own check (a browser for the player) added to ``check_formats``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

from ..plots import png_export as images
from ..plots.png_export import (  # noqa: F401 - the export command's names, in one place
    FORMATS,
    IMAGE_FORMATS,
    INSTALL,
    Exported,
    ExportError,
    round_of,
    round_steps,
    summary,
)
from ..plots.whole_files import write_whole
from ..scenario import Scenario
from . import deck


def kaleido_problem() -> str | None:
    """Why PNG cannot be written here (None: it can): kaleido's check (``specviz.plots.png_export``)."""
    return images.kaleido_problem()


def browser_problem() -> str | None:
    """Why SVG cannot be drawn here (None: it can): the step player draws it in a browser (``deck``)."""
    return deck.browser_problem()


def check_formats(formats: Sequence[str]) -> tuple[str, ...]:
    """The formats asked for, checked before any work: known names, kaleido for PNG, a browser for SVG."""
    checked = images.check_formats(formats)
    if "svg" in checked:
        problem = browser_problem()
        if problem:
            raise ExportError(problem + " The HTML deck needs none of it: --format html.")
    return checked


def deck_name(round_id: int) -> str:
    """'round-1.html' for the first round (round_id 0): file names count rounds and steps from 1, as people do."""
    return f"round-{round_id + 1}.html"


def write_file(path: Path, data: str) -> Path:
    """Write one file of the export (text as UTF-8) whole: under a temporary name, then renamed."""
    write_whole(path, data)
    return path


def slug(frame: dict) -> str:
    """'drafting', 'block-check', 'tree-check': the step's kind, from its label's phase."""
    phase = frame["caption"].rsplit(" · ", 1)[-1].split(":")[0]
    return re.sub(r"[^a-z0-9]+", "-", phase.lower()).strip("-")[:40]


def write_round(scenario: Scenario, round_id: int, folder: Path, formats: Sequence[str] = ("html",), *,
                presenter: bool = True, on_image: Callable[[Path], None] | None = None) -> Exported:
    """Write round ``round_id`` into ``folder`` in the formats asked for (checked first)."""
    formats = check_formats(formats)
    steps = round_steps(scenario, round_id)
    folder.mkdir(parents=True, exist_ok=True)
    page = deck.deck_html(scenario, round_id, presenter)
    frames = deck.data(scenario, round_id, presenter)["round"]["frames"]
    files: list[Path] = []
    seconds, count = 0.0, 0
    if "svg" in formats:
        for index, drawing in enumerate(deck.drawings(page, len(steps))):
            path = folder / f"step-{steps[index] + 1:02d}-{slug(frames[index])}.svg"
            files.append(write_file(path, drawing))
            if on_image:
                on_image(path)
    if "png" in formats:
        figures = [(folder / f"step-{step + 1:02d}-{slug(frames[i])}", built.figure)
                   for i, (step, built) in enumerate(images.pages(scenario, steps, presenter))]
        written, seconds = images.write_images(figures, ("png",), on_image)
        files += written
        count = len(written)
    if "html" in formats:
        files.append(write_file(folder / deck_name(round_id), page))
    return Exported(folder, tuple(files), len(steps), seconds, count)
