"""Pure state transitions of the Playground animation (no Streamlit)."""


import pytest

from specviz.core.trace import ResultEvent
from specviz.playground import presets, state
from specviz.playground.state import PlayState
from specviz.scenario import Table, play


def scenario(name="close", markov=False, **changes):
    return presets.apply_preset(presets.default_scenario(markov), name, markov).with_changes(**changes)


def test_timeline_matches_play():
    s = scenario("far apart", depth=4)
    timeline = state.timeline_for(s)
    assert timeline.ensure_rounds(5) == 5
    rounds = play(s, 5)
    assert [r.result for r in timeline.rounds] == [r.result for r in rounds]
    assert timeline.events == [e for r in rounds for e in r.trace.events]
    assert timeline.starts[1] == len(rounds[0].trace)


def test_timeline_is_memoized_per_scenario():
    s = scenario()
    assert state.timeline_for(s) is state.timeline_for(scenario())
    assert state.timeline_for(s) is not state.timeline_for(s.with_changes(seed=7))


def test_step_forward_and_back():
    s = scenario()
    st = PlayState()
    st = state.step_forward(st, s)
    assert st.step == 1
    st = state.step_back(st, s)
    assert st.step == 0
    assert state.step_back(st, s).step == 0


def test_step_forward_runs_into_the_next_round():
    s = scenario()
    timeline = state.timeline_for(s)
    timeline.ensure_rounds(1)
    end = timeline.round_end(0)
    assert isinstance(timeline.events[end], ResultEvent)
    st = state.step_forward(PlayState(step=end), s)
    assert st.step == end + 1 and timeline.round_of(st.step) == 1


def test_play_tick_only_when_playing_and_pauses_at_stop():
    s = scenario("stop-heavy")
    assert state.play_tick(PlayState(step=0), s).step == 0
    st = state.toggle_play(PlayState(), s)
    assert st.playing
    for _ in range(500):
        st = state.play_tick(st, s)
        if not st.playing:
            break
    assert not st.playing and "stop" in st.notice
    timeline = state.timeline_for(s)
    assert timeline.stopped and st.step == len(timeline.events) - 1
    assert not state.toggle_play(st, s).playing


def test_toggle_pauses():
    s = scenario()
    assert not state.toggle_play(PlayState(step=3, playing=True), s).playing


def test_reset_next_round_and_end_of_round():
    s = scenario()
    st = state.next_round(PlayState(step=2), s)
    timeline = state.timeline_for(s)
    assert st.step == timeline.starts[1]
    st = state.next_round(st, s)
    assert st.step == timeline.starts[2]
    end = state.end_of_round(st, s)
    assert isinstance(timeline.events[end.step], ResultEvent)
    assert state.reset(st, s) == PlayState()


def test_next_round_after_stop_explains():
    s = scenario("stop-heavy", seed=0)
    timeline = state.timeline_for(s)
    timeline.ensure_rounds(state.MAX_ROUNDS)
    assert timeline.stopped
    last = len(timeline.events) - 1
    st = state.next_round(PlayState(step=last), s)
    assert st.step == last and "Reset or New seed" in st.notice


def test_new_seed_is_reproducible():
    s = scenario(seed=4)
    new, st = state.new_seed(s)
    assert new.seed == 5 and st == PlayState()
    assert new.with_changes(seed=4) == s


def test_after_edit_restarts_only_on_change():
    s = scenario()
    st = PlayState(step=9)
    assert state.after_edit(st, s, s) is st
    assert state.after_edit(st, s, s.with_changes(depth=2)) == PlayState()


def test_clamp_moves_inside_known_events():
    s = scenario("stop-heavy")
    st = state.clamp(PlayState(step=10_000), s)
    assert st.step == len(state.timeline_for(s).events) - 1


def test_later_round_error_is_reported_not_raised():
    # Markov: after 'cat' the target has no support; round 0 may play, a later one fails
    s = scenario("close", markov=True)
    rows = list(s.target.rows)
    rows[1] = (0,) * 6
    bad = s.with_changes(target=Table(s.target.start, tuple(rows)))
    timeline = state.timeline_for(bad)
    timeline.ensure_rounds(50)
    assert timeline.error is not None
    st = state.clamp(PlayState(step=10_000), bad)
    st = state.step_forward(st, bad)
    assert "cannot be played" in st.notice


def test_due():
    assert state.due(0.0, 1.0, 1.0)
    assert not state.due(0.0, 0.4, 1.0)
    assert state.due(0.0, 0.9, 1.0)  # a timer firing a little early still steps (no doubled pause)


def test_next_tick_keeps_an_even_pace():
    assert state.next_tick(10.0, 11.3, 1.0) == 11.0  # on the grid, whatever the render took
    assert state.next_tick(10.0, 10.9, 1.0) == 11.0
    assert state.next_tick(10.0, 15.0, 1.0) == 15.0  # far behind (a pause): restart from now
    ticks, last = [], 0.0
    for fired in (1.05, 2.2, 2.95, 4.1, 5.02):  # a timer with jitter
        assert state.due(last, fired, 1.0)
        last = state.next_tick(last, fired, 1.0)
        ticks.append(last)
    assert ticks == [1.0, 2.0, 3.0, 4.0, 5.0]


@pytest.mark.parametrize("name", list(presets.PRESETS))
@pytest.mark.parametrize("markov", [False, True])
def test_every_preset_plays(name, markov):
    s = scenario(name, markov)
    timeline = state.timeline_for(s)
    assert timeline.ensure_rounds(3) >= 1
    assert timeline.error is None
    for played in timeline.rounds:
        assert 1 <= len(played.result.tokens) <= s.depth + 1


def test_trace_upto_holds_every_round_up_to_the_step():
    s = presets.apply_preset(presets.default_scenario(), "far apart")
    timeline = state.timeline_for(s)
    timeline.ensure_rounds(3)
    step = timeline.starts[2] + 1  # inside round 2
    trace = state.trace_upto(s, step)
    expected = [e for r in timeline.rounds[:3] for e in r.trace.events]
    assert trace is not None and list(trace.events) == expected
    assert list(state.trace_upto(s, 0).events) == list(timeline.rounds[0].trace.events)
    refused = presets.default_scenario().with_changes(target=Table((0,) * 6))
    assert state.trace_upto(refused, 0) is None


def test_fit_step_moves_a_step_past_the_end_and_says_why():
    s = presets.apply_preset(presets.default_scenario(), "stop-heavy")
    timeline = state.timeline_for(s)
    timeline.ensure_rounds(state.MAX_ROUNDS)
    last = len(timeline.events) - 1
    assert state.fit_step(s, 3) == (3, "")
    step, note = state.fit_step(s, 9999)
    assert step == last and note == (f"Step 10000 → Step {last + 1} (the last step: the request stops at a stop token "
                                     "there)")  # steps read from 1, as the label says them
    assert state.fit_step(s, -3) == (0, "")  # the reader of the link says that one
    endless = presets.default_scenario()
    step, note = state.fit_step(endless, 10**6)
    assert f"plays {state.MAX_ROUNDS} rounds at most" in note and str(step + 1) in note


def test_round_holding_names_the_round_of_a_step_and_refuses_a_scenario_that_plays_none():
    from specviz.playground.explain import PlaygroundError
    from specviz.playground.state import round_holding, timeline_for
    from specviz.scenario import Scenario, Table

    s = Scenario(vocab=("a", "b", "c", "d", "e", "f"), target=Table((6, 5, 4, 3, 2, 1)),
                 draft=Table((1, 2, 3, 4, 5, 6)))
    timeline = timeline_for(s)
    timeline.ensure_rounds(3)
    assert round_holding(s, 0) == 0 and round_holding(s, timeline.starts[2]) == 2
    assert round_holding(s, -4) == 0  # a negative step is the first event's
    none = Scenario(vocab=("a", "b", "c", "d", "e", "f"), target=Table((1, 1, 1, 0, 0, 0)),
                    draft=Table((1,) * 6), verification="typical-sample:0.5,1")
    with pytest.raises(PlaygroundError, match="no round can be played: Medusa's typical truncation"):
        round_holding(none, 7)  # was an IndexError (issue 34)
