"""The Real models page's app side: presets to widgets, background loads, throttled live rendering."""

from __future__ import annotations

import pytest

from specviz.app.real_models import BackgroundLoad, Throttle, draft_from_widgets, follow, preset_state
from specviz.models.drafts import DraftSpec
from specviz.models.presets import DEFAULT, PRESETS


def test_preset_state_sets_the_widgets_and_clips_early_exit():
    state = preset_state(PRESETS[3], n_layers=2)
    assert state["rm_draft"].startswith("Early exit") and state["rm_layers"] == 2
    assert draft_from_widgets("early-exit", state, 2) == DraftSpec("early-exit", layers=2)
    state = preset_state(DEFAULT, 30)
    assert draft_from_widgets("lookup", state, 30) == DraftSpec("lookup", ngram=3)
    assert state["rm_prompt"] == DEFAULT.prompt and state["rm_depth"] == DEFAULT.depth
    assert draft_from_widgets("bf16", {}, 30) == DraftSpec("bf16")
    assert draft_from_widgets("model", {"rm_draft_model": " x/y "}, 30) == DraftSpec("model", model="x/y")
    tree = preset_state(PRESETS[1], 30)
    assert (tree["rm_verification"], tree["rm_width"]) == ("multi-distinct", 3) and "rm_width" not in state


def test_the_verification_menu_names_every_rule_it_offers_and_back():
    from specviz.app.real_models import VERIFICATION_CHOICES, rule_name, verification_choice

    for choice, (_, widened) in VERIFICATION_CHOICES.items():
        for width in (2, 3, 4) if widened else (1,):
            assert verification_choice(rule_name(choice, width)) == (choice, width if widened else 1)
    assert rule_name("multi", 3) == "multi:3" and rule_name("block", 3) == "block"


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
