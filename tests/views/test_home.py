"""The Overview page: loads, plays one exact round, reacts to the seed."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).parents[2] / "app.py")  # the Overview is the default page of the navigation


def run(seed: int | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    if seed is not None:
        at.number_input[0].set_value(seed).run()
    return at


def test_overview_renders_one_round_without_exception():
    at = run()
    assert not at.exception
    text = " ".join(m.value for m in at.markdown)
    assert "draft samples" in text
    assert "Committed text" in text


def test_seed_changes_the_round():
    headlines = set()
    for seed in range(4):
        at = run(seed)
        assert not at.exception
        headlines.add(" ".join(m.value for m in at.markdown if m.value[:1].isdigit()))
    assert len(headlines) > 1


def test_the_first_check_chart_comes_right_after_the_formulas():
    at = run()
    assert not at.exception
    # the check chart is the first chart (beside the formulas), the round summary the second
    charts = at.get("plotly_chart")
    assert len(charts) == 2
    assert "Checking position" in charts[0].proto.spec and "Round summary" in charts[1].proto.spec
