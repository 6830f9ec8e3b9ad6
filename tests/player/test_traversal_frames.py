"""Traversal verification's frames on a round derived by hand: the weights each tested node reads (exact, as text),
the states of the tree's nodes along the walk (rejected subtrees struck out, pruned nodes never tested, the kept
node's whole path), u against the weight or no draw at weight 0, and the correction from the kept node's r.

The round: p = (36, 25, 16, 9, 4, 1)/91 and q = (1, 4, 9, 16, 25, 36)/91 over ‘the cat sat on mat .’ (far apart,
context-free), traversal:3 at depth 2, seed 3. Its drafted tree is [1] ‘.’ (children ‘mat’, ‘.’, ‘on’), [2] ‘.’
(three children), [3] ‘cat’ (children ‘.’, ‘.’, ‘on’). By hand (i.i.d. children, so q′ = q):
* [1] enters with min(1, p(.)/q(.)) = 1/36; its child [1, 1] ‘mat’ with (1/36)·(4/25) = 1/225, a leaf: rejected.
  Then ((1/36)·p − q)+ is empty (36/36 − 1 = 0 at ‘the’, negative elsewhere): ρ = 0, so [1]'s weight is 0, and
  [1, 2], [1, 3] and [1] itself weigh 0: rejected with no draw.
* The root (weight 1) after [1]: r = (p − q)+ normalized = (35, 21, 7, 0, 0, 0)/63, ρ = 63/91, weight ρ/(ρ + 0) = 1.
* [2] ‘.’ enters with r(.)/q(.) = 0: its three children are pruned, never tested; it is rejected with no draw.
* [3] ‘cat’ enters with min(1, r(cat)/q(cat)) = 1 (r now (446, 237, 10)/693, r(cat)/q(cat) > 1); its child [3, 1]
  ‘.’ enters with p(.)/q(.) = 1/36: rejected; [3]'s weight stays ρ/ρ = 1, and [3, 2] ‘.’, [3, 3] ‘on’ enter with
  r = 0 there: rejected with no draw. [3] is tested with weight 1: kept, the correction comes from its r.
"""

from __future__ import annotations

from fractions import Fraction

from specviz.core.trace import TraversalCheckEvent, TraversalCorrectionEvent
from specviz.formats import fraction_folded
from specviz.player import round_frames
from specviz.playground import presets
from specviz.playground.state import timeline_for
from specviz.plots import step_figures as plots
from specviz.plots import style
from specviz.plots import tree_figures as treeplot

F = Fraction
WALK = presets.apply_preset(presets.default_scenario(), "far apart").with_changes(verification="traversal:3",
                                                                                   depth=2, seed=3)
# (path from 0, parent's w, entered, tested, parent's after or None) of each tested node, in the walk's order
WEIGHTS = [((0, 0), F(1, 36), F(1, 225), F(1, 225), F(0)), ((0, 1), F(0), F(0), F(0), F(0)),
           ((0, 2), F(0), F(0), F(0), F(0)), ((0,), F(1), F(1, 36), F(0), F(1)), ((1,), F(1), F(0), F(0), F(1)),
           ((2, 0), F(1), F(1, 36), F(1, 36), F(1)), ((2, 1), F(1), F(0), F(0), F(1)), ((2, 2), F(1), F(0), F(0), F(1)),
           ((2,), F(1), F(1), F(1), None)]


def walk():
    """The first round's events and frames."""
    timeline = timeline_for(WALK)
    timeline.ensure_rounds(1)
    events = timeline.rounds[0].trace.events
    return events, round_frames.payload(WALK, 0, False)["frames"]


def states(frame) -> dict[str, str]:
    return {n["key"]: n["state"] for n in frame["chart"]["nodes"]}


def test_each_tested_node_shows_the_weights_derived_by_hand_exactly_as_text():
    events, frames = walk()
    checks = [(e, f) for e, f in zip(events, frames, strict=True) if isinstance(e, TraversalCheckEvent)]
    assert [tuple(e.path) for e, _ in checks] == [w[0] for w in WEIGHTS]
    for (event, frame), (_, parent, entered, tested, after) in zip(checks, WEIGHTS, strict=True):
        panel = frame["chart"]["panel"]
        expected = [("parent's w", parent), ("entered", entered), ("tested", tested)]
        expected += [] if after is None else [("parent's w after", after)]
        assert panel["panels"][0]["labels"] == [name for name, _ in expected]
        for index, (series, (name, value)) in enumerate(zip(panel["series"], expected, strict=True)):
            assert series["name"] == name and series["exact"][index] == fraction_folded(value)
            assert series["values"][index] == float(value)
        assert panel["series"][2]["cue"] == ("accepted" if event.accepted else "correction")
        x = style.token_label(WALK.vocab[event.token])  # punctuation named: ‘.’ period
        assert panel["panels"][0]["x_title"].startswith(f"r({x}) = ")


def test_the_strip_draws_u_against_the_weight_and_needs_no_draw_at_weight_zero():
    events, frames = walk()
    for event, frame in zip(events, frames, strict=True):
        if not isinstance(event, TraversalCheckEvent):
            continue
        strip = frame["strip"]
        if event.acceptance == 0:
            assert strip == {"title": "Draw against the weight", "none": "weight 0: rejected, no draw needed"}
        elif event.acceptance == 1:
            assert [s["label"] for s in strip["segments"]] == ["accept: u < 1"] and strip["chosen"] == 0
        else:
            assert strip["u"] == event.draw / event.draw_range and "its weight" in strip["title"]
            assert strip["segments"][strip["chosen"]]["cue"] == ("accepted" if event.accepted else "correction")


def test_the_nodes_take_the_walks_states_step_by_step():
    events, frames = walk()
    at = {tuple(e.path): f for e, f in zip(events, frames, strict=True) if isinstance(e, TraversalCheckEvent)}
    first = states(at[(0, 0)])
    assert first["node:0.0"] == "rejected" and {first[k] for k in first if k not in ("node:root", "node:0.0")} == {
        "drafted"}
    assert at[(0, 0)]["chart"]["current"] == "node:0.0"
    subtree = states(at[(0,)])  # [1] rejected after its children: its whole subtree struck out
    assert [subtree[k] for k in ("node:0", "node:0.0", "node:0.1", "node:0.2")] == ["rejected"] * 4
    struck = {e[1] for e in at[(0,)]["chart"]["edges"] if len(e) > 3 and e[3]}
    assert struck == {"node:0", "node:0.0", "node:0.1", "node:0.2"}
    pruned = states(at[(1,)])  # [2] entered with weight 0: its children never tested
    assert pruned["node:1"] == "rejected" and [pruned[f"node:1.{i}"] for i in range(3)] == ["pruned"] * 3
    assert "pruned: never tested" in dict(at[(1,)]["chart"]["states"]).values()
    kept = states(at[(2,)])  # [3] kept after its children: its path kept, nothing else left to test
    assert kept["node:2"] == "accepted" and [kept[f"node:2.{i}"] for i in range(3)] == ["rejected"] * 3
    assert [e for e in at[(2,)]["chart"]["edges"] if e[1] == "node:2"][0][2]  # the kept path drawn thick
    titles = [f["chart"]["title"] for f in at.values()]
    assert titles[0] == "Traversal: node [1, 1], sibling 1 of 3, a leaf tested with its entry weight"
    assert titles[3] == "Traversal: node [1], sibling 1 of 3, tested after its children were rejected"
    assert titles[4] == "Traversal: node [2], sibling 2 of 3, entered with weight 0 (its subtree pruned)"


def test_the_correction_comes_from_the_kept_nodes_r_and_its_chip_grows_from_the_node():
    events, frames = walk()
    index = next(i for i, e in enumerate(events) if isinstance(e, TraversalCorrectionEvent))
    event, frame = events[index], frames[index]
    assert tuple(event.path) == (2,) and event.children == 3 and event.weight == 1
    assert frame["chart"]["title"] == "Traversal: node [3] kept after its 3 children, the next token from its r"
    series = frame["chart"]["panel"]["series"][0]
    r = [F(t, event.residual.total) for t in event.residual.ticket_ints()]
    assert series["exact"] == [fraction_folded(v) for v in r] and series["highlight"] == event.token
    assert frame["chart"]["panel"]["panels"][0]["x_title"] == "r at node [3], kept with weight 1"
    assert states(frame)["node:2.x"] == "correction" and {states(frame)[f"node:1.{i}"] for i in range(3)} == {"pruned"}
    chips = [c for c in frame["text"]["chips"] if c.get("grow")]
    assert [c["grow"]["key"] for c in chips] == ["node:2", "node:2.x"]  # ‘cat’ from its node, the correction from r
    assert [c["text"] for c in chips] == ["cat", style.token_label(WALK.vocab[event.token])]


def test_the_png_export_draws_the_same_walk():
    events, _ = walk()
    upto = next(i for i, e in enumerate(events) if isinstance(e, TraversalCheckEvent) and tuple(e.path) == (1,))
    figure, strip = plots.event_figures(events[upto], events, WALK.vocab, WALK.depth)
    names = {t.name for t in figure.data}
    assert {"pruned: never tested", "rejected", "parent's w", "tested"} <= names
    assert any(t.line.dash == "dot" and t.x for t in figure.data if t.mode == "lines")  # struck edges
    assert list(figure.layout.xaxis2.ticktext or figure.layout.xaxis2.categoryarray)[:3] == [
        "parent's<br>w", "entered", "tested"]
    assert figure.layout.xaxis2.tickangle == 0  # the weights' names side by side, not turned
    at = treeplot.tree_at(events, upto, WALK.vocab)
    assert {n.path: n.state for n in at.nodes}[(1, 0)] == "pruned" and (1, 0) in at.struck
