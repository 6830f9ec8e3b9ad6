"""`specviz export`: a round's figures for slides, from a Playground link or a downloaded scenario file.

    python -m specviz export "http://localhost:8501/playground?vocab=...&at=6" --format html,svg,png
    python -m specviz export specviz-playground-seed4.json --round 3 --out slides/

Writes the round as one self-contained HTML deck that is the step player, each step's drawing (chart and draw) as
SVG drawn by the player in Chromium, and each step's chart as PNG through kaleido, an optional extra
(``specviz.player.round_export``). Rounds count from 1, as the page shows them
(``--round 1`` is the first; files are named ``round-1.html``, ``step-01-...``).

Everything is checked before anything slow starts, and a refusal is one line with exit status 2 that names
the flag or the file, the value and what is allowed: the link or file (a file is measured before it is read),
the formats, the round, and the folder (``--out`` must be a folder that can be made and written, and files of
the round already there are replaced only with ``--force``). The plan is said in one line before writing:
what is written, where. Each file is written under a temporary name and renamed, so a Ctrl-C (one line, exit
status 130) or a full disk leaves only whole files.
"""

from __future__ import annotations

import argparse
import contextlib
import tempfile
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from specviz.core.errors import SpecvizError

from .args import UsageError, int_in, shown

LECTURE_KEYS = ("lecture", "entry")  # a running lecture's keys in a Playground link: not the scenario's
ALLOWED_FORMATS = "html, svg or png, comma-separated (e.g. html,svg)"
SOURCE_ALLOWED = "give a Playground link (its URL, or just its query ?vocab=...&p=...&q=...) or a scenario file"
EXIT_REFUSED, EXIT_FAILED, EXIT_INTERRUPTED = 2, 1, 130


# --- the flags ----------------------------------------------------------------------------------------------
def read_formats(text: str) -> tuple[str, ...]:
    """'html,svg,png' as a tuple of known formats; empty text or an unknown name is refused here."""
    from specviz.player.round_export import FORMATS

    parts = tuple(part.strip().lower() for part in text.split(","))
    named = tuple(part for part in parts if part)
    if not named:
        raise argparse.ArgumentTypeError(f"{shown(text)} names no format; use {ALLOWED_FORMATS}")
    unknown = [part for part in named if part not in FORMATS]
    if unknown:
        raise argparse.ArgumentTypeError(f"{shown(text)}: {', '.join(repr(u) for u in unknown)} is not a format; "
                                         f"use {ALLOWED_FORMATS}")
    return tuple(dict.fromkeys(named))


def read_out(text: str) -> Path:
    """The folder to write: any nonempty path (checked against the disk by the command, before anything slow)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"{shown(text)} names no folder; give the folder to write (it is made "
                                         "when missing), or leave --out out for the default")
    return Path(text)


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The `export` subcommand and its flags."""
    cmd = sub.add_parser("export", help="write a round's figures (SVG/PNG per step) and an HTML deck for slides")
    cmd.add_argument("source", help="a Playground link (its URL, or just its query) or a downloaded scenario file")
    cmd.add_argument("--round", type=int_in(1, note="round 1 is the first, as the page counts"), default=None,
                     help="the round to export, from 1 (default: the round that holds the link's step)")
    cmd.add_argument("--format", type=read_formats, default=None,
                     help="html, svg, png, comma-separated (default: all three with kaleido installed, else html)")
    cmd.add_argument("--out", type=read_out, default=None,
                     help="the folder to write, made when missing "
                          "(default: specviz-export-<rule>-seed<seed>-round<N>)")
    cmd.add_argument("--force", action="store_true", help="replace files of this round already in the folder")
    cmd.add_argument("--page", action="store_true", help="the page's type sizes instead of presenter mode's")


# --- the source: a link or a file ---------------------------------------------------------------------------
def read_scenario_file(path: Path):
    """(scenario, step) of a scenario file, its size checked before a byte is read (never gigabytes in memory)."""
    from specviz.playground import share
    from specviz.scenario.reading import MAX_JSON_CHARS

    size = path.stat().st_size
    if size > MAX_JSON_CHARS:
        raise UsageError(f"file {shown(str(path))} has {size:,} bytes; a scenario file has at most "
                               f"{MAX_JSON_CHARS:,} (the Playground's download is a few kB)")
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_JSON_CHARS + 1)  # bounded even if the file grew since it was measured
    except OSError as error:
        raise UsageError(f"file {shown(str(path))} cannot be read ({error.strerror}); {SOURCE_ALLOWED}") \
            from None
    return share.import_json(data)


def read_source(source: str):
    """(scenario, step) of a scenario file, or of a link's query; a SpecvizError naming what is wrong."""
    from specviz.playground import share

    path = Path(source)
    if path.is_dir():
        raise UsageError(f"{shown(source)} is a folder, not a scenario file or a link; {SOURCE_ALLOWED}")
    if path.exists() and not path.is_file():
        raise UsageError(f"{shown(source)} is not a regular file (a device or a pipe); {SOURCE_ALLOWED}")
    if path.is_file():
        return read_scenario_file(path)
    if "=" not in source:
        raise UsageError(f"{shown(source)}: no such file, and not a Playground link; {SOURCE_ALLOWED}")
    query = urllib.parse.urlsplit(source).query if "?" in source else source
    params = dict(urllib.parse.parse_qsl(query, keep_blank_values=True))
    if not params:
        raise UsageError(f"{shown(source)} is neither a file nor a Playground link; {SOURCE_ALLOWED}")
    return share.scenario_from_query({k: v for k, v in params.items() if k not in LECTURE_KEYS})


# --- the round ----------------------------------------------------------------------------------------------
def _rounds_words(played: int) -> str:
    return "no round" if played == 0 else "only round 1" if played == 1 else f"rounds 1 to {played}"


def _no_round(scenario, error: Exception | None) -> str:
    """Why a scenario plays no (further) round, naming the field to change: the rule, or the scenario."""
    from specviz.core.medusa import TypicalSupportError

    if isinstance(error, TypicalSupportError):
        return f"its verification {shown(scenario.verification)} keeps no token: {error}"
    return str(error) if error is not None else "the request stops at a stop token"


def choose_round(scenario, step: int, asked: int | None, source: str = "link") -> int:
    """The round to export as its index (from 0): the one that holds the step, or --round's (from 1), checked."""
    from specviz.playground.state import round_holding, timeline_for
    from specviz.scenario.reading_errors import PlaygroundError

    timeline = timeline_for(scenario)
    if asked is None:
        try:
            return round_holding(scenario, step)
        except PlaygroundError:
            raise UsageError(f"the {source}'s scenario plays no round: "
                                   f"{_no_round(scenario, timeline.error)}") from None
    played = timeline.ensure_rounds(asked)
    if played < asked:
        why = f": {_no_round(scenario, timeline.error)}" if timeline.error or timeline.stopped else ""
        raise UsageError(f"--round {asked}: the {source}'s scenario plays {_rounds_words(played)}{why}")
    return asked - 1


# --- the folder ---------------------------------------------------------------------------------------------
def check_folder(folder: Path) -> None:
    """UsageError unless folder is, or can become, a folder: not a file, not below a file."""
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--out {shown(str(folder))} is a file, not a folder; give a folder (it is made "
                               "when missing)")
    for parent in folder.parents:
        if parent.exists():
            if not parent.is_dir():
                raise UsageError(f"--out {shown(str(folder))}: {shown(str(parent))} is a file, so no folder "
                                       "can be made below it; give a folder")
            return


def round_files(folder: Path, round_id: int, steps: range) -> list[Path]:
    """The files of this round already in folder: its deck and every file a step of it writes."""
    from specviz.player.round_export import deck_name

    if not folder.is_dir():
        return []
    found = [folder / deck_name(round_id)] if (folder / deck_name(round_id)).exists() else []
    for step in steps:
        found += sorted(p for p in folder.glob(f"step-{step + 1:02d}-*") if p.suffix in (".svg", ".png"))
    return found


# --- the plan -------------------------------------------------------------------------------------------------
@dataclass
class Plan:
    """What an export will write, decided and checked before anything slow: the round, formats and folder."""

    scenario: object
    round_id: int
    steps: range
    formats: tuple[str, ...]
    folder: Path
    notes: list[str] = field(default_factory=list)

    def words(self) -> str:
        """One line: the round, and every kind of file written, by name, into which folder."""
        from specviz.player.round_export import deck_name

        parts = []
        if "html" in self.formats:
            parts.append(f"the HTML deck {deck_name(self.round_id)}")
        if "svg" in self.formats:
            parts.append("each step's drawing (chart and draw) as SVG (step-NN-<kind>.svg)")
        if "png" in self.formats:
            parts.append("each step's chart as PNG (step-NN-<kind>.png)")
        return (f"exporting round {self.round_id + 1} ({len(self.steps)} steps) to {self.folder}: "
                f"{', '.join(parts)}")


def default_folder(scenario, round_id: int) -> Path:
    rule = "".join(ch if ch.isalnum() else "-" for ch in scenario.verification)
    return Path(f"specviz-export-{rule}-seed{scenario.seed}-round{round_id + 1}")


def default_formats(notes: list[str]) -> tuple[str, ...]:
    """Without --format: the deck, with the SVG drawings where a browser can draw them and PNG where kaleido can."""
    from specviz.player import round_export as export

    formats = ["html"]
    for fmt, problem, what in (("svg", export.browser_problem(), "SVG drawings"),
                               ("png", export.kaleido_problem(), "PNG charts")):
        if problem is None:
            formats.append(fmt)
        else:
            notes.append(f"note: no {what}: {problem}")
    return tuple(formats)


def plan_export(args: argparse.Namespace) -> Plan:
    """Read and check everything an export needs, in the order a person fixes it; nothing is written here."""
    from specviz.player import round_export as export  # the step player's deck and drawings, plotly's PNG charts

    if args.out is not None:
        check_folder(args.out)  # a wrong --out is answered before the link is even read
    opened = read_source(args.source)
    scenario, step = opened[0], opened[1]
    notes = [f"note: {note}" for note in getattr(opened, "notes", ())]
    formats = export.check_formats(args.format or default_formats(notes))
    round_id = choose_round(scenario, step, args.round, "file" if Path(args.source).is_file() else "link")
    steps = export.round_steps(scenario, round_id)
    folder = args.out or default_folder(scenario, round_id)
    check_folder(folder)
    there = round_files(folder, round_id, steps)
    if there and not args.force:
        names = ", ".join(p.name for p in there[:3]) + (f" and {len(there) - 3} more" if len(there) > 3 else "")
        raise UsageError(f"--out {shown(str(folder))} already holds {len(there)} file(s) of round "
                               f"{round_id + 1} ({names}); pass --force to replace them, or give another --out")
    if there:
        notes.append(f"note: replacing {len(there)} file(s) of round {round_id + 1} in {folder} (--force)")
    return Plan(scenario, round_id, steps, formats, folder, notes)


def make_folder(folder: Path) -> bool:
    """Make the folder (and its parents) and check a file can be written in it; True when it was made here.

    UsageError naming why not (a folder under /proc, a read-only disk, no permission).
    """
    made = not folder.exists()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        raise UsageError(f"--out {shown(str(folder))}: cannot write there ({error.strerror or error}); "
                               "give a folder you can write") from None
    return made


def left_behind(plan: Plan, made: bool) -> str:
    """After a Ctrl-C or a failed write: the whole files now in the folder; an empty folder made here is removed."""
    files = round_files(plan.folder, plan.round_id, plan.steps)
    if not files:
        if made:
            with contextlib.suppress(OSError):
                plan.folder.rmdir()
        return "nothing was written"
    return (f"{len(files)} whole file(s) of round {plan.round_id + 1} in {plan.folder} (each file is written under a "
            "temporary name, then renamed: none is half-written)")


def cmd_export(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Check everything, say the plan, write the round; 2 for a refusal, 1 for a failed write, 130 for Ctrl-C."""
    from specviz.player import round_export as export  # the step player's deck and drawings, plotly's PNG charts

    plan, made = None, False
    try:
        plan = plan_export(args)
        made = make_folder(plan.folder)
        for note in plan.notes:
            err.write(f"specviz export: {note}\n")
        out.write(plan.words() + "\n")
        out.flush()
        exported = export.write_round(plan.scenario, plan.round_id, plan.folder, plan.formats,
                                      presenter=not args.page)
    except SpecvizError as error:
        from specviz.narration.problems import refusal_line  # the words the Playground shows for the same refusal

        err.write(f"specviz export: {refusal_line(error)}\n")
        return EXIT_REFUSED
    except KeyboardInterrupt:
        err.write("specviz export: interrupted (Ctrl-C)" + (f": {left_behind(plan, made)}" if plan else "") + "\n")
        return EXIT_INTERRUPTED
    except OSError as error:  # the folder was checked, so: a full disk, a folder removed meanwhile
        name = f" {shown(error.filename)}" if error.filename else ""
        err.write(f"specviz export: cannot write{name} ({error.strerror or error}): {left_behind(plan, made)}\n")
        return EXIT_FAILED
    out.write(export.summary(exported) + "\n")
    return 0

