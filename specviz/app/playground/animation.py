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
    # each part below is as few elements as its place allows: every element is resent and redrawn on each Step
    if page.layout == "wide":  # the residual's two panels span the page; the words and the draw beneath
        main = side = st
    else:  # chart left, the draw and the words right (presenter mode: all on one 1280x800 screen)
        main, side = st.columns([1, 1] if page.layout == "even" else [3, 2])
    main.plotly_chart(page.figure, key=Keys.main_chart, config=figure_config.config(page.filename), theme=None)
    side.markdown(page.words, unsafe_allow_html=True)  # the draw strip and the narration, one element
    if presenter:  # under the chart, where the first screen still shows it
        main.markdown(page.committed, unsafe_allow_html=True)
        st.markdown(page.tables, unsafe_allow_html=True)  # the rounds and the statistics side by side
    else:  # the committed text, the rounds and the statistics span the page: one element
        st.markdown(page.committed + "\n\n" + page.tables, unsafe_allow_html=True)
    if page.history is not None:
        st.plotly_chart(page.history, key=Keys.history_chart, config=figure_config.config(f"{page.filename}-history"),
                        theme=None)
