"""Overview: what speculative sampling is, and one exact verification round on a small example."""

import streamlit as st

from specviz.playground.narrative import step_view
from specviz.playground.presets import default_scenario
from specviz.plots.committed_text import committed_html
from specviz.plots.step_figures import check_figure, round_figure
from specviz.plots.style import token_label

st.markdown("## 🎯 specviz: exact speculative sampling")
st.markdown(
    "A cheap **draft** model *q* proposes a few tokens; the expensive **target** *p* checks them all in one "
    "pass. Every probability here is an exact fraction and every draw an integer ticket, so what you see is "
    "what the mathematics says, draw for draw."
)

scenario = default_scenario()
# the formulas beside the first check of a real round: the picture is above the fold at 1280x800
left, right = st.columns([2, 3], gap="large")
with left:
    st.markdown("**Accept** the drafted token *x* with probability")
    st.latex(r"a(x) = \min\left(1, \frac{p(x)}{q(x)}\right)")
    st.markdown("At the first rejection, draw a **correction** from the normalized residual")
    st.latex(r"r(x) = \frac{\left(p(x) - q(x)\right)_+}{\sum_y \left(p(y) - q(y)\right)_+}")
    st.markdown(
        "If every draft is accepted, draw a **bonus** token from *p*. The committed tokens are distributed "
        "exactly as if *p* had sampled them one by one, and a round of depth *g* commits "
        r"$\frac{1 - \alpha^{g+1}}{1 - \alpha}$ tokens on average, with $\alpha = \sum_x \min(p(x), q(x))$."
    )
with right:
    seed_col, info_col = st.columns([1, 3], vertical_alignment="bottom")  # a narrow seed box, the setting beside it
    seed = seed_col.number_input("Seed", min_value=0, max_value=2**31 - 1, value=0, step=1,
                                 help="The same seed gives the same drafts, checks and tokens on every machine.")
    scenario = scenario.with_changes(seed=int(seed))
    first = step_view(scenario, 0)
    round_events = first.round_events
    last = step_view(scenario, len(round_events) - 1)
    info_col.markdown("One round on " + ", ".join(f"`{token_label(w)}`" for w in scenario.vocab)
                      + f" · draft depth {scenario.depth}")
    check = next((e for e in round_events if e.kind == "check"), None)
    if check is not None:
        st.plotly_chart(check_figure(check, scenario.vocab), width="stretch", theme=None)

st.subheader("One verification round")
chart_left, chart_right = st.columns([2, 3], gap="large")
with chart_left:
    st.markdown("**Committed text**")
    st.html(committed_html(last, scenario.vocab))
    st.markdown("**Where to go next**")
    st.page_link("views/playground.py", label="Playground: step through the verifier", icon="🎛️")
    st.page_link("views/exactness_lab.py", label="Exactness lab: proof and float bugs", icon="🧪")
    st.page_link("views/theory.py", label="Theory: alpha and speedup", icon="📈")
    st.page_link("views/edge_cases.py", label="Edge cases: zero mass, masks, FP32", icon="🃏")
    st.page_link("views/real_models.py", label="Real models: SmolLM2, V = 49152", icon="🤖")
with chart_right:
    st.plotly_chart(round_figure(round_events, scenario.vocab, scenario.depth), width="stretch", theme=None)

st.markdown("**What the verifier did, step by step**")
for step in range(len(round_events)):
    view = step_view(scenario, step)
    # the exact numbers behind each step: the draw for drafts, everything for the verifier's steps
    details = view.lines[1:2] if view.phase == "draft" else view.lines if view.phase != "result" else []
    st.markdown(f"{step + 1}. {view.headline}" + "".join(f"\n    - {line}" for line in details))
