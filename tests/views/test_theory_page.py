"""The theory page: alpha, curves, the Leviathan grid, and measurements from other pages."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from streamlit.testing.v1 import AppTest

from specviz.playground import state
from specviz.scenario import Scenario, Table

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "theory.py")


def test_theory_page_without_measurements():
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert not at.exception
    assert "α (exact)" in [m.label for m in at.metric]
    assert any("Nothing measured" in i.value for i in at.info)
    grid = [df.value for df in at.dataframe if "g = 5" in df.value.columns][0]
    assert grid[grid["α"] == "0.8"]["g = 5"].iloc[0] == 3.69
    at.slider(key="th_c").set_value(0.3).run()
    assert not at.exception


def test_theory_page_reads_playground_and_real_model_measurements():
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["pg_scenario"] = Scenario(
        vocab=("a", "b", "c"), target=Table((3, 2, 1), ((1, 1, 1), (4, 1, 1), (1, 0, 5))),
        draft=Table((1, 1, 1), ((2, 1, 1), (1, 1, 1), (1, 3, 1))), depth=3)
    at.session_state["pg_state"] = state.PlayState(step=40)
    at.session_state["rm_summary"] = SimpleNamespace(accepted=30, drafted=50, tokens_per_round=2.5, rounds=20,
                                                     reached=[20, 15, 10], acceptance_by_position=[0.7, 0.6, 0.5],
                                                     device="cpu")
    at.run()
    assert not at.exception
    table = [df.value for df in at.dataframe if "source" in df.value.columns][0]
    assert list(table["source"]) == ["Playground", "Real model (cpu)"]
    assert table["acceptance rate"].iloc[1] == 0.6
    # Markov scenario: alpha differs by position, and the page says so
    assert any("differs by position" in m.value for m in at.markdown)
