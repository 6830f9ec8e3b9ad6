"""Traversal verification in the Playground under AppTest: the switch plays it, a link opens it, a round steps
from the leaves up with the walk drawn (nodes tested, rejected, pruned, the kept path) and narrated, and Compare
verifies the round's tree two ways with their exact expectations side by side."""

from __future__ import annotations

from player_support import data, frame, headline, step
from test_playground import app, open_tab, page_text

from specviz import narration
from specviz.core.trace import ResultEvent, TraversalCheckEvent, TraversalCorrectionEvent
from specviz.formats import fraction_folded
from specviz.playground import compare, presets, share, state

COMPARE_TAB = "⚖️ Compare"
# far apart, width 3, depth 2, seed 3: the first round rejects node [1]'s subtree and prunes under node [2] (weight
# 0), then keeps node [3] after its three children were rejected and corrects from its r
WALK = presets.apply_preset(presets.default_scenario(), "far apart").with_changes(verification="traversal:3",
                                                                                   depth=2, seed=3)


def _states(at) -> dict[str, str]:
    return {n["key"]: n["state"] for n in frame(at)["chart"]["nodes"]}


def test_a_traversal_link_opens_on_the_switch_and_a_round_steps_from_the_leaves_up():
    at = app(share.scenario_to_query(WALK, 0))
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.radio(key="pg_verification").value == "traversal"
    width = next(w for w in at.slider if w.key == "pg_traversal_width")
    assert width.value == 3 and not next(t for t in at.toggle if t.key == "pg_traversal_distinct").value
    timeline = state.timeline_for(WALK)
    timeline.ensure_rounds(1)
    events = timeline.rounds[0].trace.events
    setting = narration.Setting.of(WALK)
    for index, event in enumerate(events):
        if index:
            step(at)
        assert at.session_state["pg_state"].step == index
        assert headline(at) == narration.sentences(event, setting, [])[0]
        assert "error" not in frame(at) and frame(at)["event"] == type(event).__name__
        if isinstance(event, TraversalCheckEvent):
            f = frame(at)
            assert f["chart"]["current"] == "node:" + ".".join(map(str, event.path))
            assert "node [" in f["chart"]["title"] and "node [0" not in f["chart"]["title"]  # paths from 1
            tested = next(s for s in f["chart"]["panel"]["series"] if s["name"] == "tested")
            assert fraction_folded(event.acceptance) in tested["exact"]  # the weight tested, exactly
        if isinstance(event, TraversalCorrectionEvent):
            states = _states(at)
            assert states["node:2"] == "accepted"  # node [3] kept after its children
            assert [states[f"node:2.{i}"] for i in range(3)] == ["rejected"] * 3
            assert states["node:1"] == "rejected" and states["node:0"] == "rejected"
            assert [states[f"node:0.{i}"] for i in range(3)] == ["rejected"] * 3
            assert {states[f"node:1.{i}"] for i in range(3)} == {"pruned"}
    assert isinstance(events[-1], ResultEvent) and not at.error


def test_the_switch_plays_traversal_with_its_width_and_distinct_children():
    at = app(share.scenario_to_query(WALK.with_changes(verification="multi:2"), 0))
    at.radio(key="pg_verification").set_value("traversal").run()
    assert not at.exception, at.exception
    next(t for t in at.toggle if t.key == "pg_traversal_distinct").set_value(True).run()
    assert at.session_state["pg_scenario"].verification == "traversal-distinct:2"
    query = at.query_params.get("verification")
    assert "traversal-distinct:2" in (query if isinstance(query, str) else query[0])
    assert data(at)["round"]["frames"] and not at.error


def test_compare_verifies_the_rounds_tree_two_ways_with_exact_expectations_and_denominators():
    at = open_tab(app(share.scenario_to_query(WALK, 0)), COMPARE_TAB)
    assert not at.exception and not at.error
    text = page_text(at)
    result = compare.trees_at(WALK, 0)
    assert [s.rule.name for s in result.sides] == ["multi:3", "traversal:3"] and result.same_tree
    expected = compare.expectations(WALK, result.prefix, ("multi:3", "traversal:3"))
    assert "one drafted tree" in text and "recursive rejection sampling (multi:3)" in text
    assert compare.trees_sentence(result, expected) in text and "every tree drafted from this prefix" in text
    assert "E[drafts kept] per round (exact)" in text and "this round: drafted nodes kept" in text
    assert compare.WHY_TREE_DRAWS_DIFFER in [c.value for c in at.caption]
    for side in result.sides:
        assert side.summary() in text
        assert f"{side.kept} of {side.drafted}" in text
    assert {c.key for c in at.get("plotly_chart")} == {"pg_compare_rrs", "pg_compare_traversal",
                                                        "pg_compare_seeds_chart"}
    at.radio(key="pg_compare_seeds").set_value(40).run()
    assert "Over 40 seeds" in page_text(at) and "traversal (traversal:3)" in page_text(at)


def test_every_tab_of_the_playground_opens_on_a_traversal_scenario():
    from specviz.app.playground.session import Tab

    for label in (Tab.proof, Tab.many_rounds, Tab.weights, Tab.share):
        at = open_tab(app(share.scenario_to_query(WALK, 12)), label)
        assert not at.exception and not at.error, (label, at.exception, [e.value for e in at.error])
