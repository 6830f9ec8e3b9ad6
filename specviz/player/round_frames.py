"""A whole round for the player: its frames, the finished rounds' table and history, and how it may be paced.

``payload(scenario, round_id, presenter)`` is a pure function of its arguments (through the memoized timeline),
so the app builds it once per process for every student of a class (``app/playground/step_cache``). A frame that
cannot be built becomes an error frame naming its event: the player shows one plain box there, never a blank
area, and the rest of the round still plays.
"""

from __future__ import annotations

import logging
from typing import Any

from ..playground import jump, narrative
from ..playground.state import timeline_for
from ..plots import step_html
from ..scenario import Scenario
from . import frames
from .frames import Context

Data = dict[str, Any]
SCHEMA = 1  # the payload's format, checked by the player (browser/player.js: SCHEMA)
ROUNDS_SHOWN = {False: 8, True: 4}  # finished rounds in the table (presenter mode shows fewer, larger)
LOG = logging.getLogger(__name__)

# coarser steps through a tree's drafting (a width-3, depth-3 tree drafts 39 nodes before its first check)
PACES = ({"key": "event", "label": "one event"}, {"key": "level", "label": "a tree level"},
         {"key": "tree", "label": "the whole tree"})


def error_frame(view: narrative.StepView, error: Exception) -> Data:
    """A step the player cannot draw: its caption and headline, and one line naming the event and the error."""
    event = view.event
    return {"kind": view.phase, "event": type(event).__name__, "step": view.step,
            "caption": step_html.caption(view), "headline": view.headline, "layout": "split", "chart": None,
            "strip": None, "lines": [], "exact": [], "text": {"chips": [], "note": ""},
            "stats": {"head": [], "rows": [], "note": ""}, "finished": len(view.history), "flags": [], "groups": {},
            "error": f"The step player cannot draw this step ({type(event).__name__}, kind {event.kind!r}): "
                     f"{type(error).__name__}: {error}"}


def build_frame(view: narrative.StepView, ctx: Context) -> Data:
    try:
        return frames.frame(view, ctx)
    except Exception as error:  # noqa: BLE001 - one step's drawing failed: say so in its place, play the rest
        LOG.exception("the step player cannot draw step %s (%s)", view.step, type(view.event).__name__)
        return error_frame(view, error)


def steps_of(scenario: Scenario, round_id: int) -> range:
    """The global step indices of a played round."""
    timeline = timeline_for(scenario)
    timeline.ensure_rounds(round_id + 1)
    return range(timeline.starts[round_id], timeline.round_end(round_id) + 1)


def payload(scenario: Scenario, round_id: int, presenter: bool) -> Data:
    """Round ``round_id``'s frames with the tables they show (the round must have been played)."""
    timeline = timeline_for(scenario)
    steps = steps_of(scenario, round_id)
    events = tuple(timeline.rounds[round_id].trace.events)
    built, last = [], None
    for index, step in enumerate(steps):
        last = narrative.step_view(scenario, step)
        built.append(build_frame(last, Context(scenario, events, index, presenter)))
    history = last.history if last is not None else []
    paces = list(PACES) if any(e.kind == "tree_draft" for e in events) else []
    return {
        "schema": SCHEMA, "round": round_id, "first": steps.start, "last": steps.stop - 1, "frames": built,
        "rounds": {"columns": step_html.rounds_columns(scenario.verification),
                   "rows": step_html.rounds_rows(history, scenario.verification), "shown": ROUNDS_SHOWN[presenter]},
        "history": history_data(history, last.stats.expected if last is not None else None, scenario.depth,
                                presenter),
        "paces": paces, "first_rejection": first_rejection(scenario, steps.stop - 1),
        "here": here_notices(scenario, steps),
    }


def history_data(history: list[narrative.HistoryRow], expected, depth: int, presenter: bool) -> Data | None:
    """Tokens committed per finished round (accepted drafts, then the correction or bonus) and the theory line."""
    if presenter:
        return None
    from .primitives import exact

    return {"title": "Tokens per round", "depth": depth,
            "rounds": [{"round": h.round_id, "accepted": h.accepted, "ending": h.ending} for h in history],
            "expected": None if expected is None else float(expected),
            "expected_text": None if expected is None else exact(expected)}


def first_rejection(scenario: Scenario, upto: int) -> int | None:
    """The run's first rejection when the rounds played so far (up to step ``upto``) hold it, else None."""
    timeline = timeline_for(scenario)
    return jump.find(timeline.events[: upto + 1], 0, jump.FIRST_REJECTION)


def here_notices(scenario: Scenario, steps: range) -> dict[str, str]:
    """The line a jump says when it lands where the player already is: '<target>@<step>' -> the line (a round's
    result for Round end, its first check for First check, the run's first rejection)."""
    timeline = timeline_for(scenario)
    found = {jump.ROUND_END: [s for s in steps if jump.is_round_end(timeline.events[s])],
             jump.FIRST_CHECK: [next((s for s in steps if jump.is_check(timeline.events[s])), None)],
             jump.FIRST_REJECTION: [first_rejection(scenario, steps.stop - 1)]}
    return {f"{target}@{step}": jump.here_notice(target, timeline, step)
            for target, at in found.items() for step in at if step is not None and step in steps}
