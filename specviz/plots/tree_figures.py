"""The draft tree of one round, node by node: a pure figure builder from trace events to a plotly Figure.

Left panel: the tree the draft proposed (levels left to right, the committed prefix as the root), each
node a token coloured *and shaped* by what happened to it so far: drafted and not yet checked (orange
diamond), accepted (green circle), rejected (vermillion thin x), never checked (grey open circle), the
correction drawn after every sibling was rejected (vermillion triangle), the bonus (purple star); traversal
verification's walk adds pruned nodes (grey open diamond: under a node entered with weight 0, never tested), its
kept node's whole path (accepted, its ancestors untested) and its rejected subtrees' edges struck out (dotted). The
node of the current step wears a black ring; the accepted path is drawn thick. Every shown leaf has a row of
its own, and the correction or the bonus a row of its own too, so no marker lies on a label; a tree wider
than ``ROW_BUDGET`` rows folds the subtrees off the checked path (``unfolded``: the way to the step's node
stays open, the rest level by level while it fits), each folded node labelled with the drafts it hides.

Right panel, at the step's node: the draft q′ a child was drawn from; at a check, the residual r the
sibling is tested against, split into min(r, q′) (what this sibling can take) and (r − q′)+ (what is left
for the next sibling or the correction), with q′ as diamonds, each at the value the narration states; r's
share of p (the probability that every earlier sibling was rejected) is a series of its own, a bar on [0, 1]
above them; at a correction the last r and its share; at a bonus p. At traversal verification's test of a node:
the weights it reads (its parent's running weight, the weight it entered with, the weight it is tested with and,
after a rejection, the parent's new weight); at its correction the kept node's r.

Reads the tree events of ``specviz.core.trace`` (``tree_draft``, ``tree_check``, ``traversal_check``, the tree's
``correction``, ``bonus``, ``stop``, ``result``) by their documented fields; exact values in every hover.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import plotly.graph_objects as go  # noqa: F401 - the return type

from .. import formats
from ..core import Categorical
from ..core.trace import Event, TraversalCheckEvent, TraversalCorrectionEvent, TreeCheckEvent
from ..narration.counting import node as node_name
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
    "pruned": ("pruned: never tested", style.GREY, "diamond-open"),
    "correction": ("correction", style.origin("correction").color, "triangle-up"),
    "bonus": ("bonus", style.origin("bonus").color, "star"),
}


def _kinds(base: type) -> tuple[str, ...]:
    """The kinds of an event class and of every class of the trace derived from it, each once."""
    kinds = [base.kind]  # type: ignore[attr-defined]
    for sub in base.__subclasses__():
        kinds += _kinds(sub)
    return tuple(dict.fromkeys(kinds))


# a node's check, of every rule that checks tree nodes (recursive rejection, SGLang's thresholds, traversal), from the
# trace's classes: a new check event is drawn as a check
CHECK_KINDS = _kinds(TreeCheckEvent)
WALK = TraversalCheckEvent.kind  # traversal verification's check: a node tested from the leaves up, its whole path kept
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
    folded: int = 0  # drafts hidden below this node (its subtree folded: off the checked path)


@dataclass(frozen=True)
class TreeAtStep:
    """The tree at one step: its nodes (root first), the edges, the current node and the accepted path."""

    nodes: tuple[Node, ...]
    edges: tuple[tuple[Path, Path], ...]
    current: Path | None
    accepted: tuple[Path, ...]
    depth: int
    struck: tuple[Path, ...] = ()  # nodes in a subtree traversal verification rejected: their edges struck out


def _draft_paths(events: Sequence[Event]) -> list[Path]:
    return [tuple(e.path) for e in events if e.kind == "tree_draft"]


def _children(paths: Sequence[Path]) -> dict[Path, list[Path]]:
    children: dict[Path, list[Path]] = {(): []}
    for path in paths:
        children.setdefault(path, [])
        children.setdefault(path[:-1], []).append(path)
    return {path: sorted(kids) for path, kids in children.items()}


def _layout(children: dict[Path, list[Path]], expanded: set[Path], extra_parent: Path | None = None
            ) -> dict[Path, float]:
    """y of every shown node: each shown leaf (a folded node counts as one) its own row, a parent the mean of its
    children; the correction or bonus (``extra_parent + (-1,)``) a row of its own right after its parent's rows,
    so that its marker never lies on another node's label."""
    y: dict[Path, float] = {}
    slot = 0

    def place(path: Path) -> None:
        nonlocal slot
        kids = children.get(path, []) if path in expanded else []
        for kid in kids:
            place(kid)
        if kids:
            y[path] = sum(y[kid] for kid in kids) / len(kids)
        else:
            y[path] = float(slot)
            slot += 1
        if path == extra_parent:
            y[path + (-1,)] = float(slot)
            slot += 1

    place(())
    top = max(y.values(), default=0.0)
    return {path: top - value for path, value in y.items()}  # the first sibling on top


def rows(children: dict[Path, list[Path]], expanded: set[Path]) -> int:
    """Rows the shown tree takes: its shown leaves (a folded node is one)."""
    def count(path: Path) -> int:
        kids = children.get(path, []) if path in expanded else []
        return sum(count(kid) for kid in kids) if kids else 1

    return count(())


def unfolded(children: dict[Path, list[Path]], focus: Path, budget: int) -> set[Path]:
    """The nodes whose children are shown: every node on the way to ``focus`` (focus too), then the others level
    by level while the tree fits ``budget`` rows; the rest are folded (their subtree shown as a count)."""
    expanded = {focus[:i] for i in range(len(focus) + 1)}
    inner = sorted((path for path, kids in children.items() if kids and path not in expanded),
                   key=lambda path: (len(path), path))
    for path in inner:
        if path[:-1] in expanded and rows(children, expanded | {path}) <= budget:
            expanded.add(path)
    return expanded


def _fmt(value: Fraction) -> str:
    return exact(value)


ROW_BUDGET = {False: 10, True: 8}  # rows a tree may take before subtrees off the checked path fold


def kept_paths(seen: Sequence[Event]) -> tuple[Path, ...]:
    """The nodes kept so far (root excluded), in path order: each accepted check's node, and for traversal
    verification every node on the way to it (a kept node keeps its whole path; its ancestors were never tested)."""
    kept: set[Path] = set()
    for e in seen:
        if e.kind in CHECK_KINDS and e.accepted:
            path = tuple(e.path)
            kept.update(path[:i] for i in range(1, len(path) + 1) if e.kind == WALK or i == len(path))
    return tuple(sorted(kept))


def pruned_paths(seen: Sequence[Event], drafted: Sequence[Path]) -> set[Path]:
    """Drafted nodes the traversal walk never tests: those under a node it entered with weight 0 (tested alone)."""
    tops = [tuple(e.path) for e in seen if e.kind == WALK and e.pruned]
    return {path for path in drafted for top in tops if len(path) > len(top) and path[: len(top)] == top}


def struck_paths(seen: Sequence[Event], drafted: Sequence[Path]) -> set[Path]:
    """The nodes of the subtrees traversal verification rejected so far (each tested and rejected, or pruned):
    their edges are struck out. Empty for the other rules (their rejected subtrees are never tested)."""
    rejected = {tuple(e.path) for e in seen if e.kind == WALK and not e.accepted}
    return rejected | pruned_paths(seen, drafted) if rejected else set()


def focus_of(round_events: Sequence[Event], upto: int) -> Path:
    """Where the step looks: the node whose children are drafted or checked (and a child accepted here, whose
    children come next); the node traversal verification tests (its subtree was walked before it); a correction's
    node; the accepted leaf at a bonus; the walk's end after it."""
    seen = round_events[: upto + 1]
    event = round_events[upto]
    accepted = kept_paths(seen)
    end = next((e for e in seen if e.kind in ("correction", "bonus")), None)
    if event.kind == "tree_draft":
        return tuple(event.path)[:-1]
    if event.kind == WALK:
        return tuple(event.path)
    if event.kind == "tree_check":
        return tuple(event.path) if event.accepted else tuple(event.path)[:-1]
    if end is not None and end.kind == "correction":
        return tuple(getattr(end, "path", ()))
    return accepted[-1] if accepted else ()


def tree_at(round_events: Sequence[Event], upto: int, vocab: Sequence[str], *, budget: int = 1000) -> TreeAtStep:
    """The tree after the round's events 0..upto (the step's event is ``round_events[upto]``), folded to
    ``budget`` rows around the step's focus (``focus_of``): a folded node's label counts its hidden drafts."""
    labels = style.token_labels(vocab)
    paths = _draft_paths(round_events)
    children = _children(paths)
    seen = round_events[: upto + 1]
    drafted = {tuple(e.path): e for e in seen if e.kind == "tree_draft"}
    checks = {tuple(e.path): e for e in seen if e.kind in CHECK_KINDS}
    accepted = kept_paths(seen)
    pruned = pruned_paths(seen, list(drafted))
    finished = any(e.kind in ("correction", "bonus", "result") for e in seen)
    end = next((e for e in seen if e.kind in ("correction", "bonus")), None)
    parent = None
    if end is not None:
        parent = tuple(getattr(end, "path", ())) if end.kind == "correction" else (accepted[-1] if accepted else ())
    expanded = unfolded(children, focus_of(round_events, upto), budget - (end is not None))  # its own row
    ys = _layout(children, expanded, parent)
    nodes = [Node((), -1, "root", 0.0, ys.get((), 0.0), "the committed prefix (where the round drafts from)")]
    for path, draft in drafted.items():
        if path not in ys:  # inside a folded subtree
            continue
        check = checks.get(path)
        state = _state(path, check, accepted, pruned, finished)
        where = ", ".join(str(i + 1) for i in path)  # paths count from 1, as the narration reads them
        hover = f"{labels[draft.token]} at [{where}]: q′({labels[draft.token]}) = {_fmt(draft.q_token)}"
        hover += _outcome_hover(check, state)
        hidden = sum(1 for other in drafted if len(other) > len(path) and other[: len(path)] == path) \
            if path not in expanded else 0
        if hidden:
            hover += f"<br>{hidden} draft{'s' if hidden > 1 else ''} below, folded (off the checked path)"
        nodes.append(Node(path, draft.token, state, float(len(path)), ys[path], hover, hidden))
    edges = [(path[:-1], path) for path in drafted if path in ys]
    current = _current(round_events[upto] if round_events else None)
    if end is not None:
        extra = parent + (-1,)
        source = "r" if end.kind == "correction" else "p"
        prob = end.residual.prob(end.token) if end.kind == "correction" else end.p.prob(end.token)
        hover = (f"{end.kind} {labels[end.token]}: {source}({labels[end.token]}) = {_fmt(prob)}"
                 f"<br>draw {end.draw} of 0..{end.draw_range - 1}")
        nodes.append(Node(extra, end.token, end.kind, len(parent) + 1.0, ys[extra], hover))
        edges.append((parent, extra))
        if round_events[upto] is end:
            current = extra
    depth = max((len(p) for p in paths), default=1)
    struck = tuple(sorted(path for path in struck_paths(seen, list(drafted)) if path in ys))
    return TreeAtStep(tuple(nodes), tuple(edges), current, accepted, depth, struck)


def _state(path: Path, check: Event | None, kept: Sequence[Path], pruned: set[Path], finished: bool) -> str:
    """A drafted node's state: kept (its check accepted, or on traversal's kept path), rejected, pruned (under a
    node traversal entered with weight 0), or drafted (not checked yet; 'unchecked' once the round ended)."""
    if path in kept:
        return "accepted"
    if check is not None:
        return "rejected"
    if path in pruned:
        return "pruned"
    return "unchecked" if finished else "drafted"


def _outcome_hover(check: Event | None, state: str) -> str:
    """What happened to a node, for its hover: its check's numbers, or why it was kept or pruned untested."""
    if check is not None and check.kind == WALK:
        return (f"<br>entered with weight {_fmt(check.entry_weight)}, tested with weight {_fmt(check.acceptance)}"
                f"<br>draw {check.draw} of 0..{check.draw_range - 1}: {'kept' if check.accepted else 'rejected'}")
    if check is not None:
        return (f"<br>r(x) = {_fmt(check.r_token)}, min(1, r/q′) = {_fmt(check.acceptance)}"
                f"<br>draw {check.draw} of 0..{check.draw_range - 1}: {state}")
    if state == "accepted":
        return "<br>kept without a test of its own: a node below it was kept, with its whole path"
    if state == "pruned":
        return "<br>never tested: a node above it entered with weight 0, so nothing under it can be kept"
    return ""


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


SHARE_NAME = "r's share of p"  # P(every earlier sibling at the node was rejected): the part of p r still commits


def _share_bar(share: Fraction, meaning: str) -> dict:
    """The residual's share of p as its own series: one horizontal bar on [0, 1] above the token bars."""
    inside = share >= Fraction(3, 5)  # room for its label inside the bar; else just beyond its end
    return {"type": "bar", "orientation": "h", "name": SHARE_NAME, "x": [float(share)], "y": ["share"],
            "xaxis": "x3", "yaxis": "y3", "width": 0.8, "text": [f"{SHARE_NAME} {_equals(share)}"],
            "textposition": "inside" if inside else "outside", "insidetextanchor": "start", "constraintext": "none",
            "textfont": {"color": "#FFFFFF" if inside else style.OKABE_ITO["black"]},
            "cliponaxis": False, "customdata": [_fmt(share)], "showlegend": False,
            "hovertemplate": f"{SHARE_NAME} ({meaning}) = %{{customdata}}<extra></extra>",
            "marker": {"color": style.OKABE_ITO["black"], "opacity": 0.55, "line": {"color": "#000000", "width": 1}}}


def _panel(round_events: Sequence[Event], upto: int, labels: list[str]) -> tuple[list[dict], str, str]:
    """(traces, axis title, panel title) of the right panel at the step (no traces: the tree alone).

    Every quantity at its own value, one value per name: r and q′ as the narration states them, and r's share
    of p as its own series (``SHARE_NAME``), not folded into the bars.
    """
    event = round_events[upto]
    if event.kind == WALK:
        weights = walk_weights(event)
        names = walk_categories(event)
        traces = [_bar(w.name, style.cue_named(w.cue), names, [w.value if v is w else _ZERO for v in weights],
                       w.meaning) for w in weights]
        return traces, walk_axis_title(event, labels), f"the weights at {node_name(event.path)}"
    if type(event) is TraversalCorrectionEvent:  # exactly: a registry of one
        return ([_bar("r", style.role("residual"), labels, _probs(event.residual), "r", event.token)],
                traversal_correction_axis(event), f"correction from r at {node_name(event.path)}")
    if event.kind == "tree_draft" and hasattr(event, "rank"):  # SGLang's top-K drafting: q, the chosen token marked
        return ([_bar("q", style.role("q"), labels, _probs(event.q), "q", event.token)],
                f"q: child {event.sibling + 1} is its top {event.rank + 1} (no draw)", "q at the node")
    if event.kind == "tree_draft":
        values = _probs(event.drawn_from)
        same = tuple(event.drawn_from.ticket_ints()) == tuple(event.q.ticket_ints())
        where = "q" if same else "q′ (q without the drawn)"
        return ([_bar("q′", style.role("q"), labels, values, "q′", event.token)],
                f"{where}: child {event.sibling + 1} drawn", "q′ at the node")
    if event.kind == "tree_check":
        res = residual_before(round_events, upto)
        take = [min(a, b) for a, b in zip(res.r, res.q_prime)]
        left = [max(a - b, _ZERO) for a, b in zip(res.r, res.q_prime)]
        traces = [
            _bar("min(r,q′)", style.role("overlap"), labels, take, "min(r, q′)", event.token),
            _bar("(r−q′)+", style.role("residual"), labels, left, "(r − q′)+", event.token),
            {"type": "scatter", "name": "q′", "x": labels, "y": [float(v) for v in res.q_prime],
             "mode": "markers", "customdata": [_fmt(v) for v in res.q_prime],
             "hovertemplate": "%{x}: q′ = %{customdata}<extra></extra>", "marker": style.scatter_marker("q", 13),
             "xaxis": "x2", "yaxis": "y2"},
            _share_bar(res.share, "every earlier sibling rejected"),
        ]
        after = "accepted" if event.accepted else f"rejected: share → {_short(res.share * event.residual_mass)}"
        sibling = event.sibling + 1
        return (traces, f"r at sibling {sibling} ({after})", f"sibling {sibling} of {event.siblings}")
    if event.kind == "correction":
        share = correction_share(round_events, event)
        return ([_bar("last r", style.role("residual"), labels, _probs(event.residual), "r", event.token),
                 _share_bar(share, "every sibling rejected")],
                "the last r, after every sibling", "correction from r")
    if event.kind == "bonus":
        return ([_bar("p", style.role("p"), labels, _probs(event.p), "p", event.token)],
                "p after the accepted leaf", "bonus from p")
    return [], "", ""


@dataclass(frozen=True)
class WalkWeight:
    """One weight traversal verification reads at a node's test: its name on the panel's axis, value and cue."""

    name: str
    value: Fraction
    cue: str  # a key of style.ROLES or style.ORIGINS
    meaning: str  # what it is, for the hover


def walk_weights(event: TraversalCheckEvent) -> list[WalkWeight]:
    """The weights of one tested node, in the walk's order: its parent's running weight w as it entered, the weight
    it entered with, the weight it is tested with (after its children were rejected), and after a rejection the
    parent's new weight."""
    parent = "the root" if len(event.path) == 1 else node_name(event.path[:-1])
    weights = [WalkWeight("parent's w", event.parent_weight, "p", f"w, the running weight of its parent ({parent})"),
               WalkWeight("entered", event.entry_weight, "q", "min(1, w·r(x)/q′(x)): the weight it entered with"),
               WalkWeight("tested", event.acceptance, "accepted" if event.accepted else "correction",
                          "its weight when tested (after its children's rejections): P(its path is kept)")]
    if event.parent_weight_after is not None:
        weights.append(WalkWeight("parent's w after", event.parent_weight_after, "residual",
                                  f"ρ/(ρ + 1 − w): the parent's ({parent}) weight after this rejection"))
    return weights


def walk_categories(event: TraversalCheckEvent) -> list[str]:
    """The weights' names on a plotly axis, "parent's" on a line of its own: side by side in the narrow panel."""
    return [w.name.replace("parent's ", "parent's<br>") for w in walk_weights(event)]


def walk_axis_title(event: TraversalCheckEvent, labels: Sequence[str]) -> str:
    """The weights panel's axis: the token's r and q′ its entry weight came from."""
    x = labels[event.token]
    return f"r({x}) = {_short(event.r_token)}, q′({x}) = {_short(event.q_token)}"


def traversal_correction_axis(event: TraversalCorrectionEvent) -> str:
    """The correction panel's axis: whose residual it is and the weight that node was kept with."""
    if not event.path:
        return "the root's r, after every child was rejected"
    return f"r at {node_name(event.path)}, kept with weight {_short(event.weight)}"


def _panel_top(round_events: Sequence[Event], upto: int) -> float:
    """The right panel's y range: the largest probability the node's panels show (q′, every r), with headroom,
    one scale for every sibling of the node."""
    event = round_events[upto]
    if event.kind == WALK:  # weights, on [0, 1]
        return 1.05
    node = tuple(getattr(event, "path", ()))
    if event.kind in ("tree_draft", "tree_check"):
        node = node[:-1]
    values = [1 / 20]
    for e in round_events:
        if e.kind == "tree_draft" and tuple(e.path)[:-1] == node:
            values += [float(v) for v in _probs(e.drawn_from)]
        if e.kind == "tree_check" and tuple(e.path)[:-1] == node:
            values += [float(v) for v in _probs(e.p)]
            values += [float(v) for v in _probs(e.residual)] if e.residual is not None else []
    if event.kind == "bonus":
        values += [float(v) for v in _probs(event.p)]
    if event.kind == "correction":
        values += [float(v) for v in _probs(event.residual)]
    return min(1.05, 1.15 * max(values))


def _equals(value: Fraction) -> str:
    """'= 9/13' or '≈ 0.5452' (a value too long to show whole)."""
    text = _short(value)
    return text if text.startswith("≈") else f"= {text}"


def _short(value: Fraction) -> str:
    return formats.fit(value, 9, places=4)


# --- the figure ---------------------------------------------------------------------------------------------
# the tree chart's plot area at 1280 px (measured in Chromium: the figure less its margins; the tree has no
# y axis, so its left margin is small: TREE_MARGIN)
PLOT_WIDTH = {False: 400, True: 555}
TREE_MARGIN = 16


def left_margin(figure: go.Figure, presenter: bool) -> int:
    """The tree's left margin: TREE_MARGIN, or what the root's tick label "prefix" overhangs the plot by.

    The label is centred on the root's column, a quarter column from the plot's left edge; when the columns
    are narrow (a deep tree) half of it sticks out, and plotly's automargin would grow the margin and draw
    the chart a second time (measured in Chromium: 19 px at depth 3, 21 px in presenter mode).
    """
    axis = figure.layout.xaxis
    x_range, domain = list(axis.range or (0, 1)), list(axis.domain or (0, 1))
    column = PLOT_WIDTH[presenter] * (domain[1] - domain[0]) / (x_range[1] - x_range[0])
    half_label = 0.65 * style.font_size(presenter) * len("prefix") / 2
    return max(TREE_MARGIN, math.ceil(half_label - (0 - x_range[0]) * column) + 1)
MARKER, RING = 20, 36  # px: a node's marker, and the ring around the step's node


def _label_text(node: Node, labels: list[str]) -> str:
    return labels[node.token] + (f" ▸+{node.folded}" if node.folded else "")


def label_layout(tree: TreeAtStep, labels: list[str], size: int, columns_px: float) -> list[tuple[int, int]]:
    """(font size, offset marker size) of each shown node's label, root excluded, in ``tree.nodes`` order.

    A label starts right of an invisible marker (plotly sets text off by its marker's size): as wide as the
    ring on the step's node, else a little wider than a node. An inner node's label must end before the
    markers of its children in the next column (the ring, where the step's node is one of them), so it
    shrinks to its column where it must; a leaf's label has its row to itself. Never below 11 px.
    """
    inner = {parent for parent, _ in tree.edges}
    current = tree.current
    out = []
    for node in tree.nodes:
        if node.path == ():
            continue
        own = RING + 2 if node.path == current else MARKER + 6
        font = round(size * 0.8)
        if node.path in inner:
            beside = RING if current is not None and current[:-1] == node.path else MARKER
            room = columns_px - own / 2 - beside / 2 - 3
            font = min(font, int(room / (0.56 * max(1, len(_label_text(node, labels))))))
        out.append((max(11, font), own))
    return out


def _edge_kind(parent: Path, child: Path, on_path: set[Path], struck: set[Path]) -> str:
    if parent in on_path and child in on_path:
        return "thick"
    return "struck" if child in struck else "thin"


def _node_traces(tree: TreeAtStep, labels: list[str], size: int, columns_px: float) -> list[dict]:
    spots = {n.path: n for n in tree.nodes}
    data: list[dict] = []
    on_path = set(tree.accepted) | {()}
    struck = set(tree.struck)
    lines = {"thin": {"color": style.LIGHT_GREY, "width": 2},
             "struck": {"color": style.GREY, "width": 2, "dash": "dot"},  # a subtree traversal rejected
             "thick": {"color": style.origin("accepted").color, "width": 5}}
    for kind, line in lines.items():  # thin edges first, the accepted path over them
        xs: list[float | None] = []
        ys: list[float | None] = []
        for parent, child in tree.edges:
            if _edge_kind(parent, child, on_path, struck) != kind or parent not in spots or child not in spots:
                continue
            xs += [spots[parent].x, spots[child].x, None]
            ys += [spots[parent].y, spots[child].y, None]
        data.append({"type": "scatter", "mode": "lines", "x": xs, "y": ys, "hoverinfo": "skip", "showlegend": False,
                     "line": line})
    text_size = max(11, round(size * 0.8))
    for state, (label, colour, symbol) in STATES.items():
        nodes = [n for n in tree.nodes if n.state == state]
        if not nodes:  # the legend names the states on screen (one row where it can)
            continue
        open_ = symbol.endswith("open")
        data.append({
            "type": "scatter", "name": label, "mode": "markers", "x": [n.x for n in nodes], "cliponaxis": False,
            "y": [n.y for n in nodes], "customdata": [n.hover for n in nodes],
            "hovertemplate": "%{customdata}<extra></extra>",
            "marker": {"symbol": symbol, "size": 14 if state in ("unchecked", "pruned") else MARKER, "color": colour,
                       "line": {"color": colour if open_ else style.OKABE_ITO["black"], "width": 3 if open_ else 1}}})
    # the labels, one trace: placed right of an invisible marker as wide as the ring, so that every label
    # starts clear of the ring round the step's node (plotly sets text off by its marker's size)
    shown = [n for n in tree.nodes if n.path != ()]
    placed = label_layout(tree, labels, size, columns_px)
    data.append({"type": "scatter", "name": "labels", "mode": "markers+text", "showlegend": False, "hoverinfo": "skip",
                 "x": [n.x for n in shown], "y": [n.y for n in shown], "cliponaxis": False,
                 "text": [_label_text(n, labels) for n in shown], "textposition": "middle right",
                 "textfont": {"size": [font for font, _ in placed], "color": style.OKABE_ITO["black"]},
                 "marker": {"size": [offset for _, offset in placed], "opacity": 0, "color": "#FFFFFF"}})
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
                     "marker": {"symbol": "circle-open", "size": RING, "color": style.OKABE_ITO["black"],
                                "line": {"color": style.OKABE_ITO["black"], "width": 3}}})
    return data


def tree_figure(round_events: Sequence[Event], upto: int, vocab: Sequence[str], *, presenter: bool = False,
                title: str | None = None) -> go.Figure:
    """The tree after the round's events 0..upto, with the numbers of the step's node beside it."""
    labels = style.token_labels(vocab)
    tree = tree_at(round_events, upto, vocab, budget=ROW_BUDGET[presenter])
    size = style.font_size(presenter)
    panel, axis_title, panel_title = _panel(round_events, upto, labels)
    split = 0.6 if panel else 1.0
    leaves = max((n.y for n in tree.nodes), default=0.0)
    x_range = [-0.25, max(n.x for n in tree.nodes) + 0.6]
    column = PLOT_WIDTH[presenter] * ((split - 0.04) if panel else 1) / (x_range[1] - x_range[0])
    data = _node_traces(tree, labels, size, column) + panel
    axes = {
        "xaxis": {"domain": [0, split - 0.04 if panel else 1], "range": x_range,
                  "tickvals": list(range(tree.depth + 1)),
                  "ticktext": ["prefix"] + [str(i + 1) for i in range(tree.depth)],  # positions from 1
                  "title": {"text": "position", "font": {"size": round(size * 0.7)}, "standoff": 2},
                  "fixedrange": True, "showgrid": False, "zeroline": False},
        "yaxis": {"range": [-0.7, leaves + 0.7], "visible": False, "fixedrange": True},
    }
    if panel:
        small = {"size": round(size * 0.8)}
        # the panel is narrow: small tick labels, on their side when many
        event = round_events[upto]
        categories = walk_categories(event) if event.kind == WALK else labels
        axes["xaxis2"] = style.category_axis(categories, domain=[split + 0.04, 1], anchor="y2",
                                             title={"text": axis_title, "font": small},
                                             tickfont={"size": round(size * 0.7)},
                                             tickangle=0 if len(labels) <= 6 else -90)
        # one scale for every sibling of the node; r's share of p has its own strip above the bars
        shared = any(t.get("yaxis") == "y3" for t in panel)
        axes["yaxis2"] = {"anchor": "x2", "range": [0, _panel_top(round_events, upto)], "fixedrange": True,
                          "side": "right", "title": {"text": "probability", "font": small}, "nticks": 5,
                          "domain": [0, 0.74 if shared else 1]}
        if shared:
            axes["xaxis3"] = {"domain": axes["xaxis2"]["domain"], "anchor": "y3", "range": [0, 1],
                              "fixedrange": True, "tickvals": [0, 0.5, 1], "tickfont": {"size": round(size * 0.6)},
                              "side": "top", "showgrid": False}
            axes["yaxis3"] = {"domain": [0.84, 1], "anchor": "x3", "fixedrange": True, "showticklabels": False}
    heading = title or (f"Draft tree: {panel_title}" if panel_title else "Draft tree")
    # a little taller than the other step charts outside presenter mode: the legend of states takes two rows
    layout = style.layout(title=heading, presenter=presenter, showlegend=True, barmode="stack",
                          height=None if presenter else style.CHART_HEIGHT + 60, **axes)
    layout["legend"]["font"] = {"size": round(size * (0.65 if presenter else 0.75))}  # one row where it can
    return style.figure(data, layout)


def tree_nodes(depth: int, width: int) -> int:
    """Drafted nodes of a full tree: width + width² + … + width^depth."""
    return sum(width**level for level in range(1, depth + 1))
