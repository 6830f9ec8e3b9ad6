"""The many-rounds histogram: measured first-token frequencies with binomial error bars against p
(and, with an injected bug, against the bug's own exact law)."""

from __future__ import annotations

import plotly.graph_objects as go  # noqa: F401 - the return type

from ..playground.many_rounds import BUG_NAMES, ManyRounds
from . import style
from .proof_figures import exact


def histogram_figure(result: ManyRounds, *, presenter: bool = False, height: int | None = None) -> go.Figure:
    """Bars: the measured frequency of each first committed token (±1.96 binomial σ around p); ticks: p."""
    x = style.token_labels(result.labels)
    freq = result.counts / max(result.rounds, 1)
    bars = result.error_bars()
    data = [
        {"type": "bar", "name": f"measured, {result.rounds:,} rounds", "x": x, "y": freq.tolist(),
         "marker": style.bar_marker("empirical"),
         "error_y": {"type": "data", "array": bars.tolist(), "visible": True, "thickness": 2, "width": 8,
                     "color": style.OKABE_ITO["black"]},
         "customdata": [[int(c), float(b)] for c, b in zip(result.counts, bars, strict=True)],
         "hovertemplate": "%{x}: %{y:.4f} (%{customdata[0]:,} rounds; ±%{customdata[1]:.4f} around p)"
                          "<extra></extra>"},
        {"type": "scatter", "name": "target p (exact)", "x": x, "y": [float(v) for v in result.p],
         "mode": "markers", "customdata": [exact(v) for v in result.p],
         "marker": {"symbol": "line-ew", "size": 44, "line": {"width": 5, "color": style.role("p").color}},
         "hovertemplate": "%{x}: p = %{customdata}<extra></extra>"},
    ]
    if result.bug != "none" and result.distance:
        data.append({"type": "scatter", "name": f"exact law with {BUG_NAMES[result.bug]}", "x": x,
                     "y": [float(v) for v in result.law], "mode": "markers",
                     "customdata": [exact(v) for v in result.law],
                     "marker": {"symbol": "diamond-open", "size": 16, "color": style.OKABE_ITO["vermillion"],
                                "line": {"width": 3, "color": style.OKABE_ITO["vermillion"]}},
                     "hovertemplate": "%{x}: exact with the bug = %{customdata}<extra></extra>"})
    top = max([float(v) for v in result.p] + [float(v) for v in result.law] + (freq + bars).tolist())
    title = f"First committed token over {result.rounds:,} rounds · exact TV to p = {exact(result.distance)}"
    return style.figure(data, style.layout(
        title=title, presenter=presenter, height=height, bargap=0.25, showlegend=True,
        xaxis=style.category_axis(x, title={"text": "token"}),
        yaxis={"range": [0, min(1.05, top * 1.2 + 0.02)], "title": {"text": "frequency"}, "fixedrange": True}))


def summary(result: ManyRounds) -> str:
    """One line: the exact distance, the measured one, and tokens per round."""
    exact_tpr = "" if result.exact_tokens_per_round is None else \
        f" (exact {float(result.exact_tokens_per_round):.3f})"
    distance = "0: the histogram converges to p" if result.distance == 0 else \
        f"{exact(result.distance)}: the histogram converges to the bug's law, not to p"
    return (f"Exact total variation to p: {distance}. Measured: {result.measured_distance:.4f} after "
            f"{result.rounds:,} rounds. Tokens per round {result.tokens_per_round:.3f}{exact_tpr}.")
