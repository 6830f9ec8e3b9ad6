"""The Real models page's app side: presets to widgets, background loads, throttled live rendering."""

from __future__ import annotations

import pytest

from specviz.app.real_models_page import BackgroundLoad, Throttle, draft_from_widgets, follow, preset_state
from specviz.models.drafts import DraftSpec
from specviz.models.model_presets import DEFAULT, PRESETS


def test_preset_state_sets_the_widgets_and_clips_early_exit():
    state = preset_state(PRESETS[3], n_layers=2)
    assert state["rm_draft"].startswith("Early exit") and state["rm_layers"] == 2
    assert draft_from_widgets("early-exit", state, 2) == DraftSpec("early-exit", layers=2)
    state = preset_state(DEFAULT, 30)
    assert draft_from_widgets("lookup", state, 30) == DraftSpec("lookup", ngram=3)
    assert state["rm_prompt"] == DEFAULT.prompt and state["rm_depth"] == DEFAULT.depth
    assert draft_from_widgets("bf16", {}, 30) == DraftSpec("bf16")
    assert draft_from_widgets("model", {"rm_draft_model": " x/y "}, 30) == DraftSpec("model", model="x/y")
    assert preset_state(PRESETS[1], 30)["rm_verification"] == "exact-match:3" == PRESETS[1].verification
    assert state["rm_verification"] == "token"


def test_the_verification_menu_offers_every_tree_width_real_models_run():
    from specviz.app.real_models_page import VERIFICATIONS
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


# --- issue 34: the races show progress per race and per run, before any slow work -------------------------------


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from specviz.models import load_model
    from specviz.models.tiny import save_tiny

    return load_model(str(save_tiny(tmp_path_factory.mktemp("live-tiny"), arch="llama")), "cpu")


@pytest.fixture(autouse=True)
def _cost_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SPECVIZ_CACHE_DIR", str(tmp_path / "cache"))


class _Element:
    """A stand-in for a Streamlit element: records every text it is given, in one shared log."""

    def __init__(self, log: list, name: str):
        self.log, self.name = log, name

    def progress(self, value: float, text: str = "") -> _Element:
        self.log.append((self.name, text))
        return self

    def container(self) -> _Element:
        return self

    def columns(self, n: int) -> list[_Element]:
        return [_Element(self.log, f"{self.name}.{i}") for i in range(n)]

    def empty(self) -> _Element:
        return self

    def markdown(self, *args, **kwargs) -> None:
        return None


def test_the_live_view_says_which_race_and_run_before_and_while_they_run(tiny, monkeypatch):
    """The page showed only "waiting" bars for 130 s: now the overall bar says the race and the run from the start,
    the cost model's measurement when it comes, and each run its state: queued, running, done with its speed."""
    from specviz.app.real_models_page import live_view
    from specviz.models import GenerationSettings, Session, parse_draft
    from specviz.models.race import race

    log: list = []
    made = Session.__init__

    def record_session(self, *args, **kwargs):  # when the slow work starts, relative to what the page said
        log.append(("session", ""))
        made(self, *args, **kwargs)
    monkeypatch.setattr(Session, "__init__", record_session)
    settings = GenerationSettings(depth=3, seed=4, max_new_tokens=6, ignore_eos=True, verification="exact-match:2")
    live = live_view(_Element(log, "slot"), tiny.tokenizer, "lookup:2", settings, True)
    assert log and log[0][1] == "Starting: 3 races of 3 runs each" and ("session", "") not in log
    race(tiny, "w1 w2 w3 w1 w2 w4 w1 w2", parse_draft("lookup:2"), settings, progress=live.progress,
         stage=live.stage, measure=True)
    texts = [text for _, text in log]
    first_session = texts.index("")
    assert any(t.startswith("Race 1 of 3 (seed 4): starting its runs") for t in texts[:first_session])
    for number in (1, 2, 3):
        assert any(t.startswith(f"Race {number} of 3, seed {3 + number}:") and "running (run" in t for t in texts)
        assert f"race {number} of 3: queued" in texts
    assert sum("done, 6 tokens in" in t and "tokens/s)" in t for t in texts) == 9  # every run of every race
    assert any("(run 9 of 9)" in t for t in texts)
    assert any(t.startswith("The races are done; the cost model times") for t in texts)
    assert not any(t == "waiting" for t in texts)
