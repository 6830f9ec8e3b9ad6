"""The Real models page under AppTest, with a tiny model given as a local folder (no SmolLM2 load)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "real_models.py")


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    from specviz.models.tiny import save_tiny

    return str(save_tiny(tmp_path_factory.mktemp("page-tiny"), arch="gpt2"))


def _page(tiny_dir: str, **state) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["rm_model"] = "Hub id, local folder or .gguf file"
    at.session_state["rm_custom"] = tiny_dir
    at.session_state["rm_prompt"] = "w1 w2 w3 w1 w2"
    at.session_state["rm_max_new"] = 8
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def test_page_generates_with_the_injected_model(tiny_dir):
    at = _page(tiny_dir, rm_layers=1)
    assert not at.exception
    assert at.slider(key="rm_layers").max == 2
    at.button(key="rm_generate").click().run()
    assert not at.exception
    assert at.metric[0].value == "8"
    assert any("Generated with early-exit:1" in s.value for s in at.subheader)
    assert any("acceptance min(1, p/q)" in m.value for m in at.markdown)


def test_full_depth_early_exit_accepts_every_draft(tiny_dir):
    at = _page(tiny_dir, rm_layers=2, rm_depth=3, rm_animate=False)
    at.button(key="rm_generate").click().run()
    assert not at.exception
    drafted = at.metric[1].value
    accepted, total = drafted.split("/")
    assert accepted == total and int(total) > 0


def test_other_drafts_run(tiny_dir):
    for draft in ("Prompt lookup (n-gram, one-hot q)", "Target re-processed (temperature, top-k)"):
        at = _page(tiny_dir, rm_draft=draft, rm_animate=False, rm_top_k=20)
        at.button(key="rm_generate").click().run()
        assert not at.exception, draft


def test_a_model_that_fails_to_load_is_explained(tmp_path):
    at = _page(str(tmp_path / "missing"))
    assert not at.exception
    assert any("No such model file or folder" in e.value for e in at.error)
    assert any("rest of the app works" in i.value for i in at.info)
