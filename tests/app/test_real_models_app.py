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
    assert preset_state(PRESETS[1], 30)["rm_verification"] == "multi-distinct:3" == PRESETS[1].verification
    assert state["rm_verification"] == "token"


def test_the_verification_menu_offers_every_tree_width_real_models_run():
    from specviz.app.real_models import VERIFICATIONS
    from specviz.core.verification import check_verification

    assert VERIFICATIONS[:2] == ("token", "block")
    assert "multi-distinct:4" in VERIFICATIONS and "multi:2" in VERIFICATIONS
    assert all(check_verification(name) == name for name in VERIFICATIONS)


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
