"""The Playground's message area: the controls' scenario adopted or refused, one box for every refusal."""

from __future__ import annotations

import streamlit as st

from ..playground import explain, form, state
from . import playground_actions as actions
from .playground_state import Keys, PlaygroundSession

LINK_HEADING = "The link or file asked for settings that are refused"
EDIT_HEADING = "This setting is refused"
LINK_CAPTION = "The animation plays the nearest settings the controls allow; your other settings are kept."
EDIT_CAPTION = "The animation still shows the last scenario that worked; your other settings are kept."


def adopt_controls(pg: PlaygroundSession) -> None:
    """Adopt the scenario the controls describe (a change replays from the start), or show why it is refused;
    a link's or file's refusals and adjustments are said once, on the run that opened it."""
    candidate, problems = actions.candidate_scenario(pg)
    link_problems = pg.link_problems
    pg.link_problems = []
    note, pg.link_note = pg.link_note, ""
    messages = st.container()  # always here, so the tabs below keep their place (and their selection)
    if link_problems or problems:
        with messages:
            unique = list(dict.fromkeys([*link_problems, *problems]))
            heading = LINK_HEADING if link_problems else EDIT_HEADING
            caption = LINK_CAPTION if link_problems and not problems else EDIT_CAPTION
            show_problems(pg, unique, heading, caption)
    if not problems and candidate is not None and candidate != pg.scenario:
        pg.state = state.after_edit(pg.state, pg.scenario, candidate)
        pg.scenario = candidate
    if note:
        messages.info(note)


def show_problems(pg: PlaygroundSession, problems: list[explain.Problem], heading: str, caption: str) -> None:
    """One box for every refusal of this run, with one Undo; refused weight cells are named."""
    box = st.container(border=True)
    box.markdown(f"### ⚠️ {heading}")
    for problem in problems:
        box.error(problem.markdown())
    cells = form.flagged_cells(pg.tables, pg.table_vocab, bool(pg.fp32))
    if cells:
        box.markdown("**Refused cells** (marked ⚠ in the weights tab): " + "; ".join(cells))
    box.caption(caption)
    box.button("↩ Undo last edit", on_click=actions.undo, key=Keys.undo)
