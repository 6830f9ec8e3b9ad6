"""The engine rules' narration: every event of ensemble, SGLang's thresholds and Medusa is told with the rule's own
acceptance and its exact fractions, in the page and the terminal profile, and its exact values are folded."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from specviz import formats, narration
from specviz.core import trace as T
from specviz.narration import engine_rule_words
from specviz.playground import presets, state

CLOSE = presets.apply_preset(presets.default_scenario(), "close")
RULES = ["ensemble:0.5", "threshold:0.5,0.8", "threshold:0.6,0.9,2", "threshold:1,1,3", "typical:0.09",
         "typical-sample:0.2"]
ENGINE_EVENTS = (T.EnsembleCheckEvent, T.ThresholdCheckEvent, T.ThresholdTreeCheckEvent, T.ThresholdCorrectionEvent,
                 T.ThresholdTreeCorrectionEvent, T.MedusaCheckEvent, T.MedusaCorrectionEvent, T.MedusaBonusEvent)


def _events(name: str, seeds: int = 25):
    for seed in range(seeds):
        scenario = CLOSE.with_changes(verification=name, depth=2, seed=seed)
        timeline = state.timeline_for(scenario)
        timeline.ensure_rounds(1)
        yield scenario, timeline.rounds[0].trace.events


def test_every_engine_event_is_told_by_its_rule_in_both_profiles():
    seen = set()
    for name in RULES:
        for scenario, events in _events(name):
            narrator = narration.Narrator(narration.Setting.of(scenario))
            for event in events:
                page = narration.sentences(event, narration.Setting.of(scenario))
                terminal = narrator.tell(event)
                if type(event) not in ENGINE_EVENTS:
                    continue
                seen.add(type(event))
                text = " ".join([page[0], *page[1]])
                assert "min(1, p(x)/q(x))" not in text and "min(1, p/q)" not in text  # never tokenwise's test
                assert engine_rule_words.narrate_event(event, scenario.vocab, narration.PAGE.block_formats) == page
                assert terminal[0] == page[0] and all("**" not in line for line in terminal[1])
                if hasattr(event, "acceptance") and not isinstance(event, T.MedusaCheckEvent):
                    assert formats.fraction_folded(event.acceptance) in text  # the exact acceptance, as the page writes
    assert seen == set(ENGINE_EVENTS)


def test_each_rule_says_its_own_acceptance():
    said = {}
    for name in RULES:
        for _, events in _events(name, 8):
            for event in events:
                told = engine_rule_words.narrate_event(event, CLOSE.vocab, narration.PAGE.block_formats)
                if told is not None:
                    said.setdefault(type(event), " ".join(told[1]))
    assert "min(1, 1 − W + W·p(x)/q(x)) = min(1, v(x)/q(x))" in said[T.EnsembleCheckEvent]
    assert "v = W·p + (1 − W)·q" in said[T.EnsembleCheckEvent]
    assert "min(1, p(x)/A)" in said[T.ThresholdCheckEvent] and "q is never read" in said[T.ThresholdCheckEvent]
    assert "One coin for the node" in said[T.ThresholdTreeCheckEvent] and "C/A" in said[T.ThresholdTreeCheckEvent]
    assert "p without" in said[T.ThresholdTreeCorrectionEvent]
    assert "log(p + 1e-5)" in said[T.MedusaCheckEvent] and "δ = 0.3" in said[T.MedusaCheckEvent]
    assert "argmax p" in said[T.MedusaCorrectionEvent] or "above T" in said[T.MedusaCorrectionEvent]


def test_an_ensemble_check_with_its_exact_numbers():
    scenario, events = next(_events("ensemble:0.5", 1))
    check = next(e for e in events if isinstance(e, T.EnsembleCheckEvent))
    head, lines = engine_rule_words.narrate_event(check, scenario.vocab, narration.PAGE.block_formats)
    assert check.mixture_token == F(1, 2) * check.p_token + F(1, 2) * check.q_token
    assert check.acceptance == min(F(1), check.mixture_token / check.q_token)
    assert "W = 1/2" in head and formats.fraction_folded(check.mixture_token) in lines[0]
    values = dict(engine_rule_words.values(check, scenario.vocab))
    assert values["min(1, 1 − W + W·p(x)/q(x))"] == check.acceptance and values["W"] == F(1, 2)


@pytest.mark.parametrize("name", RULES)
def test_the_stop_narration_names_how_the_rule_checks(name):
    setting = narration.Setting.of(CLOSE.with_changes(verification=name))
    assert setting.checking in ("against the mixture W·p + (1 − W)·q (ensemble)", "by SGLang's thresholds",
                                "by Medusa's typical threshold")


def test_other_events_are_left_to_the_chain_and_tree_narrations():
    for _, events in _events("token", 3):
        for event in events:
            assert engine_rule_words.narrate_event(event, CLOSE.vocab, narration.PAGE.block_formats) is None
            assert engine_rule_words.values(event, CLOSE.vocab) is None
