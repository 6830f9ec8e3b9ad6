"""specviz.plots.verification_figures: the tokenwise/block comparison shows the exact values it claims."""

from __future__ import annotations

from fractions import Fraction as F

from specviz import theory
from specviz.plots import verification_figures as plots
from specviz.scenario import Scenario, Table

EXAMPLE = Scenario(vocab=("a", "b"), target=Table((1, 2)), draft=Table((2, 1)), depth=2)


def test_accepted_by_depth_carries_the_exact_values():
    rows = theory.compare_verifications(EXAMPLE, range(1, 4))
    assert rows[1].token.accepted_drafts == F(10, 9) and rows[1].block.accepted_drafts == F(11, 9)
    assert rows[1].ideal == F(4, 3) and rows[1].gain == F(1, 9) and rows[0].gain == 0
    fig = plots.accepted_by_depth(rows, current_depth=2)
    names = [t.name for t in fig.data]
    assert names[:3] == ["tokenwise", "block verification", "upper bound (joint probabilities)"]
    assert list(fig.data[0].customdata)[1] == "10/9" and list(fig.data[1].customdata)[1] == "11/9"
    assert list(fig.data[2].customdata)[1] == "4/3"
    star = fig.data[3]
    assert star.x[0] == 2 and star.text[0] == "+1/9" and star.customdata[0] == "1/9"


def test_no_ideal_line_for_markov_or_stop_scenarios():
    markov = EXAMPLE.with_changes(target=Table((1, 2), ((1, 1), (2, 1))), draft=Table((2, 1), ((1, 2), (1, 1))))
    rows = theory.compare_verifications(markov, [1, 2])
    assert all(r.ideal is None for r in rows)
    assert [t.name for t in plots.accepted_by_depth(rows).data] == ["tokenwise", "block verification"]
    assert theory.compare_verifications(EXAMPLE.with_changes(stop_ids=frozenset({0})))[0].ideal is None


def test_verification_table_proves_both_exact():
    rows = plots.verification_table(EXAMPLE)
    assert [r["verification"] for r in rows] == ["tokenwise", "block (Sun et al. 2025)", "block − tokenwise"]
    assert rows[0]["max |difference| to the target law"] == "0 (exact)" == rows[1]["max |difference| to the target law"]
    assert (rows[0]["accepted drafts / round"], rows[1]["accepted drafts / round"]) == ("10/9", "11/9")
    assert rows[2]["accepted drafts / round"] == "1/9" and rows[2]["tokens / round"] == "1/9"
    skipped = plots.verification_table(EXAMPLE, enumerate_sequences=False)
    assert skipped[1]["max |difference| to the target law"].startswith("not enumerated")
