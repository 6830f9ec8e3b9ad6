"""Figures of the Playground: pure functions from trace events (exact data) to plotly Figures.

Axes are fixed (every token on x in vocabulary order, probability 0..1 on y) so bars do
not jump between steps; every hover shows exact fractions; colour is backed by a pattern
or marker symbol (see ``specviz.plots.style``). ``event_figures`` draws any event by its class's entry in
``plots.figure_builders.FIGURES``: the chain's, block verification's and a draft tree's are entered here (a tree's
round, traversal's included, is drawn by the tree path, ``plots.tree_figures``), the rules' own in their modules.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import plotly.graph_objects as go  # noqa: F401 - the return type

from .. import formats
from ..core import Categorical
from ..core.block_verifier import tau_distribution
from ..core.trace import (
    BlockCheckEvent,
    BlockDecisionEvent,
    BonusEvent,
    CheckEvent,
    CorrectionEvent,
    DraftEvent,
    Event,
    ResultEvent,
    ScaledCorrectionEvent,
    StopEvent,
    TopKDraftEvent,
    TraversalCheckEvent,
    TraversalCorrectionEvent,
    TreeCheckEvent,
    TreeCorrectionEvent,
    TreeDraftEvent,
)
from ..narration import origin_of
from ..narration.block import names as block_names
from . import engine_rule_figures, exact_match_figures, style, tree_figures  # noqa: F401  (the rules' modules register their builders)
from .draw_strip import DrawStrip, Segment
from .draw_strip import exact as _exact
from .figure_builders import Figures, Round, build_of, plots

Y_RANGE = [0, 1.08]


def _trace(kind: str, **properties) -> dict:
    """A trace as a plain dict (None values dropped)."""
    return {"type": kind, **{k: v for k, v in properties.items() if v is not None}}


def _short(value: Fraction) -> str:
    """A fraction short enough for an axis title: 9/13, else ≈ 0.6923 (hovers keep the exact value)."""
    return formats.fit(value, 9, places=4)


def probs(c: Categorical) -> list[Fraction]:
    """Exact probabilities of every vocabulary id (0 where unlisted)."""
    total = c.total
    return [Fraction(t, total) for t in c.ticket_ints()]


def _token_axes(vocab: Sequence[str], axis: str = "xaxis", yaxis: str = "yaxis",
                y_title: str = "probability") -> dict:
    return {
        axis: style.category_axis(vocab, title={"text": "token"}),
        yaxis: {"range": Y_RANGE, "title": {"text": y_title}, "fixedrange": True},
    }


def _bars(name: str, cue: style.Cue, vocab: Sequence[str], values: Sequence[Fraction],
          highlight: int | None = None, offsetgroup: str | None = None, symbol: str = "") -> dict:
    marks = [i == highlight for i in range(len(vocab))]
    return _trace(
        "bar",
        name=name,
        x=list(vocab),
        y=[float(v) for v in values],
        customdata=[_exact(v) for v in values],
        hovertemplate=f"%{{x}}: {symbol or name} = %{{customdata}}<extra></extra>",
        marker=style.bar_marker(cue, highlight=marks if highlight is not None else None),
        offsetgroup=offsetgroup,
        legendgroup=name,
    )


HIGH_BAR = 0.72  # a bar this tall (of Y_RANGE's 1.08) leaves no room for a label above it under the legend


def _mark(vocab: Sequence[str], token: int, y: float, text: str, presenter: bool = False, **kwargs) -> dict:
    """An arrow with a label over one token's bar; the label leans inwards so the chart edge never cuts it.

    Over a tall bar (a top-k 1 draft's q = 1) the label would rise into the legend: it hangs inside the plot
    instead, beside the bar and below its top, the arrow pointing up at it."""
    lean = "right" if token > (len(vocab) - 1) / 2 else "left"
    ax, ay = (0, -40) if y <= HIGH_BAR else (70 if lean == "left" else -70, 40)
    return {"x": vocab[token], "y": min(y, 1.0), "text": text, "showarrow": True, "arrowhead": 2, "arrowsize": 1.2,
            "ax": ax, "ay": ay, "xanchor": lean,
            "font": {"size": style.font_size(presenter), "color": style.OKABE_ITO["black"]},
            "bgcolor": "rgba(255,255,255,0.85)", **kwargs}


def draft_figure(event: DraftEvent, vocab: Sequence[str], *, presenter: bool = False) -> go.Figure:
    """q's bars at this prefix with the sampled token outlined and labelled."""
    vocab = style.token_labels(vocab)
    q = probs(event.q)
    data = [_bars("draft q", style.role("q"), vocab, q, highlight=event.token, symbol="q")]
    return style.figure(data, style.layout(
        title=f"Drafting position {event.position + 1}: sample from q", presenter=presenter, showlegend=True,
        annotations=[_mark(vocab, event.token, float(q[event.token]), f"drafted: {vocab[event.token]}", presenter)],
        **_token_axes(vocab)))


def check_figure(event: CheckEvent, vocab: Sequence[str], *, presenter: bool = False) -> go.Figure:
    """p and q side by side for this prefix, the proposed token x outlined."""
    vocab = style.token_labels(vocab)
    p, q = probs(event.p), probs(event.q)
    data = [
        _bars("target p", style.role("p"), vocab, p, highlight=event.token, offsetgroup="p", symbol="p"),
        _bars("draft q", style.role("q"), vocab, q, highlight=event.token, offsetgroup="q", symbol="q"),
    ]
    verdict = "accepted ✓" if event.accepted else "rejected ✗"
    mark = _mark(vocab, event.token, float(max(p[event.token], q[event.token])),
                 f"x = {vocab[event.token]}: {verdict}", presenter)
    return style.figure(data, style.layout(
        title=f"Checking position {event.position + 1}: p vs q", presenter=presenter, barmode="group",
        annotations=[mark], **_token_axes(vocab)))


def residual_figure(event: CorrectionEvent, vocab: Sequence[str], *, presenter: bool = False) -> go.Figure:
    """Left: p split into min(p, q) and the residual (p − q)+ sticking out above q. Right: normalized residual."""
    vocab = style.token_labels(vocab)
    scaled = getattr(event, "scale", None) is not None  # a ScaledCorrectionEvent: block verification's
    scale = event.scale if scaled else Fraction(1)  # type: ignore[attr-defined]
    # block verification draws from (w·p − q)+ with w = w_tau; tokenwise is w = 1
    wp = "p" if scale == 1 else "w·p"
    p, q = [scale * v for v in probs(event.p)], probs(event.q)
    overlap = [min(a, b) for a, b in zip(p, q)]
    excess = [max(a - b, Fraction(0)) for a, b in zip(p, q)]
    normalized = probs(event.residual)
    data = [
        _bars(f"min({wp}, q)", style.role("overlap"), vocab, overlap, offsetgroup="p", symbol=f"min({wp}, q)"),
        _bars(f"({wp} − q)+", style.role("residual"), vocab, excess, offsetgroup="p", symbol=f"({wp} − q)+"),
        _trace("scatter", name="draft q", x=list(vocab), y=[float(v) for v in q], mode="markers",
               customdata=[_exact(v) for v in q], hovertemplate="%{x}: q = %{customdata}<extra></extra>",
               marker=style.scatter_marker("q", size=16)),
        {**_bars("residual, normalized", style.role("residual"), vocab, normalized, highlight=event.token,
                 symbol="residual"), "xaxis": "x2", "yaxis": "y2", "showlegend": False},
    ]
    axes = {**_token_axes(vocab), **_token_axes(vocab, "xaxis2", "yaxis2")}
    # short axis titles: each must fit under its own half of the chart, in presenter type too
    # a smaller axis-title font, so each title stays under its own half in a presenter's narrower column
    small = {"size": round(style.font_size(presenter) * 0.8)}
    axes["xaxis"].update(domain=[0, 0.46], title={"text": f"{wp} = min({wp}, q) + ({wp} − q)+", "font": small})
    axes["xaxis2"].update(domain=[0.54, 1], anchor="y2",
                          title={"text": f"({wp} − q)+ ÷ its mass {_short(event.residual_mass)}", "font": small})
    axes["yaxis2"].update(anchor="x2", title={"text": ""})
    annotations = [
        _mark(vocab, event.token, float(normalized[event.token]), f"correction: {vocab[event.token]}",
              xref="x2", yref="y2", presenter=presenter),
    ]
    title = f"Rejected at position {event.position + 1}: draw from the residual"
    if scaled:
        title = f"Kept {event.position}: draw from ({wp} − q)+" + (f", w = {_short(scale)}" if scale != 1 else "")
    return style.figure(data, style.layout(
        title=title, presenter=presenter,
        barmode="stack", annotations=annotations, **axes))


def bonus_figure(event: BonusEvent, vocab: Sequence[str], *, presenter: bool = False) -> go.Figure:
    """p after the last draft, the bonus token outlined."""
    vocab = style.token_labels(vocab)
    p = probs(event.p)
    data = [_bars("target p", style.role("p"), vocab, p, highlight=event.token, symbol="p")]
    return style.figure(data, style.layout(
        title="All drafts accepted: bonus token from p", presenter=presenter, showlegend=True,
        annotations=[_mark(vocab, event.token, float(p[event.token]), f"bonus: {vocab[event.token]}", presenter)],
        **_token_axes(vocab)))


def block_check_figure(event: BlockCheckEvent, vocab: Sequence[str], *, presenter: bool = False) -> go.Figure:
    """p and q after the previous drafts, the drafted x outlined with its ratio and the running weight."""
    vocab = style.token_labels(vocab)
    p, q = probs(event.p), probs(event.q)
    weight = block_names(event.position).weight
    data = [
        _bars("target p", style.role("p"), vocab, p, highlight=event.token, offsetgroup="p", symbol="p"),
        _bars("draft q", style.role("q"), vocab, q, highlight=event.token, offsetgroup="q", symbol="q"),
    ]
    mark = _mark(vocab, event.token, float(max(p[event.token], q[event.token])),
                 f"x = {vocab[event.token]}: p/q = {_short(event.p_token / event.q_token)}", presenter)
    return style.figure(data, style.layout(
        title=f"Block check at position {event.position + 1}: p vs q, {weight} = {_short(event.weight)}",
        presenter=presenter, barmode="group",
        annotations=[mark], **_token_axes(vocab)))


def stop_draw_strip(event: BlockCheckEvent) -> DrawStrip:
    """The position's draw against its stop probability h_i: a hit makes keeping i drafts the candidate."""
    h, stop = event.stop_probability, block_names(event.position).stop
    segments = []
    if h > 0:
        segments.append((f"hit: u < {stop} = {_short(h)}", Fraction(0), h, "accepted"))
    if h < 1:
        segments.append(("no hit", h, Fraction(1), "correction"))
    chosen = 0 if event.hit else len(segments) - 1
    return draw_strip(segments, event.draw, event.draw_range, chosen=chosen,
                      title=f"Stop draw vs {stop} = {_short(h)}")


def block_decision_figure(event: BlockDecisionEvent, vocab: Sequence[str], *, presenter: bool = False) -> go.Figure:
    """P(τ = i) for every i = 0..g (the chosen τ outlined), with the weights w_i and stop probabilities h_i.

    x is τ, the drafts kept (0..g); each tick names the draft that keeping one more adds, on a second line,
    so the labels lie flat and the plot keeps its height.
    """
    vocab = style.token_labels(vocab)
    g, tau = len(event.drafts), event.accepted_drafts
    xs = list(range(g + 1))
    ticks = ["none"] + [f"+{vocab[event.drafts[i - 1]]}" for i in range(1, g + 1)]
    ticktext = [f"{i}<br>{t}" for i, t in zip(xs, ticks)]
    taus = tau_distribution(event.stop_probabilities)
    bars = _bars("P(τ = i)", style.origin("accepted"), ticks, taus, highlight=tau, symbol="P(τ = i)")
    bars.update(x=xs, hovertemplate="keep %{x}: P(τ = i) = %{customdata}<extra></extra>")
    # keeping i ≥ 1 drafts means the last hit is at position i (counted from 1, as every count a person reads):
    # its h_{i−1} and w_{i−1} (the trace's 0-based names) stand at x = i; at i = 0 the start's level (w = 1)
    at = ["the start" if i == 0 else f"position {i}" for i in xs]
    h_names = ["h" if i == 0 else block_names(i - 1).stop for i in xs]
    w_names = ["w" if i == 0 else block_names(i - 1).weight for i in xs]
    data = [
        bars,
        # h as a thick black tick across its column: a level, read against the bar of P(τ = i)
        _trace("scatter", name="h_τ (stop)", x=xs,
               y=[float(h) for h in event.stop_probabilities], mode="markers",
               customdata=[[f"{name} = {_exact(h)}", where]
                           for name, h, where in zip(h_names, event.stop_probabilities, at, strict=True)],
               hovertemplate="keep %{x} (%{customdata[1]}): %{customdata[0]}<extra></extra>",
               marker={"symbol": "line-ew-open", "size": 40, "color": style.OKABE_ITO["black"],
                       "line": {"width": 4, "color": style.OKABE_ITO["black"]}}),
        _trace("scatter", name="w_τ (weight)", x=xs, y=[float(w) for w in event.weights],
               mode="lines+markers",
               customdata=[[f"{name} = {_exact(w)}", where]
                           for name, w, where in zip(w_names, event.weights, at, strict=True)],
               hovertemplate="keep %{x} (%{customdata[1]}): %{customdata[0]}<extra></extra>",
               marker=style.scatter_marker("q", 12), line={"color": style.role("q").color, "dash": "dot", "width": 2}),
    ]
    hits = ", ".join(str(k + 1) for k, hit in enumerate(event.hits) if hit)
    hit_text = f"hits at position{'s' if ',' in hits else ''} {hits}" if hits else "no hit"
    mark = {**_mark([str(x) for x in xs], tau, float(taus[tau]), f"τ = {tau} ({hit_text})", presenter),
            "x": tau, "ay": -30}
    return style.figure(data, style.layout(
        title=f"Block decision: keep {tau} of {g}", presenter=presenter, showlegend=True, annotations=[mark],
        xaxis={"tickmode": "array", "tickvals": xs, "ticktext": ticktext, "range": [-0.5, g + 0.5],
               "title": {"text": "τ = drafts kept (positions 1..τ)"}, "fixedrange": True, "tickangle": 0},
        # headroom above 1, so the label over a certain τ stays inside the plot, clear of the legend
        yaxis={"range": [0, 1.3], "title": {"text": "probability"}, "fixedrange": True,
               "tickvals": [0, 0.25, 0.5, 0.75, 1]}))


def round_figure(events: Sequence[Event], vocab: Sequence[str], depth: int, *,
                 presenter: bool = False) -> go.Figure:
    """One round at a glance: drafted tokens (top row) and what the verifier committed (bottom row)."""
    vocab = style.token_labels(vocab)
    drafts = [e for e in events if e.kind == "draft"]
    data = [_trace(
        "scatter", name="drafted", x=[e.position + 1 for e in drafts], y=["drafted"] * len(drafts), mode="markers+text",
        text=[vocab[e.token] for e in drafts], textposition="top center", marker=style.scatter_marker("q", 22),
        cliponaxis=False, hovertemplate="position %{x}: drafted %{text}<extra></extra>")]  # labels never clipped
    decision = next((e for e in events if e.kind == "block_decision"), None)
    for name in ("accepted", "correction", "bonus"):
        chosen = [(e.position + 1, e.token) for e in events if origin_of(e) == name]  # type: ignore[union-attr]
        if decision is not None and name == "accepted":  # block verification keeps its first tau drafts at once
            chosen = list(enumerate(decision.drafts[: decision.accepted_drafts], start=1))
        cue = style.origin(name)
        data.append(_trace(
            "scatter", name=cue.label, x=[x for x, _ in chosen], y=["committed"] * len(chosen),
            mode="markers+text", text=[vocab[t] for _, t in chosen], textposition="bottom center",
            marker=style.scatter_marker(cue, 24), cliponaxis=False,
            hovertemplate=f"position %{{x}}: {cue.label} %{{text}}<extra></extra>"))
    rejected = [e for e in events if e.origin == "accepted" and not e.accepted]  # type: ignore[union-attr]
    if decision is not None:
        rejected = [e for e in events if e.kind == "block_check" and e.position >= decision.accepted_drafts]
    if rejected:
        data.append(_trace(
            "scatter", name="rejected draft", x=[e.position + 1 for e in rejected], y=["drafted"] * len(rejected),
            mode="markers",
            marker={"symbol": "x-thin", "size": 30, "line": {"width": 4, "color": style.OKABE_ITO["vermillion"]}},
            hovertemplate="position %{x}: rejected<extra></extra>"))
    title = "Round summary"
    if any(e.kind == "stop" for e in events):
        title += ": stopped at a stop token"
    return style.figure(data, style.layout(
        title=title, presenter=presenter,
        xaxis={"range": [0.5, depth + 1.5], "dtick": 1, "title": {"text": "position in the block"},
               "fixedrange": True},
        yaxis={"type": "category", "categoryorder": "array", "categoryarray": ["committed", "drafted"],
               "range": [-0.7, 1.7], "fixedrange": True}))


def draw_strip(segments: Sequence[tuple[str, Fraction, Fraction, str]], draw: int, draw_range: int, *,
               title: str, chosen: int | None = None) -> DrawStrip:
    """The exact draw u = draw / range on [0, 1) against labelled segments (label, start, end, cue name)."""
    return DrawStrip(title, tuple(Segment(*s) for s in segments), draw, draw_range, chosen)


def acceptance_draw_strip(event: CheckEvent) -> DrawStrip:
    a = event.acceptance
    segments = []
    if a > 0:
        segments.append((f"accept: u < {_exact(a)}", Fraction(0), a, "accepted"))
    if a < 1:
        segments.append(("reject", a, Fraction(1), "correction"))
    chosen = 0 if event.accepted else len(segments) - 1
    return draw_strip(segments, event.draw, event.draw_range, chosen=chosen, title="Acceptance draw")


def sampling_draw_strip(c: Categorical, draw: int, token: int, vocab: Sequence[str], *, cue: str,
                        title: str) -> DrawStrip:
    """Tokens as consecutive intervals of [0, 1) in id order (how the tickets are walked), the draw marked.

    The labels are plain text (``style.token_label``): the strip's SVG escapes its own text."""
    vocab = [style.token_label(v) for v in vocab]
    segments, start, chosen = [], Fraction(0), None
    for t, value in enumerate(probs(c)):
        if value == 0:
            continue
        if t == token:
            chosen = len(segments)
        segments.append((vocab[t], start, start + value, cue))
        start += value
    return draw_strip(segments, draw, c.total, chosen=chosen, title=title)


# Plot widths the Playground gives its step charts at 1280 px (main column; presenter mode), used only
# to guess whether token labels will be turned on their side
_MAIN_WIDTH = {False: 484, True: 664}


def _label_px(text: str, size: int) -> float:
    return 0.55 * size * len(text)


def settle_margins(fig: go.Figure, *, presenter: bool = False, width: int | None = None) -> go.Figure:
    """Reserve the margins plotly's automargin would grow to, so the browser draws each chart once.

    Automargin stays on: where this estimate falls short (unusual labels), plotly still grows the
    margin, at the price of a second drawing pass.
    """
    layout, size = fig.layout.to_plotly_json(), style.font_size(presenter)
    width = width or _MAIN_WIDTH[presenter]
    traces = [t.to_plotly_json() for t in fig.data]
    legend = layout.get("showlegend", sum(t.get("showlegend") is not False for t in traces) >= 2)
    margin = {"l": 60, "r": 20, "t": layout.get("margin", {}).get("t", 0), "b": 60}
    x_names = [n for n in ("xaxis", "xaxis2") if layout.get(n, {}).get("title", {}).get("text")]
    y_margin = round(2.5 * size + 20) if layout.get("yaxis", {}).get("title", {}).get("text") else 60
    for name in x_names:
        labels = layout[name].get("ticktext") or layout[name].get("categoryarray")
        if layout[name].get("type") == "category" and labels:
            slot = (width - y_margin - 20) / len(labels) / len(x_names)
            shown = [style.plain_text(str(t)).split("<br>") for t in labels]  # a mark's name: a second line
            longest = max(_label_px(line, size) for lines in shown for line in lines)
            extra = (max(len(lines) for lines in shown) - 1) * round(1.2 * size)
            if longest + size / 4 <= slot:  # labels fit side by side: say so, or plotly may still turn them
                fig.layout[name].tickangle = 0
                margin["b"] = max(margin["b"], 2 * size + 26 + extra)
            else:
                margin["b"] = max(margin["b"], round(size + 36 + longest + extra))
        else:
            lines = max((str(t).count("<br>") + 1 for t in layout[name].get("ticktext") or ()), default=1)
            margin["b"] = max(margin["b"], (lines + 1) * size + 26 + 4 * (lines - 1))
            margin["r"] = max(margin["r"], round(11 + 0.8 * size))  # the last tick label ("1.0") overhangs
    for name in [n for n in layout if n.startswith("yaxis") and layout[n].get("side") == "right"]:
        margin["r"] = max(margin["r"], _right_axis_px(layout[name], size))
    for name in [n for n in layout if n.startswith("xaxis") and layout[n].get("side") == "top"]:
        if layout[name].get("showticklabels") is not False:  # a strip's labels above the plot (a tree's r share)
            margin["t"] += math.ceil(1.1 * (layout[name].get("tickfont") or {}).get("size", size))
    yaxis = layout.get("yaxis", {})
    if yaxis.get("type") == "category" and yaxis.get("categoryarray"):
        margin["l"] = max(margin["l"], round(12 + max(_label_px(str(t), size) for t in yaxis["categoryarray"])))
    else:
        margin["l"] = max(margin["l"], y_margin)
    if legend:
        names = [t.get("name", "") for t in traces if t.get("showlegend") is not False and len(t.get("x", [0]))]
        legend_size = layout.get("legend", {}).get("font", {}).get("size", size)  # a figure's own legend font
        margin["t"] += (legend_size + 20) * _legend_rows(names, legend_size, width - margin["l"] - margin["r"])
    fig.layout.margin = margin
    return fig


def _right_axis_px(axis: dict, size: int) -> int:
    """The right margin a y axis on the right side takes: its widest tick label, then its title.

    The tick labels are plotly's own for a linear axis with ``range`` [0, top] and at most ``nticks``
    ticks: multiples of the first of 2, 5, 10 times a power of ten at least top / nticks (plotly's
    autoTicks), written with as many decimals as that step needs. Calibrated in Chromium at 1280x800
    (tick labels "0.1"-"0.4": 60 px at 18 px type, 72 px at 24 px, both exact).
    """
    top = (axis.get("range") or [0, 1])[1]
    nticks = axis.get("nticks") or 6
    rough = max(top, 1e-12) / nticks
    base = 10 ** math.floor(math.log10(rough))
    step = next(m * base for m in (2, 5, 10) if m * base >= rough * (1 - 1e-9))
    decimals = max(0, -math.floor(math.log10(step) + 1e-9))
    labels = [f"{k * step:.{decimals}f}".rstrip("0").rstrip(".") or "0" for k in range(int(top / step + 1e-9) + 1)]
    tick_size = (axis.get("tickfont") or {}).get("size", size)
    widest = max(_number_px(t, tick_size) for t in labels)
    title = axis.get("title", {})
    title_px = 0.9 * (title.get("font") or {}).get("size", size) + 25 if title.get("text") else 10
    return math.ceil(widest + title_px + 1)


def _number_px(text: str, size: int) -> float:
    """A number's width: digits half the type size, a point or a minus a quarter (narrower than _label_px's
    letters; calibrated with _right_axis_px)."""
    digits = sum(ch.isdigit() for ch in text)
    return size * (0.5 * digits + 0.25 * (len(text) - digits))


def _legend_rows(names: list[str], size: int, room: float) -> int:
    """Rows a horizontal legend wraps onto: items (symbol, gap, text) packed left to right."""
    rows, used = 1, 0.0
    for name in names:
        item = 40 + 0.47 * size * len(name)
        if used and used + item > room:
            rows, used = rows + 1, 0.0
        used += item
    return rows


def event_figures(event: Event, round_events: Sequence[Event], vocab: Sequence[str], depth: int, *,
                  presenter: bool = False) -> Figures:
    """(main chart, draw strip or None) for the event at the current step, margins settled; each builder
    (``plots.figure_builders.FIGURES``) shows the labels its way (a chart: ``style.token_labels``, escaped for
    plotly; a strip: plain text, escaped by its SVG)."""
    at = Round(event, round_events, vocab, depth, presenter)
    main, draw = build_of(event)(event, at)
    full_width = event.origin == "correction" and not presenter  # the residual's two panels span the page
    settle_margins(main, presenter=presenter, width=820 if full_width else None)  # as for every chart: one pass
    if at.tree:
        main.layout.margin.l = tree_figures.left_margin(main, presenter)  # no y axis on the tree's side: room
    return main, draw


@plots(DraftEvent)
def _draft(event: DraftEvent, at: Round) -> Figures:
    return draft_figure(event, at.vocab, presenter=at.presenter), sampling_draw_strip(
        event.q, event.draw, event.token, at.vocab, cue="q", title="Draft draw over q")


@plots(CheckEvent)
def _check(event: CheckEvent, at: Round) -> Figures:
    return check_figure(event, at.vocab, presenter=at.presenter), acceptance_draw_strip(event)


@plots(BlockCheckEvent)
def _block_check(event: BlockCheckEvent, at: Round) -> Figures:
    return block_check_figure(event, at.vocab, presenter=at.presenter), stop_draw_strip(event)


@plots(BlockDecisionEvent)
def _block_decision(event: BlockDecisionEvent, at: Round) -> Figures:
    return block_decision_figure(event, at.vocab, presenter=at.presenter), None


@plots(CorrectionEvent, ScaledCorrectionEvent)  # block verification's from (w·p − q)+
def _correction(event: CorrectionEvent, at: Round) -> Figures:
    return residual_figure(event, at.vocab, presenter=at.presenter), sampling_draw_strip(
        event.residual, event.draw, event.token, at.vocab, cue="residual", title="Correction draw")


@plots(BonusEvent)
def _bonus(event: BonusEvent, at: Round) -> Figures:
    if at.tree:  # after a tree's kept leaf
        return _tree_figures(event, at)
    return bonus_figure(event, at.vocab, presenter=at.presenter), sampling_draw_strip(
        event.p, event.draw, event.token, at.vocab, cue="p", title="Bonus draw over p")


@plots(StopEvent, ResultEvent)
def _summary(event: StopEvent | ResultEvent, at: Round) -> Figures:
    if at.tree:
        return _tree_figures(event, at)
    return round_figure(at.events, at.vocab, at.depth, presenter=at.presenter), None


@plots(TreeDraftEvent, TopKDraftEvent, TreeCheckEvent, TreeCorrectionEvent, TraversalCheckEvent,
       TraversalCorrectionEvent)
def _tree_figures(event: Event, at: Round) -> Figures:
    """A tree round: the tree up to this event beside the node's numbers, and the event's draw."""
    figure = tree_figures.tree_figure(at.events, at.upto, at.vocab, presenter=at.presenter)
    strip, vocab = None, at.vocab
    if event.kind == "tree_draft" and not hasattr(event, "rank"):  # SGLang's top-K children are chosen, not drawn
        strip = sampling_draw_strip(event.drawn_from, event.draw, event.token, vocab, cue="q",
                                    title=f"Draft draw of child {event.sibling + 1}")
    elif event.kind == "tree_check":
        strip = acceptance_draw_strip(event)
        strip = DrawStrip(f"Sibling {event.sibling + 1}: u vs min(1, r/q′)", strip.segments, strip.draw,
                          strip.draw_range, strip.chosen)
    elif event.origin == "correction":
        strip = sampling_draw_strip(event.residual, event.draw, event.token, vocab, cue="residual",
                                    title="Correction draw over r")
    elif event.origin == "bonus":
        strip = sampling_draw_strip(event.p, event.draw, event.token, vocab, cue="p", title="Bonus draw over p")
    return figure, strip


def history_figure(rounds: Sequence[tuple[int, int, str]], depth: int, expected: Fraction | None, *,
                   presenter: bool = False) -> go.Figure:
    """Tokens committed per round (accepted drafts + one correction or bonus) against the theory line.

    rounds: (round id, accepted drafts, 'correction' | 'bonus' | 'none').
    """
    ids = [r for r, _, _ in rounds]
    data = [_trace("bar", name=style.origin("accepted").label, x=ids, y=[a for _, a, _ in rounds],
                   marker=style.bar_marker("accepted"), hovertemplate="round %{x}: %{y} accepted<extra></extra>")]
    for name in ("correction", "bonus"):
        data.append(_trace("bar", name=style.origin(name).label, x=ids,
                           y=[1 if last == name else 0 for *_, last in rounds], marker=style.bar_marker(name),
                           hovertemplate=f"round %{{x}}: {name}<extra></extra>"))
    if rounds:
        totals = [a + (last != "none") for _, a, last in rounds]
        running = [sum(totals[: i + 1]) / (i + 1) for i in range(len(totals))]
        data.append(_trace("scatter", name="running mean", x=ids, y=running, mode="lines+markers",
                           marker=style.scatter_marker("empirical", 10),
                           line={"color": style.role("empirical").color, "width": 3},
                           hovertemplate="after round %{x}: %{y:.3f} tokens/round<extra></extra>"))
    last_x = max(ids + [0]) + 0.5 if len(ids) > 10 else max(len(ids), 10) - 0.5
    if expected is not None:
        data.append(_trace("scatter", name=f"theory {float(expected):.3f}", x=[-0.5, last_x],
                           y=[float(expected)] * 2, mode="lines",
                           line={"dash": "dash", "color": style.role("theory").color, "width": 2},
                           hovertemplate=f"theory: {_exact(expected)} tokens/round<extra></extra>"))
    return style.figure(data, style.layout(
        title="Tokens per round", presenter=presenter, height=320 if not presenter else 380, barmode="stack",
        xaxis={"range": [-0.5, last_x], "title": {"text": "round"}, "dtick": 1 if last_x <= 20 else 5},
        yaxis={"range": [0, depth + 1.5], "title": {"text": "tokens committed"}, "fixedrange": True}))


def seed_difference_figure(differences: dict[int, int], more: str, less: str, *,
                           presenter: bool = False) -> go.Figure:
    """Seeds by how many more drafts rule ``more`` kept than rule ``less`` on the same drafts and streams.

    differences: {kept by ``more`` − kept by ``less``: number of seeds}. Bars right of 0 are seeds where
    ``more`` kept more (green), left of it seeds where it kept fewer (vermillion), 0 where both kept as many.
    """
    xs = sorted(differences)
    count = sum(differences.values())
    colours = [style.origin("accepted").color if x > 0 else style.origin("correction").color if x < 0
               else style.GREY for x in xs]
    bars = _trace("bar", name="seeds", x=xs, y=[differences[x] for x in xs], text=[str(differences[x]) for x in xs],
                  textposition="outside", cliponaxis=False,
                  marker={"color": colours, "line": {"color": style.OKABE_ITO["black"], "width": 1}},
                  hovertemplate=f"{more} kept %{{x}} more: %{{y}} of {count} seeds<extra></extra>")
    width = max([abs(x) for x in xs] + [1])
    return style.figure([bars], style.layout(
        title=f"Drafts kept over {count} seeds", presenter=presenter, height=300 if not presenter else 360,
        showlegend=False,
        xaxis={"range": [-width - 0.6, width + 0.6], "dtick": 1, "fixedrange": True,
               "title": {"text": f"kept by {more} − by {less}"}},
        yaxis={"range": [0, max(differences.values(), default=1) * 1.25], "title": {"text": "seeds"},
               "fixedrange": True}))
