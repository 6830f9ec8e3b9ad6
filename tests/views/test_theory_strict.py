"""The theory page shows vLLM's strict acceptance (Σ p·q) beside probabilistic's (Σ min(p, q)), exactly."""

from __future__ import annotations

from fractions import Fraction as F
from pathlib import Path

from streamlit.testing.v1 import AppTest

from specviz import theory
from specviz.core import Categorical
from specviz.plots import theory_figures as plots
from specviz.scenario import Scenario, Table

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "theory.py")


def test_the_page_shows_strict_beside_probabilistic():
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["pg_scenario"] = Scenario(vocab=("a", "b"), target=Table((1, 2)), draft=Table((2, 1)), depth=2)
    at.run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["probabilistic: Σ min(p, q)"] == "2/3" and metrics["strict: Σ p·q"] == "4/9"
    assert metrics["tokens per round at g = 2"] == f"{19 / 9:.3f} vs {float(theory.expected_tokens(F(4, 9), 2)):.3f}"
    assert any("rejection_sample_method" in m.value for m in at.markdown)


def test_strict_is_never_above_probabilistic_and_the_figure_says_both():
    p, q = Categorical.dense([1, 2]), Categorical.dense([2, 1])
    assert theory.node_law("strict", p, q).acceptance == F(4, 9) < theory.alpha(p, q) == F(2, 3)
    figure = plots.strict_probabilistic_bars(p, q, ["a", "b"])
    assert [trace.name for trace in figure.data] == ["probabilistic: min(p, q), Σ = 2/3", "strict: p·q, Σ = 4/9"]
    assert list(figure.data[1].y) == [2 / 9, 2 / 9]
