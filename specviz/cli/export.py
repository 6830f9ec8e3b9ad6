"""`specviz export`: a round's figures for slides, from a Playground link or a downloaded scenario file.

    python -m specviz export "http://localhost:8501/playground?vocab=...&step=5" --format html,svg,png
    python -m specviz export specviz-playground-seed4.json --round 2 --out slides/

Writes one chart per step (SVG and PNG through kaleido, an optional extra), each step's draw as SVG, and the
round as a self-contained HTML deck (``specviz.plots.export``). The link or file is read, and every format
checked, before anything slow starts; a refusal is one line with exit status 2. Without kaleido the HTML deck
(and the draws) are still written, and the command says how to install it.
"""

from __future__ import annotations

import argparse
import urllib.parse
from pathlib import Path
from typing import TextIO

from specviz.core.errors import SpecvizError

from .args import UsageError, int_in

LECTURE_KEYS = ("lecture", "entry")  # a running lecture's keys in a Playground link: not the scenario's


def read_formats(text: str) -> tuple[str, ...]:
    """'html,svg,png' as a tuple (checked against the formats, and kaleido, by the command)."""
    return tuple(part.strip().lower() for part in text.split(",") if part.strip())


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `export` subcommand and its flags."""
    cmd = sub.add_parser("export", help="write a round's figures (SVG/PNG per step) and an HTML deck for slides")
    cmd.add_argument("source", help="a Playground link (its URL, or just its query) or a downloaded scenario file")
    cmd.add_argument("--round", type=int_in(0), default=None,
                     help="the round to export (default: the round that holds the link's step)")
    cmd.add_argument("--format", type=read_formats, default=None,
                     help="html, svg, png, comma-separated (default: all three with kaleido installed, else html)")
    cmd.add_argument("--out", type=Path, default=None,
                     help="the folder to write (default: specviz-export-<rule>-seed<seed>-round<round>)")
    cmd.add_argument("--page", action="store_true", help="the page's type sizes instead of presenter mode's")


def read_source(source: str):
    """(scenario, step) of a scenario file, or of a link's query; a SpecvizError naming what is wrong."""
    from specviz.playground import share

    path = Path(source)
    if path.is_file():
        return share.import_json(path.read_bytes())
    if "=" not in source:
        raise UsageError(f"{source!r}: no such file, and not a Playground link (a URL with ?vocab=...&p=...&q=...)")
    query = urllib.parse.urlsplit(source).query if "?" in source else source
    params = dict(urllib.parse.parse_qsl(query, keep_blank_values=True))
    if not params:
        raise UsageError(f"{source!r} is neither a file nor a Playground link (a URL with ?vocab=...&p=...&q=...)")
    return share.scenario_from_query({k: v for k, v in params.items() if k not in LECTURE_KEYS})


def cmd_export(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Read the link or file, check the formats, then write the round; exit status 2 for a refusal."""
    from specviz.player import export  # the step player's deck and drawings, plotly's PNG charts

    try:
        opened = read_source(args.source)
        scenario, step = opened[0], opened[1]
        formats = args.format or (("html", "svg", "png") if export.kaleido_problem() is None else ("html",))
        formats = export.check_formats(formats)
        round_id = export.round_of(scenario, step) if args.round is None else args.round
        steps = export.round_steps(scenario, round_id)  # a round past the end is refused here, before the images
    except SpecvizError as error:
        err.write(f"specviz export: {error}\n")
        return 2
    for note in getattr(opened, "notes", ()):
        err.write(f"specviz export: note: {note}\n")
    if args.format is None and "svg" not in formats:
        err.write(f"specviz export: the HTML deck only: {export.kaleido_problem()}\n")
    rule = "".join(ch if ch.isalnum() else "-" for ch in scenario.verification)
    folder = args.out or Path(f"specviz-export-{rule}-seed{scenario.seed}-round{round_id}")
    out.write(f"exporting round {round_id} ({len(steps)} steps) as {', '.join(formats)} to {folder}\n")
    exported = export.write_round(scenario, round_id, folder, formats, presenter=not args.page)
    out.write(export.summary(exported) + "\n")
    return 0
