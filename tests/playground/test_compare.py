"""Tokenwise against block verification on one shared drafted block."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from specviz.core.trace import BlockDecisionEvent, CheckEvent, DraftEvent
from specviz.playground import compare, presets, state
from specviz.scenario import play


def scenario(name="far apart", **changes):
    return presets.apply_preset(presets.default_scenario(), name).with_changes(**changes)


def test_both_sides_verify_the_same_drafts():
    c = compare.compare(scenario(), (), 0)
    token, block = c.side("token"), c.side("block")
    for side in (token, block):
        drafts = [e.token for e in side.trace.events if isinstance(e, DraftEvent)]
        assert tuple(drafts) == c.drafts
    assert [e.token for e in token.checks] == list(c.drafts[: len(token.checks)])
    assert [e.token for e in block.checks] == list(c.drafts)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), name=st.sampled_from(list(presets.PRESETS)), depth=st.integers(1, 5))
def test_each_side_is_the_rules_own_round(seed, name, depth):
    """Each side commits what that rule's own round 0 commits (the same streams, the same drafts)."""
    s = scenario(name, seed=seed, depth=depth)
    c = compare.compare(s, (), 0)
    for rule in ("token", "block"):
        own = play(s.with_changes(verification=rule), 1)[0]
        assert c.side(rule).result == own.result
        assert [type(e) for e in c.side(rule).trace.events] == [type(e) for e in own.trace.events]


def test_block_never_keeps_fewer_in_expectation_but_can_differ_here():
    """Somewhere in the first seeds the rules commit different tokens from the same drafts."""
    differ = [seed for seed in range(40)
              if (c := compare.compare(scenario(seed=seed, depth=4), (), 0)).side("token").result
              != c.side("block").result]
    assert differ


def test_compare_at_uses_the_rounds_prefix():
    s = scenario("close", seed=3)
    timeline = state.timeline_for(s)
    timeline.ensure_rounds(3)
    c = compare.compare_at(s, 2)
    assert c.prefix == timeline.rounds[2].prefix and c.round_id == 2
    assert c.side(s.verification).result == timeline.rounds[2].result


def test_rows_and_summary_name_counts_with_their_denominator():
    s = scenario(seed=5)
    c = compare.compare(s, (), 0)
    rows = compare.rows(c, s.vocab)
    assert [r["rule"] for r in rows] == ["tokenwise", "block verification"]
    token = c.side("token")
    assert rows[0]["drafts committed"] == f"{token.kept} of {len(token.checks)} accepted"
    assert rows[1]["drafts committed"].endswith(f"of {len(c.drafts)} kept")
    assert c.side("block").summary().startswith(f"{c.side('block').kept} of {len(c.drafts)} drafts kept")
    decision = next(e for e in c.side("block").trace.events if isinstance(e, BlockDecisionEvent))
    assert decision.accepted_drafts == c.side("block").kept
    assert all(isinstance(e, CheckEvent) for e in token.checks)
