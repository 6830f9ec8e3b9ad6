"""Every trace event as a frame: plain data the browser player draws, one builder per event class.

``BUILDERS`` maps each event class of ``specviz.core.trace`` to the function that draws it: its main chart (a bar
set, the tree with its node's panel, the block decision's law of τ, the round's summary) and its draw strip. A
class is looked up exactly (never through its base class), so a new event class is drawn only once it has an
entry, and ``tests/player/test_frames.py`` fails naming any class of ``core/trace.py`` without one. To draw a new
event, write ``@draws(NewEvent)`` over a function ``(event, ctx) -> Drawing``; everything else a frame shows (the
caption, the headline and the narration's lines, the committed text, the statistics) is built here for every
event alike.

A frame names its elements by stable keys (``bar:p:3``, ``node:1.2``, ``chip:c4``) and says which element a new
one grows out of (``primitives.grows``): the motion between two frames is data, the browser only plays it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cached_property
from typing import Any, NamedTuple, TypeVar

from .. import narration
from ..core.block_verifier import tau_distribution
from ..core.trace import (
    BlockCheckEvent,
    BlockDecisionEvent,
    BonusEvent,
    CheckEvent,
    CorrectionEvent,
    DraftEvent,
    EnsembleCheckEvent,
    Event,
    ExactMatchCheckEvent,
    ExactMatchCorrectionEvent,
    ExactMatchTreeCheckEvent,
    MedusaBonusEvent,
    MedusaCheckEvent,
    MedusaCorrectionEvent,
    ResultEvent,
    ScaledCorrectionEvent,
    StopEvent,
    ThresholdCheckEvent,
    ThresholdCorrectionEvent,
    ThresholdTreeCheckEvent,
    ThresholdTreeCorrectionEvent,
    TopKDraftEvent,
    TreeCheckEvent,
    TreeCorrectionEvent,
    TreeDraftEvent,
)
from ..narration.block import names as block_names
from ..narration.counting import node as node_name
from ..narration.counting import nth
from ..playground import jump
from ..playground.narrative import StepView
from ..plots import engine_rule_figures as engine_plots
from ..plots import step_figures as chain_plots
from ..plots import step_html, step_page, style
from ..plots import tree_figures as tree_plots
from ..scenario import Scenario
from . import primitives as pr
from .primitives import Data

E = TypeVar("E")


@dataclass(frozen=True)
class Context:
    """What a builder may read besides its event: the scenario, the round's events and where the event is."""

    scenario: Scenario
    events: tuple[Event, ...]  # the round's events, in order
    upto: int  # the event's index among them
    presenter: bool

    @property
    def event(self) -> Event:
        return self.events[self.upto]

    @cached_property
    def labels(self) -> list[str]:
        """The tokens as people read them (punctuation quoted and named: ‘.’ period), plain text: the browser
        writes every label as text, never as markup."""
        return [style.token_label(v) for v in self.scenario.vocab]

    @cached_property
    def chart_labels(self) -> list[str]:
        """The labels escaped for plotly, as ``plots.engine_rule_figures``' strip builders take them (and unescape)."""
        return style.token_labels(self.scenario.vocab)

    @cached_property
    def tree(self) -> bool:
        return tree_plots.is_tree_round(self.events)


class Drawing(NamedTuple):
    """What a builder draws: the main chart and the draw strip (None: the step draws nothing)."""

    chart: Data
    strip: Data | None = None
    layout: str | None = None  # the page's layout for this step (None: the event kind's, step_page.layout_of)


Builder = Callable[[Any, Context], Drawing]
BUILDERS: dict[type, Builder] = {}


def draws(*classes: type) -> Callable[[Builder], Builder]:
    """Register a builder for these event classes (each exactly: a subclass needs its own entry)."""

    def register(builder: Builder) -> Builder:
        for cls in classes:
            if cls in BUILDERS:
                raise AssertionError(f"{cls.__name__} has two frame builders")  # a bug in this module
            BUILDERS[cls] = builder
        return builder

    return register


def drawing(event: Event, ctx: Context) -> Drawing:
    """The event's chart and strip, by its class's builder. A class without one is a bug in specviz (an
    AssertionError naming it): every event class of ``core/trace.py`` has its entry, as the tests check."""
    builder = BUILDERS.get(type(event))
    if builder is None:
        raise AssertionError(f"the step player has no frame builder for {type(event).__name__} (kind {event.kind!r}): "
                             "add one to specviz.player.frames.BUILDERS")
    return builder(event, ctx)


# --- chains: draft, check, residual, bonus, the round's summary ------------------------------------------------
def _verdict(accepted: bool) -> str:
    return "accepted ✓" if accepted else "rejected ✗"


def _p_and_q(event: CheckEvent | BlockCheckEvent, ctx: Context, *, q_opacity: float = 1.0,
             q_name: str = "draft q") -> list[Data]:
    p, q, x = pr.probs(event.p), pr.probs(event.q), event.token
    return [pr.series("p", "target p", "p", p, slot=0, slots=2, highlight=x, symbol="p"),
            pr.series("q", q_name, "q", q, slot=1, slots=2, highlight=x if q_opacity == 1 else None,
                      opacity=q_opacity, symbol="q")]


def _no_draw_needed(event: CheckEvent | TreeCheckEvent, name: str) -> Data | None:
    """A strip's place for a check that rejects whatever u is (p(x) = 0, or r(x) = 0 in a tree): no draw."""
    if event.acceptance != 0:
        return None
    return pr.no_draw("Acceptance draw", f"{name} = 0: rejected, no draw needed")


def _acceptance(event: CheckEvent | TreeCheckEvent, name: str = "p(x)", title: str | None = None) -> Data:
    """The acceptance draw against min(1, p/q) (a tree: r/q′), or why none is needed."""
    found = _no_draw_needed(event, name)
    if found is not None:
        return found
    drawn = chain_plots.acceptance_draw_strip(event)
    return pr.strip(replace(drawn, title=title) if title else drawn)


@draws(DraftEvent)
def draft(event: DraftEvent, ctx: Context) -> Drawing:
    q, x = pr.probs(event.q), event.token
    chart = pr.bars(f"Drafting position {nth(event.position)}: sample from q", [pr.panel(ctx.labels)],
                    [pr.series("q", "draft q", "q", q, highlight=x, symbol="q")],
                    marks=[pr.mark(x, q[x], f"drafted: {ctx.labels[x]}")])
    strip = chain_plots.sampling_draw_strip(event.q, event.draw, x, ctx.scenario.vocab, cue="q",
                                            title="Draft draw over q")
    return Drawing(chart, pr.strip(strip))


@draws(CheckEvent)
def check(event: CheckEvent, ctx: Context) -> Drawing:
    p, q, x = pr.probs(event.p), pr.probs(event.q), event.token
    chart = pr.bars(f"Checking position {nth(event.position)}: p vs q", [pr.panel(ctx.labels)], _p_and_q(event, ctx),
                    marks=[pr.mark(x, max(p[x], q[x]), f"x = {ctx.labels[x]}: {_verdict(event.accepted)}")])
    return Drawing(chart, _acceptance(event))


def _residual(event: CorrectionEvent, ctx: Context, scale: Fraction, title: str) -> Drawing:
    """p split into min(w·p, q) and (w·p − q)+ over q's markers; beside it the residual normalized, x drawn."""
    wp = "p" if scale == 1 else "w·p"
    p, q = [scale * v for v in pr.probs(event.p)], pr.probs(event.q)
    overlap = [min(a, b) for a, b in zip(p, q)]
    excess = [max(a - b, pr.ZERO) for a, b in zip(p, q)]
    normalized, x = pr.probs(event.residual), event.token
    data = [
        pr.series("min", f"min({wp}, q)", "overlap", overlap, stack="p", grow=pr.grows("p"), symbol=f"min({wp}, q)"),
        pr.series("excess", f"({wp} − q)+", "residual", excess, stack="p", grow=pr.grows("p"),
                  symbol=f"({wp} − q)+"),
        pr.series("q", "draft q", "q", q, kind="marker", symbol="q"),
        pr.series("rnorm", "residual, normalized", "residual", normalized, panel=1, highlight=x, legend=False,
                  grow=pr.grows("excess", "new"), stage=1, symbol="residual"),
    ]
    panels = [pr.panel(ctx.labels, x_title=f"{wp} = min({wp}, q) + ({wp} − q)+"),
              pr.panel(ctx.labels, y_title="", x_title=f"({wp} − q)+ ÷ its mass {pr.short(event.residual_mass)}")]
    chart = pr.bars(title, panels, data,
                    marks=[pr.mark(x, normalized[x], f"correction: {ctx.labels[x]}", panel_index=1)])
    strip = chain_plots.sampling_draw_strip(event.residual, event.draw, x, ctx.scenario.vocab, cue="residual",
                                            title="Correction draw")
    return Drawing(chart, pr.strip(strip))


@draws(CorrectionEvent)
def correction(event: CorrectionEvent, ctx: Context) -> Drawing:
    return _residual(event, ctx, pr.ONE, f"Rejected at position {nth(event.position)}: draw from the residual")


@draws(ScaledCorrectionEvent)
def scaled_correction(event: ScaledCorrectionEvent, ctx: Context) -> Drawing:
    scale = event.scale
    wp = "p" if scale == 1 else "w·p"
    title = f"Kept {event.position}: draw from ({wp} − q)+" + (f", w = {pr.short(scale)}" if scale != 1 else "")
    return _residual(event, ctx, scale, title)


@draws(BonusEvent)
def bonus(event: BonusEvent, ctx: Context) -> Drawing:
    if ctx.tree:
        return _tree(ctx, _tree_bonus_panel(event, ctx), "bonus from p", _bonus_strip(event, ctx))
    p, x = pr.probs(event.p), event.token
    chart = pr.bars("All drafts accepted: bonus token from p", [pr.panel(ctx.labels)],
                    [pr.series("p", "target p", "p", p, highlight=x, symbol="p")],
                    marks=[pr.mark(x, p[x], f"bonus: {ctx.labels[x]}")])
    return Drawing(chart, _bonus_strip(event, ctx))


def _bonus_strip(event: BonusEvent, ctx: Context) -> Data:
    return pr.strip(chain_plots.sampling_draw_strip(event.p, event.draw, event.token, ctx.scenario.vocab, cue="p",
                                                    title="Bonus draw over p"))


@draws(StopEvent, ResultEvent)
def round_end(event: StopEvent | ResultEvent, ctx: Context) -> Drawing:
    """The round at a glance (a tree: the tree as it ended)."""
    if ctx.tree:
        return _tree(ctx, None, "")
    return Drawing(summary(ctx))


def summary(ctx: Context) -> Data:
    """Drafted tokens (top row, the rejected struck) and what the verifier committed (bottom row), by position."""
    events, labels = ctx.events, ctx.labels
    decision = next((e for e in events if e.kind == "block_decision"), None)
    kept = decision.accepted_drafts if decision is not None else None
    rejected = {e.position for e in events if e.kind == "check" and not e.accepted}
    if decision is not None:
        rejected = {e.position for e in events if e.kind == "block_check" and e.position >= kept}
    drafted = [{"key": f"d{e.position}", "at": e.position, "label": labels[e.token], "cue": "q",
                "struck": e.position in rejected} for e in events if e.kind == "draft"]
    committed = []
    for e in events:
        origin = narration.origin_of(e)
        if origin is not None and not (decision is not None and origin == "accepted"):
            committed.append({"key": f"c{e.position}", "at": e.position, "label": labels[e.token], "cue": origin})
    if decision is not None:
        committed = [{"key": f"c{i}", "at": i, "label": labels[t], "cue": "accepted"}
                     for i, t in enumerate(decision.drafts[:kept])] + committed
    title = "Round summary" + (": stopped at a stop token" if any(e.kind == "stop" for e in events) else "")
    return {"type": "round", "title": title, "columns": [str(nth(i)) for i in range(ctx.scenario.depth + 1)],
            "x_title": "position in the block", "rows": [{"name": "drafted", "items": drafted},
                                                         {"name": "committed", "items": committed}]}


# --- block verification --------------------------------------------------------------------------------------
@draws(BlockCheckEvent)
def block_check(event: BlockCheckEvent, ctx: Context) -> Drawing:
    p, q, x = pr.probs(event.p), pr.probs(event.q), event.token
    weight = block_names(event.position).weight
    chart = pr.bars(f"Block check at position {nth(event.position)}: p vs q, {weight} = {pr.short(event.weight)}",
                    [pr.panel(ctx.labels)], _p_and_q(event, ctx),
                    marks=[pr.mark(x, max(p[x], q[x]), f"x = {ctx.labels[x]}: p/q = "
                                                       f"{pr.short(event.p_token / event.q_token)}")])
    return Drawing(chart, pr.strip(chain_plots.stop_draw_strip(event)))


@draws(BlockDecisionEvent)
def block_decision(event: BlockDecisionEvent, ctx: Context) -> Drawing:
    """P(τ = i) for i = 0..g, the chosen τ outlined, with the stop probabilities h and the weights w."""
    g, tau = len(event.drafts), event.accepted_drafts
    labels = ["0\nnone"] + [f"{i}\n+{ctx.labels[event.drafts[i - 1]]}" for i in range(1, g + 1)]
    taus = tau_distribution(event.stop_probabilities)
    data = [pr.series("tau", "P(τ = i)", "accepted", taus, highlight=tau, symbol="P(τ = i)"),
            pr.series("h", "h_τ (stop)", "theory", event.stop_probabilities, kind="tick", symbol="h"),
            pr.series("w", "w_τ (weight)", "q", event.weights, kind="line", symbol="w")]
    hits = ", ".join(str(nth(k)) for k, hit in enumerate(event.hits) if hit)
    hit_text = f"hits at position{'s' if ',' in hits else ''} {hits}" if hits else "no hit"
    chart = pr.bars(f"Block decision: keep {tau} of {g}",
                    [pr.panel(labels, y_max=1.3, x_title="τ = drafts kept (positions 1..τ)",
                              ticks=(0, 0.25, 0.5, 0.75, 1))], data,
                    marks=[pr.mark(tau, taus[tau], f"τ = {tau} ({hit_text})")])
    return Drawing(chart)


# --- draft trees -------------------------------------------------------------------------------------------------
def node_key(path: Sequence[int]) -> str:
    """A tree node's key: 'node:root', 'node:1.0' (sibling indices from the root); a correction or bonus 'node:1.x'."""
    if not path:
        return "node:root"
    return "node:" + ".".join("x" if i < 0 else str(i) for i in path)


def _tree(ctx: Context, panel: Data | None, panel_title: str, strip: Data | None = None,
          title: str | None = None) -> Drawing:
    """The tree after the round's events up to this one, folded to the page's rows, beside the node's panel."""
    at = tree_plots.tree_at(ctx.events, ctx.upto, ctx.scenario.vocab, budget=tree_plots.ROW_BUDGET[ctx.presenter])
    on_path = set(at.accepted) | {()}
    nodes = []
    for node in at.nodes:
        label = "prefix" if node.path == () else ctx.labels[node.token] + (f" ▸+{node.folded}" if node.folded else "")
        nodes.append({"key": node_key(node.path), "x": node.x, "y": node.y, "label": label, "state": node.state,
                      "hover": node.hover.replace("<br>", "\n"),
                      "parent": None if node.path == () else node_key(node.path[:-1])})
    struck = set(at.struck)  # traversal verification's rejected subtrees: their edges struck out
    edges = [[node_key(a), node_key(b), a in on_path and b in on_path] + ([True] if b in struck else [])
             for a, b in at.edges]
    shown = [s for s in tree_plots.STATES if any(n.state == s for n in at.nodes)]
    heading = title or (f"Draft tree: {panel_title}" if panel_title else "Draft tree")
    chart = {"type": "tree", "title": heading, "nodes": nodes, "edges": edges,
             "current": None if at.current is None else node_key(at.current),
             "columns": ["prefix"] + [str(nth(i)) for i in range(at.depth)], "x_title": "position",
             "states": [[s, tree_plots.STATES[s][0]] for s in shown], "panel": panel}
    return Drawing(chart, strip)


def _panel_top(ctx: Context) -> float:
    return tree_plots._panel_top(ctx.events, ctx.upto)  # noqa: SLF001 - one scale for every sibling of a node


@draws(TreeDraftEvent)
def tree_draft(event: TreeDraftEvent, ctx: Context) -> Drawing:
    values = pr.probs(event.drawn_from)
    same = tuple(event.drawn_from.ticket_ints()) == tuple(event.q.ticket_ints())
    where = "q" if same else "q′ (q without the drawn)"
    panel = pr.bars("q′ at the node", [pr.panel(ctx.labels, y_max=_panel_top(ctx), ticks=None, y_title="",
                                                x_title=f"{where}: child {nth(event.sibling)} drawn")],
                    [pr.series("qp", "q′", "q", values, highlight=event.token, symbol="q′")])
    strip = chain_plots.sampling_draw_strip(event.drawn_from, event.draw, event.token, ctx.scenario.vocab, cue="q",
                                            title=f"Draft draw of child {nth(event.sibling)}")
    return _tree(ctx, panel, "q′ at the node", pr.strip(strip))


@draws(TreeCheckEvent)
def tree_check(event: TreeCheckEvent, ctx: Context) -> Drawing:
    res = tree_plots.residual_before(ctx.events, ctx.upto)
    take = [min(a, b) for a, b in zip(res.r, res.q_prime)]
    left = [max(a - b, pr.ZERO) for a, b in zip(res.r, res.q_prime)]
    after = "accepted" if event.accepted else f"rejected: share → {pr.short(res.share * event.residual_mass)}"
    share = pr.share_bar(res.share, tree_plots.SHARE_NAME, "every earlier sibling rejected")
    panel = pr.bars(f"sibling {nth(event.sibling)} of {event.siblings}",
                    [pr.panel(ctx.labels, y_max=_panel_top(ctx), ticks=None, y_title="", share=share,
                              x_title=f"r at sibling {nth(event.sibling)} ({after})")],
                    [pr.series("rmin", "min(r,q′)", "overlap", take, stack="r", highlight=event.token,
                               symbol="min(r, q′)"),
                     pr.series("rleft", "(r−q′)+", "residual", left, stack="r", highlight=event.token,
                               symbol="(r − q′)+"),
                     pr.series("qp", "q′", "q", res.q_prime, kind="marker", symbol="q′")])
    strip = _acceptance(event, "r(x)", f"Sibling {nth(event.sibling)}: u vs min(1, r/q′)")
    return _tree(ctx, panel, f"{node_name(event.path)}, sibling {nth(event.sibling)} of {event.siblings}", strip)


@draws(TreeCorrectionEvent)
def tree_correction(event: TreeCorrectionEvent, ctx: Context) -> Drawing:
    share = pr.share_bar(tree_plots.correction_share(ctx.events, event), tree_plots.SHARE_NAME,
                         "every sibling rejected")
    panel = pr.bars("correction from r", [pr.panel(ctx.labels, y_max=_panel_top(ctx), ticks=None, y_title="",
                                                   share=share, x_title="the last r, after every sibling")],
                    [pr.series("rlast", "last r", "residual", pr.probs(event.residual), highlight=event.token,
                               symbol="r")])
    strip = chain_plots.sampling_draw_strip(event.residual, event.draw, event.token, ctx.scenario.vocab,
                                            cue="residual", title="Correction draw over r")
    return _tree(ctx, panel, "correction from r", pr.strip(strip))


def _tree_bonus_panel(event: BonusEvent, ctx: Context) -> Data:
    return pr.bars("bonus from p", [pr.panel(ctx.labels, y_max=_panel_top(ctx), ticks=None, y_title="",
                                             x_title="p after the accepted leaf")],
                   [pr.series("p", "p", "p", pr.probs(event.p), highlight=event.token, symbol="p")])


@draws(TopKDraftEvent)
def top_k_draft(event: TopKDraftEvent, ctx: Context) -> Drawing:
    """SGLang's EAGLE drafting: the child is q's rank-th most likely token, chosen, not drawn (no strip)."""
    panel = pr.bars("q at the node", [pr.panel(ctx.labels, y_max=_panel_top(ctx), ticks=None, y_title="",
                                               x_title=f"q: child {nth(event.sibling)} is its top {event.rank + 1}")],
                    [pr.series("q", "q", "q", pr.probs(event.q), highlight=event.token, symbol="q")])
    strip = pr.no_draw("Draft", f"chosen, not drawn: q's top {event.rank + 1} at the node")
    return _tree(ctx, panel, "q at the node (top-K, no draw)", strip)


# --- exact match: the target's own sample y decides ------------------------------------------------------------
def _sample_strip(event: ExactMatchCheckEvent | ExactMatchTreeCheckEvent | ExactMatchCorrectionEvent,
                  ctx: Context) -> Data:
    """The target's one draw over p's tickets, landing on its sample y (a correction commits y: no second draw)."""
    y = getattr(event, "sample", event.token)
    drawn = chain_plots.sampling_draw_strip(event.p, event.draw, y, ctx.scenario.vocab, cue="p",
                                            title=f"The target's own sample over p: y = {ctx.labels[y]}")
    return pr.strip(drawn)


def _drafted_children(ctx: Context, node: tuple[int, ...]) -> list[int]:
    return [e.token for e in ctx.events[: ctx.upto + 1] if e.kind == "tree_draft" and tuple(e.path)[:-1] == node]


def _node_sample_panel(ctx: Context, p: list[Fraction], node: tuple[int, ...], sample: int) -> Data:
    """p at the node (its sample y highlighted) and the drafted children's p: one sample judges every sibling."""
    children = _drafted_children(ctx, node)
    drafted = [p[t] if t in children else None for t in range(len(p))]
    top = min(1.05, 1.15 * max(float(v) for v in p))
    names = ", ".join(ctx.labels[t] for t in children)
    return pr.bars("p at the node", [pr.panel(ctx.labels, y_max=top, ticks=None, y_title="",
                                              x_title=f"y = {ctx.labels[sample]}; drafted: {names}")],
                   [pr.series("pnode", "p at the node", "p", p, highlight=sample, symbol="p"),
                    pr.series("kids", "drafted children", "q", drafted, kind="marker", symbol="a drafted child")])


@draws(ExactMatchCheckEvent)
def exact_match_check(event: ExactMatchCheckEvent, ctx: Context) -> Drawing:
    """p (the sample y highlighted) and q faded (never read); x kept iff y = x."""
    p, q, x, y = pr.probs(event.p), pr.probs(event.q), event.token, event.sample
    data = [pr.series("p", "target p", "p", p, slot=0, slots=2, highlight=y, symbol="p"),
            pr.series("q", "draft q (not read)", "q", q, slot=1, slots=2, opacity=0.35, symbol="q")]
    verdict = "kept ✓" if event.accepted else "not kept ✗"
    marks = [pr.mark(x, max(p[x], q[x]), f"x = {ctx.labels[x]}: {verdict}")]
    if y != x:
        marks.append(pr.mark(y, p[y], f"y = {ctx.labels[y]}"))
    chart = pr.bars(f"Checking position {nth(event.position)} (exact match): the target's sample y against x",
                    [pr.panel(ctx.labels)], data, marks=marks)
    return Drawing(chart, _sample_strip(event, ctx))


@draws(ExactMatchTreeCheckEvent)
def exact_match_tree_check(event: ExactMatchTreeCheckEvent, ctx: Context) -> Drawing:
    panel = _node_sample_panel(ctx, pr.probs(event.p), tuple(event.path)[:-1], event.sample)
    title = (f"Exact match: {node_name(event.path)}, sibling {nth(event.sibling)} of {event.siblings}, against "
             "the node's one sample")
    return _tree(ctx, panel, "", _sample_strip(event, ctx), title=title)


@draws(ExactMatchCorrectionEvent)
def exact_match_correction(event: ExactMatchCorrectionEvent, ctx: Context) -> Drawing:
    """No draft equals the sample y, so y itself is committed: p without the drafts, renormalized, is its law."""
    p, rest, y = pr.probs(event.p), pr.probs(event.residual), event.token
    if ctx.tree:
        panel = _node_sample_panel(ctx, p, tuple(event.path), y)
        return _tree(ctx, panel, "", _sample_strip(event, ctx),
                     title="Exact match: no child equals the node's sample, which is committed")
    drafted = [t for t in range(len(p)) if p[t] and not rest[t]]
    data = [pr.series("p", "p off the drafts", "p", [pr.ZERO if t in drafted else p[t] for t in range(len(p))],
                      slot=0, slots=2, stack="p", symbol="p"),
            pr.series("out", "drafted: not the sample", "removed", [p[t] if t in drafted else pr.ZERO
                                                                   for t in range(len(p))],
                      slot=0, slots=2, stack="p", opacity=0.6, symbol="p"),
            pr.series("rest", "y given no match", "residual", rest, slot=1, slots=2, highlight=y,
                      grow=pr.grows("p", "new"), stage=1, symbol="r")]
    chart = pr.bars(f"No draft at position {nth(event.position)} equals the sample: y itself is committed",
                    [pr.panel(ctx.labels)], data, marks=[pr.mark(y, rest[y], f"y = {ctx.labels[y]} committed")])
    return Drawing(chart, _sample_strip(event, ctx))


# --- the engine rules --------------------------------------------------------------------------------------------
@draws(EnsembleCheckEvent)
def ensemble_check(event: EnsembleCheckEvent, ctx: Context) -> Drawing:
    """p, q and the mixture v = W·p + (1 − W)·q the draft is judged against; x kept with min(1, v(x)/q(x))."""
    p, q, w, x = pr.probs(event.p), pr.probs(event.q), event.weight, event.token
    v = [w * a + (1 - w) * b for a, b in zip(p, q)]
    data = [*_p_and_q(event, ctx), pr.series("v", f"v = {pr.short(w)}·p + {pr.short(1 - w)}·q", "theory", v,
                                             kind="tick", symbol="v")]
    chart = pr.bars(f"Checking position {nth(event.position)}: p, q and v", [pr.panel(ctx.labels)], data,
                    marks=[pr.mark(x, max(p[x], q[x], v[x]), f"x = {ctx.labels[x]}: {_verdict(event.accepted)}")])
    strip = engine_plots.acceptance_strip(event.acceptance, event.draw, event.draw_range, event.accepted,
                                          f"Acceptance draw vs 1 − W + W·p/q = {pr.short(event.acceptance)}")
    return Drawing(chart, pr.strip(strip))


@draws(ThresholdCheckEvent)
def threshold_check(event: ThresholdCheckEvent, ctx: Context) -> Drawing:
    """p with the S line, q faded (never read), the coin's bound min(1, p(x)/A) at x."""
    p, x = pr.probs(event.p), event.token
    s, a = event.threshold_single, event.threshold_acc
    data = _p_and_q(event, ctx, q_opacity=0.35, q_name="draft q (not read)")
    if not event.single:
        bound = [event.acceptance if t == x else None for t in range(len(p))]
        data.append(pr.series("bound", f"min(1, p(x)/A), A = {pr.short(a)}", "theory", bound, kind="tick",
                              symbol="the coin's bound min(1, p/A)"))
    how = "p(x) ≥ S: kept" if event.single else f"min(1, p(x)/A) = {pr.short(event.acceptance)}"
    chart = pr.bars(f"Checking position {nth(event.position)}: p against S and A", [pr.panel(ctx.labels)], data,
                    levels=[pr.level(s, f"S = {pr.short(s)}")],
                    marks=[pr.mark(x, max(p[x], event.acceptance), f"x = {ctx.labels[x]}: "
                                                                  f"{_verdict(event.accepted)}")])
    strip = engine_plots.acceptance_strip(event.acceptance, event.draw, event.draw_range, event.accepted,
                                          f"Coin vs {how}", keep="keep")
    return Drawing(chart, pr.strip(strip))


def _without_rejected(event: ThresholdCorrectionEvent | ThresholdTreeCorrectionEvent, ctx: Context) -> Data:
    p, rest = pr.probs(event.p), pr.probs(event.residual)
    removed = [p[t] if t in event.removed else pr.ZERO for t in range(len(p))]
    left = [p[t] if t not in event.removed else pr.ZERO for t in range(len(p))]
    return [pr.series("p", "p off the rejected", "p", left, slot=0, slots=2, stack="p", symbol="p"),
            pr.series("out", "rejected: taken out", "correction", removed, slot=0, slots=2, stack="p", opacity=0.4,
                      symbol="p"),
            pr.series("rest", "renormalized", "residual", rest, slot=1, slots=2, highlight=event.token,
                      grow=pr.grows("p", "new"), stage=1, symbol="r")]


@draws(ThresholdCorrectionEvent)
def threshold_final(event: ThresholdCorrectionEvent, ctx: Context) -> Drawing:
    rest, y = pr.probs(event.residual), event.token
    chart = pr.bars(f"Rejected at position {nth(event.position)}: the final token from p without the rejected",
                    [pr.panel(ctx.labels)], _without_rejected(event, ctx),
                    marks=[pr.mark(y, rest[y], f"final: {ctx.labels[y]}")])
    strip = engine_plots.sampling_strip(event.residual, event.draw, y, ctx.chart_labels, "residual",
                                        "Final draw over p off the rejected")
    return Drawing(chart, pr.strip(strip))


@draws(ThresholdTreeCheckEvent)
def threshold_tree_check(event: ThresholdTreeCheckEvent, ctx: Context) -> Drawing:
    """The tree, and beside it p at the node with the siblings' summed mass C so far; the node's one coin."""
    siblings = [e for e in ctx.events[: ctx.upto + 1]
                if e.kind == "threshold_check" and tuple(e.path)[:-1] == tuple(event.path)[:-1]]
    held = [sum((e.p_token for e in siblings if e.token == t), pr.ZERO) for t in range(len(ctx.labels))]
    p = pr.probs(event.p)
    top = min(1.05, 1.15 * max(float(v) for v in p))
    panel = pr.bars("the node's coin", [pr.panel(ctx.labels, y_max=top, ticks=None, y_title="", x_title=f"C = "
                                                 f"{pr.short(event.mass)}; A = {pr.short(event.threshold_acc)}")],
                    [pr.series("pnode", "p at the node", "p", p, slot=0, slots=2, highlight=event.token, opacity=0.45,
                               symbol="p"),
                     pr.series("held", "summed so far (C)", "accepted" if event.accepted else "q", held, slot=1,
                               slots=2, symbol="counted in C")])
    title = f"SGLang tree: {node_name(event.path)}, sibling {nth(event.sibling)} of {event.siblings}, one coin per node"
    strip = pr.strip(engine_plots.coin_strip(event, ctx.events, ctx.chart_labels))
    return _tree(ctx, panel, "", strip, title=title)


@draws(ThresholdTreeCorrectionEvent)
def threshold_tree_final(event: ThresholdTreeCorrectionEvent, ctx: Context) -> Drawing:
    removed = ", ".join(ctx.labels[t] for t in event.removed)
    panel = pr.bars("the final token", [pr.panel(ctx.labels, y_max=1.05, ticks=None, y_title="",
                                                 x_title=f"p without {removed}")],
                    [pr.series("rest", "p off the rejected, renormalized", "residual", pr.probs(event.residual),
                               highlight=event.token, symbol="r")])
    strip = engine_plots.sampling_strip(event.residual, event.draw, event.token, ctx.chart_labels, "residual",
                                        "Final draw over p off the rejected")
    return _tree(ctx, panel, "", pr.strip(strip),
                 title="SGLang tree: every child rejected, the final token from p without them")


@draws(MedusaCheckEvent)
def medusa_check(event: MedusaCheckEvent, ctx: Context) -> Drawing:
    """p against Medusa's threshold T, q faded (never read); fast: the threshold decides and no coin is drawn."""
    p, q, x = pr.probs(event.p), pr.probs(event.q), event.token
    chart = pr.bars(f"Checking position {nth(event.position)}: p against T", [pr.panel(ctx.labels)],
                    _p_and_q(event, ctx, q_opacity=0.35, q_name="draft q (not read)"),
                    levels=[pr.level(event.threshold, f"T = min(ε, δ·e^−H) ≈ {float(event.threshold):.4g}")],
                    marks=[pr.mark(x, max(p[x], q[x]), f"x = {ctx.labels[x]}: {_verdict(event.accepted)}")])
    if event.fast:
        return Drawing(chart, pr.no_draw("Match draw", "fast: the threshold decides, no draw"))
    strip = engine_plots.acceptance_strip(event.acceptance, event.draw, event.draw_range, event.accepted,
                                          f"Match draw vs t(x) = {pr.short(event.acceptance)}", keep="keep")
    return Drawing(chart, pr.strip(strip))


@draws(MedusaCorrectionEvent, MedusaBonusEvent)
def medusa_next(event: MedusaCorrectionEvent | MedusaBonusEvent, ctx: Context) -> Drawing:
    """What Medusa draws the next token from (argmax p, or p above T renormalized) beside p and T."""
    is_bonus = event.origin == "bonus"  # MedusaBonusEvent; its correction is MedusaCorrectionEvent
    source = event.drawn_from if is_bonus else event.residual
    chosen, y = pr.probs(source), event.token
    name = "argmax p (fast)" if event.fast else "p above T, renormalized"
    data = [pr.series("p", "target p", "p", pr.probs(event.p), slot=0, slots=2, symbol="p"),
            pr.series("next", name, "bonus" if is_bonus else "residual", chosen, slot=1, slots=2, highlight=y,
                      grow=pr.grows("p", "new"), stage=1, symbol="drawn from")]
    when = "All drafts kept" if is_bonus else f"Rejected at position {nth(event.position)}"
    chart = pr.bars(f"{when}: Medusa's next token from {name}", [pr.panel(ctx.labels)], data,
                    levels=[pr.level(event.threshold, f"T ≈ {float(event.threshold):.4g}")],
                    marks=[pr.mark(y, chosen[y], f"next: {ctx.labels[y]}")])
    strip = engine_plots.sampling_strip(source, event.draw, y, ctx.chart_labels, "residual",
                                        f"Next-token draw over {name}")
    return Drawing(chart, pr.strip(strip))


# --- what every frame shows besides its drawing --------------------------------------------------------------
def lines(view: StepView) -> list[list[str]]:
    """The narration's lines, each split at its ``**`` marks: odd pieces are bold (the browser sets each as text)."""
    return [line.split("**") for line in view.lines]


def stats(view: StepView) -> Data:
    """The statistics table (measured against theory, the rule's own table) as rows of text, with its caveat."""
    rows = [[cell.strip() for cell in row.strip().strip("|").split("|")]
            for row in step_html.stats_markdown(view.stats).splitlines()]
    rows = [row for row in rows if not all(set(cell) <= set("-: ") for cell in row)]  # the markdown rule line
    return {"head": rows[0], "rows": rows[1:], "note": view.stats.note}


def _chain_drafts(view: StepView, ctx: Context) -> list[tuple[int, int]]:
    """(position, token) of the round's chain drafts drawn so far."""
    return [(e.position, e.token) for e in ctx.events[: ctx.upto + 1] if e.kind == "draft"]


def _discarded_from(ctx: Context) -> int | None:
    """The first draft position this round discards so far (a rejection, or block's τ), None while none is."""
    for e in ctx.events[: ctx.upto + 1]:
        if e.kind == "check" and not e.accepted:
            return e.position
        if e.kind == "block_decision" and e.accepted_drafts < len(e.drafts):
            return e.accepted_drafts
    return None


PRESENTER_CHIPS = step_html.PRESENTER_CHIPS


def chips(view: StepView, ctx: Context) -> Data:
    """The committed text as chips coloured by origin, then this round's drafts: pending, or struck out once a
    rejection discards them. A chip committed at this step grows out of what it came from (its pending draft, the
    tree's node, the drawn bar)."""
    start = len(view.committed) - sum(1 for t in view.committed if t.round_id == view.round_id)
    items: list[Data] = []
    for index, token in enumerate(view.committed):
        item: Data = {"key": f"chip:c{index}", "text": style.token_label(token.text), "cue": token.origin}
        if index >= start:
            item["grow"] = _chip_source(ctx, index - start, token.origin)
        items.append(item)
    cut = _discarded_from(ctx)
    kept = sum(1 for t in view.committed[start:] if t.origin == "accepted")
    for position, token in _chain_drafts(view, ctx):
        if position < kept:
            continue  # committed above
        status = "discarded" if cut is not None and position >= cut else "pending"
        items.append({"key": f"chip:d{ctx.event.round_id}.{position}", "text": ctx.labels[token], "cue": "q",
                      "status": status})
    shown, note = items, ""
    if ctx.presenter and len(items) > PRESENTER_CHIPS:
        shown = items[-PRESENTER_CHIPS:]
        note = f"(last {len(shown)} of {len(items)})"
    return {"chips": shown, "note": note}


def _chip_source(ctx: Context, index_in_round: int, origin: str) -> Data | None:
    """Where this round's committed token ``index_in_round`` comes from on screen."""
    if ctx.tree:
        accepted = sorted(tree_plots.kept_paths(ctx.events[: ctx.upto + 1]), key=len)  # traversal: the whole path
        if origin == "accepted" and index_in_round < len(accepted):
            return pr.grows(node_key(accepted[index_in_round]))
        end = next((e for e in ctx.events[: ctx.upto + 1] if e.kind in ("correction", "bonus")), None)
        if end is None:
            return None
        parent = tuple(getattr(end, "path", ())) if end is not None and end.kind == "correction" else \
            (accepted[-1] if accepted else ())
        return pr.grows(node_key(parent + (-1,)))
    if origin == "accepted":
        return pr.grows(f"chip:d{ctx.event.round_id}.{index_in_round}")
    return {"key": "mark", "frame": "new"}  # the drawn token's mark on the chart


def flags(ctx: Context) -> list[str]:
    """The "jump to" targets this event is (the browser looks for them within the round)."""
    event, found = ctx.event, []
    if jump.is_rejection(event):
        found.append(jump.FIRST_REJECTION)
    if jump.is_correction(event):
        found.append(jump.NEXT_CORRECTION)
    if jump.is_bonus(event):
        found.append(jump.NEXT_BONUS)
    if jump.is_round_end(event):
        found.append(jump.ROUND_END)
    first = next((i for i, e in enumerate(ctx.events) if "check" in e.kind), None)
    if first == ctx.upto:
        found.append(jump.FIRST_CHECK)
    return found


def groups(ctx: Context) -> Data:
    """How coarser paces gather this step: a tree's drafting by level ('level') or whole ('tree')."""
    event = ctx.event
    if event.kind == "tree_draft":
        return {"level": f"level {event.position}", "tree": "tree"}
    return {}


def frame(view: StepView, ctx: Context) -> Data:
    """Everything the player shows at one step, as plain data."""
    event = view.event
    drawn = drawing(event, ctx)
    return {
        "kind": view.phase, "event": type(event).__name__, "step": view.step, "caption": step_html.caption(view),
        "headline": view.headline, "layout": drawn.layout or step_page.layout_of(event.kind, ctx.presenter),
        "chart": drawn.chart,
        "strip": drawn.strip, "lines": lines(view), "exact": [list(v) for v in narration.exact_values(
            event, ctx.scenario.vocab)], "text": chips(view, ctx), "stats": stats(view), "finished": len(view.history),
        "flags": flags(ctx), "groups": groups(ctx),
    }
