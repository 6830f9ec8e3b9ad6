"""The Playground's moves on the server: Step and Back past a round's edge, Next round, Reset, New seed, Jump to.

The step player (``player``) moves within a round in the browser; what it cannot do there (it holds one round)
it asks for, and these functions do it: each is a pure transition of ``specviz.playground.state`` (which plays the
rounds on the memoized timeline); in a lecture, Step and Back walk the script's entries (``lecture_walk.walk``). The
keys the player binds (PageDown, Space, → step; PageUp, ← step back) are its own (``specviz/player/browser``).
"""

from __future__ import annotations

from collections.abc import Callable

from ... import scenario as scenarios
from ...playground import jump, state
from . import lecture_walk
from .session import session

Transition = Callable[[state.PlayState, scenarios.Scenario], state.PlayState]


def move(transition: Transition) -> None:
    pg = session()
    pg.state = transition(pg.state, pg.scenario)


def on_step() -> None:
    """Step past the browser's round: one event on (the next round); in a lecture, past an entry's end, the next."""
    pg = session()
    if pg.lecture is None:
        move(state.step_forward)
    else:
        lecture_walk.walk(pg, forward=True)


def on_back() -> None:
    """Back past the browser's round: one event back; in a lecture, at an entry's first step, the previous entry."""
    pg = session()
    if pg.lecture is None:
        move(state.step_back)
    else:
        lecture_walk.walk(pg, forward=False)


def on_new_seed() -> None:
    pg = session()
    scenario, pg.state = state.new_seed(pg.scenario)
    pg.scenario = scenario
    pg.seed = str(scenario.seed)
    pg.full_rerun = True  # the sidebar's seed box shows the new seed


def on_jump(target: str) -> None:
    """A target the player did not find in its round (or a first rejection before it)."""
    pg = session()
    pg.state = jump.jump(pg.state, pg.scenario, target)
