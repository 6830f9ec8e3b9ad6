"""The Playground's lecture scripts: walking a script's entries, the lecture banner, and the Share tab's section
(load a script, download an example, collect one of your own).

The logic is in ``specviz.playground.lecture``; these functions read and write the typed session state
and draw the widgets. Step and Back (``transport``) call ``walk`` while a lecture runs.
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from ...playground import explain, lecture
from ...playground.lecture import Cursor, Entry, Lecture
from . import links, messages
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


# --- the lecture banner ----------------------------------------------------------------------------------
def end_lecture() -> None:
    pg = session()
    pg.lecture = None
    pg.lecture_entry = 0


def _entry_button(delta: int) -> None:
    pg = session()
    index = min(max(pg.lecture_entry + delta, 0), len(pg.lecture.entries) - 1)
    open_entry(pg, index, pg.lecture.entries[index].step)


def banner(row) -> None:
    """On the step's caption line while a lecture runs: which entry, and buttons to the other entries."""
    pg = session()
    if pg.lecture is None:
        return
    talk: Lecture = pg.lecture
    row.caption(f"🎓 **{lecture.progress(talk, Cursor(pg.lecture_entry, pg.state.step))}**")
    row.button("◀", key=Keys.lecture_previous, on_click=_entry_button, args=(-1,),
               disabled=pg.lecture_entry == 0, help="The previous lecture entry, at its first step")
    row.button("▶", key=Keys.lecture_next, on_click=_entry_button, args=(1,),
               disabled=pg.lecture_entry + 1 >= len(talk.entries), help="The next lecture entry, at its first step")
    row.button("End", key=Keys.lecture_end, on_click=end_lecture, help="Leave the lecture (Step walks one event)")


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
        pg.lecture_problem = explain.file_problem(error, "lecture script")
        return
    pg.lecture_problem = None
    start(talk)


def start(talk: Lecture) -> None:
    """Open a checked lecture at its first entry's step."""
    pg = session()
    pg.lecture = talk
    open_entry(pg, 0, talk.entries[0].step)
    pg.tab = Tab.animation  # the animation, where PageDown walks the lecture


def _add_step() -> None:
    pg = session()
    drafted = list(pg.lecture_draft)
    drafted.append(Entry(pg.scenario, pg.state.step, title=f"entry {len(drafted) + 1}"))
    pg.lecture_draft = drafted


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
        right.download_button(f"⬇ My lecture ({len(drafted)} entries)",
                              lecture.lecture_to_json(Lecture(tuple(drafted), title="My lecture")),
                              file_name="specviz-lecture.json", mime="application/json", key=Keys.lecture_mine)
