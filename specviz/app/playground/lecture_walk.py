"""The Playground's lecture scripts: walking a script's entries, the lecture banner, and the Share tab's section
(load a script, download an example, collect one of your own: view, reorder and remove its entries).

The logic is in ``specviz.playground.lecture``; these functions read and write the typed session state
and draw the widgets. Step and Back (``transport``) call ``walk`` while a lecture runs.

A loaded lecture survives a reload: the link carries its id and the server keeps the script
(``lecture_link``).
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from ...core.verification import rule
from ...narration import problems
from ...playground import lecture, presets
from ...playground.lecture import Cursor, Entry, Lecture
from . import links, messages
from .lecture_link import keep
from .session import Keys, PlaygroundSession, Tab, session


def open_entry(pg: PlaygroundSession, index: int, step: int) -> None:
    entry = pg.lecture.entries[index]
    links.open_scenario(entry.scenario, step, "lecture entry")
    pg.lecture_entry = index
    pg.full_rerun = True  # the sidebar shows the entry's scenario


def walk(pg: PlaygroundSession, forward: bool) -> None:
    """Step or Back in a lecture: one event, or across to the next (previous) entry at an entry's end (start)."""
    cursor = Cursor(pg.lecture_entry, pg.state.step)
    moved = (lecture.forward if forward else lecture.back)(pg.lecture, cursor)
    if moved == cursor:
        edge = "end" if forward else "start"
        pg.state = replace(pg.state, playing=False,
                           notice=f"The {edge} of the lecture: PageDown and PageUp walk its {len(pg.lecture.entries)} "
                                  "entries; End lecture leaves it.")
    elif moved.entry != cursor.entry:
        open_entry(pg, moved.entry, moved.step)
    else:
        pg.state = replace(pg.state, step=moved.step, playing=False, notice="")


# --- the lecture banner (the player draws it on its caption line) -------------------------------------------
def end_lecture() -> None:
    pg = session()
    pg.lecture = None
    pg.lecture_entry = 0
    pg.lecture_id = ""


def progress(talk: Lecture, index: int) -> str:
    """'entry 2/5 · steps 3 to 10 · title · Lecture “title”': the numbers first, then the words (the banner
    shortens the words to its line, never the numbers); steps counted from 1 as the step counter counts."""
    entry = talk.entries[index]
    words = [entry.title] if entry.title else []
    words += [f"lecture “{talk.title}”"] if talk.title else []
    return " · ".join([f"entry {index + 1}/{len(talk.entries)}",
                       f"steps {entry.step + 1} to {lecture.entry_end(entry) + 1}", *words])


def entry_button(delta: int) -> None:
    """The banner's ◀ and ▶: the previous or next entry, at its first step."""
    pg = session()
    index = min(max(pg.lecture_entry + delta, 0), len(pg.lecture.entries) - 1)
    open_entry(pg, index, pg.lecture.entries[index].step)


# --- the Share tab's lecture section ------------------------------------------------------------------------
def on_lecture_upload() -> None:
    """A lecture script chosen in the uploader: checked whole before it opens; any refusal is said in the box."""
    pg = session()
    upload = pg.store.get(Keys.lecture_upload)
    if upload is None:
        return
    try:
        talk = lecture.lecture_from_json(upload.getvalue())
        lecture.check_steps(talk)
    except Exception as error:  # noqa: BLE001 - a callback: a refusal (a bug report unless SpecvizError), no traceback
        messages.log_if_bug(error)
        pg.lecture_problem = problems.file_problem(error, "lecture script")
        return
    pg.lecture_problem = None
    start(talk)


def start(talk: Lecture) -> None:
    """Open a checked lecture at its first entry's step."""
    pg = session()
    pg.lecture = talk
    pg.lecture_id = keep(talk)
    open_entry(pg, 0, talk.entries[0].step)
    pg.tab = Tab.animation  # the animation, where PageDown walks the lecture


def _add_step() -> None:
    pg = session()
    drafted = list(pg.lecture_draft)
    drafted.append(Entry(pg.scenario, pg.state.step, title=f"entry {len(drafted) + 1}"))
    pg.lecture_draft = drafted


def _move_entry(index: int, delta: int) -> None:
    """Swap a collected entry with its neighbour (delta -1: up, +1: down); 0 removes it."""
    pg = session()
    drafted = list(pg.lecture_draft)
    if delta == 0:
        drafted.pop(index)
    else:
        other = index + delta
        drafted[index], drafted[other] = drafted[other], drafted[index]
    pg.lecture_draft = drafted


def _open_collected(index: int) -> None:
    """Show a collected entry in the animation (its scenario at its step)."""
    pg = session()
    entry = pg.lecture_draft[index]
    links.open_scenario(entry.scenario, entry.step, "lecture entry")
    pg.tab = Tab.animation
    pg.full_rerun = True


def describe(entry: Entry) -> str:
    """'far apart · block verification · depth 3 · seed 1 · step 5' (steps counted from 1)."""
    scenario = entry.scenario
    name = presets.matching_preset(scenario) or "custom weights"
    return (f"{name} · {rule(scenario.verification).label} · depth {scenario.depth} · seed {scenario.seed} · "
            f"step {entry.step + 1}")


def entries_word(count: int) -> str:
    return f"{count} entr{'y' if count == 1 else 'ies'}"


def collected_entries(drafted: list[Entry]) -> None:
    """The collected entries, in lecture order, each with open, up, down and remove."""
    st.markdown(f"**My lecture** ({entries_word(len(drafted))}, in the order PageDown walks them)")
    base = Keys.lecture_mine
    for index, entry in enumerate(drafted):
        row = st.container(horizontal=True, vertical_alignment="center", gap="small")
        row.markdown(f"**{index + 1}.** {entry.title}: {describe(entry)}")  # not a markdown list: one line
        row.button("Show", key=f"{base}_open_{index}", on_click=_open_collected, args=(index,),
                   help="Open this entry's scenario at its step in the animation")
        row.button("↑", key=f"{base}_up_{index}", on_click=_move_entry, args=(index, -1), disabled=index == 0,
                   help="Move this entry up")
        row.button("↓", key=f"{base}_down_{index}", on_click=_move_entry, args=(index, 1),
                   disabled=index + 1 == len(drafted), help="Move this entry down")
        row.button("✕", key=f"{base}_remove_{index}", on_click=_move_entry, args=(index, 0),
                   help="Remove this entry")


def lecture_section() -> None:
    """Load a lecture script, download an example, or collect this scenario's steps into a new one."""
    pg = session()
    st.markdown("**Lecture script**: an ordered list of scenarios and steps (JSON). PageDown walks each entry from "
                "its step to its end (`until`, or the end of that round), then opens the next entry.")
    if pg.lecture_problem is not None:
        messages.show_problem(pg.lecture_problem)
    st.file_uploader("Load a lecture script (JSON)", type=["json"], key=Keys.lecture_upload,
                     on_change=on_lecture_upload)
    left, middle, right = st.columns(3)
    left.download_button("⬇ Example lecture script", lecture.lecture_to_json(lecture.example_lecture()),
                         file_name="specviz-lecture-example.json", mime="application/json",
                         key=Keys.lecture_example)
    middle.button("➕ Add this scenario and step", on_click=_add_step, key=Keys.lecture_add,
                  help="Collect entries for a lecture script of your own, then download it")
    drafted = pg.lecture_draft
    if drafted:
        right.download_button(f"⬇ My lecture ({entries_word(len(drafted))})",
                              lecture.lecture_to_json(Lecture(tuple(drafted), title="My lecture")),
                              file_name="specviz-lecture.json", mime="application/json", key=Keys.lecture_mine)
        collected_entries(drafted)
