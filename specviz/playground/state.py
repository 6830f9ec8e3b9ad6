"""Pure state transitions of the Playground animation, testable without Streamlit.

The animation's whole state is a scenario plus one integer, ``step``: an index into the
events of the rounds played from the empty prefix, round after round (round 0's events,
then round 1's, ...). A ``Timeline`` plays those rounds on demand and is memoized per
scenario, so every transition is a pure function of (scenario, state). ``step`` is what
the URL stores; the current round is the one that holds that event.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, replace

from ..core import SpecvizError
from ..core.trace import Event, Trace
from ..scenario import Round, Scenario, play_round
from .explain import PlaygroundError

MAX_ROUNDS = 200  # a lecture never needs more; keeps a runaway Play bounded
_CACHE_SIZE = 32


class Timeline:
    """The rounds of one scenario played from the empty prefix, grown lazily, events flattened.

    ``error`` holds the core's refusal if a round could not be played (e.g. a Markov row
    with no support reached only later); rounds before it stay available.
    """

    def __init__(self, scenario: Scenario):
        self.scenario = scenario
        self.rounds: list[Round] = []
        self.events: list[Event] = []
        self.round_index: list[int] = []  # round of each event
        self.starts: list[int] = []  # first event index of each round
        self.error: Exception | None = None
        self.stopped = False
        self._verifier = None
        self._lock = threading.Lock()

    @property
    def exhausted(self) -> bool:
        return self.stopped or self.error is not None or len(self.rounds) >= MAX_ROUNDS

    def _play_one(self) -> bool:
        if self.exhausted:
            return False
        try:
            if self._verifier is None:
                self._verifier = self.scenario.verifier()
            played = play_round(self.scenario, self._verifier, len(self.rounds))
        except (SpecvizError, ValueError, TypeError) as error:
            self.error = error
            return False
        self.starts.append(len(self.events))
        self.rounds.append(played)
        self.events.extend(played.trace.events)
        self.round_index.extend([played.round_id] * len(played.trace.events))
        self.stopped = played.result.stopped
        return True

    def ensure_rounds(self, count: int) -> int:
        """Play until count rounds exist (or no more can be played); return how many exist."""
        with self._lock:
            while len(self.rounds) < count and self._play_one():
                pass
            return len(self.rounds)

    def ensure_events(self, count: int) -> int:
        """Play until count events exist (or no more can be played); return how many exist."""
        with self._lock:
            while len(self.events) < count and self._play_one():
                pass
            return len(self.events)

    def round_of(self, step: int) -> int:
        return self.round_index[step]

    def round_end(self, round_id: int) -> int:
        """Index of the last event (the ResultEvent) of a played round."""
        return self.starts[round_id] + len(self.rounds[round_id].trace.events) - 1


_timelines: OrderedDict[Scenario, Timeline] = OrderedDict()
_timelines_lock = threading.Lock()


def timeline_for(scenario: Scenario) -> Timeline:
    """The memoized timeline of a scenario (deterministic, so sharing it between sessions is safe)."""
    with _timelines_lock:
        timeline = _timelines.get(scenario)
        if timeline is None:
            timeline = _timelines[scenario] = Timeline(scenario)
            while len(_timelines) > _CACHE_SIZE:
                _timelines.popitem(last=False)
        else:
            _timelines.move_to_end(scenario)
        return timeline


@dataclass(frozen=True)
class PlayState:
    """Where the animation is: the event index, whether Play is on, and a note on a refused move."""

    step: int = 0
    playing: bool = False
    notice: str = ""


def _at_end_notice(timeline: Timeline) -> str:
    if timeline.stopped:
        return "The request stopped at a stop token: press Reset or New seed to start again."
    if timeline.error is not None:
        return f"The next round cannot be played: {timeline.error}"
    if len(timeline.rounds) >= MAX_ROUNDS:
        return f"The Playground stops after {MAX_ROUNDS} rounds: press Reset."
    return ""


def clamp(state: PlayState, scenario: Scenario) -> PlayState:
    """The state with step moved inside the events that exist (playing rounds as needed)."""
    timeline = timeline_for(scenario)
    available = timeline.ensure_events(max(state.step, 0) + 1)
    if available == 0:
        return replace(state, step=0, playing=False, notice=_at_end_notice(timeline))
    step = min(max(state.step, 0), available - 1)
    return replace(state, step=step) if step != state.step else state


def step_forward(state: PlayState, scenario: Scenario) -> PlayState:
    """One event on; past the end of a round this plays the next round from the committed prefix."""
    timeline = timeline_for(scenario)
    if timeline.ensure_events(state.step + 2) > state.step + 1:
        return replace(state, step=state.step + 1, notice="")
    return replace(state, playing=False, notice=_at_end_notice(timeline))


def step_back(state: PlayState, scenario: Scenario | None = None) -> PlayState:
    return replace(state, step=max(0, state.step - 1), playing=False, notice="")


def play_tick(state: PlayState, scenario: Scenario) -> PlayState:
    """What one timer tick does while playing: step forward, pausing at the end."""
    if not state.playing:
        return state
    return step_forward(state, scenario)


def due(last_tick: float, now: float, interval: float) -> bool:
    """Whether a Play timer tick is due (fragment reruns also come from button clicks).

    Half an interval is enough: the timer fires once per interval, and a tick that came a little
    early must not be skipped (a skipped tick doubles the pause, which reads as jerky).
    """
    return now - last_tick >= 0.5 * interval


def next_tick(last_tick: float, now: float, interval: float) -> float:
    """When the tick just played was scheduled: on the interval's grid, so steps land at an even pace
    however long a render took; a grid left far behind (a pause, a slow run) restarts from now."""
    scheduled = last_tick + interval
    return scheduled if abs(now - scheduled) < interval else now


def toggle_play(state: PlayState, scenario: Scenario) -> PlayState:
    if state.playing:
        return replace(state, playing=False)
    timeline = timeline_for(scenario)
    if timeline.ensure_events(state.step + 2) <= state.step + 1:
        return replace(state, playing=False, notice=_at_end_notice(timeline))
    return replace(state, playing=True, notice="")


def reset(state: PlayState | None = None, scenario: Scenario | None = None) -> PlayState:
    return PlayState()


def next_round(state: PlayState, scenario: Scenario) -> PlayState:
    """Jump to the first event of the round after the current one (drafting from the committed prefix)."""
    timeline = timeline_for(scenario)
    state = clamp(state, scenario)
    if not timeline.events:
        return state
    target = timeline.round_of(state.step) + 1
    if timeline.ensure_rounds(target + 1) > target:
        return replace(state, step=timeline.starts[target], notice="")
    return replace(state, playing=False, notice=_at_end_notice(timeline))


def end_of_round(state: PlayState, scenario: Scenario) -> PlayState:
    """Jump to the current round's result event."""
    timeline = timeline_for(scenario)
    state = clamp(state, scenario)
    if not timeline.events:
        return state
    return replace(state, step=timeline.round_end(timeline.round_of(state.step)), notice="")


def new_seed(scenario: Scenario) -> tuple[Scenario, PlayState]:
    """The next seed (seed + 1, reproducible) and a fresh animation."""
    return scenario.with_changes(seed=scenario.seed + 1), PlayState()


def after_edit(state: PlayState, old: Scenario | None, new: Scenario) -> PlayState:
    """A changed scenario replays from the start; an unchanged one keeps its step."""
    if old == new:
        return state
    return PlayState()


def trace_upto(scenario: Scenario, step: int) -> Trace | None:
    """The trace of every round up to the one holding ``step`` (what the download carries); None if none played."""
    timeline = timeline_for(scenario)
    timeline.ensure_events(max(step, 0) + 1)
    if not timeline.rounds:
        return None
    trace = Trace()
    upto = timeline.round_of(min(max(step, 0), len(timeline.events) - 1))
    for played in timeline.rounds[: upto + 1]:
        trace.extend(played.trace)
    return trace


def round_holding(scenario: Scenario, step: int) -> int:
    """The round (its index, from 0) that holds ``step``, or the last played one for a step past the end.

    PlaygroundError (field 'step'), with the core's refusal, when not even the first round can be played (a rule
    that removes every token, a row with no support): there is then no event for a step to point at.
    """
    timeline = timeline_for(scenario)
    known = timeline.ensure_events(max(step, 0) + 1)
    if known == 0:
        why = timeline.error or "the request stopped before its first round"
        raise PlaygroundError(f"no round can be played: {why}", field="step")
    return timeline.round_of(min(max(step, 0), known - 1))


def fit_step(scenario: Scenario, step: int) -> tuple[int, str]:
    """The step a link or file can open at (the events that exist), and a note when it had to move ('' if not)."""
    fitted = clamp(PlayState(step=step), scenario).step
    if fitted == step or step < 0:  # a negative step is the reader's to note
        return fitted, ""
    timeline = timeline_for(scenario)
    if timeline.stopped:
        why = "the request stops at a stop token there"
    elif len(timeline.rounds) >= MAX_ROUNDS:
        why = f"the Playground plays {MAX_ROUNDS} rounds at most"
    else:
        why = "the next round cannot be played"
    return fitted, f"Step {step + 1} → Step {fitted + 1} (the last step: {why})"
