"""The Playground: p, q, depth and top-k in front of the exact verifier, animated event by event.

Thin page: it lays out the parts. Session state is declared in specviz.app.playground_state; the
callbacks are in .playground_actions; the sidebar, the animation, the tabs and the message box are
each a module of specviz.app; the library logic is in specviz.playground and the figures in
specviz.plots.
"""

from __future__ import annotations

import streamlit as st

from specviz.app import assets
from specviz.app import playground_actions as actions
from specviz.app.playground_animation import SPEEDS, animation
from specviz.app.playground_compare import compare_tab
from specviz.app.playground_lecture import ANIMATION_TAB, lecture_section
from specviz.app.playground_messages import adopt_controls, refused_note
from specviz.app.playground_sidebar import sidebar_controls
from specviz.app.playground_state import Keys, PlaygroundSession, session
from specviz.app.playground_tabs import many_rounds_tab, proof_tab, sharing
from specviz.app.playground_tree import many_rounds_note
from specviz.app.playground_weights import weight_editors
from specviz.playground import presets, state

TAB_ANIMATION, TAB_PROOF, TAB_MANY = ANIMATION_TAB, "🧮 Why exactly p", "📊 Many rounds"
TAB_WEIGHTS, TAB_SHARE = "✏️ p and q weights, mask, stop tokens", "🔗 Share, download, load"
TAB_COMPARE = "⚖️ Compare"  # tokenwise vs block on the same drafts
TABS = (TAB_ANIMATION, TAB_PROOF, TAB_MANY, TAB_COMPARE, TAB_WEIGHTS, TAB_SHARE)
HEADER = "#### 🎛️ Playground :gray[· draft q proposes, target p verifies, exactly]"


def start(pg: PlaygroundSession) -> None:
    """Session state ready: widgets kept or restored, a new link opened, a scenario shown, pending edits in."""
    pg.init(presets.DEFAULT_PRESET)
    actions.read_link()
    if not pg.has("scenario"):
        actions.load(presets.default_scenario())
    elif not pg.controls_complete():  # a control lost with no copy: the shown scenario fills them again
        actions.load(pg.scenario, pg.state.step)
    actions.apply_pending_edits()


def animation_tab(presenter: bool) -> None:
    pg = session()
    pg.drop("full_rerun")  # this run is the whole page
    st.fragment(animation, run_every=SPEEDS[pg.speed] if pg.state.playing else None)(presenter)


def tabs(presenter: bool) -> None:
    """The six tabs; only the open one runs (the animation is a fragment with its own timer). A refused
    link or card animates nothing: the tabs that would play another scenario say so instead."""
    pg = session()
    refused = pg.refused_view is not None
    parts = {TAB_ANIMATION: lambda: animation_tab(presenter), TAB_PROOF: lambda: proof_tab(presenter),
             TAB_MANY: lambda: many_rounds_note(pg.scenario) or many_rounds_tab(presenter),
             TAB_COMPARE: lambda: compare_tab(presenter),
             TAB_WEIGHTS: weight_editors, TAB_SHARE: lambda: share_tab(pg)}
    shown = dict(zip(TABS, st.tabs(TABS, key=PlaygroundSession.tab.key, on_change="rerun"), strict=True))
    for name, part in parts.items():
        if shown[name].open or (name == TAB_ANIMATION and shown[name].open is None):
            with shown[name]:
                if refused and name in (TAB_ANIMATION, TAB_PROOF, TAB_MANY, TAB_COMPARE):
                    refused_note()
                else:
                    part()


def share_tab(pg: PlaygroundSession) -> None:
    """The link, the download and the loader, then the lecture scripts (load one, or collect one)."""
    sharing(*actions.shown(pg))
    lecture_section()


def main() -> None:
    pg = session()
    start(pg)
    presenter = pg.presenter
    # presenter mode: the sidebar collapses (its arrow brings it back) and the type grows
    st.set_page_config(initial_sidebar_state="collapsed" if presenter else "auto")
    if presenter:
        st.html(assets.style_tag("playground_presenter.css"))
    else:  # one short header line, so the first screen at 1280x800 holds the whole chart
        st.markdown(HEADER)
    adopt_controls(pg)
    pg.state = state.clamp(pg.state, pg.scenario)
    actions.write_link(*actions.shown(pg))  # at once, whichever tab is open
    sidebar_controls(presenter)
    tabs(presenter)
    # no visible content: installs the clicker keys once per browser tab
    st.iframe(assets.script_tag("playground_keys.js", KEY_FORWARD=Keys.forward, KEY_BACK=Keys.back), height=1)
    pg.remember()


main()
