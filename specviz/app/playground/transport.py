"""The Playground's transport: Step, Back, Play, speed, Reset, Next round, New seed, Jump to, and the clicker keys.

Every way of moving the animation starts here, and here only: the buttons of the transport row (with their
keyboard shortcuts), the "jump to" menu, Play's timer tick, and the clicker keys (PageDown, PageUp, Space;
``assets/playground_keys.js``) that press the Step and Back buttons. A move is a pure transition of
``specviz.playground.state`` (which plays the rounds on the memoized timeline); in a lecture, Step and Back
walk the script's entries (``lecture.walk``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import streamlit as st

from ... import scenario as scenarios
from ...playground import jump, state
from .. import assets
from . import lecture
from .session import Keys, PlaygroundSession, session

S = PlaygroundSession
SPEEDS = {"slow": 2.0, "normal": 1.0, "fast": 0.5}
Transition = Callable[[state.PlayState, scenarios.Scenario], state.PlayState]

# the key bindings, in one place: Streamlit's button shortcuts (their tooltips), and the keys (KeyboardEvent.key
# values; " " is Space) with which the script presses Step and Back where no text field has focus; the script
# takes → and ← before Streamlit's shortcut does, so that a press is one step wherever the focus was clicked
STEP_SHORTCUT, BACK_SHORTCUT = "Right", "Left"
CLICKER_STEP, CLICKER_BACK = ("PageDown", " ", "ArrowRight"), ("PageUp", "ArrowLeft")
CLICKER_SCRIPT = "playground_keys.js"


# --- moves ------------------------------------------------------------------------------------------------
def move(transition: Transition) -> None:
    pg = session()
    pg.state = transition(pg.state, pg.scenario)
    pg.last_tick = time.monotonic()


def on_step() -> None:
    """Step (→, PageDown, Space): one event on; in a lecture, at an entry's last step, the next entry."""
    pg = session()
    if pg.lecture is None:
        move(state.step_forward)
    else:
        lecture.walk(pg, forward=True)


def on_back() -> None:
    """Back (←, PageUp): one event back; in a lecture, at an entry's first step, the previous entry's last."""
    pg = session()
    if pg.lecture is None:
        move(state.step_back)
    else:
        lecture.walk(pg, forward=False)


def on_play() -> None:
    """Play/Pause: the page decides the animation's timer, so the whole page reruns, not just the animation."""
    move(state.toggle_play)
    session().full_rerun = True


def on_new_seed() -> None:
    pg = session()
    scenario, pg.state = state.new_seed(pg.scenario)
    pg.scenario = scenario
    pg.seed = str(scenario.seed)
    pg.full_rerun = True  # the sidebar's seed box shows the new seed


def on_speed() -> None:
    pg = session()
    pg.full_rerun = bool(pg.state.playing)  # only a running timer needs the page to set its new interval


def on_jump(target: str | None = None) -> None:
    """A target chosen in the "jump to" menu (the menu closes as it is chosen)."""
    pg = session()
    target = target or pg.store.get(Keys.jump_menu)
    if target is None:
        return
    pg.state = jump.jump(pg.state, pg.scenario, target)


def tick(pg: PlaygroundSession, scenario: scenarios.Scenario) -> None:
    """Play's timer: one step when a tick is due; the page reruns when the animation stops."""
    interval = SPEEDS[pg.speed]
    now = time.monotonic()
    if pg.state.playing and state.due(pg.last_tick, now, interval):
        pg.state = state.play_tick(pg.state, scenario)
        pg.last_tick = state.next_tick(pg.last_tick, now, interval)
        if not pg.state.playing:
            st.rerun()  # stop the timer
    pg.state = state.clamp(pg.state, scenario)


# --- widgets ----------------------------------------------------------------------------------------------
def transport_row() -> None:
    """Back, Step, Play, speed, Reset, Next round, New seed: one horizontal row (fewer elements to redraw)."""
    playing = session().state.playing
    row = st.container(horizontal=True, gap="small", vertical_alignment="center")
    row.button("Back", icon=":material/arrow_back:", on_click=on_back,
               shortcut=BACK_SHORTCUT, width="stretch", key=Keys.back, help="Step back one event (Left arrow, PageUp)")
    row.button("Step", icon=":material/arrow_forward:", on_click=on_step,
               shortcut=STEP_SHORTCUT, width="stretch", key=Keys.forward, type="primary",
               help="Step forward one event (Right arrow, PageDown, Space); past a round's end it plays the "
                    "next round; in a lecture, past an entry's end it opens the next entry")
    row.button("Pause" if playing else "Play", icon=":material/pause:" if playing else ":material/play_arrow:",
               on_click=on_play, width="stretch", key=Keys.play)
    row.selectbox("Speed", list(SPEEDS), key=S.speed.key, label_visibility="collapsed", on_change=on_speed,
                  help="Play speed: one event every 2 s, 1 s or 0.5 s", width=110)
    row.button("Reset", icon=":material/restart_alt:", on_click=move, args=(state.reset,),
               width="stretch", key=Keys.reset, help="Back to the first event of round 0")
    row.button("Next round", icon=":material/skip_next:", on_click=move, args=(state.next_round,),
               width="stretch", key=Keys.next_round, help="Draft the next block from the committed text")
    row.button("New seed", icon=":material/casino:", on_click=on_new_seed, width="stretch",
               key=Keys.new_seed, help="Seed + 1: new draws, same distributions")


JUMP_HELP = "  \n".join(f"**{target.capitalize()}**: {jump.HELP[target]}" for target in jump.TARGETS)


def jump_box(row) -> None:
    """The "jump to" menu: the four targets; a menu (not a popover) closes as soon as a target is chosen."""
    row.menu_button("⏩ Jump to", list(jump.TARGETS), key=Keys.jump_menu, on_click=on_jump,
                    format_func=str.capitalize, help=JUMP_HELP)


def clicker_keys() -> None:
    """The clicker keys (no visible content): a script in the top document that presses Step and Back.

    Not an iframe: an iframe's listener dies with the iframe whenever the page rebuilds it (presenter mode,
    another page and back); the top document's lives as long as the tab, and the script replaces its own
    listener each time it runs, so a key steps once.
    """
    st.html(clicker_script(), unsafe_allow_javascript=True)


def clicker_script() -> str:
    """The clicker keys' script, its placeholders filled: the buttons' keys and the keys bound to them."""
    return assets.script_tag(CLICKER_SCRIPT, KEY_FORWARD=Keys.forward, KEY_BACK=Keys.back,
                             STEP_KEYS=json.dumps(list(CLICKER_STEP)), BACK_KEYS=json.dumps(list(CLICKER_BACK)))
