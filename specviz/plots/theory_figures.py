"""Figures of the theory page: alpha on the p/q bars, expected tokens and speedup against depth,
Leviathan et al.'s curves with their measured alphas, and measured rates against the formula."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import plotly.graph_objects as go

from .. import formats, theory
from ..core import MAX_DEPTH, Categorical
from . import style

# Okabe–Ito without yellow (too pale on white): the darkest first, so that the common g = 1..5 read best from
# the back row; the dash pattern is the second cue, and colour + dash never repeat within eight lines.
_PALETTE = [style.OKABE_ITO[k] for k in ("blue", "vermillion", "bluish_green", "black", "orange", "reddish_purple",
                                           "sky_blue")]
_DASHES = ["solid", "dash", "dot", "dashdot", "longdash", "longdashdot", "dash", "dot"]
_SYMBOLS = ["circle", "diamond", "square", "triangle-up", "x", "star", "cross", "hexagon"]


def _frac(value: Fraction | float) -> str:
    if isinstance(value, Fraction):
        return formats.fit(value, 30, 10, mark="")
    return f"{value:.6g}"


def alpha_bars(p: Categorical, q: Categorical, labels: Sequence[str], *, presenter: bool = False) -> go.Figure:
    """p and q side by side per token, the overlap min(p, q) shaded on both: its total is alpha."""
    v = p.vocab_size
    ps = [p.prob(x) for x in range(v)]
    qs = [q.prob(x) for x in range(v)]
    mins = [min(a, b) for a, b in zip(ps, qs, strict=True)]
    a = sum(mins, Fraction(0))
    x = style.token_labels(labels)  # as a room reads them, escaped for plotly
    fig = go.Figure()
    for name, values, offset in (("p", ps, -0.4), ("q", qs, 0.0)):
        cue = style.role(name)
        fig.add_bar(x=x, y=[float(t) for t in values], name=cue.label, offset=offset, width=0.4,
                    marker=style.bar_marker(cue, opacity=0.45),
                    customdata=[_frac(t) for t in values],
                    hovertemplate=f"{cue.label}(%{{x}}) = %{{customdata}}<extra></extra>")
    overlap = style.role("overlap")
    for i, offset in enumerate((-0.4, 0.0)):
        fig.add_bar(x=x, y=[float(t) for t in mins], name=f"min(p, q): sums to α = {_frac(a)}", offset=offset,
                    width=0.4, showlegend=i == 0, legendgroup="overlap",
                    marker={"color": overlap.color, "opacity": 0.85,
                            "pattern": {"shape": "/", "fgcolor": "#FFFFFF", "solidity": 0.3}},
                    customdata=[_frac(t) for t in mins],
                    hovertemplate="min(p, q)(%{x}) = %{customdata}<extra></extra>")
    fig.update_layout(barmode="overlay", yaxis_title="probability",
                      xaxis=style.category_axis(x, title={"text": "token"}, fixedrange=False))
    return style.apply_layout(fig, title=f"α = Σ min(p, q) = {_frac(a)} ≈ {float(a):.4f} = 1 − TV(p, q)",
                              presenter=presenter)


def strict_probabilistic_bars(p: Categorical, q: Categorical, labels: Sequence[str], *,
                              presenter: bool = False) -> go.Figure:
    """vLLM's two verifiers per token: probabilistic keeps x with min(p, q)(x), strict (the target's own sample equals
    the draft) with p(x)·q(x); their sums are the acceptances Σ min(p, q) ≥ Σ p·q."""
    v = p.vocab_size
    mins = [min(p.prob(x), q.prob(x)) for x in range(v)]
    products = [p.prob(x) * q.prob(x) for x in range(v)]
    both = sum(mins, Fraction(0)), sum(products, Fraction(0))
    x = style.token_labels(labels)  # as a room reads them, escaped for plotly: <b>x</b> is drawn as written
    fig = go.Figure()
    for name, values, color, total in (("probabilistic: min(p, q)", mins, style.OKABE_ITO["blue"], both[0]),
                                       ("strict: p·q", products, style.OKABE_ITO["vermillion"], both[1])):
        fig.add_bar(x=x, y=[float(t) for t in values], name=f"{name}, Σ = {_frac(total)}",
                    marker={"color": color}, customdata=[_frac(t) for t in values],
                    hovertemplate=f"{name}(%{{x}}) = %{{customdata}}<extra></extra>")
    fig.update_layout(barmode="group", yaxis_title="P(the draft is x and kept)",
                      xaxis=style.category_axis(x, title={"text": "token"}))
    return style.apply_layout(fig, title=f"vLLM: probabilistic keeps {_frac(both[0])} ≈ {float(both[0]):.4f}, strict "
                                         f"{_frac(both[1])} ≈ {float(both[1]):.4f}", presenter=presenter)


def depth_curves(alpha: Fraction | float, cost_ratio: float, max_depth: int = 8, *,
                 presenter: bool = False) -> go.Figure:
    """Expected tokens per round and walltime speedup against g = 1..max_depth, the optimal g marked."""
    depths = list(range(1, max_depth + 1))
    tokens = [theory.expected_tokens(alpha, g) for g in depths]
    speeds = [theory.speedup(alpha, g, cost_ratio) for g in depths]
    best = theory.optimal_depth(alpha, cost_ratio, max_depth=max_depth)
    fig = go.Figure()
    fig.add_scatter(x=depths, y=[float(t) for t in tokens], mode="lines+markers", name="expected tokens per round",
                    line={"color": style.OKABE_ITO["blue"], "width": 3},
                    marker=style.scatter_marker("p"), customdata=[_frac(t) for t in tokens],
                    hovertemplate="g = %{x}: (1 − α^(g+1))/(1 − α) = %{customdata}<extra></extra>")
    fig.add_scatter(x=depths, y=[float(s) for s in speeds], mode="lines+markers",
                    name=f"speedup at c = {cost_ratio:g}",
                    line={"color": style.OKABE_ITO["vermillion"], "width": 3, "dash": "dash"},
                    marker={**style.scatter_marker("residual")}, customdata=[_frac(s) for s in speeds],
                    hovertemplate="g = %{x}: speedup %{customdata}<extra></extra>")
    fig.add_scatter(x=[best], y=[float(theory.speedup(alpha, best, cost_ratio))], mode="markers+text",
                    name=f"optimal g = {best}", text=[f"best g = {best}"], textposition="top center",
                    marker={"symbol": "star", "size": 22, "color": style.OKABE_ITO["black"]},
                    hovertemplate="optimal g = %{x}, speedup %{y:.4f}<extra></extra>")
    fig.update_layout(xaxis={"title": "draft depth g", "dtick": 1}, yaxis_title="tokens per round / speedup")
    return style.apply_layout(fig, title=f"α = {_frac(alpha)}: tokens per round and speedup", presenter=presenter)


def optimal_depth_caption(alpha: Fraction | float, cost_ratio: float, best: int,
                          playground_max: int = MAX_DEPTH) -> str:
    """One sentence on the optimal depth: where the speedup peaks, and whether the Playground can show it."""
    if cost_ratio == 0 and alpha > 0:
        return ("At c = 0 drafts are free: the speedup grows with every extra draft, so there is no finite "
                "optimal depth.")
    value = float(theory.speedup(alpha, best, cost_ratio))
    text = f"Optimal depth at c = {cost_ratio:g}: g = {best}, speedup {value:.3f}."
    if best > playground_max:
        text += f" That is deeper than the Playground allows (depth ≤ {playground_max})."
    return text


def reference_rows(references: Sequence[tuple[str, str, float, float]], min_gap: float = 0.035) -> list[int]:
    """A row (0, 1, ...) for each reference marker so that numbers closer than ``min_gap`` in α never share one."""
    rows: list[int] = []
    placed: list[list[float]] = []  # the alphas already in each row
    for a in (float(r[3]) for r in references):
        row = next((i for i, xs in enumerate(placed) if all(abs(a - x) >= min_gap for x in xs)), len(placed))
        if row == len(placed):
            placed.append([])
        placed[row].append(a)
        rows.append(row)
    return rows


def leviathan_curves(cost_ratio: float, max_depth: int = 8, *, current_alpha: float | None = None,
                     references: Sequence[tuple[str, str, float, float]] = theory.LEVIATHAN_ALPHAS,
                     presenter: bool = False) -> go.Figure:
    """Speedup against alpha for g = 1..max_depth at cost ratio c, with measured alphas as reference points.

    The measured alphas are numbered markers above the curves (1 = the first row of the page's table),
    staggered into rows where they are close; hovering a marker names the model pair.
    """
    alphas = np.linspace(0.0, 0.99, 100)
    fig = go.Figure()
    for i, g in enumerate(range(1, max_depth + 1)):
        fig.add_scatter(x=alphas, y=theory.speedup(alphas, g, cost_ratio), mode="lines", name=f"g = {g}",
                        line={"color": _PALETTE[i % len(_PALETTE)], "dash": _DASHES[i % len(_DASHES)], "width": 3},
                        hovertemplate=f"g = {g}, α = %{{x:.2f}}: speedup %{{y:.3f}}<extra></extra>")
    best = [theory.speedup(float(a), theory.optimal_depth(float(a), cost_ratio, max_depth), cost_ratio)
            for a in alphas]
    fig.add_scatter(x=alphas, y=best, mode="lines", name="best g", line={"color": style.GREY, "width": 8},
                    opacity=0.35, hovertemplate="α = %{x:.2f}: best speedup %{y:.3f}<extra></extra>")
    top = float(max(best))
    rows = reference_rows(references)
    step = 0.09 * top
    size = style.font_size(presenter)
    for j, ((target, draft, temperature, a), row) in enumerate(zip(references, rows, strict=True)):
        fig.add_scatter(x=[a], y=[top * 1.04 + step * row], mode="markers+text",
                        marker={"symbol": "triangle-down", "size": 12, "color": style.OKABE_ITO["black"]},
                        text=[f"{draft} t={temperature:g}"], texttemplate=f"{j + 1}", textposition="middle right",
                        textfont={"size": size - 2}, showlegend=j == 0, cliponaxis=False,
                        name="Leviathan et al. Table 3 (numbered as in the table)", legendgroup="refs",
                        hovertemplate=f"{j + 1}: {target} drafted by {draft}, t = {temperature:g}: α = {a}"
                                      "<extra></extra>")
    if current_alpha is not None:
        a = float(current_alpha)
        fig.add_vline(x=a, line={"color": style.OKABE_ITO["blue"], "width": 3, "dash": "dot"},
                      annotation_text=f"this scenario: α = {a:.3f}", annotation_bgcolor="rgba(255,255,255,0.85)",
                      annotation_font={"color": style.OKABE_ITO["blue"], "size": size - 2},
                      # the label leans inwards so the chart edge never cuts it
                      annotation_position="bottom left" if a > 0.5 else "bottom right")
    y_top = top * 1.04 + step * (max(rows, default=0) + 1)
    fig.update_layout(xaxis={"title": "α (acceptance rate)", "range": [0, 1]},
                      yaxis={"title": "walltime speedup", "range": [0, y_top]})
    return style.apply_layout(fig, title=f"Speedup vs α at c = {cost_ratio:g} (Leviathan, Kalman and Matias 2023)",
                              presenter=presenter, height=540)


@dataclass(frozen=True)
class Measurement:
    """A running measurement from another page: acceptance rate and tokens per round at a depth."""

    source: str
    acceptance_rate: float
    tokens_per_round: float | None
    depth: int
    checks: int


def measured_vs_theory(depth: int, measurements: Sequence[Measurement], *, theory_alpha: float | None = None,
                       presenter: bool = False) -> go.Figure:
    """Tokens per round against alpha: the i.i.d. formula for each measured depth, and the measurements."""
    alphas = np.linspace(0.0, 1.0, 101)
    fig = go.Figure()
    depths = sorted({depth, *(m.depth for m in measurements)})
    for i, g in enumerate(depths):
        fig.add_scatter(x=alphas, y=theory.expected_tokens(alphas, g), mode="lines", name=f"formula, g = {g}",
                        line={"color": _PALETTE[i % len(_PALETTE)], "dash": _DASHES[i % len(_DASHES)], "width": 2},
                        hovertemplate=f"g = {g}, α = %{{x:.2f}}: %{{y:.3f}} tokens<extra></extra>")
    if theory_alpha is not None:
        fig.add_scatter(x=[float(theory_alpha)], y=[float(theory.expected_tokens(float(theory_alpha), depth))],
                        mode="markers", name="this scenario (exact α)",
                        marker={"symbol": "star", "size": 20, "color": style.OKABE_ITO["black"]},
                        hovertemplate="exact α = %{x:.4f}: %{y:.4f} tokens<extra></extra>")
    for i, m in enumerate(measurements):
        y = m.tokens_per_round if m.tokens_per_round is not None else float("nan")
        fig.add_scatter(x=[m.acceptance_rate], y=[y], mode="markers", name=f"{m.source} (measured)",
                        marker={"symbol": _SYMBOLS[(i + 1) % len(_SYMBOLS)], "size": 18,
                                "color": _PALETTE[(i + 2) % len(_PALETTE)],
                                "line": {"color": "#000000", "width": 1}},
                        hovertemplate=(f"{m.source}: acceptance %{{x:.4f}} over {m.checks} checks, "
                                       f"%{{y:.3f}} tokens per round at g = {m.depth}<extra></extra>"))
    fig.update_layout(xaxis={"title": "acceptance rate α", "range": [0, 1.02]}, yaxis_title="tokens per round")
    return style.apply_layout(fig, title="Measured against theory", presenter=presenter)


def position_alphas(alphas: Sequence[Fraction | None], iid_alpha: Fraction | None = None, *,
                    presenter: bool = False) -> go.Figure:
    """The acceptance rate at each draft position (P(accept | position reached)), beside the first-position alpha."""
    xs = [k for k, a in enumerate(alphas) if a is not None]
    ys = [alphas[k] for k in xs]
    fig = go.Figure()
    fig.add_bar(x=[f"position {k + 1}" for k in xs], y=[float(a) for a in ys], name="α at this position",
                marker=style.bar_marker("accepted"), customdata=[_frac(a) for a in ys],
                hovertemplate="%{x}: α = %{customdata}<extra></extra>")
    if iid_alpha is not None:
        fig.add_hline(y=float(iid_alpha), line={"color": style.OKABE_ITO["black"], "dash": "dash", "width": 2},
                      annotation_text=f"first-position α = {_frac(iid_alpha)}")
    fig.update_layout(yaxis={"title": "P(accept | reached)", "range": [0, 1.05]})
    return style.apply_layout(fig, title="Per-position acceptance rates", presenter=presenter)


def grid_rows(cost_ratio: float = 0.0) -> list[dict[str, str | float]]:
    """Leviathan et al.'s expected-tokens grid from the formula, one row per alpha, one column per g."""
    rows = []
    for a in (Fraction(k, 10) for k in range(5, 10)):
        row: dict[str, str | float] = {"α": f"{float(a):.1f}"}
        for g in range(1, 9):
            row[f"g = {g}"] = round(float(theory.speedup(a, g, cost_ratio)), 2)
        rows.append(row)
    return rows


@dataclass(frozen=True)
class SpeedupPoint:
    """A speedup measured on a real model, with the alpha, cost ratio c and depth g it was measured at."""

    source: str
    acceptance_rate: float
    cost_ratio: float
    depth: int
    verify_ratio: float  # a verification pass over g + 1 tokens, in single passes (the formula assumes 1)
    measured_speedup: float
    predicted_speedup: float


def add_speedup_points(fig: go.Figure, points: Sequence[SpeedupPoint]) -> go.Figure:
    """Measured speedups on the speedup-vs-alpha curves, each beside what the i.i.d. formula gives at its c, g."""
    for i, pt in enumerate(points):
        formula = float(theory.speedup(min(pt.acceptance_rate, 0.999), pt.depth, pt.cost_ratio))
        fig.add_scatter(x=[pt.acceptance_rate], y=[pt.measured_speedup], mode="markers", name=f"{pt.source} (measured)",
                        marker={"symbol": "star", "size": 20, "color": _PALETTE[(i + 1) % len(_PALETTE)],
                                "line": {"color": "#000000", "width": 1}},
                        hovertemplate=(f"{pt.source}: α = %{{x:.3f}}, c = {pt.cost_ratio:.3f}, g = {pt.depth}: "
                                       f"measured %{{y:.2f}}x; the formula gives {formula:.2f}x, the cost model "
                                       f"{pt.predicted_speedup:.2f}x<extra></extra>"))
        fig.add_scatter(x=[pt.acceptance_rate], y=[formula], mode="markers", name=f"{pt.source}: formula at its c, g",
                        marker={"symbol": "star-open", "size": 20, "color": _PALETTE[(i + 1) % len(_PALETTE)],
                                "line": {"width": 2}},
                        hovertemplate=f"the i.i.d. formula at c = {pt.cost_ratio:.3f}, g = {pt.depth}: "
                                      "%{y:.2f}x<extra></extra>")
    return fig
