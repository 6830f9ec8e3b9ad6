"""Playground -> another page -> Playground under AppTest with app.py's navigation (issue 20, item 1).

Streamlit drops the state of widgets a run did not draw, and every run of another page draws none of
the Playground's: coming back used to crash (st.session_state has no attribute "pg_vocab"). The
Playground must come back with the same scenario, step, controls and presenter mode, by the sidebar
(a plain page switch) and by the browser's Back button (the page's own link in the address bar).
"""

from pathlib import Path

import pytest
from player_support import caption, step
from streamlit.testing.v1 import AppTest

from specviz.app.playground.session import PlaygroundSession
from specviz.playground import presets, share

ROOT = Path(__file__).resolve().parents[2]
PLAYGROUND = "views/playground.py"
# Real models is left to tests/e2e/test_e2e_navigation.py: its first run here imports torch (about a minute)
OTHER_PAGES = ("views/home.py", "views/exactness_lab.py", "views/theory.py", "views/edge_cases.py")
SCENARIO = presets.apply_preset(presets.default_scenario(markov=True), "far apart", True).with_changes(
    vocab=("a", "b", "c", "d", "e", "f"), depth=2, seed=7)
CONTROLS = ("vocab", "depth", "mode", "seed", "verification", "draft_topk", "top_k", "temperature", "presenter")


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def snapshot(at: AppTest) -> dict:
    pg = PlaygroundSession(at.session_state)
    return {"scenario": pg.scenario, "step": pg.state.step} | {name: at.session_state[
        PlaygroundSession.slots()[name].key] for name in CONTROLS}


def open_playground(presenter: bool) -> AppTest:
    at = ok(AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run())
    for key, value in (share.scenario_to_query(SCENARIO, 0) | ({"presenter": "1"} if presenter else {})).items():
        at.query_params[key] = value
    ok(at.switch_page(PLAYGROUND).run())
    step(at, 4)  # in the browser; it reports the step before the next page is clicked
    assert at.session_state["pg_scenario"] == SCENARIO and at.session_state["pg_state"].step == 4
    return at


@pytest.mark.parametrize("presenter", [False, True], ids=["normal", "presenter"])
def test_the_playground_survives_every_other_page(presenter):
    at = open_playground(presenter)
    before = snapshot(at)
    assert before["presenter"] is presenter
    link = share.scenario_to_query(SCENARIO, 4) | ({"presenter": "1"} if presenter else {})
    for page in OTHER_PAGES:
        for back_button in (False, True):
            ok(at.switch_page(page).run())
            at.query_params.clear()
            if back_button:  # the browser's Back button reopens the Playground's last address
                for key, value in link.items():
                    at.query_params[key] = value
            ok(at.switch_page(PLAYGROUND).run())
            assert snapshot(at) == before, (page, back_button)
            assert caption(at).startswith(f"Step {before['step'] + 1} ·")
            assert not at.error, [e.value for e in at.error]
