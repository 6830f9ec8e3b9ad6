"""The theory page's tokenwise-vs-block section on the paper's example (read from the Playground's scenario)."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from specviz.scenario import Scenario, Table

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "theory.py")


def test_block_section_shows_the_exact_example():
    at = AppTest.from_file(PAGE, default_timeout=90)
    at.session_state["pg_scenario"] = Scenario(vocab=("a", "b"), target=Table((1, 2)), draft=Table((2, 1)), depth=2)
    at.run()
    assert not at.exception
    assert "Tokenwise vs block verification" in [h.value for h in at.header]
    metric = [m for m in at.metric if m.label == "accepted drafts / round (g = 2)"][0]
    assert metric.value == "11/9" and metric.delta == "+1/9 vs tokenwise 10/9"
    table = [df.value for df in at.dataframe if "accepted (block)" in df.value.columns][0]
    assert list(table["accepted (tokenwise)"])[:2] == ["2/3", "10/9"]
    assert list(table["accepted (block)"])[:2] == ["2/3", "11/9"]
    assert list(table["bound (joint)"])[1] == "4/3"


def test_block_section_on_the_default_preset():
    at = AppTest.from_file(PAGE, default_timeout=90).run()
    assert not at.exception
    assert any(m.label.startswith("accepted drafts / round") for m in at.metric)
