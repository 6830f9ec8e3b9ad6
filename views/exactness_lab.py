"""Exactness lab: one round's exact law equals the target's; a fast exact Monte Carlo; a float verifier; and
every verification rule side by side."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from specviz import theory
from specviz.app import lab_checks as checks
from specviz.app import lab_rules
from specviz.app import scenario_picker as picker
from specviz.core import SpecvizError, rule
from specviz.lab import float_verifier as fv
from specviz.lab import montecarlo as mc
from specviz.plots import lab as plots

ss = st.session_state
ROUNDS = [1_000, 10_000, 100_000, 1_000_000]

st.title("Exactness lab")
linked = lab_rules.linked_scenario(st.query_params)
if linked is not None and ss.get("lab_link") != dict(st.query_params):  # a new link opens the rules view, on top
    ss.lab_link, ss.lab_view = dict(st.query_params), lab_rules.RULES
    picker.follow_link("lab")
    lab_rules.scroll_to_top()
scenario = picker.pick("lab", linked=linked)
view = st.segmented_control("View", [lab_rules.CHECKS, lab_rules.RULES], default=lab_rules.CHECKS, key="lab_view")
if view == lab_rules.RULES:
    lab_rules.render(scenario)
    st.stop()
st.markdown("**The claim:** the tokens speculative sampling commits are distributed *exactly* as the target's own "
            "samples. Here it is checked three ways: by exact enumeration, by a large exact Monte Carlo, and "
            "against a float verifier written the way engines write it.")
CHECKED = list(mc.checked_rules())  # the rules sections 1 and 2 enumerate and simulate: token, block
verification = st.radio("Verification to check", CHECKED, format_func=lambda v: rule(v).label,
                        index=CHECKED.index(scenario.verification) if scenario.verification in CHECKED else 0,
                        horizontal=True,
                        key="lab_verification", help="Sections 1 and 2 check this verifier; section 3 is tokenwise.")
scenario = scenario.with_changes(verification=verification)
key = picker.to_key(scenario)
token_key = picker.to_key(scenario.with_changes(verification="token"))  # the float verifier is tokenwise
labels = list(scenario.vocab)
v, depth = scenario.vocab_size, scenario.depth
small = v ** (depth + 1) <= checks.MAX_SEQUENCES

# --- 1. exact enumeration ------------------------------------------------------------------------
st.header("1 · One round, enumerated exactly")
report = None
if not small:
    st.info(f"V^(depth+1) = {v ** (depth + 1):,} sequences is too many to list: lower V or the depth. "
            "The Monte Carlo below still runs and uses exact marginals.")
else:
    try:
        report = checks.exact_report(key)
    except SpecvizError as error:
        st.error(f"The core refuses this scenario: {error}")
        st.stop()
if report is not None:
    cols = st.columns(3)
    cols[0].metric("max |difference|", plots.number_text(report.max_abs_difference),
                   help=f"exact Fraction {report.max_abs_difference}; 0 means identical laws")
    cols[1].metric("sequences compared", f"{len(report.sequences):,}")
    tokens = theory.mean_length(report.blocks)
    cols[2].metric("tokens / round", f"{float(tokens):.4f}", help=f"expected tokens per round, exactly {tokens}")
    if report.exact:
        st.success(f"Every difference below is an exact Fraction(0): the law of one {rule(verification).label} "
                   "round, completed by target "
                   "sampling to depth + 1 tokens, *is* the target's law, and at every position "
                   "P(y_k = x | y_<k, reached) = p(x | y_<k).")
    else:
        st.error("A difference is not zero: this would be a bug in the verifier.")
    st.plotly_chart(plots.sequence_comparison(report, labels, rule_label=rule(verification).label), width="stretch",
                    theme=None)
    seq_tab, pos_tab = st.tabs(["Sequence by sequence", "Position by position"])
    with seq_tab:
        checks.sequence_table(report, labels)
    with pos_tab:
        checks.position_table(report, labels)

st.subheader("Tokenwise and block verification side by side")
st.caption("Both verifiers on this scenario, exactly: the difference to the target law (by enumeration, when "
           "small enough), expected accepted drafts and committed tokens per round. Block verification keeps the "
           "law and never accepts fewer drafts. Every rule the engines run: the view switch at the top.")
try:
    st.dataframe(pd.DataFrame(checks.side_by_side(token_key, small)), hide_index=True, width="stretch")
except SpecvizError as error:
    st.error(f"The core refuses this scenario: {error}")

# --- 2. Monte Carlo ------------------------------------------------------------------------------
st.header("2 · Monte Carlo of many rounds")
st.caption("Every round starts from the same prefix. Draws are exact integer tickets (numpy's unbiased "
           "bounded-integer sampler, vectorized over rounds); acceptance is an integer draw below the exact "
           "numerator. Python integers take over where a ticket total exceeds 63 bits.")
try:
    law = checks.exact_law(key)
except SpecvizError as error:
    st.error(f"The core refuses this scenario: {error}")
    st.stop()
c1, c2, c3, c4 = st.columns([3, 1, 1, 1])
n_rounds = c1.select_slider("Rounds N", ROUNDS, value=100_000, format_func=lambda n: f"{n:,}", key="lab_n")
seed = c2.number_input("Seed", min_value=0, value=0, step=1, key="lab_seed")
run = c3.button("Run", type="primary", key="lab_run")
c4.button("Stop", key="lab_stop", help="Stops after the current chunk; the rounds so far are kept.")
if run:
    sim = mc.MonteCarlo(scenario, seed=int(seed))
    bar = st.progress(0.0, text="Running…")

    def on_chunk(total: mc.Counts) -> None:
        ss.lab_mc = {"key": key, "counts": total, "method": sim.method, "target": n_rounds}
        bar.progress(total.rounds / n_rounds, text=f"{total.rounds:,} / {n_rounds:,} rounds")

    sim.run_chunked(n_rounds, chunk=max(1_000, n_rounds // 20), on_chunk=on_chunk)
    bar.empty()
result = ss.get("lab_mc")
if result is None or result["key"] != key:
    st.info("Press **Run** to simulate rounds.")
else:
    counts: mc.Counts = result["counts"]
    first = mc.goodness_of_fit(counts.first, law.first, labels)
    length = mc.goodness_of_fit(counts.length[1:], law.length[1:], [str(n) for n in range(1, depth + 2)])
    cols = st.columns(4)
    cols[0].metric("rounds", f"{counts.rounds:,}")
    cols[1].metric("rounds / s", f"{counts.rounds_per_second:,.0f}")
    cols[2].metric("TV (first token)", f"{first.total_variation:.5f}")
    cols[3].metric("χ² p-value (first token)", f"{first.p_value:.3f}")
    st.caption(f"Sampler: {result['method']}. Error bars: ±1.96 binomial standard deviations around the exact "
               "probability. A p-value is uniform on [0, 1] when the sampler is exact.")
    left, right = st.columns(2)
    left.plotly_chart(plots.histogram(first, "First committed token"), width="stretch", theme=None)
    right.plotly_chart(plots.histogram(length, "Committed length"), width="stretch", theme=None)
    if first.impossible or length.impossible:
        st.error("Tokens of exact probability zero were observed: the sampler is not exact.")
    for fit in (first, length):
        if fit.note:
            st.caption(f"χ²: {fit.note}.")

# --- 3. float verifier and engine bugs -----------------------------------------------------------
st.header("3 · A float verifier, and engine bugs")
st.markdown("The engine way: float32 probabilities, u uniform on the float32 grid k/2²⁴, accept when "
            "`u < p/q` (or `u <= p/q`), residual `relu(p − q) / sum` in float32. Because u is on a finite grid, "
            "its law is enumerated exactly too, so every distance below is exact. Each bug runs in exact "
            "arithmetic, so its distance is its own.")
c1, c2 = st.columns(2)
comparison = c1.radio("Comparison", ["<", "<="], horizontal=True, key="lab_cmp")
chosen = c2.selectbox("Show deviations of", ["float32", *[b for b in fv.BUGS if b != "none"]],
                      format_func=plots.plain_name,
                      key="lab_bug")
if not small:
    st.info("Too many sequences to enumerate the float verifier's law: lower V or the depth.")
    st.stop()
try:
    results = checks.engine_results(token_key, comparison)
except SpecvizError as error:
    st.error(f"The core refuses this scenario: {error}")
    st.stop()
st.plotly_chart(plots.engine_distances(results), width="stretch", theme=None)
st.dataframe(pd.DataFrame(plots.results_rows(results), dtype="string"), hide_index=True, width="stretch")
with st.expander("Exact values (fractions)"):
    st.dataframe(pd.DataFrame(plots.results_rows(results, exact=True), dtype="string"), hide_index=True,
                 width="stretch")
st.caption("Distances are shown to 4 significant digits (0 only when exactly 0); the exact fractions are in "
           "the expander above and on the chart's hover.")
st.caption("Skipping the bonus token leaves the law correct (TV to target 0): it only wastes a token per "
           "fully accepted round. Verifying against an unprocessed q matters only with a draft top-k.")
deviations = results[chosen].deviations
if deviations:
    shown = min(len(deviations), 30)
    st.markdown(f"**Where it deviates** ({shown} of {len(deviations):,} places; weight = P(the round gets there) "
                "× size of the difference):")
    for reason, rows in plots.deviation_groups(deviations, labels, limit=shown):
        st.markdown(f"*{reason}*")
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch",
                     column_config={"position": st.column_config.NumberColumn(width="small"),
                                    "weight": st.column_config.TextColumn(width="small")})
elif results[chosen].tv_blocks or results[chosen].tv_sequences:
    picked = results[chosen]
    st.warning(f"No single place is listed, yet the law differs: TV to exact blocks {plots.short(picked.tv_blocks)}, "
               f"to the target law {plots.short(picked.tv_sequences)}.")
else:
    st.success("No deviation from the exact verifier on this scenario.")
