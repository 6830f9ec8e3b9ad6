"""The Playground's Compare tab: tokenwise and block verification on the same drafted block, side by side."""

from __future__ import annotations

import streamlit as st

from ....playground import compare, narrative, state
from ....plots import committed_text, step_html
from ....plots import playground as figures
from ..session import Keys, session

NO_BAR = {"displayModeBar": False}


def compare_tab(presenter: bool) -> None:
    """One drafted block (the animation's current round), verified by both rules on the same streams."""
    pg = session()
    scenario = pg.scenario
    timeline = state.timeline_for(scenario)
    at = state.clamp(pg.state, scenario)
    round_id = timeline.round_of(at.step) if timeline.events else 0
    result = compare.compare_at(scenario, round_id)  # a refusal is shown in the tab's place (messages.failures)
    drafted = narrative.text_of(scenario, result.drafts)
    st.markdown(f"**Round {result.round_id}** (the animation's round), drafted after "
                f"**{narrative.text_of(scenario, result.prefix)}**: **{drafted}**. Both rules verify this one block "
                "with the same acceptance and correction streams (seed, request and round), so every difference "
                "comes from the rule.")
    columns = st.columns(2)
    for column, side, key in zip(columns, result.sides, (Keys.compare_chart_token, Keys.compare_chart_block),
                                 strict=True):
        with column:
            st.markdown(f"#### {side.rule.label.capitalize()}")
            st.markdown(f"**{side.summary()}**")
            ending = "correction" if side.result.rejected else "bonus"
            st.markdown(committed_text.round_chips_html(side.result.tokens, side.kept, ending, scenario.vocab,
                                                        presenter), unsafe_allow_html=True)
            figure = figures.round_figure(side.trace.events, scenario.vocab, scenario.depth, presenter=presenter)
            figure.update_layout(height=300 if not presenter else 340, title={"text": "drafted and committed"})
            st.plotly_chart(figure, key=key, config=NO_BAR, theme=None)
            st.markdown(step_html.bullets(compare.trace_lines(side, scenario.vocab)))
    st.caption("Tokenwise checks each draft on its own and stops at the first rejection; block verification "
               "draws at every position and keeps the drafts up to the last hit. Both commit tokens distributed "
               "exactly as p; block keeps at least as many drafts on average (Sun et al. 2025).")
