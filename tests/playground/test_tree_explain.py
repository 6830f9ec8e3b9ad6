"""Narration of draft-tree rounds: every number of a node's step, exactly."""

from __future__ import annotations

from specviz import narration
from specviz.narration.block import fraction_text
from specviz.narration.tree_words import narrate_event
from specviz.playground import narrative as view
from specviz.playground import presets, state
from specviz.scenario import play


def tree_events(name="far apart", verification="multi:2", rounds=6, **changes):
    s = presets.apply_preset(presets.default_scenario(), name).with_changes(verification=verification, **changes)
    timeline = state.timeline_for(s)
    played = timeline.ensure_rounds(rounds)
    # the timeline is shared (memoized): another test may have played it further, so cut it at `rounds`
    return s, timeline.events[: timeline.starts[rounds]] if played > rounds else timeline.events


def test_every_tree_event_is_narrated_with_its_numbers():
    s, events = tree_events("far apart", "multi-distinct:2")
    kinds = set()
    for event in events:
        told = narrate_event(event, s.vocab)
        if event.kind not in ("tree_draft", "tree_check", "correction"):
            assert told is None
            continue
        kinds.add(event.kind)
        head, lines = told
        text = "\n".join(lines)
        if event.kind == "tree_check" and event.acceptance == 0:  # r(x) = 0: rejected whatever u is
            assert "r(x) = 0: **rejected**, no draw needed" in text and f"draw {event.draw} of" not in text
        else:
            assert f"draw {event.draw} of 0..{event.draw_range - 1}" in text
        node = "node [" + ", ".join(str(i + 1) for i in event.path) + "]" if event.path else "the root"
        if event.kind == "tree_draft":
            assert f"drafting the tree: {node} is" in head  # named by its path, from 1
            assert fraction_text(event.q_token) in text
            assert ("without replacement" in text) == (event.sibling > 0)  # distinct: q′ after the first
        elif event.kind == "tree_check":
            assert f"tree check of {node}: sibling {event.sibling + 1} of {event.siblings}" in head
            assert fraction_text(event.r_token) in text and fraction_text(event.acceptance) in text
            if not event.accepted:
                assert fraction_text(event.residual_mass) in text
                assert ("(p − q)+" in text) == (event.scale == 1)
        else:
            assert f"every child of {node} rejected" in head and fraction_text(event.residual_mass) in text
    assert kinds == {"tree_draft", "tree_check", "correction"}


def test_block_explain_hands_tree_events_on_and_the_page_shows_them():
    s, events = tree_events("close", "multi:2", rounds=2)
    for step, event in enumerate(events):
        told = narration.rule_event(event, s.vocab)  # the block narration, then the tree's (one dispatch)
        assert (told is not None) == (event.kind in ("tree_draft", "tree_check") or hasattr(event, "path"))
        shown = view.step_view(s, step)
        if told is not None:
            assert shown.headline == narration.rule_event(event, s.vocab, narration.PAGE)[0]
        assert view.PHASE_TITLES[shown.phase]


def test_width_one_reads_as_tokenwise_numbers():
    base = presets.apply_preset(presets.default_scenario(), "far apart")
    tree = [e for r in play(base.with_changes(verification="multi:1"), 2) for e in r.trace.events]
    token = [e for r in play(base, 2) for e in r.trace.events]
    checks = [e for e in tree if e.kind == "tree_check"]
    assert checks and [(c.acceptance, c.draw, c.accepted) for c in checks] == [
        (c.acceptance, c.draw, c.accepted) for c in token if c.kind == "check"]
