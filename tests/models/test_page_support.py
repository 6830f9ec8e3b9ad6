"""The Real models page's plumbing: presets to widgets, background loads, throttled live rendering."""

from __future__ import annotations

import pytest

from specviz.models.drafts import DraftSpec
from specviz.models.page_support import BackgroundLoad, Throttle, draft_from_widgets, follow, preset_state
from specviz.models.presets import DEFAULT, PRESETS, by_name


def test_presets_tell_the_story_in_order():
    assert DEFAULT is PRESETS[0] and DEFAULT.draft_spec.kind == "lookup"
    assert 0.3 <= DEFAULT.temperature <= 0.5 and "Repeat this text" in DEFAULT.prompt
    kinds = [p.draft_spec.kind for p in PRESETS]
    assert kinds == ["lookup", "early-exit", "early-exit", "bf16"]
    assert PRESETS[2].draft_spec.layers == 30  # SmolLM2's full depth: q = p
    assert by_name(PRESETS[1].name) is PRESETS[1]
    with pytest.raises(ValueError, match="unknown preset"):
        by_name("nope")
    settings = DEFAULT.settings(seed=7)
    assert (settings.seed, settings.depth, settings.temperature) == (7, DEFAULT.depth, DEFAULT.temperature)


def test_preset_state_sets_the_widgets_and_clips_early_exit():
    state = preset_state(PRESETS[2], n_layers=2)
    assert state["rm_draft"].startswith("Early exit") and state["rm_layers"] == 2
    assert draft_from_widgets("early-exit", state, 2) == DraftSpec("early-exit", layers=2)
    state = preset_state(DEFAULT, 30)
    assert draft_from_widgets("lookup", state, 30) == DraftSpec("lookup", ngram=3)
    assert state["rm_prompt"] == DEFAULT.prompt and state["rm_depth"] == DEFAULT.depth
    assert draft_from_widgets("bf16", {}, 30) == DraftSpec("bf16")
    assert draft_from_widgets("model", {"rm_draft_model": " x/y "}, 30) == DraftSpec("model", model="x/y")


def test_background_load_reports_stages_and_hands_back_the_result_or_error():
    def load(stage):
        stage("weights", 0.5)
        return "model"
    seen = []
    assert follow(BackgroundLoad(load), lambda progress: seen.append(progress.text), poll_s=0.01) == "model"

    def broken(stage):
        raise RuntimeError("no weights")
    with pytest.raises(RuntimeError, match="no weights"):
        follow(BackgroundLoad(broken), lambda progress: None, poll_s=0.01)


def test_throttle():
    now = [0.0]
    throttle = Throttle(0.2, clock=lambda: now[0])
    assert throttle() and not throttle()
    now[0] = 0.1
    assert not throttle() and throttle(force=True)
    now[0] = 0.35
    assert throttle()
