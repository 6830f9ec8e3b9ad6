"""The Playground's side-by-side tab: tokenwise and block verification on the same drafted block."""

from __future__ import annotations

import html

import streamlit as st

from ..playground import compare, explain, state
from ..playground import narrative as view
from ..plots import playground as plots
from ..plots import style
from .playground_state import Keys, session

NO_BAR = {"displayModeBar": False}


def _chips(tokens: tuple[int, ...], kept: int, ending: str, vocab: tuple[str, ...], large: bool) -> str:
    """The committed tokens as the animation's chips: kept drafts, then the correction or bonus."""
    parts = []
    for i, t in enumerate(tokens):
        cue = style.origin("accepted" if i < kept else ending)
        parts.append(f"<span style='display:inline-block;margin:2px 3px;padding:1px 8px;border:3px "
                     f"{ {'solid': 'solid', 'dash': 'dashed', 'dot': 'dotted'}.get(cue.dash, 'solid')} {cue.color};"
                     f"border-radius:8px;color:{cue.color};font-weight:600'>{html.escape(style.token_label(vocab[t]))}"
                     f"<sup>&nbsp;{cue.glyph}</sup></span>")
    size = "font-size:1.5rem;line-height:2.2" if large else "line-height:2.1"
    return f"<div style='{size}'>" + "".join(parts) + "</div>"


def compare_tab(presenter: bool) -> None:
    """One drafted block (the animation's current round), verified by both rules on the same streams."""
    pg = session()
    scenario = pg.scenario
    timeline = state.timeline_for(scenario)
    at = state.clamp(pg.state, scenario)
    round_id = timeline.round_of(at.step) if timeline.events else 0
    try:
        result = compare.compare_at(scenario, round_id)
    except Exception as error:  # noqa: BLE001 - a refusal is a message
        st.error(explain.explain(error, scenario=scenario).markdown())
        return
    drafted = view.text_of(scenario, result.drafts)
    st.markdown(f"**Round {result.round_id}** (the animation's round), drafted after "
                f"**{view.text_of(scenario, result.prefix)}**: **{drafted}**. Both rules verify this one block with "
                "the same acceptance and correction streams (seed, request and round), so every difference comes "
                "from the rule.")
    columns = st.columns(2)
    for column, side, key in zip(columns, result.sides, (Keys.compare_chart_token, Keys.compare_chart_block),
                                 strict=True):
        with column:
            st.markdown(f"#### {side.rule.label.capitalize()}")
            st.markdown(f"**{side.summary()}**")
            ending = "correction" if side.result.rejected else "bonus"
            st.markdown(_chips(side.result.tokens, side.kept, ending, scenario.vocab, presenter),
                        unsafe_allow_html=True)
            figure = plots.round_figure(side.trace.events, scenario.vocab, scenario.depth, presenter=presenter)
            figure.update_layout(height=300 if not presenter else 340, title={"text": "drafted and committed"})
            st.plotly_chart(figure, key=key, config=NO_BAR, theme=None)
            st.markdown("\n".join(f"- {html.escape(line, quote=False)}" for line in compare.trace_lines(
                side, scenario.vocab)))
    st.caption("Tokenwise checks each draft on its own and stops at the first rejection; block verification "
               "draws at every position and keeps the drafts up to the last hit. Both commit tokens distributed "
               "exactly as p; block keeps at least as many drafts on average (Sun et al. 2025).")
