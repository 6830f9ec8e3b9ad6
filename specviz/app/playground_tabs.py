"""The Playground's other tabs: why the output is exactly p, many rounds, and share/download/load."""

from __future__ import annotations

import streamlit as st

from ..core.verification import rule
from ..playground import explain, many_rounds, proof, share, state
from ..playground import narrative as view
from ..plots import many_rounds as many_plots
from ..plots import proof as proof_plots
from ..scenario import Scenario
from . import playground_actions as actions
from .playground_state import Keys, PlaygroundSession, proof_slider_key, session

S = PlaygroundSession
NO_BAR = {"displayModeBar": False}


def is_block(scenario: Scenario) -> bool:
    return rule(scenario.verification).family == "block"


# --- why the output is exactly p ---------------------------------------------------------------------
def proof_tab(presenter: bool) -> None:
    pg = session()
    scenario = pg.scenario
    timeline = state.timeline_for(scenario)
    at = state.clamp(pg.state, scenario)
    prefix: tuple[int, ...] = ()
    if timeline.events:
        event = timeline.events[at.step]
        prefix = proof.event_prefix(event, timeline.rounds[timeline.round_of(at.step)].trace.events)
    try:
        pr = proof.proof_at(scenario, prefix)
    except Exception as error:  # noqa: BLE001 - a refusal is a message
        st.error(explain.explain(error, scenario=scenario).markdown())
        return
    if note := proof.rule_note(scenario.verification):
        st.info(note)
    after = "at the start (nothing before)" if not prefix else \
        f"after **{view.text_of(scenario, prefix)}** (the animation's current position)"
    if scenario.target.rows is None:
        after = "at every position (fixed mode)"
    v = scenario.vocab_size
    left, right = st.columns([3, 2], vertical_alignment="bottom")
    left.markdown(f"A drafted token is committed either **accepted** (mass min(p, q)) or, after a **rejection** "
                  f"(total 1 − α), as a **correction** from r = (p − q)+ / (1 − α). Here p and q {after}, with "
                  "the target's processors and mask and the draft's top-k.")
    shown = right.slider("Add the corrections token by token", 0, v, value=v, key=proof_slider_key(v),
                         help="0: only the accepted mass; each step stacks one token's correction mass on top")
    st.plotly_chart(proof_plots.proof_figure(pr, shown, presenter=presenter, height=430 if presenter else 420),
                    key=Keys.proof_chart, config=NO_BAR, theme=None)
    mass = proof_plots.exact(pr.rejection)
    st.markdown(f"Rejected draft mass Σ (q − p)+ = **1 − α = {mass}** = Σ (p − q)+, the mass the corrections "
                f"add back: min(p, q)(x) + (1 − α)·r(x) = **p(x)** for every token"
                + (": p rebuilt exactly." if shown == v else "."))
    with st.expander("Every token as exact fractions"):
        import pandas as pd

        st.dataframe(pd.DataFrame(proof_plots.proof_rows(pr), dtype="string"), hide_index=True, width="stretch")


# --- many rounds at once --------------------------------------------------------------------------------
def many_rounds_tab(presenter: bool) -> None:
    pg = session()
    scenario = pg.scenario
    block = is_block(scenario)
    bug, kept = many_rounds.bug_choice(block, pg.many_bug, pg.many_bug_kept)
    if kept != pg.many_bug_kept or bug != pg.many_bug:
        pg.many_bug, pg.many_bug_kept = bug, kept
    cols = st.columns([2, 2, 1, 1], vertical_alignment="bottom")
    n = cols[0].select_slider("Rounds N", many_rounds.ROUND_CHOICES, key=S.many_n.key,
                              format_func=lambda x: f"{x:,}")
    bug = cols[1].selectbox("Inject an engine bug", list(many_rounds.BUG_NAMES), key=S.many_bug.key,
                            format_func=lambda b: many_rounds.BUG_NAMES[b], disabled=block,
                            help=many_rounds.BLOCK_BUG_NOTE if block else None)
    seed = cols[2].number_input("MC seed", min_value=0, max_value=2**32 - 1, step=1, key=S.many_seed.key)
    run = cols[3].button("Run", type="primary", key=Keys.many_run, width="stretch")
    if block:
        st.caption("Block verification (Sun et al. 2025): the rounds run the exact block Monte Carlo. "
                   + many_rounds.BLOCK_BUG_NOTE
                   + (f" Your choice “{many_rounds.BUG_NAMES[kept]}” returns with tokenwise." if kept else ""))
    many_rounds_result(pg, scenario, (n, bug, int(seed)), run, presenter)


def many_rounds_result(pg: PlaygroundSession, scenario: Scenario, choice: tuple[int, str, int], run: bool,
                       presenter: bool) -> None:
    """Run (drawing the histogram as it fills), or show the last run of these settings, or say to press Run."""
    n, bug, seed = choice
    key = (scenario, n, bug, seed)
    chart = st.empty()
    if run:
        def show(result: many_rounds.ManyRounds) -> None:
            chart.plotly_chart(many_plots.histogram_figure(result, presenter=presenter, height=420),
                               config=NO_BAR, theme=None)

        try:
            result = many_rounds.run(scenario, n, bug, seed, chunks=10, on_chunk=show)
        except Exception as error:  # noqa: BLE001 - a refusal is a message
            st.error(explain.explain(error, scenario=scenario).markdown())
            return
        pg.many = (key, result)
    stored = pg.many
    if stored is None or stored[0] != key:
        chart.info("Press **Run**: N independent rounds from the empty text, each exact (integer tickets, "
                   "vectorized), and the histogram of the first committed token against p.")
        return
    result = stored[1]
    if not run:
        chart.plotly_chart(many_plots.histogram_figure(result, presenter=presenter, height=420),
                           key=Keys.many_chart, config=NO_BAR, theme=None)
    st.markdown(many_plots.summary(result))
    hint = many_rounds.hint(bug, result.distance, scenario.draft_topk)
    if hint:
        st.caption(hint)
    st.caption(f"Error bars: ±1.96 binomial standard deviations of p's frequency: with an exact sampler a bar "
               f"reaches p's tick 95% of the time. Sampler: {result.method}.")


# --- sharing -----------------------------------------------------------------------------------------
def sharing(scenario: Scenario, step: int) -> None:
    """The link of this scenario at this step, the JSON download (with the trace so far), the file loader."""
    query = share.scenario_to_query(scenario, step)
    try:
        base = (st.context.url or "").split("?")[0]
    except Exception:  # noqa: BLE001 - no browser context (tests)
        base = ""
    st.markdown("**Copy link** (the copy icon is at the right of the box): it reopens this scenario at this step.")
    st.code(base + share.query_string(query), language=None, wrap_lines=True)
    trace = state.trace_upto(scenario, step)
    st.download_button("⬇ Download scenario + trace (JSON)", share.export_json(scenario, step, trace),
                       file_name=f"specviz-playground-seed{scenario.seed}.json", mime="application/json",
                       key=Keys.download)
    st.file_uploader("Load a downloaded scenario (JSON)", type=["json"], key=Keys.upload,
                     on_change=actions.on_upload)
