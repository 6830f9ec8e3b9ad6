"""The Playground's Verification switch: tokenwise, block, or a draft tree (width 1-4, i.i.d. or distinct).

The scenario's ``verification`` holds the registry name ("token", "block", "multi:K", "multi-distinct:K"),
as links, files and the command line write it. The switch shows its family (tokenwise, block, tree) and,
for a tree, a width slider and a distinct toggle: ``show`` sets the three from a name when a scenario is
loaded (preset, link, file, lecture entry), ``chosen`` reads the name back for the scenario.
"""

from __future__ import annotations

import streamlit as st

from ..core import MAX_WIDTH
from ..core.verification import rule
from ..playground import explain
from ..plots.tree import MAX_TREE_NODES, tree_nodes
from ..scenario import Scenario
from .playground_state import PlaygroundSession, session

S = PlaygroundSession
FAMILIES = {"token": "tokenwise", "block": "block", "tree": "tree"}
MAX_PLAYGROUND_WIDTH = 4


def family_of(name: str) -> str:
    """'token', 'block' or 'tree' for a playable registry name."""
    return rule(name).family


def name_of(family: str, width: int, distinct: bool) -> str:
    """The registry name the three widgets describe."""
    if family != "tree":
        return family
    return f"multi-distinct:{width}" if distinct else f"multi:{width}"


def show(pg: PlaygroundSession, name: str) -> None:
    """Set the switch to a registry name (loading a scenario): the family, and for a tree its width and
    distinct; a chain keeps the tree's last width and distinct for the next switch to the tree."""
    found = rule(name)
    pg.verification = found.family
    if found.family == "tree":  # a wider tree (a link's multi:8) is refused by tree_problems; the slider holds 4
        pg.tree_width, pg.tree_distinct = min(found.width, MAX_PLAYGROUND_WIDTH), found.distinct
    else:
        pg.setdefault("tree_width", 2)
        pg.setdefault("tree_distinct", False)


def chosen(pg: PlaygroundSession) -> str:
    """The registry name the switch describes (the scenario's ``verification``)."""
    pg.setdefault("tree_width", 2)
    pg.setdefault("tree_distinct", False)
    return name_of(pg.verification, int(pg.tree_width), bool(pg.tree_distinct))


def verification_controls() -> None:
    """The switch, and for the tree its width and whether siblings are drawn without replacement."""
    pg = session()
    st.radio("Verification", list(FAMILIES), key=S.verification.key, horizontal=True, format_func=FAMILIES.get,
             help="tokenwise: each draft accepted on its own with min(1, p/q); block (Sun et al. 2025): the "
                  "block's running weights decide how many drafts to keep at once; tree: every node gets K "
                  "drafted children, checked one after another against a shrinking residual (recursive "
                  "rejection sampling, as SpecInfer and llama.cpp). All are exact.")
    if pg.verification != "tree":
        return
    pg.setdefault("tree_width", 2)
    pg.setdefault("tree_distinct", False)
    st.slider("Drafts per node (width)", 1, MAX_PLAYGROUND_WIDTH, key=S.tree_width.key)
    st.toggle("Distinct drafts (without replacement)", key=S.tree_distinct.key,
                 help="on: a node's children are drawn without replacement (q renormalized over the tokens not "
                      "drawn yet); off: i.i.d. from q")


def tree_problems(scenario: Scenario) -> list[explain.Problem]:
    """A tree wider than the switch offers, or too large to animate, in words (empty: it plays)."""
    found = rule(scenario.verification)
    if found.family != "tree":
        return []
    if found.width > MAX_PLAYGROUND_WIDTH:
        return [explain.Problem(
            "The draft tree is wider than the Playground offers",
            f"verification {found.name!r} drafts {found.width} children per node; the Playground's switch offers "
            f"1 to {MAX_PLAYGROUND_WIDTH} (the command line and the library take up to {MAX_WIDTH}).",
            f"choose a width of {MAX_PLAYGROUND_WIDTH} or less.")]
    nodes = tree_nodes(scenario.depth, found.width)
    if nodes <= MAX_TREE_NODES:
        return []
    fits = max(d for d in range(1, scenario.depth + 1) if tree_nodes(d, found.width) <= MAX_TREE_NODES)
    return [explain.Problem(
        "The draft tree is too large to animate",
        f"A tree of width {found.width} and depth {scenario.depth} drafts {nodes} tokens per round; the Playground "
        f"draws trees of at most {MAX_TREE_NODES} drafted tokens, one step per token.",
        f"lower the depth to {fits} or fewer, or the width (drafts per node).")]


MANY_ROUNDS_NOTE = ("The draft tree is on. **Many rounds** simulates tokenwise and block verification only, so it "
                    "runs nothing here rather than another rule's rounds; the Exactness lab's rules view compares "
                    "the tree's exact law and a Monte Carlo with p. Switch the Verification to tokenwise or block "
                    "to run many rounds.")


def many_rounds_note(scenario: Scenario) -> bool:
    """Say, in the Many rounds tab, that a tree is not simulated there (True: said, the tab shows nothing else)."""
    if rule(scenario.verification).family != "tree":
        return False
    st.info(MANY_ROUNDS_NOTE)
    return True
