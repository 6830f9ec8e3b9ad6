"""The Playground's lecture features: Step and Back that walk a lecture script, the "jump to" box, the lecture
banner, and the lecture section of the Share tab (load a script, download an example, build one).

The logic is in ``specviz.playground.lecture`` and ``specviz.playground.jump``; these functions read and
write the typed session state and draw the widgets.
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from ..playground import jump, lecture, state
from ..playground.lecture import Cursor, Entry, Lecture, LectureError
from . import playground_actions as actions
from .playground_state import Keys, PlaygroundSession, session

S = PlaygroundSession
ANIMATION_TAB = "▶ Animation"  # the page's first tab (views/playground.py names its tabs with this one first)


# --- Step and Back: one event, or across a lecture's entries ------------------------------------------
def _open_entry(pg: PlaygroundSession, index: int, step: int) -> None:
    entry = pg.lecture.entries[index]
    actions.open_scenario(entry.scenario, step, "lecture entry")
    pg.lecture_entry = index
    pg.full_rerun = True  # the sidebar shows the entry's scenario


def _walk(pg: PlaygroundSession, walk) -> None:
    cursor = Cursor(pg.lecture_entry, pg.state.step)
    moved = walk(pg.lecture, cursor)
    if moved == cursor:
        edge = "end" if walk is lecture.forward else "start"
        pg.state = replace(pg.state, playing=False,
                           notice=f"The {edge} of the lecture: PageDown and PageUp walk its {len(pg.lecture.entries)} "
                                  "entries; End lecture leaves it.")
    elif moved.entry != cursor.entry:
        _open_entry(pg, moved.entry, moved.step)
    else:
        pg.state = replace(pg.state, step=moved.step, playing=False, notice="")


def on_step() -> None:
    """Step (→, PageDown, Space): one event on; in a lecture, at an entry's last step, the next entry."""
    pg = session()
    if pg.lecture is None:
        actions.move(state.step_forward)
    else:
        _walk(pg, lecture.forward)


def on_back() -> None:
    """Back (←, PageUp): one event back; in a lecture, at an entry's first step, the previous entry's last."""
    pg = session()
    if pg.lecture is None:
        actions.move(state.step_back)
    else:
        _walk(pg, lecture.back)


# --- jump to ---------------------------------------------------------------------------------------------
def on_jump(target: str) -> None:
    pg = session()
    pg.state = jump.jump(pg.state, pg.scenario, target)


def jump_box(row) -> None:
    """The "jump to" control: a button that opens the four targets."""
    box = row.popover("⏩ Jump to", key=Keys.jump_menu,
                      help="Jump to the first rejection, the next correction, the next bonus or the round's end")
    for target, key in zip(jump.TARGETS, Keys.jump_targets, strict=True):
        box.button(target.capitalize(), key=key, on_click=on_jump, args=(target,), help=jump.HELP[target],
                   width="stretch")


# --- the lecture banner ----------------------------------------------------------------------------------
def end_lecture() -> None:
    pg = session()
    pg.lecture = None
    pg.lecture_entry = 0


def _entry_button(delta: int) -> None:
    pg = session()
    index = min(max(pg.lecture_entry + delta, 0), len(pg.lecture.entries) - 1)
    _open_entry(pg, index, pg.lecture.entries[index].step)


def banner() -> None:
    """Above the transport row while a lecture runs: where it is, and the way to the other entries."""
    pg = session()
    if pg.lecture is None:
        return
    talk: Lecture = pg.lecture
    row = st.container(horizontal=True, vertical_alignment="center", gap="small", key=Keys.lecture_banner)
    row.markdown(f"🎓 **{lecture.progress(talk, Cursor(pg.lecture_entry, pg.state.step))}** · PageDown walks on")
    row.button("◀ entry", key=Keys.lecture_previous, on_click=_entry_button, args=(-1,),
               disabled=pg.lecture_entry == 0, help="The previous entry, at its first step")
    row.button("entry ▶", key=Keys.lecture_next, on_click=_entry_button, args=(1,),
               disabled=pg.lecture_entry + 1 >= len(talk.entries), help="The next entry, at its first step")
    row.button("End lecture", key=Keys.lecture_end, on_click=end_lecture)


# --- the Share tab's lecture section ------------------------------------------------------------------------
def on_lecture_upload() -> None:
    pg = session()
    upload = pg.store.get(Keys.lecture_upload)
    if upload is None:
        return
    try:
        talk = lecture.lecture_from_json(upload.getvalue())
        lecture.check_steps(talk)
    except LectureError as error:
        pg.lecture_problem = f"The lecture script was not loaded: {error}"
        return
    pg.lecture_problem = ""
    start(talk)


def start(talk: Lecture) -> None:
    """Open a checked lecture at its first entry's step."""
    pg = session()
    pg.lecture = talk
    _open_entry(pg, 0, talk.entries[0].step)
    pg.tab = ANIMATION_TAB  # the animation, where PageDown walks the lecture


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
    if pg.lecture_problem:
        st.error(pg.lecture_problem)
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
