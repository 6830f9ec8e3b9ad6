"""The Exactness lab's rules view: every verification rule side by side on the current scenario.

Page plumbing only: widgets, caches and rendering; the numbers come from ``specviz.lab.all_rules`` (pure,
tested) and the figures from ``specviz.plots.all_rules_figures``. The engine rules' controls are built from their
declared parameters (``core.verification.PARAMS_BY_FAMILY``: label, stops, help, where a side-by-side view starts), one
column per family that ``lab.rule_rows.ROWS_BY_FAMILY`` offers controls for; their values name the rows.
"""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from ..core import SpecvizError, rule
from ..core.rule_params import Param
from ..core.verification import declared
from ..lab import all_rules, rule_rows
from ..playground import share
from ..plots import all_rules_figures as plots
from ..plots import lab as lab_plots
from ..plots import style
from ..scenario import Scenario
from . import scenario_picker as picker

CHECKS, RULES = "Exactness checks", "Verification rules side by side"
VIEW_PARAM = "rules"  # ?view=rules opens this view (the gallery's card links here with its scenario)
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
def _compare(key: str, engine_rules: tuple[str, ...]) -> all_rules.RulesComparison:
    return all_rules.compare(picker.from_key(key), engine_rules)


@st.cache_data(show_spinner="Sampling every rule…")
def _samples(key: str, engine_rules: tuple[str, ...], n: int, seed: int) -> dict[str, all_rules.Sample]:
    scenario = picker.from_key(key)
    return {name: all_rules.sample_first_tokens(scenario, name, n, seed) for name in all_rules.rule_names(engine_rules)}


def control_key(family: str, field: str) -> str:
    """The session key of one engine rule control of this view."""
    return f"lab_rules_{family}_{field}"


def _number(family: str, param: Param, label: str, start: object) -> object:
    """A declared number on a slider of its stops (a count: 1 to its high)."""
    key, help_ = control_key(family, param.field), param.help or None
    if param.count:
        return st.slider(label, 1, int(param.high), value=int(start), key=key, help=help_)
    return st.select_slider(label, list(param.stops), value=start, key=key, help=help_)


def _engine_controls() -> tuple[str, ...]:
    """The engine rules' settings in one row (W; S and A; ε, δ and fast), each number labelled by its engine: the
    rows' names."""
    controls = [(family, field) for family in rule_rows.with_controls() for field in rule_rows.controls(family)]
    flags = {family: declared(family).flag for family in rule_rows.with_controls()}
    values: dict[str, dict[str, object]] = {family: {} for family in rule_rows.with_controls()}
    for column, (family, field) in zip(st.columns(len(controls), vertical_alignment="bottom"), controls, strict=True):
        params, start = declared(family), rule_rows.start(family)[field]
        engine = rule(params.name(params.defaults())).citation
        with column:
            flag = flags[family]
            if flag is not None and flag.field == field:
                # after its engine's numbers, the flag's short label alone fits the row ("fast")
                values[family][field] = st.toggle(flag.short or flag.label, value=bool(start),
                                                  key=control_key(family, field), help=flag.help)
            else:
                param = next(p for p in params.params if p.field == field)
                values[family][field] = _number(family, param, f"{engine} {param.short or param.label}", start)
    return rule_rows.engine_rows(values)


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


def _exact_section(comparison: all_rules.RulesComparison, labels: list[str]) -> None:
    st.plotly_chart(plots.accepted_figure(comparison), width="stretch", theme=None)
    _table(plots.table_rows(comparison, labels))
    for found, why in comparison.refused:  # past theory's stated limits on this scenario: said, not guessed
        st.caption(f"Not computed here, {found.label}: {why}")
    st.caption("Exact values: a short fraction as it is, a longer one as a decimal; hover a number (dotted "
               "underline) for the other form. P(draft k kept) is the probability that the round commits at "
               "least k drafts. The bound rows: no exact rule that draws K i.i.d. drafts from q keeps the first "
               "one more often than min over token sets S of p(S) + 1 − q(S)^K; drafts without replacement "
               "are not i.i.d. and can exceed it.")


def _engines_section(comparison: all_rules.RulesComparison) -> None:
    st.subheader("Who uses which rule")
    _table(plots.engine_rows(comparison))
    links = " · ".join(f"[{name}]({url}): {what}" for name, url, what in all_rules.ISSUES)
    st.markdown(f"Public threads where an engine's verification went wrong: {links}.")


def _monte_carlo_section(scenario: Scenario, comparison: all_rules.RulesComparison, key: str,
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
    fits = {name: all_rules.fit(sample, comparison.p, labels) for name, sample in samples.items()}
    law = next(r.first_law for r in comparison.rows if r.rule.name == shown)
    st.plotly_chart(plots.first_token_figure(fits[shown], law, rule(shown).label), width="stretch", theme=None)
    _table([{"rule": r.rule.label, "exact TV to p": r.distance,
             "measured TV to p": f"{fits[r.rule.name].total_variation:.4f}",
             "χ² p-value against p": f"{fits[r.rule.name].p_value:.3g}",
             "first draft kept (exact)": r.kept_by_position[0] if r.kept_by_position else None,
             "first draft kept (measured)": "–" if samples[r.rule.name].kept is None
             else f"{samples[r.rule.name].kept / samples[r.rule.name].rounds:.4f}"} for r in comparison.rows])
    st.caption("Seeded numpy draws of integer tickets, vectorized over rounds: the drafts, each acceptance and the "
               "correction, as the rule runs them (block verification: the lab's block simulator; traversal "
               f"verification: its core verifier itself, at most {all_rules.MAX_PLAYED_ROUNDS:,} rounds). Error bars: "
               "±1.96 binomial standard deviations around p. A p-value is uniform on [0, 1] for an exact rule; "
               "a lossy rule's histogram converges to its own law (diamonds), not to p.")


def render(scenario: Scenario) -> None:
    """The whole rules view for one scenario (its first context, its depth)."""
    st.markdown("Every rule on this scenario, exactly: what it keeps at each draft position, its accepted drafts "
                "and tokens per round, and the law of the first token it commits, whose distance from p is 0 "
                "for an exact rule. The rules engines ship are here with their own settings: transformers' "
                "ensemble (W), SGLang's thresholds (S, A; 1 and 1 by default, exact) on sampled drafts and as SGLang "
                "runs them (its argmax drafts), and Medusa's typical acceptance (a draft kept when p(x) > min(ε, "
                "δ·exp(−H)), δ = 0.3 by default, as medusa_generate); traversal verification (Weng et al. 2025) "
                "beside the trees it verifies from the leaves up. "
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
