"""Figures comparing tokenwise and block verification (Sun et al. 2025) on one scenario."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import plotly.graph_objects as go

from .. import formats, theory
from ..core import rule
from ..scenario import Scenario
from ..theory import VerificationRow
from . import style
from .lab import SHORT_FRACTION, decimal_text

_LINES = {  # (label, colour, dash, marker): colour is never the only cue; labels from the rule registry
    "token": (rule("token").label, style.OKABE_ITO["orange"], "dash", "diamond"),
    "block": (rule("block").label, style.OKABE_ITO["blue"], "solid", "circle"),
    "ideal": ("upper bound (joint probabilities)", style.OKABE_ITO["black"], "dot", "square"),
}


def _frac(value: Fraction) -> str:
    return formats.fit(value, 30, 10, mark="")


def accepted_by_depth(rows: Sequence[VerificationRow], current_depth: int | None = None, *,
                      presenter: bool = False) -> go.Figure:
    """Expected accepted drafts per round against the depth g: tokenwise, block and (if known) the ideal bound."""
    depths = [r.depth for r in rows]
    series = {"token": [r.token.accepted_drafts for r in rows], "block": [r.block.accepted_drafts for r in rows]}
    if rows and all(r.ideal is not None for r in rows):
        series["ideal"] = [r.ideal for r in rows]
    fig = go.Figure()
    for key, values in series.items():
        label, color, dash, symbol = _LINES[key]
        fig.add_scatter(x=depths, y=[float(v) for v in values], mode="lines+markers", name=label,
                        line={"color": color, "width": 3, "dash": dash},
                        marker={"symbol": symbol, "size": 12, "color": color},
                        customdata=[_frac(v) for v in values],
                        hovertemplate=f"{label}, g = %{{x}}: %{{customdata}} accepted drafts<extra></extra>")
    if current_depth in depths:
        row = rows[depths.index(current_depth)]
        fig.add_scatter(x=[current_depth], y=[float(row.block.accepted_drafts)], mode="markers+text",
                        name=f"this scenario (g = {current_depth})", text=[f"+{_short(row.gain, 8)}"],
                        textposition="top center", customdata=[_frac(row.gain)],
                        marker={"symbol": "star", "size": 20, "color": style.OKABE_ITO["black"]},
                        hovertemplate="block − tokenwise = %{customdata}<extra></extra>")
    fig.update_layout(xaxis={"title": "draft depth g", "dtick": 1}, yaxis_title="accepted drafts per round")
    return style.apply_layout(fig, title="Expected accepted drafts: tokenwise vs block", presenter=presenter)


def _short(value: Fraction, width: int = SHORT_FRACTION) -> str:
    """A short exact fraction as it is, a longer one as a decimal (the lab's one number rule)."""
    text = _frac(value)
    return text if len(text) <= width else decimal_text(value)


def _cited(name: str) -> str:
    """A rule's short name with its paper, as the table names it ("block (Sun et al. 2025)"); tokenwise plain."""
    found = rule(name)
    return f"{found.short} ({found.citation})" if found.citation else found.short


def verification_table(scenario: Scenario, *, enumerate_sequences: bool = True) -> list[dict[str, str]]:
    """One row per verification: max |difference| to the target law (or "not enumerated"), expected accepted
    drafts and committed tokens per round, exactly."""
    out = []
    for verification in ("token", "block"):
        name = _cited(verification)
        expectation = theory.round_expectation(scenario, verification=verification)
        difference = "not enumerated (too many sequences)"
        if enumerate_sequences:
            report = theory.exactness_report(scenario, verification=verification)
            difference = _short(report.max_abs_difference) + (" (exact)" if report.exact else " (NOT exact)")
        out.append({"verification": name, "max |difference| to the target law": difference,
                    "accepted drafts / round": _short(expectation.accepted_drafts),
                    "tokens / round": _short(expectation.tokens)})
    token, block = (theory.round_expectation(scenario, verification=v) for v in ("token", "block"))
    out.append({"verification": "block − tokenwise", "max |difference| to the target law": "",
                "accepted drafts / round": _short(block.accepted_drafts - token.accepted_drafts),
                "tokens / round": _short(block.tokens - token.tokens)})
    return out
