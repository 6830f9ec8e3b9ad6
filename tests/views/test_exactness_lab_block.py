"""The exactness lab proves block verification exact and runs its Monte Carlo."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from specviz.scenario import Scenario, Table

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "exactness_lab.py")


def test_lab_proves_block_verification_exact_and_compares_both():
    at = AppTest.from_file(PAGE, default_timeout=90)
    at.session_state["pg_scenario"] = Scenario(vocab=("a", "b"), target=Table((1, 2)), draft=Table((2, 1)), depth=2)
    at.run()
    assert not at.exception
    at.radio(key="lab_verification").set_value("block").run()
    assert not at.exception
    assert {m.label: m.value for m in at.metric}["max |difference|"] == "0"
    metric = [m for m in at.metric if m.label == "tokens / round"][0]
    assert metric.value == f"{20 / 9:.4f}" and "exactly 20/9" in metric.proto.help
    assert any("exact Fraction(0)" in s.value for s in at.success)
    table = [df.value for df in at.dataframe if "accepted drafts / round" in df.value.columns][0]
    assert list(table["accepted drafts / round"]) == ["10/9", "11/9", "1/9"]
    assert list(table["max |difference| to the target law"])[:2] == ["0 (exact)", "0 (exact)"]
    at.select_slider(key="lab_n").set_value(10_000)
    at.button(key="lab_run").click().run()
    assert not at.exception
    assert at.session_state["lab_mc"]["method"].startswith("block verification")
    assert at.session_state["lab_mc"]["counts"].rounds == 10_000
