"""Figures and table rows of the lab's rules view: every verification rule side by side, exactly, and a
Monte Carlo of one rule's first committed token against p."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np
import plotly.graph_objects as go

from ..lab.all_rules import RuleRow, RulesComparison, engines
from ..lab.montecarlo import Fit
from . import style
from .lab import column_texts, fraction_text

LOSSY = style.OKABE_ITO["vermillion"]
EXACT = style.OKABE_ITO["blue"]


def _name(row: RuleRow) -> str:
    return f"{row.rule.short} (lossy)" if not row.rule.exact else row.rule.short


def table_rows(comparison: RulesComparison, labels: Sequence[str]) -> list[dict[str, object]]:
    """One row per rule (exact Fractions: ``plots.lab.html_table`` shows them with the exact value on hover),
    then one row per K-draft optimum (a bound at the first position only)."""
    depth = max((len(r.kept_by_position) for r in comparison.rows), default=0)
    rows: list[dict[str, object]] = []
    for r in comparison.rows:
        row: dict[str, object] = {"rule": r.rule.label, "exact": "yes" if r.rule.exact else "NO (lossy)"}
        for k in range(depth):
            row[f"P(draft {k + 1} kept)"] = r.kept_by_position[k] if k < len(r.kept_by_position) else None
        row["accepted drafts / round"] = r.accepted_drafts
        row["tokens / round"] = r.tokens
        row["TV(first token, p)"] = r.distance
        rows.append(row)
    for o in comparison.optima:
        chosen = "{" + ", ".join(labels[x] for x in sorted(o.chosen)) + "}" if o.chosen else "∅"
        row = {"rule": f"best exact rule, {o.drafts} i.i.d. drafts (bound, S = {chosen})", "exact": "bound"}
        for k in range(depth):
            row[f"P(draft {k + 1} kept)"] = o.value if k == 0 else None
        row.update({"accepted drafts / round": None, "tokens / round": None, "TV(first token, p)": None})
        rows.append(row)
    return rows


def engine_rows(comparison: RulesComparison) -> list[dict[str, str]]:
    """Which engines or papers use each rule (plain text)."""
    return [{"rule": r.rule.label, "who uses it": engines(r.rule), "source": r.rule.source} for r in comparison.rows]


def accepted_figure(comparison: RulesComparison, *, presenter: bool = False) -> go.Figure:
    """Expected accepted drafts per round per rule, horizontal bars; lossy rules hatched and named so."""
    rows = list(comparison.rows)
    names = [_name(r) for r in rows]
    values = [r.accepted_drafts for r in rows]
    size = style.font_size(presenter)
    fig = go.Figure()
    fig.add_bar(y=names, x=[float(v) for v in values], orientation="h", showlegend=False,
                marker={"color": [EXACT if r.rule.exact else LOSSY for r in rows],
                        "pattern": {"shape": ["" if r.rule.exact else "/" for r in rows], "fgcolor": "#FFFFFF"}},
                text=column_texts(values), textposition="outside", cliponaxis=False,  # as the table writes them
                textfont={"size": size}, customdata=[fraction_text(v) for v in values],
                hovertemplate="%{y}: %{customdata} accepted drafts per round<extra></extra>")
    top = max((float(v) for v in values), default=1.0)
    height = style.title_space("x", presenter) + round(size * 2.4) * len(rows) + 3 * size + 60
    return style.apply_layout(
        fig, title="Expected accepted drafts per round (exact)", presenter=presenter, height=height,
        xaxis={"title": {"text": "accepted drafts per round"}, "range": [0, top * 1.2 + 0.05]},
        yaxis={"type": "category", "autorange": "reversed", "title": {"text": ""}, "ticklabelstandoff": 8})


def first_token_figure(fit: Fit, law: Sequence[Fraction], rule_label: str, *, presenter: bool = False) -> go.Figure:
    """Measured first committed tokens (±1.96 binomial σ around p), p's exact ticks, and the rule's own exact
    law as diamonds where it is not p."""
    x = style.token_labels(fit.labels)  # as a room reads them, escaped for plotly (a label is text, not markup)
    bars = fit.error_bars()
    fig = go.Figure()
    fig.add_bar(x=x, y=fit.frequencies, name=f"measured, {fit.rounds:,} rounds", marker=style.bar_marker("empirical"),
                error_y={"type": "data", "array": bars, "visible": True, "thickness": 2, "width": 8,
                         "color": style.OKABE_ITO["black"]},
                customdata=np.stack([fit.counts, bars], axis=1),
                hovertemplate="%{x}: %{y:.4f} (%{customdata[0]:,} rounds; ±%{customdata[1]:.4f} around p)"
                              "<extra></extra>")
    fig.add_scatter(x=x, y=[float(v) for v in fit.exact], mode="markers", name="target p (exact)",
                    customdata=[fraction_text(v) for v in fit.exact],
                    marker={"symbol": "line-ew", "size": 44, "line": {"width": 5, "color": style.role("p").color}},
                    hovertemplate="%{x}: p = %{customdata}<extra></extra>")
    if list(law) != list(fit.exact):
        fig.add_scatter(x=x, y=[float(v) for v in law], mode="markers", name=f"exact law of {rule_label}",
                        customdata=[fraction_text(v) for v in law],
                        marker={"symbol": "diamond-open", "size": 16, "color": LOSSY,
                                "line": {"width": 3, "color": LOSSY}},
                        hovertemplate="%{x}: this rule commits %{customdata}<extra></extra>")
    top = max([float(v) for v in fit.exact] + [float(v) for v in law] + list(fit.frequencies + bars))
    sub = f"TV to p = {fit.total_variation:.4f}, χ² p-value against p = {fit.p_value:.3g}"
    return style.apply_layout(
        fig, title=f"First committed token: {rule_label}<br><sup>{sub}</sup>", presenter=presenter, bargap=0.25,
        height=style.title_space("x<br>x", presenter) + 420,
        xaxis={"type": "category", "title": {"text": "token"}},
        yaxis={"range": [0, min(1.05, top * 1.2 + 0.02)], "title": {"text": "frequency"}})
