"""Links and files: a shared link or a downloaded file opened into the controls, and the address bar written.

The whole scenario and the current step live in the URL. ``read_link`` opens a new query string (a shared
link, the gallery's switch_page), ``on_upload`` a downloaded file; both go through ``open_scenario``, which
fits the scenario to the controls (each change said in one line) and shows a refused one with its
refusal. ``write_link`` keeps the address bar on the shown scenario and step.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from ...core import MAX_DEPTH
from ...narration.problems import problem_of
from ...playground import explain, form, presets, share, state
from ...scenario import Scenario
from . import controls, lecture_link, messages, rule_switch
from .session import Keys, PlaygroundSession, session


def open_scenario(scenario: Scenario, step: int, source: str, notes: tuple[str, ...] | list[str] = ()) -> None:
    """Open a link's or file's scenario: fitted to the controls (each change said in one line), then checked.

    notes: what reading the link or file already adjusted or ignored. A refused scenario fills the controls
    and becomes the refused scenario: shown with its refusal, never with another scenario's animation.
    """
    pg = session()
    scenario, fitted = form.fit_to_controls(scenario, MAX_DEPTH)
    notes = [*notes, *fitted]
    problems = explain.check_scenario(scenario) + rule_switch.switch_problems(scenario)
    if not problems:
        step, moved = state.fit_step(scenario, step)
        notes += [moved] if moved else []
    pg.link_note = form.alterations_line(notes, source) if notes else ""
    controls.load(scenario, step, good=not problems)
    pg.refused_scenario = scenario if problems else None
    pg.preset = pg.preset_before = presets.matching_preset(scenario) or presets.CUSTOM
    pg.drop("preset_undo")
    pg.link_problems = problems


def refuse_unopened(error: BaseException) -> None:
    """A link or file that could not be read: its refusal (a bug report for anything but a SpecvizError), and
    whether nothing of it was loaded at all (a reader's own error says so in ``unreadable``; any other: nothing)."""
    pg = session()
    messages.log_if_bug(error)
    pg.link_problems = [problem_of(error)]
    pg.link_unreadable = bool(getattr(error, "unreadable", True))


def open_decoded(decode: Callable[[], tuple], source: str) -> None:
    """Decode a link or file (share's readers return (scenario, step), maybe with .notes) and open it."""
    try:
        opened = decode()
    except Exception as error:  # noqa: BLE001 - a callback: a refusal (or a bug report) in the box, no traceback
        refuse_unopened(error)
        return
    open_scenario(opened[0], opened[1], source, tuple(getattr(opened, "notes", ())))


def read_link() -> None:
    """Open the query string when it is new: a shared link, the gallery's switch_page, a reload (which brings
    back a running lecture, ``lecture_link.reopen``), or ``?presenter=1`` alone (presenter mode, same scenario)."""
    pg = session()
    params = st.query_params.to_dict()
    if params == pg.last_query:
        return
    if pg.has("scenario") and pg.last_query is not None and _without_step(params) == _without_step(pg.last_query):
        # the same link at another step: the step player's own address bar (or an older echo of it); the step is
        # the player's to say (player.adopt), so this is no new link
        pg.last_query = params
        return
    if not share.has_scenario(params):
        if params.get("presenter") == "1":
            pg.presenter = True
            pg.last_query = params
        return
    pg.last_query = params
    pg.presenter = params.get("presenter") == "1"
    scenario_params = {k: v for k, v in params.items() if k not in lecture_link.LINK_KEYS}
    open_decoded(lambda: share.scenario_from_query(scenario_params), "link")
    if pg.link_problems and not pg.has("scenario"):
        pg.scenario, pg.state = presets.default_scenario(), state.PlayState()
    if not pg.link_problems:
        note = lecture_link.reopen(pg, params)
        pg.link_note = " ".join(filter(None, (pg.link_note, note)))


def _without_step(params: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in params.items() if k not in (share.STEP_KEY, share.OLD_STEP_KEY)}


def on_upload() -> None:
    pg = session()
    upload = pg.store.get(Keys.upload)
    if upload is None:
        return
    open_decoded(lambda: share.import_json(upload.getvalue()), "file")


def shown(pg: PlaygroundSession) -> tuple[Scenario, int]:
    """The scenario the page stands for (a refused link's or card's, else the animated one) and its step."""
    if pg.refused_scenario is not None:
        return pg.refused_scenario, 0
    return pg.scenario, pg.state.step


def write_link(scenario: Scenario, step: int) -> None:
    """The address bar shows the shown scenario at this step (another page's run may have cleared it)."""
    pg = session()
    query = share.scenario_to_query(scenario, step)
    if pg.presenter:
        query["presenter"] = "1"
    query.update(lecture_link.link_query(pg))
    if query != pg.last_query or query != st.query_params.to_dict():
        st.query_params.from_dict(query)
        pg.last_query = query
