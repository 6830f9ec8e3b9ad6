"""The Playground's six tabs, and which part of the package draws each; only the open one runs.

``tabs(presenter)`` draws the tab bar (its selection is the session's ``tab``) and runs the open tab's
part inside ``messages.failures``, so a refusal or a bug shows in that tab and the rest of the page stays.
The Animation is a fragment with its own timer (``animation``); a refused link or card animates nothing:
the tabs that would play another scenario say so instead.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from .. import animation, links, messages, weights
from ..lecture_walk import lecture_section
from ..session import PlaygroundSession, Tab, session
from . import compare_tab, many_rounds_tab, proof_tab, share_tab

PLAYS = (Tab.animation, Tab.proof, Tab.many_rounds, Tab.compare)  # the tabs that play the shown scenario


def animation_tab(presenter: bool) -> None:
    pg = session()
    pg.drop("full_rerun")  # this run is the whole page
    st.fragment(animation.animation)(presenter)  # the player steps in the browser: no timer on the server


def sharing_tab(pg: PlaygroundSession) -> None:
    """The link, the download and the loader, then the lecture scripts (load one, or collect one)."""
    share_tab.sharing(*links.shown(pg))
    lecture_section()


def parts(pg: PlaygroundSession, presenter: bool) -> dict[str, Callable[[], None]]:
    """What each tab draws."""
    return {Tab.animation: lambda: animation_tab(presenter), Tab.proof: lambda: proof_tab.proof_tab(presenter),
            Tab.many_rounds: lambda: many_rounds_tab.many_rounds_tab(presenter),
            Tab.compare: lambda: compare_tab.compare_tab(presenter),
            Tab.weights: lambda: weights.weight_editors(presenter),
            Tab.share: lambda: sharing_tab(pg)}


def tabs(presenter: bool) -> None:
    """The tab bar and the open tab (the first when none is chosen yet)."""
    pg = session()
    refused = pg.refused_scenario is not None
    shown = dict(zip(Tab.ALL, st.tabs(Tab.ALL, key=PlaygroundSession.tab.key, on_change="rerun"), strict=True))
    for name, part in parts(pg, presenter).items():
        if shown[name].open or (name == Tab.animation and shown[name].open is None):
            with shown[name]:
                if refused and name in PLAYS:
                    messages.refused_note()
                    continue
                with messages.failures(pg.scenario):
                    part()
