"""Theory and speedup: alpha, expected tokens per round, walltime speedup, and measurements against theory."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from specviz import theory
from specviz.app import measured
from specviz.app import scenario_picker as picker
from specviz.core import SpecvizError, rule
from specviz.plots import lab as numbers
from specviz.plots import theory_figures as plots
from specviz.plots import verification_figures as plots_verification

ss = st.session_state


@st.cache_data(show_spinner=False)
def position_alphas(key: str) -> list:
    return theory.analyze_round(picker.from_key(key)).position_alphas


st.title("Theory and speedup")
scenario = picker.pick("th")
if not theory.can_enumerate(scenario.verification):  # a tree or a theory-only rule: its numbers
    st.caption(f"The scenario verifies with {rule(scenario.verification).label}; this page's per-position "
               "numbers are tokenwise. Every rule side by side: the Exactness lab's rules view.")
    scenario = scenario.with_changes(verification="token")
key = picker.to_key(scenario)
try:
    p = scenario.processor()((), scenario.target_model()(()))
    q = scenario.draft_model()(())
except SpecvizError as error:
    st.error(f"The core refuses this scenario: {error}")
    st.stop()
alpha = theory.alpha(p, q)

# --- alpha ---------------------------------------------------------------------------------------
st.header("Acceptance rate α")  # the formula is the chart's title, with this scenario's value
st.markdown("A drafted token x ~ q is accepted with probability min(1, p(x)/q(x)); averaged over x that is "
            "Σ_x min(p(x), q(x)): the shaded overlap of the two bar charts.")
cols = st.columns(3)
cols[0].metric("α (exact)", numbers.number_text(alpha), help=f"exactly {alpha}")
cols[1].metric("TV(p, q) = 1 − α", f"{float(1 - alpha):.4f}")
cols[2].metric("depth g", scenario.depth)
st.plotly_chart(plots.alpha_bars(p, q, scenario.vocab), width="stretch", theme=None)

st.subheader("vLLM's strict and probabilistic rejection sampling")
strict = theory.node_law("strict", p, q).acceptance  # the draft kept when the target's own sample equals it
st.markdown("vLLM's Model Runner V2 names its verifiers `rejection_sample_method`: **\"strict\"** (its default) "
            "keeps a draft x ~ q only when the target's own sample y ~ p equals it, with probability Σ p(x)·q(x); "
            "**\"probabilistic\"** accepts x with min(1, p(x)/q(x)) and corrects from the residual, with "
            "probability Σ min(p(x), q(x)) = α. Both commit exactly p; α ≥ Σ p·q always (min(p, q) ≥ p·q token by "
            "token), and the gap is what strict leaves on the table (PRs #35461 and #46781; \"block\" is block "
            "verification).")
cols = st.columns(3)
cols[0].metric("probabilistic: Σ min(p, q)", numbers.number_text(alpha), help=f"exactly {alpha}")
cols[1].metric("strict: Σ p·q", numbers.number_text(strict), help=f"exactly {strict}")
cols[2].metric(f"tokens per round at g = {scenario.depth}",
               f"{float(theory.expected_tokens(alpha, scenario.depth)):.3f} vs "
               f"{float(theory.expected_tokens(strict, scenario.depth)):.3f}",
               help="(1 − a^(g+1)) / (1 − a) with the same acceptance a at every position: probabilistic vs strict")
st.plotly_chart(plots.strict_probabilistic_bars(p, q, scenario.vocab), width="stretch", theme=None)

# --- expected tokens and speedup -----------------------------------------------------------------
st.header("Tokens per round and walltime speedup")
st.markdown(r"With the same α at every position, a round commits $\frac{1-\alpha^{g+1}}{1-\alpha}$ tokens on "
            r"average and costs $g\,c + 1$ target-call units, so the speedup over target-only decoding is "
            r"$\frac{1-\alpha^{g+1}}{(1-\alpha)(g c + 1)}$, where c = (draft call time) / (target call time).")
c = st.slider("Cost ratio c", 0.0, 1.0, 0.05, 0.01, key="th_c")
best = theory.optimal_depth(alpha, c)  # searched until the speedup falls
st.plotly_chart(plots.depth_curves(alpha, c, max_depth=min(max(8, best + 2), 40)), width="stretch", theme=None)
st.caption(plots.optimal_depth_caption(alpha, c, best))

st.subheader("Leviathan, Kalman and Matias (2023)")
measured_speedups = measured.speedup_points(ss)
st.plotly_chart(plots.add_speedup_points(plots.leviathan_curves(c, current_alpha=float(alpha)), measured_speedups),
                width="stretch", theme=None)
for point in measured_speedups:
    st.caption(f"★ {point.source}: α = {point.acceptance_rate:.3f}, c = {point.cost_ratio:.3f}, g = {point.depth}, "
               f"measured {point.measured_speedup:.2f}x (hollow star: the formula's "
               f"{float(theory.speedup(min(point.acceptance_rate, 0.999), point.depth, point.cost_ratio)):.2f}x). "
               f"The i.i.d. formula assumes a verification pass costs one single pass; there a {point.depth + 1}-token "
               f"pass cost {point.verify_ratio:.2f} single passes.")
grid_c = st.radio("Grid at cost ratio", [0.0, c], format_func=lambda x: f"c = {x:g}", horizontal=True,
                  key="th_grid_c")
st.markdown("Expected speedup from the formula (at c = 0 this is the tokens per round; e.g. α = 0.8, g = 5 gives "
            "3.69):")
st.dataframe(pd.DataFrame(plots.grid_rows(grid_c)), hide_index=True, width="stretch")
st.markdown("Measured α from their Table 3 (the numbered markers above):")
st.dataframe(pd.DataFrame([{"#": j, "target": t, "draft": d, "temperature": temp, "α": a}
                           for j, (t, d, temp, a) in enumerate(theory.LEVIATHAN_ALPHAS, start=1)]),
             hide_index=True, width="stretch")

# --- measured against theory ---------------------------------------------------------------------
st.header("Measured against theory")
st.warning("The formula assumes the same α at every position, independently. It is exact when p and q do not "
           "depend on the position (fixed mode, no stop tokens); in Markov mode, with stop tokens, or for real "
           "models α changes from position to position and the formula is only a guide.")
collected = measured.collect(ss)
found = collected.found
for note in collected.notes:  # a source the library refused to measure, and why
    st.caption(note)
for bug in collected.bugs:  # a bug that stopped one: said as one (its traceback is in the server's log)
    st.error(bug)
if not found:
    st.info("Nothing measured in this session yet: play some rounds in the Playground or generate with the "
            "real-model page, then come back. The exact value for this scenario is shown as a star.")
st.plotly_chart(plots.measured_vs_theory(scenario.depth, [m.measurement for m in found],
                                         theory_alpha=float(alpha)), width="stretch", theme=None)
if found:
    st.dataframe(pd.DataFrame([{"source": m.measurement.source,
                                "acceptance rate": round(m.measurement.acceptance_rate, 4),
                                "tokens per round": m.measurement.tokens_per_round, "depth": m.measurement.depth,
                                "checks": m.measurement.checks,
                                "per-position acceptance": ", ".join("–" if a is None else f"{a:.3f}"
                                                                     for a in (m.by_position or []))}
                               for m in found]), hide_index=True, width="stretch")

alphas = position_alphas(key)
if len({a for a in alphas if a is not None}) > 1:
    st.markdown("In this scenario α differs by position (exact, P(accept at k | verification reached k)):")
    st.plotly_chart(plots.position_alphas(alphas, alpha), width="stretch", theme=None)
    exact_tokens = theory.mean_length(theory.block_distribution(scenario))
    st.caption(f"Exact expected tokens per round {float(exact_tokens):.4f} vs the i.i.d. formula "
               f"{float(theory.expected_tokens(alpha, scenario.depth)):.4f}.")
else:
    st.success(f"In this scenario α is the same at every position ({numbers.number_text(alpha)}): the formula "
               "is exact here.")

# --- tokenwise vs block verification --------------------------------------------------------------
st.header("Tokenwise vs block verification")
st.markdown("**Block verification** (Sun et al., ICLR 2025) judges the drafted block jointly instead of token by "
            r"token: a running weight $w_i = \min(1,\ w_{i-1}\,p(x_i)/q(x_i))$ lets a later good draft make up "
            "for an earlier poor one. The committed tokens keep the target's exact law (the Exactness lab proves "
            "it), it needs no extra forward pass, and it never accepts fewer drafts in expectation. Exact values "
            "for this scenario, by a recursion over (position, state, weight):")


@st.cache_data(show_spinner="Computing both verifications exactly…")
def verification_rows(key: str) -> list:
    return theory.compare_verifications(picker.from_key(key), range(1, 6))


try:
    rows = verification_rows(key)
except SpecvizError as error:
    st.error(f"The core refuses this scenario: {error}")
    st.stop()
row = rows[scenario.depth - 1]
cols = st.columns(3)
cols[0].metric(f"accepted drafts / round (g = {scenario.depth})", numbers.number_text(row.block.accepted_drafts),
               delta=f"+{numbers.number_text(row.gain)} vs tokenwise {numbers.number_text(row.token.accepted_drafts)}",
               delta_color="normal" if row.gain else "off", help=f"exact: {row.block.accepted_drafts}")
tokens_gain = row.block.tokens - row.token.tokens
cols[1].metric("committed tokens / round", numbers.number_text(row.block.tokens),
               delta=f"{'+' if tokens_gain >= 0 else ''}{numbers.number_text(tokens_gain)} vs tokenwise "
                     f"{numbers.number_text(row.token.tokens)}",
               delta_color="normal" if tokens_gain else "off", help=f"exact: {row.block.tokens}")
gain = row.block.tokens / row.token.tokens - 1
cols[2].metric("exact gain in tokens per target call", f"{float(gain):+.2%}")
st.plotly_chart(plots_verification.accepted_by_depth(rows, scenario.depth), width="stretch", theme=None)
st.markdown(numbers.html_table([{"g": r.depth, "accepted (tokenwise)": r.token.accepted_drafts,
                                  "accepted (block)": r.block.accepted_drafts, "gain": r.gain,
                                  "tokens/round (tokenwise)": r.token.tokens, "tokens/round (block)": r.block.tokens,
                                  "bound (joint)": r.ideal} for r in rows]), unsafe_allow_html=True)
st.caption("A short fraction is shown as it is, a longer one as a decimal: hover a number (dotted underline) for "
           "the other form. The bound column: no exact verifier accepts more drafts in expectation than Σ_k Σ_{x^k} "
           "min(p(x^k), q(x^k)) (a coupling of each drafted prefix with the target's), the value the paper gives for "
           "an ideal verifier that knew the joint block probabilities; shown for fixed scenarios without stop "
           "tokens. With one draft (g = 1) both verifications are the same.")
