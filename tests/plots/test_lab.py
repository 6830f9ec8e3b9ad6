"""specviz.plots.lab: the lab's figures build from the library's results."""

from __future__ import annotations

from specviz import theory
from specviz.lab import float_verifier as fv
from specviz.lab import montecarlo as mc
from specviz.plots import lab as plots
from specviz.scenario import Scenario, Table

S = Scenario(vocab=("a", "b", "c"), target=Table((3, 2, 1)), draft=Table((1, 2, 3)), depth=2, draft_topk=2)


def test_sequence_comparison_prints_exact_zero():
    fig = plots.sequence_comparison(theory.exactness_report(S), S.vocab)
    assert "max |difference| = 0" in fig.layout.title.text
    assert all(row[1] == "0" for row in fig.data[0].customdata)


def test_sequence_comparison_shows_the_top_sequences_and_counts_the_rest():
    report = theory.exactness_report(S)
    fig = plots.sequence_comparison(report, S.vocab, top=5)
    assert len(fig.data[0].y) == 5 and fig.data[0].orientation == "h"
    best = max(report.sequences, key=lambda r: r.target)
    assert fig.data[1].y[0] == plots.token_text(best.tokens, S.vocab)
    assert f"the other {len(report.sequences) - 5:,}" in fig.layout.title.text
    everything = plots.sequence_comparison(report, S.vocab, top=len(report.sequences))
    assert "the other" not in everything.layout.title.text


def test_histogram_has_error_bars_and_stats():
    law = mc.exact_law(S)
    counts = mc.MonteCarlo(S, seed=0).run(5_000)
    fit = mc.goodness_of_fit(counts.first, law.first, list(S.vocab))
    fig = plots.histogram(fit, "First committed token")
    assert fig.data[0].error_y.visible and len(fig.data[0].error_y.array) == 3
    assert "χ²" in fig.layout.title.text and "p-value" in fig.layout.title.text
    assert list(fig.data[1].customdata) == ["1/2", "1/3", "1/6"]


def test_engine_distances_label_exact_zero():
    fig = plots.engine_distances(fv.compare_all(S))
    # horizontal bars: verifiers on y, so each value label has room beside its own bar
    assert fig.data[0].orientation == "h"
    assert fig.data[0].y[0] == "exact verifier" and fig.data[0].text[0] == "0 (exact)"
    assert fig.layout.xaxis.type == "log"
    assert plots.token_text((0, fv.CRASH), S.vocab) == "a NaN!"
    assert plots.token_text((), S.vocab) == "∅"


def test_results_rows_use_plain_names_and_one_number_format():
    from specviz.lab import float_verifier as fv
    from specviz.playground import presets

    s = presets.apply_preset(presets.default_scenario(), "far apart").with_changes(depth=2)
    results = fv.compare_all(s)
    rows = plots.results_rows(results)
    names = [r["verifier"] for r in rows]
    assert names[0] == "exact verifier" and "residual from p" in names and "greedy acceptance" in names
    assert not any("_" in n for n in names)  # no code names
    cells = [r[c] for r in rows for c in ("TV to target law", "TV to exact blocks", "tokens per round")]
    assert not any("/" in c for c in cells)  # decimals only (exact zeros stay "0")
    exact = plots.results_rows(results, exact=True)
    from fractions import Fraction as F

    greedy = next(r for r in exact if r["verifier"] == "greedy acceptance")
    assert F(greedy["TV to target law"]) == results["greedy"].tv_sequences
