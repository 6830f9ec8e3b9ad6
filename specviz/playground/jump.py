"""The "jump to" control beside Step: where the first rejection, the next correction, the next bonus or
the round's end lies in the animation's events.

``find`` is a pure function of the flattened events (the Playground's timeline: round 0's events, then
round 1's, ...) and the current step; it returns the target's step index, or None when the events
played so far hold none. ``jump`` grows the timeline round by round until the target exists (or no
more rounds can be played) and returns the new animation state.

Targets (the same words on the page and here):

* ``first rejection``: the run's first rejected draft (a tokenwise or tree check that rejects, or a
  block decision that keeps fewer drafts than it drafted), searched from step 0: pressed again, it
  stays where it is.
* ``next correction``: the first correction strictly after the current step (tokenwise, block's
  scaled residual, or a tree's residual).
* ``next bonus``: the first bonus token strictly after the current step.
* ``round end``: the current round's result (the step itself when it is the result).
* ``first check``: the current round's first check, after its drafting (a width-3 tree drafts 39 nodes first).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..core.errors import SpecvizError
from ..core.trace import Event
from ..narration.counting import nth
from ..scenario import Scenario
from .state import MAX_ROUNDS, PlayState, clamp, timeline_for

FIRST_REJECTION, NEXT_CORRECTION, NEXT_BONUS, ROUND_END = "first rejection", "next correction", "next bonus", \
    "round end"
FIRST_CHECK = "first check"
TARGETS = (FIRST_CHECK, FIRST_REJECTION, NEXT_CORRECTION, NEXT_BONUS, ROUND_END)
HELP = {
    FIRST_REJECTION: "the run's first rejected draft (from step 1 of round 1)",
    NEXT_CORRECTION: "the next token drawn from a residual after a rejection",
    NEXT_BONUS: "the next bonus token (every draft accepted)",
    ROUND_END: "the current round's result",
    FIRST_CHECK: "the current round's first check, after its drafting",
}


class JumpError(SpecvizError, ValueError):
    """An unknown jump target (the page offers only ``TARGETS``)."""


def is_rejection(event: Event) -> bool:
    """A draft the verifier rejected: a check with accepted False, or a block decision ending in a correction."""
    if event.kind == "block_decision":
        return getattr(event, "ending", "") == "correction"
    return "check" in event.kind and getattr(event, "accepted", None) is False


def is_correction(event: Event) -> bool:
    """A token drawn from a residual (tokenwise (p − q)+, block (w·p − q)+, a tree node's residual)."""
    return event.kind.endswith("correction")


def is_bonus(event: Event) -> bool:
    return event.kind.endswith("bonus")


def is_round_end(event: Event) -> bool:
    return event.kind == "result"


def is_check(event: Event) -> bool:
    """A draft checked: tokenwise, block, a tree's sibling, an engine rule's check."""
    return "check" in event.kind


_TESTS = {FIRST_REJECTION: is_rejection, NEXT_CORRECTION: is_correction, NEXT_BONUS: is_bonus,
          ROUND_END: is_round_end, FIRST_CHECK: is_check}


def _check_target(target: str) -> None:
    if target not in _TESTS:
        raise JumpError(f"jump target must be one of {', '.join(repr(t) for t in TARGETS)}, got {target!r}")


def search_start(target: str, step: int) -> int:
    """The first step index the target may lie at."""
    _check_target(target)
    if target in (FIRST_REJECTION, FIRST_CHECK):  # the first check: from its round's start (``jump`` says where)
        return 0
    return step if target == ROUND_END else step + 1


def find(events: Sequence[Event], step: int, target: str, start: int | None = None) -> int | None:
    """The step index of the target seen from ``step`` (None: not among these events).

    ``start`` skips events already searched (the search from ``search_start`` otherwise).
    """
    _check_target(target)
    test = _TESTS[target]
    first = max(search_start(target, step), start or 0)
    return next((i for i in range(first, len(events)) if test(events[i])), None)


def not_found_notice(target: str, rounds: int, why: str) -> str:
    """One line for a target no played round holds."""
    searched = f"none in the {rounds} round{'s' if rounds != 1 else ''} played"
    return f"No {target.removeprefix('first ').removeprefix('next ')} to jump to: {searched}" + (
        f" ({why})" if why else f" (the Playground plays at most {MAX_ROUNDS} rounds)") + "."


def here_notice(target: str, timeline, step: int) -> str:
    """One line for a jump that lands where the animation already is (a round's end, the first rejection)."""
    round_id = timeline.round_of(step)
    if target == FIRST_CHECK:
        return f"Already at the first check of round {nth(round_id)} (step {nth(step)})."
    if target == ROUND_END:
        last = timeline.stopped and round_id == len(timeline.rounds) - 1
        then = ("the request stopped here, so no round follows" if last else
                f"Step plays round {nth(round_id + 1)}, and Round end then jumps to its end")
        return f"Already at the end of round {nth(round_id)} (step {nth(step)}): {then}."
    return f"Already at the {target} (step {nth(step)}, round {nth(round_id)}): Next correction moves on."


def jump(state: PlayState, scenario: Scenario, target: str) -> PlayState:
    """The animation at the target, playing rounds as needed; unchanged with a notice when there is none."""
    _check_target(target)
    timeline = timeline_for(scenario)
    state = clamp(state, scenario)
    searched = timeline.starts[timeline.round_of(state.step)] if target == FIRST_CHECK and timeline.events else 0
    while True:
        found = find(timeline.events, state.step, target, start=searched)
        if found is not None:
            return replace(state, step=found, playing=False, notice=here_notice(target, timeline, found)
                           if found == state.step else "")
        searched, played = len(timeline.events), len(timeline.rounds)
        if timeline.ensure_rounds(played + 1) == played:  # no further round: stopped, refused or at the limit
            break
    why = ""
    if timeline.stopped:
        why = "the request stopped at a stop token"
    elif timeline.error is not None:
        why = f"the next round cannot be played: {timeline.error}"
    return replace(state, playing=False, notice=not_found_notice(target, len(timeline.rounds), why))
