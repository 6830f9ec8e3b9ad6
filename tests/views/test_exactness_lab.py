"""The exactness lab page: exact zero differences, a Monte Carlo run, the float verifier section."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from specviz.playground import presets, state

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "exactness_lab.py")


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_lab_shows_exact_zero_and_runs_monte_carlo():
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert not at.exception
    assert metrics(at)["max |difference|"] == "0"
    assert any("exact Fraction(0)" in s.value for s in at.success)
    at.select_slider(key="lab_n").set_value(10_000)
    at.button(key="lab_run").click().run()
    assert not at.exception
    values = metrics(at)
    assert values["rounds"] == "10,000"
    assert 0 <= float(values["χ² p-value (first token)"]) <= 1
    assert at.session_state["lab_mc"]["counts"].rounds == 10_000
    # float verifier table: the exact verifier's row says 0
    tables = [df.value for df in at.dataframe]
    assert any("verifier" in t.columns and t.iloc[0]["TV to target law"] == "0" for t in tables)


def test_lab_uses_the_playground_scenario_and_other_settings():
    at = AppTest.from_file(PAGE, default_timeout=60)
    scenario = presets.apply_preset(presets.default_scenario(), "far apart").with_changes(depth=2, draft_topk=3)
    at.session_state["pg_scenario"] = scenario
    at.session_state["pg_state"] = state.PlayState()
    at.run()
    assert not at.exception
    assert at.radio(key="lab_source").value == "The Playground's scenario"
    assert metrics(at)["sequences compared"] == f"{6 ** 3:,}"
    at.radio(key="lab_cmp").set_value("<=").run()
    at.selectbox(key="lab_bug").set_value("unprocessed_q").run()
    assert not at.exception


def test_lab_refuses_large_enumerations_gracefully():
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.slider(key="lab_vocab").set_value(8)
    at.slider(key="lab_depth").set_value(5).run()
    assert not at.exception
    assert any("too many" in i.value.lower() for i in at.info)


def test_lab_results_table_reads_plainly():
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert not at.exception
    assert "tokens / round" in metrics(at)  # a label short enough for its column
    table = next(df.value for df in at.dataframe if "verifier" in df.value.columns)
    assert "residual from p" in table["verifier"].tolist()
    assert not any("_" in name for name in table["verifier"])
    assert not any("/" in cell for cell in table["TV to target law"])
