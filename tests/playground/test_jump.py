"""The "jump to" targets: pure searches over the flattened trace events, and the jump that plays rounds."""

from __future__ import annotations

import pytest

from specviz.core.trace import BlockDecisionEvent, BonusEvent, CheckEvent, CorrectionEvent, ResultEvent
from specviz.playground import jump, presets, state
from specviz.playground.state import PlayState
from specviz.scenario import Table


def scenario(name="far apart", **changes):
    return presets.apply_preset(presets.default_scenario(), name).with_changes(**changes)


def events_of(s, rounds=6):
    timeline = state.timeline_for(s)
    timeline.ensure_rounds(rounds)
    return timeline.events


def test_first_rejection_is_the_runs_first_rejected_check_from_any_step():
    events = events_of(scenario())
    first = next(i for i, e in enumerate(events) if isinstance(e, CheckEvent) and not e.accepted)
    for step in (0, first, first + 3, len(events) - 1):
        assert jump.find(events, step, jump.FIRST_REJECTION) == first


def test_next_correction_and_bonus_lie_strictly_after_the_step():
    events = events_of(scenario("close", seed=4), rounds=12)
    corrections = [i for i, e in enumerate(events) if isinstance(e, CorrectionEvent)]
    bonuses = [i for i, e in enumerate(events) if isinstance(e, BonusEvent)]
    assert corrections and bonuses
    assert jump.find(events, 0, jump.NEXT_CORRECTION) == corrections[0]
    assert jump.find(events, corrections[0], jump.NEXT_CORRECTION) == (corrections[1:] or [None])[0]
    assert jump.find(events, 0, jump.NEXT_BONUS) == bonuses[0]
    assert jump.find(events, bonuses[-1], jump.NEXT_BONUS) is None


def test_round_end_is_the_current_rounds_result():
    events = events_of(scenario())
    ends = [i for i, e in enumerate(events) if isinstance(e, ResultEvent)]
    assert jump.find(events, 0, jump.ROUND_END) == ends[0]
    assert jump.find(events, ends[0], jump.ROUND_END) == ends[0]  # at the result: stays
    assert jump.find(events, ends[0] + 1, jump.ROUND_END) == ends[1]


def test_block_rejection_is_a_decision_that_corrects():
    events = events_of(scenario(verification="block"))
    first = next(i for i, e in enumerate(events) if isinstance(e, BlockDecisionEvent) and e.ending == "correction")
    assert jump.find(events, 0, jump.FIRST_REJECTION) == first
    corrected = jump.find(events, 0, jump.NEXT_CORRECTION)
    assert corrected is not None and events[corrected].kind == "correction" and corrected > first


def test_unknown_target_is_refused_by_name():
    with pytest.raises(jump.JumpError, match="one of 'first check', 'first rejection'.*got 'next stop'"):
        jump.find([], 0, "next stop")
    with pytest.raises(jump.JumpError):
        jump.jump(PlayState(), scenario(), "bonus")


def test_jump_plays_rounds_until_the_target_exists():
    s = scenario("p = q", seed=11)  # every draft accepted: a bonus in every round, never a correction
    timeline = state.timeline_for(s)
    before = jump.jump(PlayState(step=0), s, jump.NEXT_BONUS)
    assert isinstance(timeline.events[before.step], BonusEvent)
    after = jump.jump(before, s, jump.NEXT_BONUS)
    assert after.step > before.step and isinstance(timeline.events[after.step], BonusEvent)
    assert not after.notice and not after.playing


def test_jump_without_a_target_keeps_the_step_and_says_why():
    s = scenario("p = q", seed=2)
    st = jump.jump(PlayState(step=3, playing=True), s, jump.NEXT_CORRECTION)
    assert st.step == 3 and not st.playing
    assert st.notice.startswith("No correction to jump to: none in the 200 rounds played")


def test_jump_names_the_stop_when_the_request_stopped():
    # the only token with target mass is the stop token: the first round commits it and the request stops
    s = scenario("far apart", target=Table((0, 0, 0, 0, 0, 1)), draft=Table((1, 1, 1, 1, 1, 1)),
                 stop_ids=frozenset({5}))
    st = jump.jump(PlayState(), s, jump.NEXT_BONUS)
    assert "the request stopped at a stop token" in st.notice
    assert st.step == 0
