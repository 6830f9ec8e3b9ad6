"""The theory page's tokenwise-vs-block section on the paper's example (read from the Playground's scenario)."""

from __future__ import annotations

import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from specviz.scenario import Scenario, Table


def html_columns(html: str) -> dict[str, list[str]]:
    """The cell texts of an HTML table, by column (tags stripped)."""
    head = re.findall(r"<th[^>]*>(.*?)</th>", html)
    rows = [[re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td>(.*?)</td>", row)]
            for row in re.findall(r"<tr>(.*?)</tr>", html.split("<tbody>")[1])]
    return {name: [row[i] for row in rows] for i, name in enumerate(head)}


PAGE = str(Path(__file__).resolve().parents[2] / "views" / "theory.py")


def test_block_section_shows_the_exact_example():
    at = AppTest.from_file(PAGE, default_timeout=90)
    at.session_state["pg_scenario"] = Scenario(vocab=("a", "b"), target=Table((1, 2)), draft=Table((2, 1)), depth=2)
    at.run()
    assert not at.exception
    assert "Tokenwise vs block verification" in [h.value for h in at.header]
    metric = [m for m in at.metric if m.label == "accepted drafts / round (g = 2)"][0]
    assert metric.value == "11/9" and metric.delta == "+1/9 vs tokenwise 10/9"
    # the table is plain HTML now (issue 20: exact values on hover); the same cells as before
    table = html_columns(next(m.value for m in at.markdown if "accepted (block)" in m.value))
    assert table["accepted (tokenwise)"][:2] == ["2/3", "10/9"]
    assert table["accepted (block)"][:2] == ["2/3", "11/9"]
    assert table["bound (joint)"][1] == "4/3"
    assert "title='≈ 1.111'" in next(m.value for m in at.markdown if "accepted (block)" in m.value)


def test_block_section_on_the_default_preset():
    at = AppTest.from_file(PAGE, default_timeout=90).run()
    assert not at.exception
    assert any(m.label.startswith("accepted drafts / round") for m in at.metric)
