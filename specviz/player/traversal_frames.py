"""Traversal verification's steps as frames (Weng et al. 2025): the tree walked from the leaves up.

At each tested node the tree shows the walk so far (``plots.tree_figures.tree_at``: nodes tested and rejected, their
subtrees' edges struck out, nodes under a weight-0 node pruned, never tested; once a node is kept, its whole path)
and the step's node ringed; beside it the weights that node reads: its parent's running weight w as it entered,
the weight it entered with, min(1, w·r(x)/q′(x)), the weight it is tested with after its children's rejections
and, after a rejection, its parent's new weight ρ/(ρ + 1 − w). The strip draws u against the tested weight (weight
0: rejected, no draw needed). After the walk, a correction from the kept node's residual r (the root's when
nothing is kept); a kept leaf's bonus is the tree's own (``frames.bonus``). Registered in ``frames.BUILDERS`` by
``@draws``: the package ``specviz.player`` imports this module, so the registry holds both classes as soon as any
module of the player is imported.
"""

from __future__ import annotations

from dataclasses import replace

from ..core.trace import TraversalCheckEvent, TraversalCorrectionEvent
from ..narration.counting import node as node_name
from ..narration.counting import nth
from ..plots import step_figures as chain_plots
from ..plots import tree_figures as tree_plots
from . import primitives as pr
from .frames import Context, Drawing, _panel_top, _tree, draws
from .primitives import Data


def weights_panel(event: TraversalCheckEvent, ctx: Context) -> Data:
    """The node's weights as bars on [0, 1], each its own series (its colour, its exact value as text)."""
    weights = tree_plots.walk_weights(event)
    names = [w.name for w in weights]
    data = [pr.series(f"w{i}", w.name, w.cue, [w.value if j == i else None for j in range(len(weights))],
                      symbol=w.meaning, legend=False) for i, w in enumerate(weights)]
    tested = names.index("tested")  # the verdict over its bar, short: the bars' band is narrow beside the tree
    return pr.bars("the node's weights", [pr.panel(names, y_max=1.08, y_title="",
                                                   x_title=tree_plots.walk_axis_title(event, ctx.labels))],
                   data, marks=[pr.mark(tested, weights[tested].value, "✓" if event.accepted else "✗")])


def weight_strip(event: TraversalCheckEvent) -> Data:
    """u against the node's tested weight; a weight of 0 rejects whatever u is, so no draw is needed."""
    if event.acceptance == 0:
        return pr.no_draw("Draw against the weight", "weight 0: rejected, no draw needed")
    drawn = chain_plots.acceptance_draw_strip(event)
    title = f"{node_name(event.path).capitalize()}: u vs its weight {pr.short(event.acceptance)}"
    return pr.strip(replace(drawn, title=title))


def check_title(event: TraversalCheckEvent) -> str:
    """The step's heading: which node the walk tests, where it sits, and what it was left with."""
    where = f"{node_name(event.path)}, sibling {nth(event.sibling)} of {event.siblings}"
    if event.pruned:
        return f"Traversal: {where}, entered with weight 0 (its subtree pruned)"
    if event.children_rejected:
        return f"Traversal: {where}, tested after its children were rejected"
    return f"Traversal: {where}, a leaf tested with its entry weight"


@draws(TraversalCheckEvent)
def traversal_check(event: TraversalCheckEvent, ctx: Context) -> Drawing:
    return _tree(ctx, weights_panel(event, ctx), "", weight_strip(event), title=check_title(event))


@draws(TraversalCorrectionEvent)
def traversal_correction(event: TraversalCorrectionEvent, ctx: Context) -> Drawing:
    """The kept node's current r (the root's when nothing was kept), the next token drawn from it."""
    panel = pr.bars("correction from r", [pr.panel(ctx.labels, y_max=_panel_top(ctx), ticks=None, y_title="",
                                                   x_title=tree_plots.traversal_correction_axis(event))],
                    [pr.series("rlast", "r", "residual", pr.probs(event.residual), highlight=event.token,
                               symbol="r")])
    strip = chain_plots.sampling_draw_strip(event.residual, event.draw, event.token, ctx.scenario.vocab,
                                            cue="residual", title=f"Correction draw over r at {node_name(event.path)}")
    if event.path:
        kids = f"{event.children} child{'ren' if event.children > 1 else ''}"
        title = f"Traversal: {node_name(event.path)} kept after its {kids}, the next token from its r"
    else:
        title = "Traversal: every child of the root rejected, the correction from its r"
    # the tree and its r beside the draw and the words, as at a check: the step fits the screen without scrolling
    return _tree(ctx, panel, "", pr.strip(strip), title=title)._replace(layout="split")
