"""The draft tree figure: nodes by state (colour and shape), the accepted path, the residual's shrinking share."""

from __future__ import annotations

from fractions import Fraction

import plotly.graph_objects as go
import pytest

from specviz.playground import presets, state
from specviz.plots import step_figures as plots
from specviz.plots import style
from specviz.plots import tree_figures as treeplot


def rounds(name="far apart", verification="multi:3", count=6, **changes):
    s = presets.apply_preset(presets.default_scenario(), name).with_changes(verification=verification, **changes)
    timeline = state.timeline_for(s)
    timeline.ensure_rounds(count)
    return s, [r.trace.events for r in timeline.rounds]


def test_states_have_distinct_colour_and_shape():
    symbols = [symbol for _, _, symbol in treeplot.STATES.values()]
    assert len(set(symbols)) == len(symbols)  # a shape cue besides the colour
    colours = {state: colour for state, (_, colour, _) in treeplot.STATES.items()}
    assert colours["accepted"] == style.origin("accepted").color and colours["drafted"] == style.role("q").color


@pytest.mark.parametrize("verification", ["multi:2", "multi-distinct:3", "multi:1"])
def test_nodes_appear_as_drafted_and_take_their_outcome(verification):
    s, played = rounds("close", verification, depth=2)
    for events in played:
        drafts = [e for e in events if e.kind == "tree_draft"]
        for upto, event in enumerate(events):
            at = treeplot.tree_at(events, upto, s.vocab)
            seen = events[: upto + 1]
            drafted = sum(e.kind == "tree_draft" for e in seen)
            ended = any(e.kind in ("correction", "bonus") for e in seen)
            assert len(at.nodes) == 1 + drafted + ended  # the root, the drafted nodes, the correction or bonus
            states = {n.path: n.state for n in at.nodes}
            for check in (e for e in seen if e.kind == "tree_check"):
                assert states[tuple(check.path)] == ("accepted" if check.accepted else "rejected")
            if ended:
                assert not any(st_ == "drafted" for st_ in states.values())  # unchecked once the round ended
            if event.kind in ("tree_draft", "tree_check"):
                assert at.current == tuple(event.path)
            # unfolded, the layout is the whole round's: a node keeps its place from step to step (the
            # correction or bonus takes a row of its own as it appears, so the rows from then on)
            end = next((i for i, e in enumerate(events) if e.kind in ("correction", "bonus")), len(events))
            full = treeplot.tree_at(events, len(events) - 1 if upto >= end else end - 1, s.vocab)
            places = {n.path: (n.x, n.y) for n in full.nodes}
            assert all(places[n.path] == (n.x, n.y) for n in at.nodes)
        assert drafts and all(len(e.path) <= s.depth for e in drafts)


def test_the_residual_shrinks_from_sibling_to_sibling_with_its_share():
    s, played = rounds("far apart", "multi:3", count=10)
    seen_shrink = False
    for events in played:
        for upto, event in enumerate(events):
            if event.kind != "tree_check":
                continue
            res = treeplot.residual_before(events, upto)
            earlier = [e for e in events[:upto] if e.kind == "tree_check" and e.path[:-1] == event.path[:-1]]
            expected = Fraction(1)
            for e in earlier:
                expected *= e.residual_mass
            assert res.share == expected
            assert sum(res.r) == 1 and res.r[event.token] == event.r_token
            fig = treeplot.tree_figure(events, upto, s.vocab)
            take, left, q_prime, share = fig.data[-4:]  # min(r, q′) + (r − q′)+ = r; q′; r's share of p on its own
            assert sum(take.y) + sum(left.y) == pytest.approx(1.0)
            assert share.name == treeplot.SHARE_NAME and list(share.x) == [pytest.approx(float(res.share))]
            # one quantity, one value: the chart's q′(x) is the narration's q′(x), not scaled by the share
            assert q_prime.name == "q′" and q_prime.y[event.token] == pytest.approx(float(event.q_token))
            assert fig.layout.yaxis2.title.text == "probability"
            if earlier:
                seen_shrink = True
                assert res.share < 1
    assert seen_shrink


def test_the_correction_node_and_its_panel():
    s, played = rounds("far apart", "multi:2", count=6)
    for events in played:
        for upto, event in enumerate(events):
            if event.kind == "correction":
                at = treeplot.tree_at(events, upto, s.vocab)
                extra = [n for n in at.nodes if n.state == "correction"]
                assert len(extra) == 1 and extra[0].token == event.token and at.current == extra[0].path
                share = treeplot.correction_share(events, event)
                fig = treeplot.tree_figure(events, upto, s.vocab)
                assert sum(fig.data[-2].y) == pytest.approx(1.0)  # the last r itself
                assert list(fig.data[-1].x) == [pytest.approx(float(share))]  # and its share of p, on its own
                assert at.nodes[-1].y not in {n.y for n in at.nodes[:-1]}  # the correction has a row of its own
                assert "correction" in fig.layout.title.text
                return
    raise AssertionError("no correction in these rounds")


def test_figures_validate_and_hovers_are_exact():
    s, played = rounds("close", "multi:2", depth=3)
    events = played[0]
    for upto in range(len(events)):
        for presenter in (False, True):
            fig = treeplot.tree_figure(events, upto, s.vocab, presenter=presenter)
            go.Figure(fig.to_dict())  # plotly's own validation
            assert fig.layout.font.size == style.font_size(presenter)
    checked = next(i for i, e in enumerate(events) if e.kind == "tree_check")
    at = treeplot.tree_at(events, checked, s.vocab)
    node = next(n for n in at.nodes if n.path == tuple(events[checked].path))
    a = events[checked].acceptance
    assert f"min(1, r/q′) = {a.numerator}/{a.denominator}" in node.hover or a == 1


def test_the_playground_draws_tree_rounds_with_the_tree_and_its_draws():
    s, played = rounds("close", "multi:2", depth=2)
    events = played[0]
    for event in events:
        figure, strip = plots.event_figures(event, events, s.vocab, s.depth)
        names = {label for label, _, _ in treeplot.STATES.values()}
        assert any(t.name in names for t in figure.data)  # the tree's nodes (their legend only names states shown)
        if event.kind in ("tree_draft", "tree_check", "correction", "bonus"):
            assert strip is not None and strip.draw == event.draw and strip.draw_range == event.draw_range
        else:
            assert strip is None


def test_tree_size():
    assert treeplot.tree_nodes(3, 2) == 14 and treeplot.tree_nodes(2, 4) == 20
    assert treeplot.tree_nodes(4, 2) <= treeplot.MAX_TREE_NODES < treeplot.tree_nodes(3, 4)


@pytest.mark.parametrize("presenter", [False, True])
@pytest.mark.parametrize("width, depth", [(1, 5), (2, 3), (2, 4), (3, 2), (3, 3), (4, 2)])
def test_every_shown_leaf_has_its_own_row_and_no_marker_lies_on_a_label(width, depth, presenter):
    """Widths 1-4 up to the 40-node limit: every leaf of the shown tree (a folded subtree counts as one) its own
    row, within the row budget (the correction or bonus one more); the step's node and its siblings always
    shown; two nodes of one row at least a column apart, so a marker never lies on a label."""
    assert treeplot.tree_nodes(depth, width) <= treeplot.MAX_TREE_NODES
    budget = treeplot.ROW_BUDGET[presenter]
    s, played = rounds("close", f"multi:{width}", count=3, depth=depth, seed=4)
    folded_somewhere = False
    for events in played:
        for upto, event in enumerate(events):
            at = treeplot.tree_at(events, upto, s.vocab, budget=budget)
            shown = {n.path: n for n in at.nodes}
            parents = {parent for parent, _ in at.edges}
            leaves = [n for n in at.nodes if n.path not in parents]
            ended = any(e.kind in ("correction", "bonus") for e in events[: upto + 1])
            assert len({n.y for n in leaves}) == len(leaves) <= budget + ended
            for a in at.nodes:
                for b in at.nodes:
                    if a is not b and abs(a.y - b.y) < 0.5:
                        assert abs(a.x - b.x) >= 1, (a.path, b.path)
            if event.kind in ("tree_draft", "tree_check"):
                here = tuple(event.path)
                siblings = [e for e in events[: upto + 1] if e.kind == "tree_draft" and tuple(e.path)[:-1] == here[:-1]]
                assert here in shown and all(tuple(e.path) in shown for e in siblings)
            folded_somewhere |= any(n.folded for n in at.nodes)
            fig = treeplot.tree_figure(events, upto, s.vocab, presenter=presenter)
            assert all(min(t.textfont.size if isinstance(t.textfont.size, (tuple, list)) else [t.textfont.size]) >= 11
                       for t in fig.data if getattr(t, "mode", "") == "markers+text")
    assert folded_somewhere == (width ** depth > budget - 1)


def test_a_folded_node_counts_its_hidden_drafts_and_says_why():
    s, played = rounds("close", "multi:3", count=1, depth=3, seed=4)
    events = played[0]
    last_draft = max(i for i, e in enumerate(events) if e.kind == "tree_draft")
    at = treeplot.tree_at(events, last_draft, s.vocab, budget=treeplot.ROW_BUDGET[True])
    folded = [n for n in at.nodes if n.folded]
    assert folded and sum(n.folded for n in folded) + len(at.nodes) - 1 == treeplot.tree_nodes(3, 3)
    assert all("folded (off the checked path)" in n.hover for n in folded)
    fig = treeplot.tree_figure(events, last_draft, s.vocab, presenter=True)
    assert any("▸+3" in text for t in fig.data if getattr(t, "mode", "") == "markers+text" for text in t.text)
