"""The Playground's typed session state over a plain dict: defaults, keep-alive, restore after a page change."""

import re
from pathlib import Path

import pytest

from specviz.app.playground.session import (
    PREFIX,
    SCENARIO_CONTROLS,
    SHADOW,
    Keys,
    PlaygroundSession,
    editor_key,
    proof_slider_key,
    weight_slider_key,
)

ROOT = Path(__file__).resolve().parents[3]


def test_every_key_is_declared_once_with_the_prefix():
    keys = [slot.key for slot in PlaygroundSession.slots().values()]
    element_keys = [v for k, v in vars(Keys).items() if not k.startswith("_")]
    assert len(set(keys + element_keys)) == len(keys) + len(element_keys)
    assert all(k.startswith(PREFIX) for k in keys + element_keys)
    assert {editor_key("fixed", 3), weight_slider_key("q", 2), proof_slider_key(6)} == {
        "pg_fixed_3", "pg_wq_2", "pg_proof_k_6"}


def test_init_sets_defaults_and_keeps_what_is_there():
    store = {"pg_depth": 4}
    pg = PlaygroundSession(store)
    pg.init("close")
    assert (pg.presenter, pg.sliders, pg.many_n, pg.many_bug, pg.many_seed) == (False, False, 10_000, "none", 0)
    assert pg.preset == pg.preset_before == "close"
    assert pg.depth == 4 and pg.link_problems == [] and pg.link_note == ""
    assert pg.preset_undo is None and pg.player_inbox == [] and pg.player_seq == 0 and not pg.has("scenario")


def test_a_widget_dropped_by_another_page_comes_back_from_its_copy():
    store: dict = {}
    pg = PlaygroundSession(store)
    pg.init("close")
    pg.vocab, pg.depth, pg.presenter, pg.tab = "a, b", 2, True, "📊 Many rounds"
    pg.remember()
    for name in ("vocab", "depth", "presenter", "tab"):  # what Streamlit does on another page's run
        del store[PlaygroundSession.slots()[name].key]
    assert SHADOW + "pg_vocab" in store
    pg.init("close")
    assert (pg.vocab, pg.depth, pg.presenter, pg.tab) == ("a, b", 2, True, "📊 Many rounds")


def test_controls_complete_and_missing_values():
    pg = PlaygroundSession({})
    assert not pg.controls_complete()
    for slot in SCENARIO_CONTROLS.values():
        pg.store[slot.key] = 1
    assert pg.controls_complete()
    with pytest.raises(AssertionError, match="pg_scenario"):
        _ = pg.scenario


def test_take_and_drop():
    pg = PlaygroundSession({"pg_full_rerun": True, "pg_preset_undo": (1, 2, "close")})
    assert pg.take("full_rerun") is True and pg.take("full_rerun") is False
    pg.drop("preset_undo")
    assert pg.preset_undo is None and pg.store == {}


def test_the_page_is_thin_and_spells_no_session_key():
    page = (ROOT / "views" / "playground.py").read_text()
    assert len(page.splitlines()) <= 200
    assert not re.search(r"[\"']pg_", page), "session keys belong in specviz/app/playground/session.py"
    assert "<script" not in page and "<style" not in page
