"""Figures of the Real models page: pure functions from round views and summaries to plotly Figures.

Distributions are shown at real vocabulary size as their top-N tokens plus one bar for
the rest of the mass; colours and patterns are the Playground's (``specviz.plots.style``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import plotly.graph_objects as go

from . import style

Label = Callable[[int], str]
REST = "(rest)"


def _labels(tokens: Sequence[int], label: Label) -> list[str]:
    """Unique category labels: the token's text, with its id where two texts collide."""
    texts = [label(t) for t in tokens]
    return [f"{x} #{t}" if texts.count(x) > 1 else x for x, t in zip(texts, tokens)] + [REST]


def _bar(name: str, cue: str, x: list[str], values: list[float], highlight: list[bool]) -> go.Bar:
    return go.Bar(name=name, x=x, y=values, marker=style.bar_marker(cue, highlight=highlight),
                  hovertemplate="%{x}: %{y:.6f}<extra>" + name + "</extra>")


def bars_figure(bars: dict[str, Any], label: Label, *, names: Sequence[tuple[str, str]], token: int | None,
                title: str, presenter: bool = False) -> go.Figure:
    """Top-N bars (+ rest) of one or two aligned distributions; `token` is outlined."""
    tokens = bars["tokens"]
    x = _labels(tokens, label)
    highlight = [t == token for t in tokens] + [False]
    fig = go.Figure()
    for i, (name, cue) in enumerate(names):
        fig.add_trace(_bar(name, cue, x, bars[f"values{i}"] + [bars[f"rest{i}"]], highlight))
    fig.update_layout(barmode="group", yaxis={"range": [0, 1.05], "title": "probability"},
                      xaxis={"type": "category", "tickangle": -40})
    return style.apply_layout(fig, title=title, presenter=presenter)


def view_figure(view: dict[str, Any], label: Label, *, presenter: bool = False) -> go.Figure | None:
    """The chart of one event view (draft, check, correction, bonus); None for the others."""
    kind, token = view["kind"], view.get("token")
    where = f"position {view['position'] + 1}"
    if kind == "draft":
        return bars_figure(view["q"], label, names=[("draft q", "q")], token=token, presenter=presenter,
                           title=f"Draft at {where}: sampled {label(token)!r} from q")
    if kind == "check":
        verdict = "accepted" if view["accepted"] else "rejected"
        return bars_figure(view["pq"], label, names=[("target p", "p"), ("draft q", "q")], token=token,
                           presenter=presenter, title=f"Check at {where}: {label(token)!r} {verdict}")
    if kind == "correction":
        mass = view["residual_mass"]["float"]
        return bars_figure(view["residual"], label, names=[("residual (p − q)+, normalized", "residual")],
                           token=token, presenter=presenter,
                           title=f"Correction at {where}: residual mass {mass:.4f}, drew {label(token)!r}")
    if kind == "bonus":
        return bars_figure(view["p"], label, names=[("target p", "p")], token=token, presenter=presenter,
                           title=f"Bonus at {where}: every draft accepted, drew {label(token)!r} from p")
    return None


def acceptance_figure(acceptance: Sequence[float | None], alpha: Sequence[float | None],
                      reached: Sequence[int], *, presenter: bool = False) -> go.Figure:
    """Measured acceptance rate by draft position against the mean exact alpha(p, q) at those positions."""
    x = [str(i + 1) for i in range(len(acceptance))]
    fig = go.Figure()
    fig.add_trace(go.Bar(name="measured acceptance", x=x, y=[a if a is not None else 0 for a in acceptance],
                         marker=style.bar_marker("empirical"), customdata=list(reached),
                         hovertemplate="position %{x}: %{y:.3f} over %{customdata} checks<extra></extra>"))
    fig.add_trace(go.Scatter(name="theory: mean alpha(p, q)", x=x, y=list(alpha), mode="lines+markers",
                             marker=style.scatter_marker("theory"), line={"color": style.role("theory").color,
                                                                          "dash": style.role("theory").dash}))
    fig.update_layout(yaxis={"range": [0, 1.05], "title": "acceptance rate"}, xaxis={"title": "draft position"})
    return style.apply_layout(fig, title="Acceptance by draft position", presenter=presenter)


def tokens_per_round_figure(rounds: Sequence[tuple[int, str]], expected: float | None, *,
                            presenter: bool = False) -> go.Figure:
    """Committed tokens per round: accepted drafts plus one correction or bonus, with the theory line."""
    x = list(range(1, len(rounds) + 1))
    fig = go.Figure()
    fig.add_trace(go.Bar(name=style.origin("accepted").label, x=x, y=[a for a, _ in rounds],
                         marker=style.bar_marker("accepted")))
    for origin in ("correction", "bonus"):
        fig.add_trace(go.Bar(name=style.origin(origin).label, x=x, y=[1 if o == origin else 0 for _, o in rounds],
                             marker=style.bar_marker(origin)))
    if expected is not None:
        fig.add_hline(y=expected, line={"color": style.role("theory").color, "dash": "dash"},
                      annotation_text=f"theory {expected:.2f}")
    fig.update_layout(barmode="stack", xaxis={"title": "round"}, yaxis={"title": "tokens"})
    return style.apply_layout(fig, title="Tokens per round", presenter=presenter)


def time_split_figure(parts: dict[str, float], labels: dict[str, str], *, presenter: bool = False) -> go.Figure:
    """Where the wall time went: draft forward, draft sampling, target forward, exact verification."""
    colors = [style.OKABE_ITO["orange"], style.OKABE_ITO["yellow"], style.OKABE_ITO["blue"],
              style.OKABE_ITO["bluish_green"]]
    patterns = ["/", ".", "", "x"]
    fig = go.Figure()
    for (key, seconds), color, pattern in zip(parts.items(), colors, patterns):
        fig.add_trace(go.Bar(name=labels[key], y=["time"], x=[seconds], orientation="h",
                             marker={"color": color, "pattern": {"shape": pattern}},
                             hovertemplate=f"{labels[key]}: %{{x:.3f}} s<extra></extra>"))
    fig.update_layout(barmode="stack", xaxis={"title": "seconds"}, height=240)
    return style.apply_layout(fig, title="Time split", presenter=presenter, height=260)


def tokens_html(pieces: Sequence[str], origins: Sequence[str]) -> str:
    """The generated text as HTML, each token coloured (and titled) by its origin."""
    import html

    spans = []
    for piece, origin in zip(pieces, origins):
        cue = style.origin(origin)
        text = html.escape(piece).replace("\n", "⏎<br>")
        underline = {"accepted": "", "correction": "text-decoration:underline wavy;",
                     "bonus": "text-decoration:underline double;"}[origin]
        spans.append(f"<span title='{cue.label}' style='{cue.css()}{underline}'>{text}</span>")
    return "<div style='font-size:1.15em;line-height:1.7;white-space:pre-wrap'>" + "".join(spans) + "</div>"


def check_text(view: dict[str, Any], label: Label) -> str:
    """The acceptance test of a check view in words, with the exact values."""
    a = view["acceptance"]
    verdict = "**accepted**" if view["accepted"] else "**rejected**"
    return (
        f"Drafted {label(view['token'])!r}: p(x) = {view['p_token']['float']:.6f}, "
        f"q(x) = {view['q_token']['float']:.6f}, acceptance min(1, p/q) = {a['float']:.6f}. "
        f"Exact test: draw {view['draw']} < numerator of {a['exact']} over a range of {view['draw_range']} → {verdict}."
    )
