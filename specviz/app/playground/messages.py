"""The Playground's messages: the controls' scenario adopted or refused, one box for every refusal, bug reports.

A ``SpecvizError`` is a refused input: its ``narration.problems.Problem`` says what to change, in the refusal box (with
Undo where an edit can be undone). Anything else is a bug in specviz and is shown as one: the exception's
type and a line to copy (``failures`` does this around each part of the page; the traceback goes to the
server's log), never as a refused input.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from ...core import SpecvizError
from ...narration import problems
from ...playground import form, state
from ...scenario import Scenario
from . import controls
from .session import Keys, PlaygroundSession

LINK_HEADING = "The link or file asked for settings that are refused"
EDIT_HEADING = "This setting is refused"
LINK_CAPTION = "The animation plays the nearest settings the controls allow; your other settings are kept."
EDIT_CAPTION = "The animation still shows the last scenario that worked; your other settings are kept."
REFUSED_CAPTION = ("Nothing is animated until these settings can play: change what the box says, or press "
                   "Undo to go back to the last scenario that worked.")
UNREAD_HEADING = "The link or file could not be opened"
BUG_NOTE = "Not a refused input: something in specviz went wrong. The line below names it; copy it into a report."

log = logging.getLogger("specviz")


# --- one problem: a refusal or a bug ---------------------------------------------------------------------------
def show_problem(problem: problems.Problem, where=st) -> None:
    """One refusal (what is wrong and what to change) or one bug report (its type and a line to copy)."""
    if not problem.bug:
        where.error(problem.markdown())
        return
    box = where.container(border=True)
    box.error(f"**🐞 {problem.title}.** {BUG_NOTE}")
    box.code(problem.detail, language=None, wrap_lines=True)
    box.caption(problem.fix)


def log_if_bug(error: BaseException) -> None:
    """A bug's traceback goes to the server's log (the page shows its one line); a refusal is no bug."""
    if not isinstance(error, SpecvizError):
        log.error("a bug in the Playground", exc_info=error)


@contextmanager
def failures(scenario: Scenario | None = None) -> Iterator[None]:
    """Run one part of the page; if it fails, show why in its place (the rest of the page still draws).

    A SpecvizError is a refusal, told with the scenario's words; anything else is a bug report.
    """
    try:
        yield
    except SpecvizError as error:
        show_problem(problems.problem_of(error, scenario=scenario))
    except Exception as error:  # noqa: BLE001 - a bug: shown as one (and logged), never as a refused input
        log_if_bug(error)
        show_problem(problems.bug_report(error))


# --- the controls' scenario --------------------------------------------------------------------------------------
def adopt_controls(pg: PlaygroundSession) -> None:
    """Adopt the scenario the controls describe (a change replays from the start), or show why it is refused;
    a link's or file's refusals and adjustments are said once, on the run that opened it."""
    candidate, problems = controls.candidate_scenario(pg)
    link_problems, unreadable = pg.take("link_problems"), pg.take("link_unreadable")
    note, pg.link_note = pg.link_note, ""
    messages = st.container()  # always here, so the tabs below keep their place (and their selection)
    if unreadable:  # nothing of it was loaded: no edit to undo, no nearest settings being played
        show_unread(messages, link_problems)
        link_problems = []
    if not problems and candidate is not None:
        pg.refused_scenario = None
        if candidate != pg.scenario:
            pg.state = state.after_edit(pg.state, pg.scenario, candidate)
            pg.scenario = candidate
    elif pg.refused_scenario is not None and candidate is not None:
        pg.refused_scenario = candidate  # a refused link's or card's scenario, as edited since
    if link_problems or problems:
        with messages:
            unique = list(dict.fromkeys([*link_problems, *problems]))
            heading = LINK_HEADING if link_problems else EDIT_HEADING
            caption = LINK_CAPTION if link_problems and not problems else EDIT_CAPTION
            show_problems(pg, unique, heading, REFUSED_CAPTION if pg.refused_scenario is not None else caption)
    if note:
        messages.info(note)
    controls.sync_preset_box(pg)


def show_unread(messages, problems: list[problems.Problem]) -> None:
    """A link or file that could not be read: its reason, plainly (the shown scenario is unchanged)."""
    box = messages.container(border=True)
    box.markdown(f"### ⚠️ {UNREAD_HEADING}")
    for problem in problems:
        show_problem(problem, box)


def refused_note() -> None:
    """In place of the animation (and the tabs that explain it) while a refused link or card is shown."""
    st.info("Nothing to animate: the settings above are refused (the box says why and what to change). The "
            "controls, the weights tab and the share link all show these settings.")


def show_problems(pg: PlaygroundSession, problems: list[problems.Problem], heading: str, caption: str) -> None:
    """One box for every refusal of this run, with one Undo; refused weight cells are named."""
    box = st.container(border=True)
    box.markdown(f"### ⚠️ {heading}")
    for problem in problems:
        show_problem(problem, box)
    cells = form.flagged_cells(pg.tables, pg.table_vocab, bool(pg.fp32))
    if cells:
        box.markdown("**Refused cells** (marked ⚠ in the weights tab): " + "; ".join(cells))
    box.caption(caption)
    box.button("↩ Undo last edit", on_click=controls.undo, key=Keys.undo)
