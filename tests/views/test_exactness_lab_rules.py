"""The Exactness lab's rules view: every rule side by side on the paper's example, opened by a link too."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from specviz.app import lab_rules
from specviz.gallery import BY_SLUG
from specviz.playground import share
from specviz.scenario import Scenario, Table

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "exactness_lab.py")
EXAMPLE = Scenario(vocab=("a", "b"), target=Table((1, 2)), draft=Table((2, 1)), depth=2)


def _html(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_the_rules_view_shows_every_rule_exactly():
    at = AppTest.from_file(PAGE, default_timeout=90)
    at.session_state["pg_scenario"] = EXAMPLE
    at.run()
    at.segmented_control(key="lab_view").set_value(lab_rules.RULES).run()
    assert not at.exception
    html = _html(at)
    for value in (">112/81<", ">10/9<", ">11/9<", ">7/9<", ">8/9<", ">1/3<"):  # tree, token, block, optimum, TV
        assert value in html, value
    assert "NO (lossy)" in html and "EAGLE" in html and "mlx-lm" in html and "Medusa" in html
    assert "vllm-ascend/issues/7807" in html
    at.select_slider(key="lab_rules_n").set_value(10_000).run()
    assert not at.exception
    at.select_slider(key=lab_rules.control_key("typical", "eps")).set_value("0.5").run()
    assert not at.exception
    at.select_slider(key=lab_rules.control_key("typical", "delta")).set_value("√ε").run()
    assert not at.exception and "ε = 0.5, δ = √ε" in _html(at)  # the row the declared controls name


def test_a_gallery_link_opens_the_rules_view_on_its_scenario():
    card = BY_SLUG["verification-rules"]
    at = AppTest.from_file(PAGE, default_timeout=90)
    for name, value in {**share.scenario_to_query(card.scenario), "view": lab_rules.VIEW_PARAM}.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception
    assert at.session_state["lab_view"] == lab_rules.RULES
    assert ">112/81<" in _html(at)
