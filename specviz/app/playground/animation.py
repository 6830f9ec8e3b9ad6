"""The Playground's Animation tab: the fragment that shows one step of the trace under the transport row.

One run of the fragment is one Step's path: the transport row and Play's tick (``transport``) move the
state; ``narrative.step_view`` reads the step from the memoized timeline; ``plots.step_page.build`` turns it
into figures and HTML (both through ``step_cache``: once per scenario, step and mode for every session of the
process); this module lays them out. Step, Back, Reset, Next round and Jump rerun only this
fragment (the sidebar and the tabs stay).
"""

from __future__ import annotations

import streamlit as st

from ...plots.step_page import StepPage
from .. import figure_config
from . import lecture, links, messages, step_cache, transport
from .session import Keys, session


def animation(presenter: bool) -> None:
    """The fragment body: the transport buttons, then the step's page (its charts, words, text and rounds)."""
    pg = session()
    if pg.take("full_rerun"):
        st.rerun()  # Play, Pause, speed or New seed: the page's timer or sidebar changes
    transport.transport_row()
    scenario = pg.scenario
    transport.tick(pg, scenario)
    with messages.failures(scenario):
        shown, page = step_cache.pages.get(scenario, pg.state.step, presenter)
        links.write_link(scenario, shown)
        if pg.state.notice:
            st.info(pg.state.notice)
        show_step(page, presenter)
        pg.remember("speed")  # the one widget of this fragment (the page run remembers the rest)


def show_step(page: StepPage, presenter: bool) -> None:
    """Lay out one step's page: caption line, headline, chart beside (or above) the draw and the words, the
    committed text, then the finished rounds, the statistics and (outside presenter mode) the history."""
    # the caption line also holds the "jump to" menu, right under Step (the transport row is full at 1280 px)
    # one line, never wrapped: a lecture's banner shortens its words to the room left (numbers first)
    line = st.container(horizontal=True, vertical_alignment="center", gap="small", wrap=False)
    transport.jump_box(line)  # first rejection, next correction, next bonus, round end
    line.caption(page.caption, width="content")
    lecture.banner(line)  # a lecture's entry and the buttons to the others, on the same line
    st.subheader(page.headline)
    if page.layout == "wide":  # the residual's two panels span the page; draw and words beneath
        main = st.container()
        side, draw_box = st.columns(2)
    else:  # presenter mode: distributions left, the draw and the numbers right, all on one 1280x800 screen
        main, side = st.columns([1, 1] if page.layout == "even" else [3, 2])
        draw_box = side
    main.plotly_chart(page.figure, key=Keys.main_chart, config=figure_config.config(page.filename), theme=None)
    if page.draw_svg is not None:
        draw_box.container(key=Keys.draw_chart).markdown(page.draw_svg, unsafe_allow_html=True)
    # the narration with its exact values (folded), the committed text and the rounds table are each one
    # markdown element: every element is redrawn on each Step, and fewer make the step land sooner
    side.container(key=Keys.narration).markdown(page.narration, unsafe_allow_html=True)
    # presenter mode: under the chart, where the first screen still shows it; else the page's full width
    (main if presenter else st).container(key=Keys.committed).markdown(page.committed, unsafe_allow_html=True)
    st.markdown(page.tables, unsafe_allow_html=True)  # the rounds and the statistics side by side
    if page.history is not None:
        st.plotly_chart(page.history, key=Keys.history_chart, config=figure_config.config(f"{page.filename}-history"),
                        theme=None)
