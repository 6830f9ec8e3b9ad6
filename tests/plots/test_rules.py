"""specviz.plots.all_rules_figures and the lab's number cells: exact values readable, the exact form on hover."""

from __future__ import annotations

import re
from fractions import Fraction as F

from specviz.lab import all_rules
from specviz.plots import all_rules_figures as plots
from specviz.plots import lab
from specviz.scenario import Scenario, Table

EXAMPLE = Scenario(vocab=("a", "b"), target=Table((1, 2)), draft=Table((2, 1)), depth=2)


def test_number_cells_show_short_fractions_and_decimals_with_the_other_form_on_hover():
    assert (lab.number_text(F(7, 9)), lab.number_title(F(7, 9))) == ("7/9", "≈ 0.7778")
    assert (lab.number_text(F(4791683, 1382976)), lab.number_title(F(4791683, 1382976))) == \
        ("3.465", "exact: 4791683/1382976")
    assert lab.decimal_text(F(8388609, 16777216)) == "0.5000"  # four digits, never a round-looking 0.5
    assert lab.number_html(F(3)) == "3"  # a whole number is exact as it stands
    assert "title='exact: 4791683/1382976'" in lab.number_html(F(4791683, 1382976))
    assert "digits" in lab.number_title(F(1, 3) ** 400)  # no 200-digit hover


def test_a_column_with_one_long_fraction_is_all_decimals():
    table = lab.html_table([{"x": F(1, 3), "y": F(1, 3)}, {"x": F(4791683, 1382976), "y": F(2, 3)}])
    cells = re.findall(r">([^<>]+)</span>", table)
    assert cells == ["0.3333", "1/3", "3.465", "2/3"]
    assert "title='exact: 1/3'" in table and lab.html_table([]) == ""
    assert "–" in lab.html_table([{"x": None}])


def test_rules_table_and_figures_on_the_example():
    comparison = all_rules.compare(EXAMPLE)
    rows = plots.table_rows(comparison, ["a", "b"])
    by_rule = {r["rule"]: r for r in rows}
    assert by_rule["tree, 2 i.i.d. drafts per node"]["accepted drafts / round"] == F(112, 81)
    assert by_rule["Medusa's typical acceptance, ε = 0.09, δ = 0.3"]["exact"] == "NO (lossy)"
    assert by_rule["SGLang's thresholds S = 1, A = 1"]["exact"] == "yes"
    assert by_rule["ensemble verification, W = 0.5"]["TV(first token, p)"] == F(1, 6)
    assert rows[-2]["rule"].endswith("S = {a})") and rows[-2]["P(draft 1 kept)"] == F(8, 9)
    figure = plots.accepted_figure(comparison)
    assert list(figure.data[0].y)[-1] == "typical 0.09 (lossy)"
    assert "112/81" in list(figure.data[0].customdata)
    # one value per quantity: the bars say what the table's column says (decimals once a fraction is long)
    column = [row["accepted drafts / round"] for row in rows if row["accepted drafts / round"] is not None]
    assert list(figure.data[0].text) == lab.column_texts(column)
    cells = re.findall(r">([^<>]+)</span>", lab.html_table([{"v": v} for v in column]))
    assert [c for c in cells] == [t for t, v in zip(figure.data[0].text, column) if F(v).denominator != 1]
    sample = all_rules.sample_first_tokens(EXAMPLE, "typical:0.09", 2_000, seed=0)
    fit = all_rules.fit(sample, comparison.p, ["a", "b"])
    histogram = plots.first_token_figure(fit, comparison.rows[-1].first_law, "typical")
    assert [t.name for t in histogram.data][1:] == ["target p (exact)", "exact law of typical"]
    exact = plots.first_token_figure(all_rules.fit(all_rules.sample_first_tokens(EXAMPLE, "token", 500), comparison.p,
                                               ["a", "b"]), comparison.rows[0].first_law, "tokenwise")
    assert len(exact.data) == 2  # an exact rule's law is p: no second marker
    assert {r["rule"] for r in plots.engine_rows(comparison)} == {r.rule.label for r in comparison.rows}
