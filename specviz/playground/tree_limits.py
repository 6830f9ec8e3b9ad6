"""The Playground's tree limits as plain data, for the library's readers of links, files and lecture scripts.

The page's own copies live with its controls: ``MAX_PLAYGROUND_WIDTH`` in
``specviz/app/playground_tree.py`` (the width slider) and ``MAX_TREE_NODES`` in
``specviz/plots/tree_figures.py`` (the tree the animation draws). The library sits below both and reads
these copies; ``tests/playground/test_limits.py`` keeps the two pairs equal.
"""

from __future__ import annotations

from ..core.tree import tree_size
from ..core.verification import rule

MAX_PLAYGROUND_WIDTH = 4  # drafts per node the Verification switch offers (the command line takes up to 8)
MAX_TREE_NODES = 40  # drafted nodes a round's tree may have to be animated, one step per token


def width_refusal(verification: str) -> str | None:
    """Why the Playground cannot show this rule's tree width (None: it can); verification is a playable name."""
    width = rule(verification).width
    if width <= MAX_PLAYGROUND_WIDTH:
        return None
    return (f"{verification!r} drafts {width} children per node; the Playground draws trees of 1 to "
            f"{MAX_PLAYGROUND_WIDTH} drafts per node (the command line takes it: specviz play --verification "
            f"{verification})")


def size_refusal(verification: str, depth: int) -> str | None:
    """Why the Playground cannot animate this rule's tree at this depth (None: it can)."""
    width = rule(verification).width  # a chain is width 1: at most 5 nodes, always within the limit
    nodes = tree_size(depth, width)
    if nodes <= MAX_TREE_NODES:
        return None
    fits = max(d for d in range(1, depth + 1) if tree_size(d, width) <= MAX_TREE_NODES)
    return (f"a tree of width {width} and depth {depth} drafts {nodes} tokens a round; the Playground animates "
            f"trees of at most {MAX_TREE_NODES} drafted tokens: use depth {fits} or less, or a smaller width")
