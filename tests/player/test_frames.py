"""The step player's frames: one builder per event class (the registry misses none of core/trace.py), every value
a person reads carried with its exact fraction as text, and the motion between frames said in data."""

from __future__ import annotations

import dataclasses
import inspect
import json
from fractions import Fraction

import pytest

from specviz.core import trace
from specviz.formats import fraction_folded
from specviz.player import frames, round_frames
from specviz.player.frames import BUILDERS, Context
from specviz.playground import narrative, presets
from specviz.playground.state import timeline_for
from specviz.scenario import Scenario, Table

BASE = presets.default_scenario()
FAR = presets.apply_preset(BASE, "far apart").with_changes(seed=1)
SAME = presets.apply_preset(BASE, "p = q").with_changes(seed=2)
VOCAB12 = tuple(f"w{i}" for i in range(12))
WIDE = presets.apply_preset(Scenario(vocab=VOCAB12, target=Table((1,) * 12), draft=Table((1,) * 12), depth=3,
                                     seed=3), "far apart").with_changes(verification="multi:3")
STOPS = presets.apply_preset(BASE, "stop-heavy")
RULES = [FAR, SAME, FAR.with_changes(verification="block"), SAME.with_changes(verification="block"),
         FAR.with_changes(verification="multi:2", depth=2), FAR.with_changes(verification="multi-distinct:2", depth=2),
         FAR.with_changes(verification="ensemble:0.5"), FAR.with_changes(verification="threshold:0.5,0.8"),
         FAR.with_changes(verification="threshold:0.5,0.8,2", depth=2), FAR.with_changes(verification="typical:0.09"),
         FAR.with_changes(verification="typical-sample:0.09"), SAME.with_changes(verification="typical:0.09"),
         STOPS, STOPS.with_changes(verification="multi:2", depth=2), WIDE,
         FAR.with_changes(verification="exact-match"), FAR.with_changes(verification="exact-match:2", depth=2),
         FAR.with_changes(verification="sglang:0.5,0.8,2", depth=2),
         # traversal verification: subtrees rejected and pruned, a kept inner node's correction, the root's, a bonus
         FAR.with_changes(verification="traversal:3", depth=2, seed=3),
         presets.apply_preset(BASE, "close").with_changes(verification="traversal-distinct:2", depth=2, seed=1),
         STOPS.with_changes(verification="traversal:2", depth=2)]


def event_classes() -> set[type]:
    """Every event class core/trace.py defines: a dataclass with a ``kind``."""
    return {cls for _, cls in inspect.getmembers(trace, inspect.isclass)
            if dataclasses.is_dataclass(cls) and "kind" in vars(cls) | {k: 1 for b in cls.__mro__ for k in vars(b)}
            and cls.__module__ == trace.__name__ and cls is not trace.Trace}


def test_every_event_class_of_the_trace_has_its_frame_builder():
    missing = sorted(cls.__name__ for cls in event_classes() if cls not in BUILDERS)
    assert not missing, f"no frame builder for {', '.join(missing)}: add one to specviz.player.frames.BUILDERS"
    assert len(event_classes()) >= 20  # the trace's classes were found (a refactor must not hide them)


def test_a_class_without_a_builder_is_refused_by_name_not_drawn_as_its_base():
    @dataclasses.dataclass(frozen=True)
    class NewCheck(trace.CheckEvent):  # a subclass: its base's builder does not stand in for it
        extra: int = 0

    timeline = timeline_for(FAR)
    timeline.ensure_rounds(1)
    event = next(e for e in timeline.rounds[0].trace.events if isinstance(e, trace.CheckEvent))
    new = NewCheck(**{f.name: getattr(event, f.name) for f in dataclasses.fields(event)})
    with pytest.raises(AssertionError, match="no frame builder for NewCheck"):
        frames.drawing(new, Context(FAR, (new,), 0, False))


def all_frames(scenario: Scenario, rounds_played: int = 3, presenter: bool = False):
    timeline = timeline_for(scenario)
    timeline.ensure_rounds(rounds_played)
    for round_id in range(len(timeline.rounds)):
        payload = round_frames.payload(scenario, round_id, presenter)
        events = timeline.rounds[round_id].trace.events
        for index, frame in enumerate(payload["frames"]):
            yield events[index], frame, payload


@pytest.mark.parametrize("scenario", RULES, ids=lambda s: s.verification + ("-stop" if s.stop_ids else ""))
def test_every_event_gets_a_frame_that_names_it_and_says_its_words(scenario):
    seen = set()
    for event, frame, payload in all_frames(scenario):
        assert "error" not in frame, frame.get("error")
        seen.add(type(event))
        assert frame["event"] == type(event).__name__ and frame["step"] >= payload["first"]
        view = narrative.step_view(scenario, frame["step"])
        assert frame["headline"] == view.headline and frame["lines"] == [line.split("**") for line in view.lines]
        assert frame["caption"].startswith(f"Step {view.step + 1} · round {view.round_id + 1} · event ")
        assert frame["chart"]["type"] in ("bars", "tree", "round") and frame["chart"]["title"]
        json.dumps(frame)  # plain data
    assert seen


def test_the_scenarios_above_play_every_event_class_so_every_builder_is_run():
    played = set()
    for scenario in RULES:
        for event, _, _ in all_frames(scenario, 4):
            played.add(type(event))
    assert not sorted(cls.__name__ for cls in event_classes() - played)


def exact_values(frame: dict) -> list[tuple[float, str]]:
    """Every (value, its text) pair a frame's bars and strip carry."""
    pairs = []
    charts = [frame["chart"]] + ([frame["chart"]["panel"]] if frame["chart"].get("panel") else [])
    for chart in charts:
        for series in chart.get("series", []):
            pairs += [(v, t) for v, t in zip(series["values"], series["exact"]) if v is not None]
    return pairs


def test_bars_carry_their_exact_fractions_as_text():
    checked = 0
    for event, frame, _ in all_frames(FAR, 2):
        if isinstance(event, trace.CheckEvent):  # p and q at the check, exactly as the core holds them
            p = [Fraction(t, event.p.total) for t in event.p.ticket_ints()]
            series = {s["key"]: s for s in frame["chart"]["series"]}
            assert series["p"]["exact"] == [fraction_folded(v) for v in p]
            assert series["p"]["values"] == [float(v) for v in p] and series["p"]["highlight"] == event.token
            checked += 1
        for value, text in exact_values(frame):
            assert text and (text == "0" if value == 0 else text != "0")
    assert checked


def test_the_residual_grows_out_of_p_then_is_renormalized_in_a_second_stage():
    for event, frame, _ in all_frames(FAR, 2):
        if type(event) is trace.CorrectionEvent:
            series = {s["key"]: s for s in frame["chart"]["series"]}
            assert series["min"]["grow"] == {"key": "p", "frame": "old"} and series["min"]["stack"] == "p"
            assert series["excess"]["grow"] == {"key": "p", "frame": "old"}
            assert series["rnorm"]["grow"] == {"key": "excess", "frame": "new"} and series["rnorm"]["stage"] == 1
            assert series["rnorm"]["panel"] == 1 and series["rnorm"]["highlight"] == event.token
            assert frame["strip"]["segments"][frame["strip"]["chosen"]]["label"] == frame["chart"]["panels"][1][
                "labels"][event.token]
            return
    raise AssertionError("no correction in the rounds played")


def test_a_rejection_strikes_out_the_drafts_it_discards_and_a_kept_draft_grows_from_its_chip():
    for event, frame, _ in all_frames(FAR, 2):
        chips = frame["text"]["chips"]
        if isinstance(event, trace.CorrectionEvent):
            drafts = [c for c in chips if c["key"].startswith(f"chip:d{event.round_id}.")]
            assert drafts and all(c["status"] == "discarded" for c in drafts)
            assert chips[[c["key"] for c in chips].index(drafts[0]["key"]) - 1]["cue"] == "correction"
        if isinstance(event, trace.CheckEvent) and event.accepted:
            committed = [c for c in chips if c.get("grow") and c["cue"] == "accepted"]
            assert committed[-1]["grow"]["key"] == f"chip:d{event.round_id}.{event.position}"


def test_a_draft_with_p_zero_needs_no_draw():
    scenario = BASE.with_changes(target=Table((1, 1, 1, 1, 1, 0)), draft=Table((0, 0, 0, 0, 0, 1)), depth=1)
    for event, frame, _ in all_frames(scenario, 1):
        if isinstance(event, trace.CheckEvent):
            assert event.p_token == 0 and frame["strip"] == {"title": "Acceptance draw",
                                                            "none": "p(x) = 0: rejected, no draw needed"}
            assert "".join(frame["lines"][-1]).startswith("p(x) = 0: rejected, no draw needed")
            return
    raise AssertionError("no check")


def test_a_tree_names_its_nodes_by_path_and_each_grows_from_its_parent():
    for event, frame, payload in all_frames(WIDE, 1, presenter=True):
        chart = frame["chart"]
        keys = {n["key"] for n in chart["nodes"]}
        assert "node:root" in keys
        for node in chart["nodes"]:
            assert node["parent"] is None or node["parent"] in keys  # a shown node's parent is shown
        if isinstance(event, trace.TreeDraftEvent):
            assert frame["groups"] == {"level": f"level {event.position}", "tree": "tree"}
            key = "node:" + ".".join(map(str, event.path))
            assert chart["current"] == key
        assert payload["paces"] and [p["key"] for p in payload["paces"]] == ["event", "level", "tree"]
    assert "first check" in next(f for _, f, _ in all_frames(WIDE, 1) if f["kind"] == "tree_check")["flags"]


def test_user_labels_travel_as_plain_text():
    hostile = BASE.with_changes(vocab=("the", "<img src=x onerror=alert(1)>", "sat", "</svg><script>x()</script>",
                                       "**b**", "mat"))
    for _, frame, _ in all_frames(hostile, 2):
        text = json.dumps(frame)
        if "onerror" in text:
            assert "<img src=x onerror=alert(1)>" in text  # the label itself, not escaped into entities
        assert "&lt;" not in text and "&amp;" not in text  # the browser sets text: nothing is pre-escaped


def test_presenter_mode_keeps_the_last_chips_and_says_how_many():
    last = None
    for _, frame, _ in all_frames(SAME, 3, presenter=True):
        last = frame
    chips = last["text"]
    assert len(chips["chips"]) == frames.PRESENTER_CHIPS
    assert chips["note"].startswith(f"(last {frames.PRESENTER_CHIPS} of ")
    for _, frame, _ in all_frames(SAME, 3, presenter=False):
        assert frame["text"]["note"] == ""  # outside presenter mode the whole text


def test_long_numbers_are_abbreviated_in_the_lines_and_listed_in_full():
    scenario = BASE.with_changes(target=Table((Fraction(1, 3**60), 1, 2, 3, 4, 5)), draft=Table((1,) * 6))
    for event, frame, _ in all_frames(scenario, 1):
        if isinstance(event, trace.CheckEvent):
            exact = dict(frame["exact"])
            assert exact[f"p({scenario.vocab[event.token]})"] == str(event.p_token)
            return
    raise AssertionError("no check")
