"""Figures of the exactness lab: exact block law against the target's, Monte Carlo histograms with
binomial error bars, and the distances the float verifier and the injected engine bugs cause."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

import numpy as np
import plotly.graph_objects as go

from .. import formats
from ..lab.float_verifier import CRASH, EngineComparison
from ..lab.montecarlo import Fit
from ..theory import ExactnessReport
from . import style


def _frac(value: Fraction) -> str:
    return formats.fit(value, 30, 10)


def short(value: Fraction | int, width: int = 14) -> str:
    """A table cell that fits a narrow column: the exact fraction when short, else ≈ 4 significant digits."""
    return formats.fit(value, width)


# the verifier variants as a reader names them (the code names stay in the library)
PLAIN_NAMES: dict[str, str] = {
    "exact": "exact verifier",
    "float32": "float32 verifier, no bug",
    "unprocessed_q": "unprocessed q (after a draft top-k)",
    "greedy": "greedy acceptance",
    "residual_from_p": "residual from p",
    "skip_bonus": "skipped bonus",
}


def plain_name(name: str) -> str:
    return PLAIN_NAMES.get(name, name.replace("_", " "))


def decimal(value: Fraction | int) -> str:
    """One number format for a results table: 0 exactly, else 4 significant digits (exact values on demand)."""
    return formats.significant(value)


def results_rows(results: Mapping[str, EngineComparison], exact: bool = False) -> list[dict[str, str]]:
    """The float-verifier table: one row per verifier with plain names; decimals, or exact fractions."""
    cell = (lambda v: str(Fraction(v))) if exact else decimal
    first = next(iter(results.values()))
    rows = [{"verifier": plain_name("exact"), "TV to target law": "0", "TV to exact blocks": "0",
             "P(NaN residual)": "0", "tokens per round": cell(first.exact_tokens)}]
    rows += [{"verifier": plain_name(name), "TV to target law": cell(r.tv_sequences),
              "TV to exact blocks": cell(r.tv_blocks), "P(NaN residual)": cell(r.crash),
              "tokens per round": cell(r.engine_tokens)} for name, r in results.items()]
    return rows


def deviation_groups(deviations: Sequence, labels: Sequence[str], limit: int = 30) -> list[tuple[str, list[dict]]]:
    """The first ``limit`` deviations as table rows, grouped by their reason (one heading per reason instead
    of a wide "why" column); each row keeps position, prefix, drafted token, exact vs engine value, weight."""
    groups: dict[str, list[dict]] = {}
    for d in deviations[:limit]:
        groups.setdefault(d.reason, []).append({
            "position": d.position, "after": token_text(d.context, labels),
            "draft token": getattr(d, "stage", "residual") if d.token is None else labels[d.token],
            "exact": d.exact, "engine": d.engine, "weight": f"{float(d.weight):.3g}"})
    return list(groups.items())


def token_text(tokens: Sequence[int], labels: Sequence[str]) -> str:
    return " ".join("NaN!" if t == CRASH else labels[t] for t in tokens) or "∅"


def sequence_comparison(report: ExactnessReport, labels: Sequence[str], top: int = 10, *,
                        presenter: bool = False) -> go.Figure:
    """The ``top`` most probable (depth+1)-token sequences as horizontal bars (readable labels):
    speculative (block + target completion) vs target. The rest are summed in the subtitle; the
    page's table lists every sequence."""
    ranked = sorted(report.sequences, key=lambda r: -r.target)
    rows, rest = ranked[:top], ranked[top:]
    y = [token_text(r.tokens, labels) for r in rows]
    fig = go.Figure()
    fig.add_bar(y=y, x=[float(r.speculative) for r in rows], orientation="h", name="one round + target completion",
                marker=style.bar_marker("accepted"),
                customdata=[[_frac(r.speculative), _frac(r.difference)] for r in rows],
                hovertemplate="%{y}: %{customdata[0]} (difference %{customdata[1]})<extra></extra>")
    fig.add_bar(y=y, x=[float(r.target) for r in rows], orientation="h", name="target autoregressive",
                marker=style.bar_marker("p"), customdata=[_frac(r.target) for r in rows],
                hovertemplate="%{y}: %{customdata}<extra></extra>")
    title = f"Block law vs target law: max |difference| = {_frac(report.max_abs_difference)}"
    if rest:
        others = sum((r.target for r in rest), Fraction(0))
        title += (f"<br><sup>the {len(rows)} likeliest of {len(ranked):,} sequences; the other {len(rest):,} "
                  f"(mass {float(others):.3f}) are in the table below</sup>")
    size = style.font_size(presenter)
    height = style.title_space(title, presenter) + round(size * 2.6) * len(rows) + 3 * size + 60
    return style.apply_layout(
        fig, title=title, presenter=presenter, height=height, barmode="group", bargap=0.25,
        xaxis={"title": {"text": "probability"}, "rangemode": "tozero"},
        yaxis={"type": "category", "autorange": "reversed", "title": {"text": ""}, "ticklabelstandoff": 8})


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
    """TV distance from the target's law (and from the exact verifier's block law) for each verifier variant,
    as horizontal bars so that each value label has room beside its own bar.

    Exact zeros cannot sit on a log axis: they are drawn at the floor and labelled "0 (exact)".
    """
    names = [plain_name("exact"), *(plain_name(name) for name in results)]
    seq = [Fraction(0)] + [r.tv_sequences for r in results.values()]
    blk = [Fraction(0)] + [r.tv_blocks for r in results.values()]
    positive = [float(v) for v in seq + blk if v > 0]
    floor = min(positive) / 10 if positive else 1e-12
    top = max(positive) if positive else 1.0
    size = style.font_size(presenter)
    fig = go.Figure()
    for label, values, cue in (("TV to the target's law (correctness)", seq, "residual"),
                               ("TV to the exact verifier's blocks", blk, "q")):
        fig.add_bar(y=names, x=[float(v) if v > 0 else floor for v in values], orientation="h", name=label,
                    marker=style.bar_marker(cue),
                    text=["0 (exact)" if v == 0 else f"{float(v):.3g}" for v in values], textposition="outside",
                    textfont={"size": size - 2}, constraintext="none", cliponaxis=False,
                    customdata=[_frac(v) for v in values], hovertemplate="%{y}: %{customdata}<extra></extra>")
    # log axis range in decades: from just under the floor to room for the largest value's label
    x_range = [float(np.log10(floor)) - 0.3, float(np.log10(top)) + 1.2]
    height = style.title_space("x", presenter) + round(size * 3.4) * len(names) + 4 * size + 60
    return style.apply_layout(
        fig, title="How far each verifier is from exact", presenter=presenter, height=height, barmode="group",
        bargap=0.3, xaxis={"type": "log", "range": x_range, "exponentformat": "power",
               "title": {"text": "total variation distance (log scale)"}},
        yaxis={"type": "category", "autorange": "reversed", "title": {"text": ""}, "ticklabelstandoff": 8})
