"""The Playground's Animation tab: the step player, in a fragment of its own.

The player (``player``) holds a whole round in the browser and steps through it there: Step, Back, Play, Jump to
and the clicker keys cost the server nothing. The fragment reruns only when the browser asks for what it does not
hold (another round, Next round, Reset, New seed, a jump beyond the round, a lecture's other entry) or reports its
step before the user touches the rest of the page; ``player.adopt`` applies that, then the fragment sends the
round that holds the step (``round_cache``: built once per process for every session). New seed also changes the
sidebar's seed box, so it reruns the whole page.
"""

from __future__ import annotations

import streamlit as st

from ...playground import state
from . import links, messages, player
from .session import session


def animation(presenter: bool) -> None:
    """The fragment body: what the browser said applied, then the player at the session's step."""
    pg = session()
    player.adopt(pg)
    if pg.take("full_rerun"):
        st.rerun()  # New seed, a lecture's other entry: the sidebar shows another scenario
    scenario = pg.scenario
    pg.state = state.clamp(pg.state, scenario)
    with messages.failures(scenario):
        links.write_link(scenario, pg.state.step)
        player.show(pg, scenario, presenter)
