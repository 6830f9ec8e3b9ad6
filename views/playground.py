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
from specviz.app.playground_messages import adopt_controls
from specviz.app.playground_sidebar import sidebar_controls
from specviz.app.playground_state import Keys, PlaygroundSession, session
from specviz.app.playground_tabs import many_rounds_tab, proof_tab, sharing
from specviz.app.playground_weights import weight_editors
from specviz.playground import presets

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


def tabs(presenter: bool) -> None:
    """The six tabs; only the open one runs (the animation is a fragment with its own timer)."""
    pg = session()
    shown = dict(zip(TABS, st.tabs(TABS, key=PlaygroundSession.tab.key, on_change="rerun"), strict=True))
    if shown[TAB_ANIMATION].open is not False:
        with shown[TAB_ANIMATION]:
            pg.drop("full_rerun")  # this run is the whole page
            st.fragment(animation, run_every=SPEEDS[pg.speed] if pg.state.playing else None)(presenter)
    parts = ((TAB_PROOF, proof_tab, (presenter,)), (TAB_MANY, many_rounds_tab, (presenter,)),
             (TAB_COMPARE, compare_tab, (presenter,)), (TAB_WEIGHTS, weight_editors, ()),
             (TAB_SHARE, share_tab, ()))
    for name, part, args in parts:
        if shown[name].open:
            with shown[name]:
                part(*args)


def share_tab() -> None:
    pg = session()
    sharing(pg.scenario, pg.state.step)
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
    sidebar_controls(presenter)
    tabs(presenter)
    # no visible content: installs the clicker keys once per browser tab
    st.iframe(assets.script_tag("playground_keys.js", KEY_FORWARD=Keys.forward, KEY_BACK=Keys.back), height=1)
    pg.remember()


main()
