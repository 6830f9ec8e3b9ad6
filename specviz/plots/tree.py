"""The draft tree of one round, node by node: a pure figure builder from trace events to a plotly Figure.

Left panel: the tree the draft proposed (levels left to right, the committed prefix as the root), each
node a token coloured *and shaped* by what happened to it so far: drafted and not yet checked (orange
diamond), accepted (green circle), rejected (vermillion thin x), never checked (grey open circle), the
correction drawn after every sibling was rejected (vermillion triangle), the bonus (purple star). The
node of the current step wears a black ring; the accepted path is drawn thick.

Right panel, at the step's node: the draft q′ a child was drawn from; at a check, the residual r the
sibling is tested against, scaled by its share of p (the probability that every earlier sibling was
rejected), split into min(r, q′) (what this sibling can take) and (r − q′)+ (what is left for the next
sibling or the correction), with q′ as diamonds: from sibling to sibling the bars shrink with that share;
at a correction the last r; at a bonus p.

Reads the tree events of ``specviz.core.trace`` (``tree_draft``, ``tree_check``, the tree's
``correction``, ``bonus``, ``stop``, ``result``) by their documented fields; exact values in every hover.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import plotly.graph_objects as go  # noqa: F401 - the return type

from .. import formats
from ..core import Categorical
from ..core.trace import Event
from . import style
from .draw_strip import exact

Path = tuple[int, ...]
_ZERO, _ONE = Fraction(0), Fraction(1)

# node states, in legend order: (label, colour, marker symbol)
STATES: dict[str, tuple[str, str, str]] = {
    "drafted": ("drafted", style.role("q").color, "diamond"),
    "accepted": ("accepted", style.origin("accepted").color, "circle"),
    "rejected": ("rejected", style.origin("correction").color, "x-thin-open"),
    "unchecked": ("not checked", style.GREY, "circle-open"),
    "correction": ("correction", style.origin("correction").color, "triangle-up"),
    "bonus": ("bonus", style.origin("bonus").color, "star"),
}
CHECK_KINDS = ("tree_check", "threshold_check")  # a sibling's check: recursive rejection, or SGLang's thresholds
MAX_TREE_NODES = 40  # drafted nodes the Playground animates (width 2 to depth 4, width 3 to depth 3, width 4 to 2)


def is_tree_round(events: Sequence[Event]) -> bool:
    return any(e.kind == "tree_draft" for e in events)


@dataclass(frozen=True)
class Node:
    path: Path  # () is the root (the committed prefix); an extra node's path ends in -1
    token: int  # -1 at the root
    state: str  # a key of STATES, or "root"
    x: float
    y: float
    hover: str


@dataclass(frozen=True)
class TreeAtStep:
    """The tree at one step: its nodes (root first), the edges, the current node and the accepted path."""

    nodes: tuple[Node, ...]
    edges: tuple[tuple[Path, Path], ...]
    current: Path | None
    accepted: tuple[Path, ...]
    depth: int


def _draft_paths(events: Sequence[Event]) -> list[Path]:
    return [tuple(e.path) for e in events if e.kind == "tree_draft"]


def _layout(paths: list[Path]) -> dict[Path, float]:
    """y of every node: leaves (nodes without children) get consecutive slots, a parent the mean of its children."""
    children: dict[Path, list[Path]] = {(): []}
    for path in paths:
        children.setdefault(path, [])
        children.setdefault(path[:-1], []).append(path)
    y: dict[Path, float] = {}
    slot = 0

    def place(path: Path) -> float:
        nonlocal slot
        kids = sorted(children.get(path, []))
        if not kids:
            y[path] = float(slot)
            slot += 1
        else:
            y[path] = sum(place(kid) for kid in kids) / len(kids)
        return y[path]

    place(())
    top = max(y.values(), default=0.0)
    return {path: top - value for path, value in y.items()}  # the first sibling on top


def _fmt(value: Fraction) -> str:
    return exact(value)


def tree_at(round_events: Sequence[Event], upto: int, vocab: Sequence[str]) -> TreeAtStep:
    """The tree after the round's events 0..upto (the step's event is ``round_events[upto]``)."""
    labels = style.token_labels(vocab)
    paths = _draft_paths(round_events)
    ys = _layout(paths)
    seen = round_events[: upto + 1]
    drafted = {tuple(e.path): e for e in seen if e.kind == "tree_draft"}
    checks = {tuple(e.path): e for e in seen if e.kind in CHECK_KINDS}
    accepted = tuple(sorted(p for p, e in checks.items() if e.accepted))
    finished = any(e.kind in ("correction", "bonus", "result") for e in seen)
    nodes = [Node((), -1, "root", 0.0, ys.get((), 0.0), "the committed prefix (where the round drafts from)")]
    for path, draft in drafted.items():
        check = checks.get(path)
        state = "drafted" if check is None else ("accepted" if check.accepted else "rejected")
        if check is None and finished:
            state = "unchecked"
        hover = f"{labels[draft.token]} at {list(path)}: q′({labels[draft.token]}) = {_fmt(draft.q_token)}"
        if check is not None:
            hover += (f"<br>r(x) = {_fmt(check.r_token)}, min(1, r/q′) = {_fmt(check.acceptance)}"
                      f"<br>draw {check.draw} of 0..{check.draw_range - 1}: {state}")
        nodes.append(Node(path, draft.token, state, float(len(path)), ys[path], hover))
    edges = [(path[:-1], path) for path in drafted]
    end = next((e for e in seen if e.kind in ("correction", "bonus")), None)
    current = _current(round_events[upto] if round_events else None)
    if end is not None:
        parent = accepted[-1] if accepted else ()
        if end.kind == "correction":
            parent = tuple(getattr(end, "path", parent))
        extra = parent + (-1,)
        state = end.kind
        # a correction takes the place of the rejected children (between them); a bonus follows the leaf
        shift = 1.0
        if state == "correction" and any(abs(ys[c] - ys.get(parent, 0.0)) < 0.3 for c in ys if c[:-1] == parent):
            shift = 1.45  # a middle sibling sits there: beside it
        source = "r" if state == "correction" else "p"
        prob = end.residual.prob(end.token) if state == "correction" else end.p.prob(end.token)
        hover = (f"{state} {labels[end.token]}: {source}({labels[end.token]}) = {_fmt(prob)}"
                 f"<br>draw {end.draw} of 0..{end.draw_range - 1}")
        nodes.append(Node(extra, end.token, state, len(parent) + shift, ys.get(parent, 0.0), hover))
        edges.append((parent, extra))
        if round_events[upto] is end:
            current = extra
    depth = max((len(p) for p in paths), default=1)
    return TreeAtStep(tuple(nodes), tuple(edges), current, accepted, depth)


def _current(event: Event | None) -> Path | None:
    if event is None or event.kind not in ("tree_draft", *CHECK_KINDS):
        return None
    return tuple(event.path)


# --- the right panel: the numbers at the step's node ---------------------------------------------------
def _probs(c: Categorical) -> list[Fraction]:
    total = c.total
    return [Fraction(t, total) for t in c.ticket_ints()]


@dataclass(frozen=True)
class Residual:
    """At a check: the residual r before it, its share of p, and the q′ the child was drawn from."""

    r: list[Fraction]
    share: Fraction  # P(every earlier sibling rejected): r·share is what is still to be committed
    q_prime: list[Fraction]


def residual_before(round_events: Sequence[Event], upto: int) -> Residual:
    """The residual the check at ``round_events[upto]`` tests against, from the earlier sibling checks."""
    check = round_events[upto]
    node = tuple(check.path)[:-1]
    share, r = _ONE, _probs(check.p)
    for e in round_events[:upto]:
        if e.kind == "tree_check" and tuple(e.path)[:-1] == node and not e.accepted:
            share *= e.residual_mass
            r = _probs(e.residual)
    draft = next(e for e in round_events if e.kind == "tree_draft" and tuple(e.path) == tuple(check.path))
    return Residual(r, share, _probs(draft.drawn_from))


def correction_share(round_events: Sequence[Event], event: Event) -> Fraction:
    """The share of p left for the correction: the product of the masses after every rejected sibling."""
    node = tuple(getattr(event, "path", ()))
    share = _ONE
    for e in round_events:
        if e.kind == "tree_check" and tuple(e.path)[:-1] == node and not e.accepted:
            share *= e.residual_mass
    return share


def _bar(name: str, cue: style.Cue, labels: list[str], values: list[Fraction], symbol: str,
         highlight: int | None = None) -> dict:
    marks = [i == highlight for i in range(len(labels))] if highlight is not None else None
    return {"type": "bar", "name": name, "x": labels, "y": [float(v) for v in values],
            "customdata": [_fmt(v) for v in values],
            "hovertemplate": f"%{{x}}: {symbol} = %{{customdata}}<extra></extra>",
            "marker": style.bar_marker(cue, highlight=marks), "offsetgroup": "r", "xaxis": "x2", "yaxis": "y2",
            "legendgroup": name}


def _panel(round_events: Sequence[Event], upto: int, labels: list[str]) -> tuple[list[dict], str, str]:
    """(traces, axis title, panel title) of the right panel at the step (no traces: the tree alone)."""
    event = round_events[upto]
    if event.kind == "tree_draft":
        values = _probs(event.drawn_from)
        same = tuple(event.drawn_from.ticket_ints()) == tuple(event.q.ticket_ints())
        where = "q" if same else "q′ (q without the drawn)"
        return ([_bar("q′", style.role("q"), labels, values, "q′", event.token)],
                f"{where}: child #{event.sibling} drawn", "q′ at the node")
    if event.kind == "tree_check":
        res = residual_before(round_events, upto)
        take = [res.share * min(a, b) for a, b in zip(res.r, res.q_prime)]
        left = [res.share * max(a - b, _ZERO) for a, b in zip(res.r, res.q_prime)]
        traces = [
            _bar("min(r,q′)", style.role("overlap"), labels, take, "share·min(r, q′)", event.token),
            _bar("(r−q′)+", style.role("residual"), labels, left, "share·(r − q′)+", event.token),
            {"type": "scatter", "name": "q′", "x": labels, "y": [float(res.share * v) for v in res.q_prime],
             "mode": "markers", "customdata": [_fmt(v) for v in res.q_prime],
             "hovertemplate": "%{x}: q′ = %{customdata}<extra></extra>", "marker": style.scatter_marker("q", 13),
             "xaxis": "x2", "yaxis": "y2"},
        ]
        after = "accepted" if event.accepted else f"rejected → {_short(res.share * event.residual_mass)}"
        return (traces, f"r × its share {_short(res.share)} of p ({after})",
                f"sibling #{event.sibling} of {event.siblings}")
    if event.kind == "correction":
        share = correction_share(round_events, event)
        values = [share * v for v in _probs(event.residual)]
        return ([_bar("last r", style.role("residual"), labels, values, "share·r", event.token)],
                f"the last r × its share {_short(share)}", "correction from r")
    if event.kind == "bonus":
        return ([_bar("p", style.role("p"), labels, _probs(event.p), "p", event.token)],
                "p after the accepted leaf", "bonus from p")
    return [], "", ""


def _panel_top(round_events: Sequence[Event], upto: int) -> float:
    """The right panel's y range: the largest probability the node's panels show (share 1), with headroom."""
    event = round_events[upto]
    node = tuple(getattr(event, "path", ()))
    if event.kind in ("tree_draft", "tree_check"):
        node = node[:-1]
    values = [1 / 20]
    for e in round_events:
        if e.kind in ("tree_draft", "tree_check") and tuple(e.path)[:-1] == node:
            values += [float(v) for v in _probs(e.drawn_from if e.kind == "tree_draft" else e.p)]
    if event.kind == "bonus":
        values += [float(v) for v in _probs(event.p)]
    return min(1.05, 1.15 * max(values))


def _short(value: Fraction) -> str:
    return formats.fit(value, 9, places=4)


# --- the figure ---------------------------------------------------------------------------------------------
def _node_traces(tree: TreeAtStep, labels: list[str], size: int) -> list[dict]:
    spots = {n.path: n for n in tree.nodes}
    data: list[dict] = []
    on_path = set(tree.accepted) | {()}
    for thick in (False, True):  # thin edges first, the accepted path over them
        xs: list[float | None] = []
        ys: list[float | None] = []
        for parent, child in tree.edges:
            if (parent in on_path and child in on_path) != thick or parent not in spots or child not in spots:
                continue
            xs += [spots[parent].x, spots[child].x, None]
            ys += [spots[parent].y, spots[child].y, None]
        data.append({"type": "scatter", "mode": "lines", "x": xs, "y": ys, "hoverinfo": "skip", "showlegend": False,
                     "line": {"color": style.origin("accepted").color if thick else style.LIGHT_GREY,
                              "width": 5 if thick else 2}})
    text_size = max(11, round(size * 0.8))
    for state, (label, colour, symbol) in STATES.items():
        nodes = [n for n in tree.nodes if n.state == state]
        if not nodes and state not in ("drafted", "accepted", "rejected"):
            continue
        open_ = symbol.endswith("open")
        data.append({
            "type": "scatter", "name": label, "mode": "markers+text", "x": [n.x for n in nodes], "cliponaxis": False,
            # an en space first: the label starts clear of the ring around the step's node
            "y": [n.y for n in nodes], "text": [f"\u2002{labels[n.token]}" for n in nodes],
            "textposition": "middle right",
            "textfont": {"size": text_size, "color": style.OKABE_ITO["black"]},
            "customdata": [n.hover for n in nodes], "hovertemplate": "%{customdata}<extra></extra>",
            "marker": {"symbol": symbol, "size": 20 if state != "unchecked" else 14, "color": colour,
                       "line": {"color": colour if open_ else style.OKABE_ITO["black"], "width": 3 if open_ else 1}}})
    root = spots[()]
    data.append({"type": "scatter", "mode": "markers+text", "x": [root.x], "y": [root.y], "text": ["prefix"],
                 "cliponaxis": False,
                 "textposition": "bottom center", "textfont": {"size": text_size}, "showlegend": False,
                 "hovertemplate": f"{root.hover}<extra></extra>",
                 "marker": {"symbol": "square", "size": 16, "color": style.OKABE_ITO["black"]}})
    if tree.current in spots:
        now = spots[tree.current]
        data.append({"type": "scatter", "name": "this step", "mode": "markers", "x": [now.x], "y": [now.y],
                     "hoverinfo": "skip", "showlegend": False,
                     "marker": {"symbol": "circle-open", "size": 36, "color": style.OKABE_ITO["black"],
                                "line": {"color": style.OKABE_ITO["black"], "width": 3}}})
    return data


def tree_figure(round_events: Sequence[Event], upto: int, vocab: Sequence[str], *, presenter: bool = False,
                title: str | None = None) -> go.Figure:
    """The tree after the round's events 0..upto, with the numbers of the step's node beside it."""
    labels = style.token_labels(vocab)
    tree = tree_at(round_events, upto, vocab)
    size = style.font_size(presenter)
    panel, axis_title, panel_title = _panel(round_events, upto, labels)
    split = 0.56 if panel else 1.0
    leaves = max((n.y for n in tree.nodes), default=0.0)
    data = _node_traces(tree, labels, size) + panel
    axes = {
        "xaxis": {"domain": [0, split - 0.04 if panel else 1],
                  "range": [-0.3, max(n.x for n in tree.nodes) + (0.9 if panel else 0.6)],
                  "tickvals": list(range(tree.depth + 1)), "ticktext": ["prefix"] + [str(i) for i in range(tree.depth)],
                  "title": {"text": "position", "font": {"size": round(size * 0.8)}},
                  "fixedrange": True, "showgrid": False, "zeroline": False},
        "yaxis": {"range": [-0.7, leaves + 0.7], "visible": False, "fixedrange": True},
    }
    if panel:
        small = {"size": round(size * 0.8)}
        # the panel is narrow: small tick labels, on their side when many
        axes["xaxis2"] = {"domain": [split + 0.04, 1], "anchor": "y2", "type": "category", "categoryorder": "array",
                          "categoryarray": labels, "range": [-0.5, len(labels) - 0.5], "fixedrange": True,
                          "title": {"text": axis_title, "font": small}, "tickfont": {"size": round(size * 0.7)},
                          "tickangle": 0 if len(labels) <= 6 else -90}
        # one scale for every sibling of the node: the bars shrink with r's share of p
        axes["yaxis2"] = {"anchor": "x2", "range": [0, _panel_top(round_events, upto)], "fixedrange": True,
                          "side": "right", "title": {"text": ""}, "nticks": 5}
    heading = title or (f"Draft tree: {panel_title}" if panel_title else "Draft tree")
    # a little taller than the other step charts outside presenter mode: the legend of states takes two rows
    layout = style.layout(title=heading, presenter=presenter, showlegend=True, barmode="stack",
                          height=None if presenter else style.CHART_HEIGHT + 60, **axes)
    layout["legend"]["font"] = {"size": round(size * 0.75)}
    return style.figure(data, layout)


def tree_nodes(depth: int, width: int) -> int:
    """Drafted nodes of a full tree: width + width² + … + width^depth."""
    return sum(width**level for level in range(1, depth + 1))
