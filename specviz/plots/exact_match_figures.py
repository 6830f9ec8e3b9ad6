"""Step figures of exact match (``specviz.core.exact_match``): the target's own sample decides.

Each exact-match event class has its builder here, entered in ``plots.figure_builders.FIGURES``;
``event_figures(event, round_events, vocab, presenter)`` gives (main chart, draw strip) for an exact-match event, or
None for any other event. At a chain's check: p and q with the drafted x and the target's sample y marked, the
draw strip over p's tickets landing on y; in a tree, the tree beside p at the node with the drafted siblings
marked (one sample for the node); when no draft equals the sample, p without the drafts, renormalized, and the
same draw (a correction is the sample itself: no second draw).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import plotly.graph_objects as go  # noqa: F401 - the return types

from ..core.trace import Event, ExactMatchCheckEvent, ExactMatchCorrectionEvent, ExactMatchTreeCheckEvent
from . import style, tree_figures
from .engine_rule_figures import _bars, _chart, _mark, _panel, _probs, _short, sampling_strip
from .figure_builders import Figures, Round, own, plots

_ZERO = Fraction(0)


def _drafted(round_events: Sequence[Event], node: tuple[int, ...]) -> list[int]:
    """The tokens drafted as children of the node at this path."""
    return [e.token for e in round_events if e.kind == "tree_draft" and tuple(e.path)[:-1] == node]


def _sample_strip(event: Event, labels: list[str]) -> object:
    y = event.sample if hasattr(event, "sample") else event.token  # type: ignore[attr-defined]
    return sampling_strip(event.p, event.draw, y, labels, "p",  # type: ignore[attr-defined]
                          f"The target's own sample over p: y = {labels[y]}")


@plots(ExactMatchCheckEvent)
def _chain_check(event: ExactMatchCheckEvent, at: Round) -> Figures:
    return chain_check(event, at.labels, at.presenter)


@plots(ExactMatchTreeCheckEvent)
def _tree_check(event: ExactMatchTreeCheckEvent, at: Round) -> Figures:
    title = f"Exact match: sibling {event.sibling + 1} of {event.siblings} against the node's one sample"
    return tree_step(event, at, tuple(event.path)[:-1], event.sample, title)


@plots(ExactMatchCorrectionEvent)
def _correction(event: ExactMatchCorrectionEvent, at: Round) -> Figures:
    """The sample committed: beside the tree in a tree's round, else p off the chain's draft."""
    if not at.tree:
        return chain_correction(event, at.labels, at.presenter)
    return tree_step(event, at, tuple(event.path), event.token,
                     "Exact match: no child equals the node's sample, which is committed")


def chain_check(event: ExactMatchCheckEvent, labels: list[str], presenter: bool) -> Figures:
    """p (the sample y highlighted) and q faded; x kept iff y = x."""
    p, q, x, y = _probs(event.p), _probs(event.q), event.token, event.sample
    data = [_bars("target p", "p", labels, p, highlight=y, group="p", symbol="p"),
            _bars("draft q (not read by the rule)", "q", labels, q, highlight=x, group="q", symbol="q", opacity=0.4)]
    verdict = "kept ✓" if event.accepted else "not kept ✗"
    marks = [_mark(labels, x, float(max(p[x], q[x])), f"x = {labels[x]}: {verdict}", presenter)]
    if y != x:
        marks.append(_mark(labels, y, float(p[y]), f"y = {labels[y]}", presenter))
    title = f"Checking position {event.position + 1} (exact match): the target's sample y against x"
    return _chart(data, title, presenter, marks, labels), _sample_strip(event, labels)  # type: ignore[return-value]


def chain_correction(event: ExactMatchCorrectionEvent, labels: list[str], presenter: bool) -> Figures:
    """p without the drafted tokens, renormalized: the law of y given that it matched none; y highlighted."""
    p, rest, y = _probs(event.p), _probs(event.residual), event.token
    drafted = [t for t in range(len(p)) if p[t] and not rest[t]]
    taken = [p[t] if t in drafted else _ZERO for t in range(len(p))]
    left = [p[t] if t not in drafted else _ZERO for t in range(len(p))]
    data = [_bars("p off the drafts", "p", labels, left, group="p", symbol="p"),
            _bars("drafted: not the sample", "correction", labels, taken, group="p", symbol="p", opacity=0.4),
            _bars("y given no match", "residual", labels, rest, highlight=y, group="r", symbol="r")]
    mark = _mark(labels, y, float(rest[y]), f"y = {labels[y]} committed", presenter)
    title = f"No draft at position {event.position + 1} equals the sample: y itself is committed"
    return _chart(data, title, presenter, [mark], labels), _sample_strip(event, labels)  # type: ignore[return-value]


def _hovers(fig: go.Figure, round_events: Sequence[Event], upto: int, vocab: Sequence[str]) -> None:
    """The tree's node hovers say the node's sample, not a residual ratio."""
    labels = style.token_labels(vocab)
    at = tree_figures.tree_at(round_events, upto, vocab)
    # an exact-match round's tree checks all compare with the node's sample
    checks = {tuple(e.path): e for e in round_events[: upto + 1] if e.kind == "tree_check"}
    for trace in fig.data:
        nodes = [n for n in at.nodes if tree_figures.STATES.get(n.state, ("",))[0] == trace.name]
        if trace.name is None or not nodes or trace.customdata is None or len(nodes) != len(trace.customdata):
            continue
        hovers = []
        for node, hover in zip(nodes, trace.customdata):
            check = checks.get(node.path)
            hovers.append(hover if check is None else (
                f"{labels[check.token]} at {list(check.path)}: p = {_short(check.p_token)}<br>the node's sample y = "
                f"{labels[check.sample]} (draw {check.draw} of 0..{check.draw_range - 1}): "
                f"{'equal, kept' if check.accepted else 'not equal'}"))
        trace.customdata = hovers


def tree_step(event: ExactMatchTreeCheckEvent | ExactMatchCorrectionEvent, at: Round, node: tuple[int, ...],
              sample: int, title: str) -> Figures:
    """A tree round under exact match: the tree, and beside it p at the node with its drafted children marked."""
    labels, round_events, upto, vocab = at.labels, at.events, at.upto, at.vocab
    fig = tree_figures.tree_figure(round_events, upto, vocab, presenter=at.presenter, title=title)
    p = _probs(event.p)
    children = _drafted(round_events, node)
    drafted = [p[t] if t in children else _ZERO for t in range(len(p))]
    traces = [_bars("p at the node", "p", labels, p, highlight=sample, group="p", symbol="p", opacity=0.45),
              _bars("drafted children", "q", labels, drafted, group="c", symbol="p of a child")]
    fig.data = [t for t in fig.data if getattr(t, "xaxis", None) != "x3"]  # the residual's share: none here
    fig.update_layout(xaxis3={"visible": False}, yaxis3={"visible": False}, yaxis2={"domain": [0, 1]})
    _panel(fig, traces, f"y = {labels[sample]}; drafted: {', '.join(labels[t] for t in children)}", labels,
           min(1.05, 1.15 * max(float(v) for v in p)))
    _hovers(fig, round_events, upto, vocab)
    return fig, _sample_strip(event, labels)  # type: ignore[return-value]


def event_figures(event: Event, round_events: Sequence[Event], vocab: Sequence[str], *,
                  presenter: bool = False) -> Figures | None:
    """(main chart, draw strip) for an exact-match event; None for any other event."""
    return own(event, Round(event, round_events, vocab, 0, presenter), __name__)
