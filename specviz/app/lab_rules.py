"""The Exactness lab's rules view: every verification rule side by side on the current scenario.

Page plumbing only: widgets, caches and rendering; the numbers come from ``specviz.lab.rules`` (pure,
tested) and the figures from ``specviz.plots.rules``.
"""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from ..core import SpecvizError, rule
from ..lab import rules
from ..playground import share
from ..plots import lab as lab_plots
from ..plots import rules as plots
from ..plots import style
from ..scenario import Scenario
from . import scenario_picker as picker

CHECKS, RULES = "Exactness checks", "Verification rules side by side"
VIEW_PARAM = "rules"  # ?view=rules opens this view (the gallery's card links here with its scenario)
WEIGHTS = ["0.1", "0.25", "0.5", "0.75", "0.9", "1"]  # ensemble:W
THRESHOLDS = ["0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1"]  # SGLang's S and A
EPS_CHOICES = ["0.01", "0.03", "0.05", "0.09", "0.2", "0.3", "0.5"]  # Medusa's ε
SQRT_EPS = "√ε"
DELTAS = [SQRT_EPS, "0.1", "0.3", "0.5", "1"]  # Medusa's δ
ROUNDS = [10_000, 100_000, 1_000_000]


def linked_scenario(params: Mapping[str, str]) -> Scenario | None:
    """The scenario a ``?view=rules&...`` link carries (the gallery card's), or None."""
    if params.get("view") != VIEW_PARAM or not share.has_scenario(params):
        return None
    try:
        return share.scenario_from_query(params)[0]
    except SpecvizError:
        return None


@st.cache_data(show_spinner="Computing every rule exactly…")
def _compare(key: str, engine_rules: tuple[str, ...]) -> rules.RulesComparison:
    return rules.compare(picker.from_key(key), engine_rules)


@st.cache_data(show_spinner="Sampling every rule…")
def _samples(key: str, engine_rules: tuple[str, ...], n: int, seed: int) -> dict[str, rules.Sample]:
    scenario = picker.from_key(key)
    return {name: rules.sample_first_tokens(scenario, name, n, seed) for name in rules.rule_names(engine_rules)}


def engine_rule_names(weight: str, single: str, acc: str, eps: str, delta: str, fast: bool) -> tuple[str, ...]:
    """The engine rules' rows the controls choose: ensemble:W, SGLang's default threshold:1,1 and the chosen S, A,
    and Medusa's typical:EPS[,DELTA] (or typical-sample:... when not fast)."""
    medusa = ("typical:" if fast else "typical-sample:") + eps + ("" if delta == SQRT_EPS else f",{delta}")
    return tuple(dict.fromkeys((f"ensemble:{weight}", "threshold:1,1", f"threshold:{single},{acc}", medusa)))


def _engine_controls() -> tuple[str, ...]:
    """The engine rules' settings, one row of controls (W; S and A; ε, δ and fast)."""
    c1, c2, c3, c4, c5, c6 = st.columns([3, 2, 2, 3, 3, 2], vertical_alignment="bottom")
    weight = c1.select_slider("Ensemble W (transformers)", WEIGHTS, value="0.5", key="lab_rules_w",
                              help="v = W·p + (1 − W)·q is what the drafts are judged against; W = 1 is tokenwise")
    single = c2.select_slider("SGLang S", THRESHOLDS, value="0.5", key="lab_rules_s",
                              help="--speculative-accept-threshold-single: p(x) ≥ S keeps x whatever the coin")
    acc = c3.select_slider("SGLang A", THRESHOLDS, value="0.8", key="lab_rules_a",
                           help="--speculative-accept-threshold-acc: the coin keeps x when u ≤ (target mass)/A")
    eps = c4.select_slider("Medusa ε", EPS_CHOICES, value="0.09", key="lab_rules_eps",
                           help="posterior_threshold: x kept when p(x) > min(ε, δ·exp(−H))")
    delta = c5.selectbox("Medusa δ", DELTAS, key="lab_rules_delta",
                         help="posterior_alpha; √ε is Medusa's recommended default")
    fast = c6.toggle("fast", value=True, key="lab_rules_fast",
                     help="Medusa's default: argmax p after a rejection; off: a sample of p above the threshold")
    return engine_rule_names(weight, single, acc, eps, delta, fast)


# the page's scroll container, by the element Streamlit renders the main column in (and the document, as a fallback)
_SCROLL_TOP = ("<script>for (const el of [window.parent.document.querySelector('[data-testid=\"stMain\"]'), "
               "window.parent.document.querySelector('[data-testid=\"stAppViewContainer\"]'), "
               "window.parent.document.scrollingElement]) { if (el) el.scrollTo(0, 0); }</script>")


def scroll_to_top() -> None:
    """Open at the top: a page reached from far down another page (a gallery card) keeps its scroll otherwise."""
    import streamlit.components.v1 as components

    components.html(_SCROLL_TOP, height=0)


def _table(rows: list[dict]) -> None:
    st.markdown(lab_plots.html_table(rows), unsafe_allow_html=True)


def _exact_section(comparison: rules.RulesComparison, labels: list[str]) -> None:
    st.plotly_chart(plots.accepted_figure(comparison), width="stretch", theme=None)
    _table(plots.table_rows(comparison, labels))
    st.caption("Exact values: a short fraction as it is, a longer one as a decimal; hover a number (dotted "
               "underline) for the other form. P(draft k kept) is the probability that the round commits at "
               "least k drafts. The bound rows: no exact rule that draws K i.i.d. drafts from q keeps the first "
               "one more often than min over token sets S of p(S) + 1 − q(S)^K; drafts without replacement "
               "are not i.i.d. and can exceed it.")


def _engines_section(comparison: rules.RulesComparison) -> None:
    st.subheader("Who uses which rule")
    _table(plots.engine_rows(comparison))
    links = " · ".join(f"[{name}]({url}): {what}" for name, url, what in rules.ISSUES)
    st.markdown(f"Public threads where an engine's verification went wrong: {links}.")


def _monte_carlo_section(scenario: Scenario, comparison: rules.RulesComparison, key: str,
                         engine_rules: tuple[str, ...]) -> None:
    st.subheader("Monte Carlo: each rule's own mechanism, first committed token")
    c1, c2, c3 = st.columns([2, 1, 2])
    n = c1.select_slider("Rounds per rule", ROUNDS, value=100_000, format_func=lambda v: f"{v:,}", key="lab_rules_n")
    seed = int(c2.number_input("Seed", min_value=0, value=0, step=1, key="lab_rules_seed"))
    names = [r.rule.name for r in comparison.rows]
    shown = c3.selectbox("Histogram of", names, index=len(names) - 1, format_func=lambda v: rule(v).label,
                         key="lab_rules_shown")
    try:
        samples = _samples(key, engine_rules, n, seed)
    except SpecvizError as error:
        st.error(f"The Monte Carlo cannot run here: {error}")
        return
    labels = list(scenario.vocab)
    fits = {name: rules.fit(sample, comparison.p, labels) for name, sample in samples.items()}
    law = next(r.first_law for r in comparison.rows if r.rule.name == shown)
    st.plotly_chart(plots.first_token_figure(fits[shown], law, rule(shown).label), width="stretch", theme=None)
    _table([{"rule": r.rule.label, "exact TV to p": r.distance,
             "measured TV to p": f"{fits[r.rule.name].total_variation:.4f}",
             "χ² p-value against p": f"{fits[r.rule.name].p_value:.3g}",
             "first draft kept (exact)": r.kept_by_position[0] if r.kept_by_position else None,
             "first draft kept (measured)": "–" if samples[r.rule.name].kept is None
             else f"{samples[r.rule.name].kept / n:.4f}"} for r in comparison.rows])
    st.caption("Seeded numpy draws of integer tickets, vectorized over rounds: the drafts, each acceptance and the "
               "correction, as the rule runs them (block verification: the lab's block simulator). Error bars: "
               "±1.96 binomial standard deviations around p. A p-value is uniform on [0, 1] for an exact rule; "
               "a lossy rule's histogram converges to its own law (diamonds), not to p.")


def render(scenario: Scenario) -> None:
    """The whole rules view for one scenario (its first context, its depth)."""
    st.markdown("Every rule on this scenario, exactly: what it keeps at each draft position, its accepted drafts "
                "and tokens per round, and the law of the first token it commits, whose distance from p is 0 "
                "for an exact rule. Three rules engines ship are here with their own settings: transformers' "
                "ensemble (W), SGLang's thresholds (S, A; 1 and 1 by default, exact) and Medusa's typical "
                "acceptance (a draft kept when p(x) > min(ε, δ·exp(−H)), δ = √ε, Medusa's recommended default). "
                "A lossy rule is not exact, and whether it keeps more drafts than tokenwise depends on p and q: "
                "the table says which, here.")
    engine_rules = _engine_controls()
    key = picker.to_key(scenario)
    try:
        comparison = _compare(key, engine_rules)
    except SpecvizError as error:
        st.error(f"This scenario cannot be compared: {error}")
        return
    pairs = " · ".join(f"{style.markdown_text(style.token_label(label))}: p = {lab_plots.number_text(p)}, "
                       f"q = {lab_plots.number_text(q)}"
                       for label, p, q in zip(scenario.vocab, comparison.p, comparison.q, strict=True))
    st.markdown(f"**At the first position** ({scenario.vocab_size} tokens, depth {scenario.depth}): {pairs}")
    _exact_section(comparison, list(scenario.vocab))
    _engines_section(comparison)
    _monte_carlo_section(scenario, comparison, key, engine_rules)
