"""The Playground: p, q, depth and top-k in front of the exact verifier, animated event by event.

Thin page: it lays out the parts. The app side is the package specviz.app.playground (session state,
controls, links, the sidebar, the transport, the tabs, the messages); the library logic is in
specviz.playground and the figures and HTML in specviz.plots.
"""

from __future__ import annotations

import streamlit as st

from specviz.app import assets
from specviz.app.playground import controls, links, messages, player, session, sidebar, tabs, weights
from specviz.playground import presets, state

HEADER = "#### 🎛️ Playground :gray[· draft q proposes, target p verifies, exactly]"


def start(pg: session.PlaygroundSession) -> None:
    """Session state ready: widgets kept or restored, a new link opened, a scenario shown, pending edits in."""
    pg.init(presets.DEFAULT_PRESET)
    links.read_link()
    if pg.has("scenario"):
        player.adopt(pg)  # the step the browser shows (reported before this run), before any part reads it
    if not pg.has("scenario"):
        controls.load(presets.default_scenario())
    elif not pg.controls_complete():  # a control lost with no copy: the shown scenario fills them again
        controls.load(pg.scenario, pg.state.step)
    weights.apply_pending_edits()


def main() -> None:
    pg = session.session()
    start(pg)
    presenter = pg.presenter
    # presenter mode: the sidebar collapses (its arrow brings it back) and the type grows
    st.set_page_config(initial_sidebar_state="collapsed" if presenter else "auto")
    if presenter:
        st.html(assets.style_tag("playground_presenter.css"))
    else:  # one short header line, so the first screen at 1280x800 holds the whole chart
        st.markdown(HEADER)
    messages.adopt_controls(pg)
    pg.state = state.clamp(pg.state, pg.scenario)
    links.write_link(*links.shown(pg))  # at once, whichever tab is open
    sidebar.sidebar_controls(presenter)
    tabs.tabs(presenter)
    player.mount_reporter()  # with the page, not the Animation fragment: the browser's step reruns the whole page
    pg.remember()


main()
