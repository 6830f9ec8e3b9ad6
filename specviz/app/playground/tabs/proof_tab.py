"""The Playground's "Why exactly p" tab: p rebuilt, bar by bar, from accepted drafts and corrections."""

from __future__ import annotations

import streamlit as st

from ....playground import narrative, proof, state
from ....plots import proof_figures as proof_plots
from ..session import Keys, proof_slider_key, session

NO_BAR = {"displayModeBar": False}


def proof_tab(presenter: bool) -> None:
    pg = session()
    scenario = pg.scenario
    timeline = state.timeline_for(scenario)
    at = state.clamp(pg.state, scenario)
    prefix: tuple[int, ...] = ()
    if timeline.events:
        event = timeline.events[at.step]
        prefix = proof.event_prefix(event, timeline.rounds[timeline.round_of(at.step)].trace.events)
    pr = proof.proof_at(scenario, prefix)  # a refusal is shown in the tab's place (tabs: messages.failures)
    if note := proof.rule_note(scenario.verification):
        st.info(note)
    after = "at the start (nothing before)" if not prefix else \
        f"after **{narrative.text_of(scenario, prefix)}** (the animation's current position)"
    if scenario.target.rows is None:
        after = "at every position (fixed mode)"
    v = scenario.vocab_size
    left, right = st.columns([3, 2], vertical_alignment="bottom")
    if pr.names.rule:
        left.markdown(f"Under **{pr.names.rule}** a token is committed either **kept** (the drafted token the rule "
                      f"keeps, mass {proof_plots.exact(pr.alpha)}) or **instead** of a rejected draft, by the rule's "
                      f"own choice. Here p and q {after}, with the target's processors and mask and the draft's "
                      "top-k.")
    else:
        left.markdown(f"A drafted token is committed either **accepted** (mass min(p, q)) or, after a **rejection** "
                      f"(total 1 − α), as a **correction** from r = (p − q)+ / (1 − α). Here p and q {after}, with "
                      "the target's processors and mask and the draft's top-k.")
    shown = right.slider("Add the corrections token by token", 0, v, value=v, key=proof_slider_key(v),
                         help="0: only the accepted mass; each step stacks one token's correction mass on top")
    st.plotly_chart(proof_plots.proof_figure(pr, shown, presenter=presenter, height=430 if presenter else 420),
                    key=Keys.proof_chart, config=NO_BAR, theme=None)
    st.markdown(proof_plots.verdict(pr, complete=shown == v))
    with st.expander("Every token as exact fractions"):
        import pandas as pd

        st.dataframe(pd.DataFrame(proof_plots.proof_rows(pr), dtype="string"), hide_index=True, width="stretch")
