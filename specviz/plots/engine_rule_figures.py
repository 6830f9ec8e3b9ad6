"""Step figures of the engine rules (ensemble, SGLang's thresholds, Medusa): pure builders from trace events.

Each engine rule's event class has its builder here, entered in ``plots.figure_builders.FIGURES``;
``event_figures(event, round_events, vocab, presenter)`` gives (main chart, draw strip) for an engine rule's
event, or None for any other event (the Playground's own figures draw those). Each chart shows the rule's own
quantities: at an ensemble check the mixture v = W·p + (1 − W)·q the draft is judged against and its acceptance
1 − W + W·p/q; at an SGLang check p against S and the coin's bound, and in a tree the node's one coin over the
siblings' summed mass beside the tree; at a Medusa check p against its threshold line T; at a rejection what
the rule draws the next token from. ``stats_table`` is the running statistics' table for these rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

import plotly.graph_objects as go  # noqa: F401 - the return types

from .. import formats
from ..core import Categorical, rule
from ..core.trace import (
    EnsembleCheckEvent,
    Event,
    MedusaBonusEvent,
    MedusaCheckEvent,
    MedusaCorrectionEvent,
    ThresholdCheckEvent,
    ThresholdCorrectionEvent,
    ThresholdTreeCheckEvent,
    ThresholdTreeCorrectionEvent,
)
from . import style
from . import tree_figures as tree
from .draw_strip import DrawStrip, Segment
from .draw_strip import exact as _exact
from .figure_builders import Figures, Round, own, plots

if TYPE_CHECKING:  # the statistics are this module's input; nothing here calls back into the step view
    from ..playground.narrative import Stats

Y_RANGE = [0, 1.08]
_ZERO, _ONE = Fraction(0), Fraction(1)


def _probs(c: Categorical) -> list[Fraction]:
    total = c.total
    return [Fraction(t, total) for t in c.ticket_ints()]


def _short(value: Fraction) -> str:
    return formats.fit(value, 9, places=4)


def _bars(name: str, cue: str, labels: list[str], values: Sequence[Fraction], *, highlight: int | None = None,
          group: str | None = None, symbol: str = "", axis: str = "", opacity: float = 1.0) -> dict:
    marks = [i == highlight for i in range(len(labels))] if highlight is not None else None
    bar = {"type": "bar", "name": name, "x": labels, "y": [float(v) for v in values],
           "customdata": [_exact(v) for v in values],
           "hovertemplate": f"%{{x}}: {symbol or name} = %{{customdata}}<extra></extra>",
           "marker": style.bar_marker(cue, highlight=marks, opacity=opacity), "legendgroup": name}
    if group:
        bar["offsetgroup"] = group
    if axis:
        bar.update(xaxis=f"x{axis}", yaxis=f"y{axis}")
    return bar


def _points(name: str, cue: str, labels: list[str], values: Sequence[Fraction], symbol: str) -> dict:
    return {"type": "scatter", "name": name, "x": labels, "y": [float(v) for v in values], "mode": "markers",
            "customdata": [_exact(v) for v in values], "marker": style.scatter_marker(cue, 16),
            "hovertemplate": f"%{{x}}: {symbol} = %{{customdata}}<extra></extra>"}


def _line(name: str, y: Fraction, labels: list[str], text: str, dash: str = "dash") -> dict:
    """A horizontal threshold line across the tokens, named in the legend, its exact value on hover."""
    return {"type": "scatter", "name": name, "x": [labels[0], labels[-1]], "y": [float(y), float(y)],
            "mode": "lines", "line": {"color": style.OKABE_ITO["black"], "width": 3, "dash": dash},
            "hovertemplate": f"{text} = {_exact(y)}<extra></extra>"}


def _mark(labels: list[str], token: int, y: float, text: str, presenter: bool) -> dict:
    lean = "right" if token > (len(labels) - 1) / 2 else "left"
    return {"x": labels[token], "y": min(y, 1.0), "text": text, "showarrow": True, "arrowhead": 2, "arrowsize": 1.2,
            "ax": 0, "ay": -40, "xanchor": lean,
            "font": {"size": style.font_size(presenter), "color": style.OKABE_ITO["black"]},
            "bgcolor": "rgba(255,255,255,0.85)"}


def _axes(labels: list[str]) -> dict:
    return {"xaxis": style.category_axis(labels, title={"text": "token"}),
            "yaxis": {"range": Y_RANGE, "title": {"text": "probability"}, "fixedrange": True}}


def _chart(data: list[dict], title: str, presenter: bool, annotations: list[dict], labels: list[str]) -> go.Figure:
    return style.figure(data, style.layout(title=title, presenter=presenter, showlegend=True, barmode="group",
                                           annotations=annotations, **_axes(labels)))


def _verdict(accepted: bool) -> str:
    return "accepted ✓" if accepted else "rejected ✗"


def acceptance_strip(acceptance: Fraction, draw: int, draw_range: int, accepted: bool, title: str,
                     keep: str = "accept") -> DrawStrip:
    """The draw u on [0, 1) against the rule's own acceptance: [0, a) keeps, [a, 1) rejects."""
    segments = []
    if acceptance > 0:
        segments.append(Segment(f"{keep}: u < {_exact(acceptance)}", _ZERO, acceptance, "accepted"))
    if acceptance < 1:
        segments.append(Segment("reject", acceptance, _ONE, "correction"))
    return DrawStrip(title, tuple(segments), draw, draw_range, 0 if accepted else len(segments) - 1)


def sampling_strip(c: Categorical, draw: int, token: int, labels: list[str], cue: str, title: str) -> DrawStrip:
    """The tokens of c as consecutive intervals of [0, 1) in id order, the drawn one chosen."""
    segments, start, chosen = [], _ZERO, None
    for t, value in enumerate(_probs(c)):
        if value == 0:
            continue
        if t == token:
            chosen = len(segments)
        segments.append(Segment(style.plain_text(labels[t]), start, start + value, cue))  # the strip escapes it
        start += value
    return DrawStrip(title, tuple(segments), draw, c.total, chosen)


# --- transformers' ensemble ----------------------------------------------------------------------------------
@plots(EnsembleCheckEvent)
def _ensemble(event: EnsembleCheckEvent, at: Round) -> Figures:
    return ensemble_check(event, at.labels, at.presenter)


def ensemble_check(event: EnsembleCheckEvent, labels: list[str], presenter: bool) -> Figures:
    """p, q and the mixture v = W·p + (1 − W)·q the draft is judged against; x kept with min(1, v(x)/q(x))."""
    p, q, w = _probs(event.p), _probs(event.q), event.weight
    v = [w * a + (1 - w) * b for a, b in zip(p, q)]
    x = event.token
    data = [_bars("target p", "p", labels, p, highlight=x, group="p", symbol="p"),
            _bars("draft q", "q", labels, q, highlight=x, group="q", symbol="q"),
            {**_points(f"v = {_short(w)}·p + {_short(1 - w)}·q", "theory", labels, v, "v"),
             "marker": {"symbol": "line-ew", "size": 40, "line": {"width": 4, "color": style.OKABE_ITO["black"]}}}]
    mark = _mark(labels, x, float(max(p[x], q[x], v[x])), f"x = {labels[x]}: {_verdict(event.accepted)}", presenter)
    title = f"Checking position {event.position + 1}: p, q and v"
    strip = acceptance_strip(event.acceptance, event.draw, event.draw_range, event.accepted,
                             f"Acceptance draw vs 1 − W + W·p/q = {_short(event.acceptance)}")
    return _chart(data, title, presenter, [mark], labels), strip


# --- SGLang's thresholds -----------------------------------------------------------------------------------------
@plots(ThresholdCheckEvent)
def _threshold(event: ThresholdCheckEvent, at: Round) -> Figures:
    return threshold_check(event, at.labels, at.presenter)


def threshold_check(event: ThresholdCheckEvent, labels: list[str], presenter: bool) -> Figures:
    """p with the S line, q faded (never read), the coin's bound p(x)/A at x."""
    p, q, x = _probs(event.p), _probs(event.q), event.token
    s, a = event.threshold_single, event.threshold_acc
    data = [_bars("target p", "p", labels, p, highlight=x, group="p", symbol="p"),
            _bars("draft q (not read)", "q", labels, q, group="q", symbol="q", opacity=0.35),
            _line(f"S = {_short(s)}", s, labels, "S (threshold_single)")]
    if not event.single:
        data.append({"type": "scatter", "name": f"min(1, p(x)/A), A = {_short(a)}", "x": [labels[x]],
                     "y": [float(event.acceptance)], "mode": "markers", "customdata": [_exact(event.acceptance)],
                     "marker": {"symbol": "line-ew", "size": 40,
                                "line": {"width": 4, "color": style.OKABE_ITO["black"]}},
                     "hovertemplate": "%{x}: the coin's bound min(1, p/A) = %{customdata}<extra></extra>"})
    mark = _mark(labels, x, float(max(p[x], event.acceptance)), f"x = {labels[x]}: {_verdict(event.accepted)}",
                 presenter)
    how = "p(x) ≥ S: kept" if event.single else f"min(1, p(x)/A) = {_short(event.acceptance)}"
    title = f"Checking position {event.position + 1}: p against S and A"
    strip = acceptance_strip(event.acceptance, event.draw, event.draw_range, event.accepted, f"Coin vs {how}",
                             keep="keep")
    return _chart(data, title, presenter, [mark], labels), strip


@plots(ThresholdCorrectionEvent)
def _threshold_final(event: ThresholdCorrectionEvent, at: Round) -> Figures:
    return threshold_final(event, at.labels, at.presenter)


def threshold_final(event: ThresholdCorrectionEvent | ThresholdTreeCorrectionEvent, labels: list[str],
                    presenter: bool) -> Figures:
    """p with the rejected tokens taken out (faded), and the renormalized rest the final token is drawn from."""
    p, rest, y = _probs(event.p), _probs(event.residual), event.token
    removed = [p[t] if t in event.removed else _ZERO for t in range(len(p))]
    left = [p[t] if t not in event.removed else _ZERO for t in range(len(p))]
    data = [_bars("rest of p", "p", labels, left, group="p", symbol="p"),
            _bars("rejected: taken out", "removed", labels, removed, group="p", symbol="p", opacity=0.6),
            _bars("rest renormalized", "residual", labels, rest, highlight=y, group="r", symbol="r")]
    mark = _mark(labels, y, float(rest[y]), f"final: {labels[y]}", presenter)
    title = f"Rejected at position {event.position + 1}: the final token from the rest of p"
    strip = sampling_strip(event.residual, event.draw, y, labels, "residual", "Final draw over the rest of p")
    return _chart(data, title, presenter, [mark], labels), strip


def _siblings(round_events: Sequence[Event], event: ThresholdTreeCheckEvent) -> list[ThresholdTreeCheckEvent]:
    node = tuple(event.path)[:-1]
    return [e for e in round_events if e.kind == "threshold_check" and tuple(e.path)[:-1] == node]


def coin_strip(event: ThresholdTreeCheckEvent, round_events: Sequence[Event], labels: list[str]) -> DrawStrip:
    """The node's one coin against its siblings: sibling k keeps u in [c_(k−1), c_k) (a single: what is left)."""
    segments, start, chosen = [], _ZERO, None
    for e in _siblings(round_events, event):
        end = _ONE if e.single else e.acceptance
        if end > start:
            if e is event:
                chosen = len(segments)
            segments.append(Segment(f"#{e.sibling + 1} {style.plain_text(labels[e.token])}", start, end,
                                    "accepted" if e.accepted else "q"))
            start = end
        if e is event:
            break
    if start < 1 and not event.accepted:
        segments.append(Segment("rejected so far", start, _ONE, "correction"))
        chosen = len(segments) - 1
    return DrawStrip(f"The node's coin: #{event.sibling + 1} keeps u < {_short(event.acceptance)}", tuple(segments),
                     event.draw, event.draw_range, chosen)


def _sibling_hover(event: ThresholdTreeCheckEvent, labels: list[str]) -> str:
    state = "accepted" if event.accepted else "rejected"
    test = "p(x) ≥ S" if event.single else f"min(1, C/A) = {_exact(event.acceptance)}"
    return (f"{labels[event.token]} at [{', '.join(str(i + 1) for i in event.path)}]: p = {_exact(event.p_token)}, "
            "summed mass C = "
            f"{_exact(event.mass)}, {test}<br>the node's coin: draw {event.draw} of 0..{event.draw_range - 1}: {state}")


def _panel(fig: go.Figure, traces: list[dict], axis_title: str, labels: list[str], top: float) -> None:
    """Put the threshold panel beside the tree (the tree's own panel, if any, replaced)."""
    fig.data = [t for t in fig.data if getattr(t, "xaxis", None) != "x2"]
    for t in traces:
        fig.add_trace({**t, "xaxis": "x2", "yaxis": "y2"})
    size = style.font_size(False)
    fig.update_layout(
        xaxis={"domain": [0, 0.52]},
        xaxis2=style.category_axis(labels, domain=[0.6, 1], anchor="y2",
                                   title={"text": axis_title, "font": {"size": round(size * 0.8)}},
                                   tickfont={"size": round(size * 0.7)}),
        yaxis2={"anchor": "x2", "range": [0, top], "fixedrange": True, "side": "right", "nticks": 5})


def _fix_hovers(fig: go.Figure, round_events: Sequence[Event], upto: int, vocab: Sequence[str]) -> None:
    """The tree's node hovers for SGLang's siblings say its own test (mass and coin), not a residual ratio."""
    labels = style.token_labels(vocab)
    at = tree.tree_at(round_events, upto, vocab)
    checks = {tuple(e.path): e for e in round_events[: upto + 1] if e.kind == "threshold_check"}
    for trace in fig.data:
        nodes = [n for n in at.nodes if tree.STATES.get(n.state, ("",))[0] == trace.name]
        if trace.name is None or not nodes or trace.customdata is None or len(nodes) != len(trace.customdata):
            continue
        trace.customdata = [(_sibling_hover(checks[n.path], labels) if n.path in checks else hover)
                            for n, hover in zip(nodes, trace.customdata)]


@plots(ThresholdTreeCheckEvent)
def threshold_sibling(event: ThresholdTreeCheckEvent, at: Round) -> Figures:
    """A tree round under SGLang's thresholds: the tree, and beside it p with the node's summed mass."""
    labels, round_events = at.labels, at.events
    title = f"SGLang tree: sibling {event.sibling + 1} of {event.siblings}, one coin per node"
    fig = tree.tree_figure(round_events, at.upto, at.vocab, presenter=at.presenter, title=title)
    siblings = _siblings(round_events[: at.upto + 1], event)
    held = [sum((e.p_token for e in siblings if e.token == t), _ZERO) for t in range(len(labels))]
    traces = [_bars("p at the node", "p", labels, _probs(event.p), highlight=event.token, group="p",
                    symbol="p", opacity=0.45),
              _bars("summed so far (C)", "accepted" if event.accepted else "q", labels, held, group="c",
                    symbol="counted in C")]
    _panel(fig, traces, f"C = {_short(event.mass)}; A = {_short(event.threshold_acc)}", labels,
           min(1.05, 1.15 * max(float(v) for v in _probs(event.p))))
    _fix_hovers(fig, round_events, at.upto, at.vocab)
    return fig, coin_strip(event, round_events, labels)


@plots(ThresholdTreeCorrectionEvent)
def threshold_tree_final(event: ThresholdTreeCorrectionEvent, at: Round) -> Figures:
    """Every child of an SGLang tree's node rejected: the tree, and beside it the rest of p the final token is drawn
    from."""
    labels = at.labels
    fig = tree.tree_figure(at.events, at.upto, at.vocab, presenter=at.presenter,
                           title="SGLang tree: every child rejected, the final token from p without them")
    traces = [_bars("rest of p, renormalized", "residual", labels, _probs(event.residual),
                    highlight=event.token, group="r", symbol="r")]
    _panel(fig, traces, f"p without {', '.join(labels[t] for t in event.removed)}", labels, 1.05)
    strip = sampling_strip(event.residual, event.draw, event.token, labels, "residual",
                           "Final draw over the rest of p")
    _fix_hovers(fig, at.events, at.upto, at.vocab)
    return fig, strip


# --- Medusa ---------------------------------------------------------------------------------------------------
@plots(MedusaCheckEvent)
def _medusa_check(event: MedusaCheckEvent, at: Round) -> Figures:
    return medusa_check(event, at.labels, at.presenter)


def medusa_check(event: MedusaCheckEvent, labels: list[str], presenter: bool) -> Figures:
    """p against Medusa's threshold line T, q faded (never read); x kept when p(x) > T (fast)."""
    p, q, x = _probs(event.p), _probs(event.q), event.token
    data = [_bars("target p", "p", labels, p, highlight=x, group="p", symbol="p"),
            _bars("draft q (not read)", "q", labels, q, group="q", symbol="q", opacity=0.35),
            _line(f"T = min(ε, δ·e^−H) ≈ {float(event.threshold):.4g}", event.threshold, labels, "T")]
    mark = _mark(labels, x, float(max(p[x], q[x])), f"x = {labels[x]}: {_verdict(event.accepted)}", presenter)
    title = f"Checking position {event.position + 1}: p against T"
    # fast: the threshold decides and no coin is drawn (its one outcome would only clutter the step)
    strip = None if event.fast else acceptance_strip(event.acceptance, event.draw, event.draw_range, event.accepted,
                                                     f"Match draw vs t(x) = {_short(event.acceptance)}", keep="keep")
    return _chart(data, title, presenter, [mark], labels), strip


@plots(MedusaCorrectionEvent)
def _medusa_correction(event: MedusaCorrectionEvent, at: Round) -> Figures:
    return medusa_next(event, at.labels, at.presenter)


@plots(MedusaBonusEvent)
def _medusa_bonus(event: MedusaBonusEvent, at: Round) -> Figures:
    return medusa_next(event, at.labels, at.presenter)


def medusa_next(event: MedusaCorrectionEvent | MedusaBonusEvent, labels: list[str], presenter: bool) -> Figures:
    """What Medusa draws the next token from (argmax p, or p above T renormalized) beside p and T."""
    bonus = event.origin == "bonus"  # every draft kept: drawn from ``drawn_from``; after a rejection: the residual
    source = event.drawn_from if bonus else event.residual  # type: ignore[union-attr]
    p, chosen, y = _probs(event.p), _probs(source), event.token
    name = "argmax p (fast)" if event.fast else "p above T, renormalized"
    data = [_bars("target p", "p", labels, p, group="p", symbol="p"),
            _bars(name, "bonus" if bonus else "residual", labels, chosen,
                  highlight=y, group="c", symbol="drawn from"),
            _line(f"T ≈ {float(event.threshold):.4g}", event.threshold, labels, "T")]
    mark = _mark(labels, y, float(chosen[y]), f"next: {labels[y]}", presenter)
    when = "All drafts kept" if bonus else f"Rejected at position {event.position + 1}"
    title = f"{when}: Medusa's next token from {name}"
    strip = sampling_strip(source, event.draw, y, labels, "residual", f"Next-token draw over {name}")
    return _chart(data, title, presenter, [mark], labels), strip


def event_figures(event: Event, round_events: Sequence[Event], vocab: Sequence[str], *,
                  presenter: bool = False) -> Figures | None:
    """(main chart, draw strip) for an engine rule's event; None for any other event."""
    return own(event, Round(event, round_events, vocab, 0, presenter), __name__)


# --- the running statistics --------------------------------------------------------------------------------------
def _cell(value: Fraction | None) -> str:
    return "—" if value is None else formats.fraction_folded(value, 3)


def stats_table(stats: Stats) -> str:
    """Measured accepted drafts and tokens per round against the rule's exact expectation (markdown)."""
    found = rule(stats.verification)
    return "\n".join([
        f"| {found.short} | measured | theory (exact) |",
        "|---|---|---|",
        f"| accepted drafts per round | {_cell(stats.accepted_per_round)} ({stats.accepted_in_rounds} in "
        f"{stats.rounds}) | {_cell(stats.expected_accepted)} |",
        f"| tokens per round | {_cell(stats.tokens_per_round)} ({stats.tokens} in {stats.rounds}) "
        f"| {_cell(stats.expected)} |",
        f"| checks accepted | {_cell(stats.acceptance_rate)} ({stats.accepted} of {stats.checks}) | — |",
    ])
