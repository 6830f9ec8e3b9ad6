"""Figures of the exactness lab: exact block law against the target's, Monte Carlo histograms with
binomial error bars, and the distances the float verifier and the injected engine bugs cause."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

import numpy as np
import plotly.graph_objects as go

from ..lab.float_verifier import CRASH, EngineComparison
from ..lab.montecarlo import Fit
from ..theory import ExactnessReport
from . import style


def _frac(value: Fraction) -> str:
    text = f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value.numerator)
    return text if len(text) <= 30 else f"≈ {float(value):.10g}"


def token_text(tokens: Sequence[int], labels: Sequence[str]) -> str:
    return " ".join("NaN!" if t == CRASH else labels[t] for t in tokens) or "∅"


def sequence_comparison(report: ExactnessReport, labels: Sequence[str], top: int = 24, *,
                        presenter: bool = False) -> go.Figure:
    """The most probable (depth+1)-token sequences: speculative (block + target completion) vs target."""
    rows = sorted(report.sequences, key=lambda r: -r.target)[:top]
    x = [token_text(r.tokens, labels) for r in rows]
    fig = go.Figure()
    fig.add_bar(x=x, y=[float(r.speculative) for r in rows], name="one round + target completion",
                marker=style.bar_marker("accepted"),
                customdata=[[_frac(r.speculative), _frac(r.difference)] for r in rows],
                hovertemplate="%{x}: %{customdata[0]} (difference %{customdata[1]})<extra></extra>")
    fig.add_bar(x=x, y=[float(r.target) for r in rows], name="target autoregressive", marker=style.bar_marker("p"),
                customdata=[_frac(r.target) for r in rows], hovertemplate="%{x}: %{customdata}<extra></extra>")
    fig.update_layout(barmode="group", yaxis_title="probability", xaxis={"title": "sequence", "tickangle": -45})
    worst = report.max_abs_difference
    return style.apply_layout(fig, title=f"Block law vs target law: max |difference| = {_frac(worst)}",
                              presenter=presenter)


def histogram(fit: Fit, title: str, *, presenter: bool = False) -> go.Figure:
    """Empirical frequencies against exact probabilities, with ±1.96σ binomial error bars."""
    exact = np.array([float(p) for p in fit.exact])
    fig = go.Figure()
    fig.add_bar(x=fit.labels, y=fit.frequencies, name=f"measured ({fit.rounds:,} rounds)",
                marker=style.bar_marker("empirical"),
                error_y={"type": "data", "array": fit.error_bars(), "visible": True, "thickness": 2,
                         "color": style.OKABE_ITO["black"]},
                customdata=np.stack([fit.counts, fit.error_bars()], axis=1),
                hovertemplate="%{x}: %{y:.5f} (%{customdata[0]} rounds, ±%{customdata[1]:.5f})<extra></extra>")
    fig.add_scatter(x=fit.labels, y=exact, mode="markers", name="exact",
                    marker={"symbol": "line-ew-open", "size": 36, "color": style.OKABE_ITO["blue"],
                            "line": {"width": 4, "color": style.OKABE_ITO["blue"]}},
                    customdata=[_frac(p) for p in fit.exact], hovertemplate="%{x}: exact %{customdata}<extra></extra>")
    fig.update_layout(yaxis_title="frequency")
    sub = f"TV = {fit.total_variation:.5f}, χ² = {fit.chi2:.2f} (dof {fit.dof}), p-value = {fit.p_value:.3f}"
    return style.apply_layout(fig, title=f"{title}<br><sup>{sub}</sup>", presenter=presenter)


def engine_distances(results: Mapping[str, EngineComparison], *, presenter: bool = False) -> go.Figure:
    """TV distance from the target's law (and from the exact verifier's block law) for each verifier variant.

    Exact zeros cannot sit on a log axis: they are drawn at the floor and labelled "0 (exact)".
    """
    names = ["exact verifier", *results]
    seq = [Fraction(0)] + [r.tv_sequences for r in results.values()]
    blk = [Fraction(0)] + [r.tv_blocks for r in results.values()]
    positive = [float(v) for v in seq + blk if v > 0]
    floor = min(positive) / 10 if positive else 1e-12
    fig = go.Figure()
    for label, values, cue in (("TV to the target's law (correctness)", seq, "residual"),
                               ("TV to the exact verifier's blocks", blk, "q")):
        fig.add_bar(x=names, y=[float(v) if v > 0 else floor for v in values], name=label, marker=style.bar_marker(cue),
                    text=["0 (exact)" if v == 0 else f"{float(v):.3g}" for v in values], textposition="outside",
                    customdata=[_frac(v) for v in values], hovertemplate="%{x}: %{customdata}<extra></extra>")
    fig.update_layout(barmode="group", yaxis={"type": "log", "title": "total variation distance"},
                      xaxis_title="verifier")
    return style.apply_layout(fig, title="How far each verifier is from exact", presenter=presenter, height=480)
