"""A lecture script: an ordered list of saved scenarios and steps that PageDown walks through.

The file (JSON)::

    {"format": "specviz-lecture", "version": 1, "title": "optional",
     "entries": [{"title": "optional", "scenario": {...}, "step": 4, "until": 9}, ...]}

Each entry's ``scenario`` is a scenario document (``specviz.scenario.scenario_to_dict``'s format, the
same as in the Playground's downloaded file), ``step`` the animation step it opens at (0-based, the
link's ``step``), and ``until`` (optional, at least ``step``) its last step; without it the entry ends
at the result of the round that holds ``step``. PageDown steps from ``step`` to ``until``; one more
PageDown opens the next entry at its ``step``. PageUp walks back the same way.

``lecture_from_json`` reads and checks a file before anything plays; every refusal is a
``LectureError`` whose ``field`` is the JSON path of the culprit (``entries[1].scenario.depth``).
The file is read as scenario files are (``specviz.scenario.read_json``: numbers exact, so 1e-400
stays 1/10^400, duplicate keys refused, at most MAX_LECTURE_CHARS and MAX_LECTURE_DEPTH levels),
and every entry is held to the Playground's limits, so that the page opens it unchanged: 2 to 12
tokens, depth 1 to 5, settings its controls hold, a tree of at most 4 drafts per node and 40 nodes,
steps up to MAX_STEP and MAX_TOTAL_STEPS in all, titles of one line. ``check_steps`` then plays
each entry's rounds to confirm that its steps exist.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from typing import Any

from ..core import MAX_DEPTH
from ..core.errors import SpecvizError
from ..scenario import Scenario, ScenarioError, read_json, scenario_from_dict, scenario_to_dict
from ..scenario.reading import INTEGER, JsonNumber, describe, got, short_text
from . import explain, form, tree_limits
from .presets import MAX_VOCAB, MIN_VOCAB
from .state import timeline_for

FORMAT = "specviz-lecture"
VERSION = 1
MAX_ENTRIES = 100
MAX_TITLE_CHARS = 200  # a title is one line of the lecture banner
MAX_LECTURE_CHARS = 2_000_000  # 100 Markov entries of 12 tokens with exact weights take under 1 MB
MAX_LECTURE_DEPTH = 10  # a lecture nests 7 levels (file -> entries -> entry -> scenario -> table -> rows -> row)
# check_steps plays every entry up to its last step to confirm it exists: 10,000 steps (about 110 rounds of
# the largest tree the Playground draws, every round of a chain) take about half a second on a 2-core CPU
MAX_TOTAL_STEPS = 10_000  # the entries' last steps, added up
MAX_STEP = MAX_TOTAL_STEPS  # one entry's step or until
SCENARIO_FILE = "specviz-playground"  # share.FORMAT: a Playground scenario file, loaded in the wrong box
_TOP_KEYS = ("format", "version", "title", "entries")
_ENTRY_KEYS = ("title", "scenario", "step", "until")
_CONTROLS = (("seed", "seeds are 0 to 2^53 − 1 (the seed box)"),
             ("generation", "generations are 0 to 2^53 − 1"),
             ("target_temperature", f"the temperature slider goes from {form.TEMPERATURE_RANGE[0]} to "
                                    f"{form.TEMPERATURE_RANGE[1]}, in steps of 0.0001"),
             ("target_top_p", f"the top-p slider goes from {form.TOP_P_RANGE[0]} to 1, in steps of 0.0001"))


class LectureError(SpecvizError, ValueError):
    """A lecture file that cannot be used; ``field`` is the JSON path of the culprit."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field


class LectureTypeError(LectureError, TypeError):
    """A field of a lecture file has the wrong JSON type."""


@dataclass(frozen=True)
class Entry:
    """One saved scenario and the steps a lecture shows of it."""

    scenario: Scenario
    step: int
    until: int | None = None  # None: the end of the round that holds ``step``
    title: str = ""


@dataclass(frozen=True)
class Lecture:
    entries: tuple[Entry, ...]
    title: str = ""

    def entry_title(self, index: int) -> str:
        """'2/5 · title' (entries count from 1 for people, like pages of a slide deck)."""
        entry = self.entries[index]
        return f"{index + 1}/{len(self.entries)}" + (f" · {entry.title}" if entry.title else "")


@dataclass(frozen=True)
class Cursor:
    """Where a lecture is: the entry's index and the animation step inside its scenario."""

    entry: int
    step: int


# --- reading a file ---------------------------------------------------------------------------------
def _shown(value: object) -> str:
    """A value for a refusal: a whole number as itself ('2'), anything else with its kind ('a string 'x'')."""
    return describe(value) if type(value) is int else got(value)


def _keys(value: object, field: str, required: tuple[str, ...], known: tuple[str, ...]) -> dict:
    if not isinstance(value, dict):
        raise LectureTypeError(field, f"expected an object with {', '.join(required)}, got {got(value)}")
    missing = [k for k in required if k not in value]
    if missing:
        raise LectureError(field, f"missing {', '.join(repr(k) for k in missing)}")
    unknown = sorted(short_text(str(k)) for k in value if k not in known)
    if unknown:
        listed = ", ".join(unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        raise LectureError(field, f"unknown field(s) {listed}; known: {', '.join(known)}")
    return value


def _step(value: object, field: str, low: int = 0) -> int:
    allowed = f"a whole number from {low} to {MAX_STEP:,}"
    if isinstance(value, JsonNumber) and INTEGER.fullmatch(value.text):  # longer than Python reads: surely too large
        raise LectureError(field, f"expected {allowed}, got a number of {len(value.text.lstrip('+-')):,} digits")
    if isinstance(value, bool) or not isinstance(value, int):
        raise LectureTypeError(field, f"expected {allowed}, got {got(value)}")
    if not low <= value <= MAX_STEP:
        shown = _shown(value)
        why = "" if value < low else f" (a lecture script plays at most {MAX_TOTAL_STEPS:,} steps in all)"
        raise LectureError(field, f"expected {allowed}, got {shown}{why}")
    return value


def _title(value: object, field: str) -> str:
    if not isinstance(value, str):
        raise LectureTypeError(field, f"expected a string, got {got(value)}")
    if len(value) > MAX_TITLE_CHARS:
        raise LectureError(field, f"has {len(value):,} characters; a title has at most {MAX_TITLE_CHARS} (one line "
                                  "of the lecture banner)")
    if any(unicodedata.category(char) in ("Cc", "Zl", "Zp") for char in value):  # emoji joiners (Cf) are fine
        raise LectureError(field, f"{short_text(value)} holds a line break or another control character; a title "
                                  "is one line of text")
    return value


def _check_vocab_size(value: object, field: str) -> None:
    """A vocabulary outside the Playground's 2..12 tokens, refused before a single weight is read."""
    vocab = value.get("vocab") if isinstance(value, dict) else None
    if isinstance(vocab, list) and not MIN_VOCAB <= len(vocab) <= MAX_VOCAB:
        raise LectureError(f"{field}.vocab", f"has {len(vocab):,} tokens; the Playground's vocabulary has "
                                             f"{MIN_VOCAB} to {MAX_VOCAB}")


def _check_controls(scenario: Scenario, field: str) -> None:
    """LectureError unless every setting is one the Playground's controls hold (it would be changed on opening)."""
    if not 1 <= scenario.depth <= MAX_DEPTH:  # the Playground's depth control holds 1..MAX_DEPTH
        raise LectureError(f"{field}.depth", f"expected 1 to {MAX_DEPTH}, got {_shown(scenario.depth)}")
    fitted, _ = form.fit_to_controls(scenario, MAX_DEPTH)
    for name, allowed in _CONTROLS:
        if getattr(fitted, name) != getattr(scenario, name):
            raise LectureError(f"{field}.{name}", f"{_shown(getattr(scenario, name))} is outside the Playground's "
                                                  f"controls: {allowed}")
    reason = tree_limits.width_refusal(scenario.verification) or tree_limits.size_refusal(scenario.verification,
                                                                                scenario.depth)
    if reason:
        raise LectureError(f"{field}.verification", reason)


def _scenario(value: object, field: str) -> Scenario:
    _check_vocab_size(value, field)
    try:
        scenario = scenario_from_dict(value)  # type: ignore[arg-type]
    except ScenarioError as error:
        inner = "" if error.field == "scenario" else f".{error.field}"
        kind = LectureTypeError if isinstance(error, TypeError) else LectureError
        raise kind(f"{field}{inner}", error.reason) from None
    _check_controls(scenario, field)
    problems = explain.check_scenario(scenario)
    if problems:
        first = problems[0]
        raise LectureError(field, f"the scenario does not play: {first.title}. {first.detail}".strip())
    return scenario


def _entry(value: object, index: int) -> Entry:
    field = f"entries[{index}]"
    data = _keys(value, field, ("scenario", "step"), _ENTRY_KEYS)
    step = _step(data["step"], f"{field}.step")  # numbers first: cheap, and a step of 10^6 needs no scenario
    until = None
    if data.get("until") is not None:
        until = _step(data["until"], f"{field}.until", low=step)
    title = _title(data.get("title", ""), f"{field}.title")
    scenario = _scenario(data["scenario"], f"{field}.scenario")
    return Entry(scenario, step, until, title)


def _check_not_scenario_file(data: object) -> None:
    """A Playground scenario file (or a bare scenario document) given as a lecture script, said as such."""
    if not isinstance(data, dict) or "entries" in data:
        return
    if data.get("format") == SCENARIO_FILE or "scenario" in data or {"vocab", "target", "draft"} <= data.keys():
        raise LectureError("", "this is a scenario file, not a lecture script: open it with “Load a downloaded "
                               f"scenario” in the Share tab (a lecture script has \"format\": \"{FORMAT}\" and a "
                               "list of entries, each a scenario and a step)")


def _check_total_steps(entries: tuple[Entry, ...]) -> None:
    total = sum(entry.until if entry.until is not None else entry.step for entry in entries)
    if total > MAX_TOTAL_STEPS:
        raise LectureError("entries", f"the entries' last steps add up to {total:,}; a lecture script plays at most "
                                      f"{MAX_TOTAL_STEPS:,} steps in all (each is checked by playing it): split "
                                      "it into two scripts, or start entries at earlier steps")


def lecture_from_dict(data: object) -> Lecture:
    """A Lecture from its JSON data; LectureError naming the field otherwise (nothing is played here)."""
    _check_not_scenario_file(data)
    data = _keys(data, "", ("format", "entries"), _TOP_KEYS)
    if data["format"] != FORMAT:
        raise LectureError("format", f"expected {FORMAT!r}, got {got(data['format'])} (a Playground scenario file "
                                     "goes into “Load a downloaded scenario”)")
    version = data.get("version", VERSION)
    if type(version) is not int or version != VERSION:
        raise LectureError("version", f"expected {VERSION}, got {_shown(version)}")
    entries = data["entries"]
    if not isinstance(entries, list):
        raise LectureTypeError("entries", f"expected a list of entries, got {got(entries)}")
    if not 1 <= len(entries) <= MAX_ENTRIES:
        raise LectureError("entries", f"expected 1 to {MAX_ENTRIES} entries, got {len(entries):,}")
    title = _title(data.get("title", ""), "title")
    read = tuple(_entry(e, i) for i, e in enumerate(entries))
    _check_total_steps(read)
    return Lecture(read, title)


def lecture_from_json(text: str | bytes) -> Lecture:
    """A Lecture from a file's text, read as scenario files are (``specviz.scenario.read_json``: exact numbers,
    duplicate keys refused, a size and a nesting limit), then every field (see ``lecture_from_dict``)."""
    try:
        data = read_json(text, "file", document="a lecture script", max_chars=MAX_LECTURE_CHARS,
                         max_depth=MAX_LECTURE_DEPTH)
    except ScenarioError as error:
        kind = LectureTypeError if isinstance(error, TypeError) else LectureError
        raise kind("", f"the file {error.reason}") from None
    return lecture_from_dict(data)


def lecture_to_dict(lecture: Lecture) -> dict[str, Any]:
    """The file's data; ``lecture_from_dict`` reads it back to an equal Lecture."""
    entries = []
    for entry in lecture.entries:
        item: dict[str, Any] = {"scenario": scenario_to_dict(entry.scenario), "step": entry.step}
        if entry.until is not None:
            item["until"] = entry.until
        if entry.title:
            item["title"] = entry.title
        entries.append(item)
    data: dict[str, Any] = {"format": FORMAT, "version": VERSION, "entries": entries}
    if lecture.title:
        data["title"] = lecture.title
    return data


def lecture_to_json(lecture: Lecture) -> str:
    return json.dumps(lecture_to_dict(lecture), indent=1, ensure_ascii=False)


# --- the steps of each entry -------------------------------------------------------------------------
def _available(entry: Entry, last: int) -> int:
    """Events of the entry's scenario up to step ``last`` (fewer when the request stops or a round fails)."""
    return timeline_for(entry.scenario).ensure_events(last + 1)


def entry_end(entry: Entry) -> int:
    """The entry's last step: ``until``, or the result of the round that holds ``step``."""
    if entry.until is not None:
        return entry.until
    timeline = timeline_for(entry.scenario)
    timeline.ensure_events(entry.step + 1)
    return timeline.round_end(timeline.round_of(entry.step))


def check_steps(lecture: Lecture) -> None:
    """Play each entry's rounds up to its last step; LectureError naming the first step that does not exist."""
    for index, entry in enumerate(lecture.entries):
        for name in ("step", "until"):
            last = getattr(entry, name)
            if last is None:
                continue
            available = _available(entry, last)
            if available <= last:
                timeline = timeline_for(entry.scenario)
                why = ("the request stops at a stop token" if timeline.stopped else
                       f"a round cannot be played: {timeline.error}" if timeline.error is not None else
                       "the Playground plays at most 200 rounds")
                raise LectureError(f"entries[{index}].{name}", f"step {last} does not exist: the scenario has "
                                                               f"{available} steps (0 to {available - 1}; {why})")


def start(lecture: Lecture) -> Cursor:
    return Cursor(0, lecture.entries[0].step)


def forward(lecture: Lecture, cursor: Cursor) -> Cursor:
    """One step on; at the entry's last step, the next entry's first; at the very end, unchanged."""
    entry = lecture.entries[cursor.entry]
    if cursor.step < entry_end(entry):
        return Cursor(cursor.entry, cursor.step + 1)
    if cursor.entry + 1 < len(lecture.entries):
        return Cursor(cursor.entry + 1, lecture.entries[cursor.entry + 1].step)
    return cursor


def back(lecture: Lecture, cursor: Cursor) -> Cursor:
    """One step back; at the entry's first step, the previous entry's last; at the very start, unchanged."""
    entry = lecture.entries[cursor.entry]
    if cursor.step > entry.step:
        return Cursor(cursor.entry, cursor.step - 1)
    if cursor.entry > 0:
        return Cursor(cursor.entry - 1, entry_end(lecture.entries[cursor.entry - 1]))
    return cursor


def at_end(lecture: Lecture, cursor: Cursor) -> bool:
    return cursor.entry == len(lecture.entries) - 1 and cursor.step >= entry_end(lecture.entries[-1])


def progress(lecture: Lecture, cursor: Cursor) -> str:
    """'Lecture “title” · entry 2/5 · title · steps 3 to 9' for the line above the animation."""
    entry = lecture.entries[cursor.entry]
    head = f"Lecture “{lecture.title}” · " if lecture.title else "Lecture · "
    return f"{head}entry {lecture.entry_title(cursor.entry)} · steps {entry.step} to {entry_end(entry)}"


def example_lecture() -> Lecture:
    """A short lecture from the presets: a rejection and its correction, then p = q's bonus, then block."""
    from .presets import apply_preset, default_scenario

    far = apply_preset(default_scenario(), "far apart")
    same = apply_preset(default_scenario(), "p = q")
    block = far.with_changes(verification="block")
    return Lecture((
        Entry(far, 0, title="Far apart: a draft is rejected and corrected"),
        Entry(same, 0, title="p = q: every draft accepted, then a bonus token"),
        Entry(block, 0, title="The same drafts under block verification"),
    ), title="Speculative sampling in three scenarios")
