"""specviz.plots.theory_figures: figures build, carry exact hover values and mark what the page promises."""

from __future__ import annotations

from fractions import Fraction as F

from specviz import theory
from specviz.core import Categorical
from specviz.plots import style
from specviz.plots import theory_figures as plots

P = Categorical.dense([F(1, 2), F(1, 3), F(1, 6)])
Q = Categorical.dense([F(1, 6), F(1, 2), F(1, 3)])


def test_alpha_bars_shade_the_overlap():
    fig = plots.alpha_bars(P, Q, ["a", "b", "c"])
    assert "2/3" in fig.layout.title.text
    names = [t.name for t in fig.data]
    assert names[0] == "target p" and names[1] == "draft q" and "min(p, q)" in names[2]
    assert list(fig.data[2].customdata) == ["1/6", "1/3", "1/6"]
    assert fig.layout.barmode == "overlay"


def test_token_charts_escape_markup_labels_and_name_punctuation():
    """Both per-token charts of the Theory page draw a label with markup as written (plotly reads its HTML subset)."""
    labels = ["<b>x</b>", ".", "c"]
    for fig in (plots.alpha_bars(P, Q, labels), plots.strict_probabilistic_bars(P, Q, labels)):
        assert list(fig.data[0].x) == ["&lt;b&gt;x&lt;/b&gt;", "‘.’ period", "c"]
        assert fig.layout.xaxis.ticktext[:2] == ("&lt;b&gt;x&lt;/b&gt;", "‘.’<br>period")


def test_a_long_label_ticks_cut_with_an_ellipsis_and_hovers_whole():
    """A label past style.TICK_CHARACTERS is cut in its tick only (plotly would grow the margin and crush the bars),
    as plain text, so an escape such as &lt; is never cut in two; the bar's own x keeps the whole label."""
    long = "<img src=x onerror=window.__pwned=1>"
    labels = [long, "x&y" * 7, "c"]
    fig = plots.alpha_bars(P, Q, labels)
    assert list(fig.data[0].x)[0] == style.chart_text(long)
    ticks = fig.layout.xaxis.ticktext
    assert ticks[0] == style.chart_text(long[:style.TICK_CHARACTERS - 1] + "…")
    assert ticks[1] == "x&amp;y" * 5 + "…"  # 15 characters: no &amp; cut in two
    assert ticks[2] == "c"
    assert style.tick_text("a" * style.TICK_CHARACTERS) == "a" * style.TICK_CHARACTERS  # at the limit: whole


def test_depth_curves_mark_the_optimal_depth():
    fig = plots.depth_curves(F(4, 5), 0.1)
    best = theory.optimal_depth(F(4, 5), 0.1)
    star = [t for t in fig.data if t.name.startswith("optimal")][0]
    assert star.x[0] == best
    assert fig.data[0].y[4] == float(theory.expected_tokens(F(4, 5), 5))


def test_leviathan_curves_include_reference_alphas():
    fig = plots.leviathan_curves(0.0, current_alpha=0.7)
    refs = [t for t in fig.data if t.legendgroup == "refs"]
    assert len(refs) == len(theory.LEVIATHAN_ALPHAS)
    assert any("T5-small" in t.text[0] for t in refs)
    g5 = [t for t in fig.data if t.name == "g = 5"][0]
    assert abs(max(g5.y) - float(theory.speedup(0.99, 5, 0))) < 1e-9


def test_grid_reproduces_table_1():
    rows = plots.grid_rows(0.0)
    row = [r for r in rows if r["α"] == "0.8"][0]
    assert row["g = 5"] == 3.69 and row["g = 1"] == 1.8


def test_measured_and_position_figures():
    m = plots.Measurement("Playground", 0.6, 2.1, 3, 40)
    fig = plots.measured_vs_theory(3, [m], theory_alpha=0.65)
    assert any(t.name == "Playground (measured)" for t in fig.data)
    fig = plots.position_alphas([F(1, 2), None, F(3, 4)], F(1, 2))
    assert list(fig.data[0].customdata) == ["1/2", "3/4"]


def test_leviathan_markers_are_numbered_and_staggered():
    fig = plots.leviathan_curves(0.05, current_alpha=0.93)
    refs = [t for t in fig.data if t.legendgroup == "refs"]
    assert [t.texttemplate for t in refs] == [str(j) for j in range(1, len(refs) + 1)]
    rows = plots.reference_rows(theory.LEVIATHAN_ALPHAS)
    for i, (a, row) in enumerate(zip(theory.LEVIATHAN_ALPHAS, rows, strict=True)):
        for b, other in zip(theory.LEVIATHAN_ALPHAS[:i], rows[:i], strict=True):
            assert row != other or abs(a[3] - b[3]) >= 0.035  # close numbers never share a row
    # every depth has its own colour + dash pair, none of them pale yellow
    lines = [(t.line.color, t.line.dash) for t in fig.data if (t.name or "").startswith("g = ")]
    assert len(set(lines)) == len(lines) == 8
    assert style.OKABE_ITO["yellow"] not in {color for color, _ in lines}
    # the "this scenario" label leans left of a line near the right edge
    assert fig.layout.annotations[0].xanchor == "right"
    assert plots.leviathan_curves(0.05, current_alpha=0.2).layout.annotations[0].xanchor == "left"


def test_optimal_depth_caption_says_when_the_playground_cannot_show_it():
    from specviz.plots.theory_figures import optimal_depth_caption

    best = theory.optimal_depth(F(13, 14), 0.05)
    assert best == 17  # searched past g = 8 until the speedup falls
    text = optimal_depth_caption(F(13, 14), 0.05, best)
    assert "g = 17" in text and "deeper than the Playground allows" in text
    assert "deeper" not in optimal_depth_caption(F(1, 2), 0.05, theory.optimal_depth(F(1, 2), 0.05))
    assert "no finite" in optimal_depth_caption(F(4, 5), 0.0, theory.optimal_depth(F(4, 5), 0.0))


def test_optimal_depth_searches_until_the_speedup_falls():
    for a, c in ((F(13, 14), F(1, 20)), (F(4, 5), F(1, 10)), (F(99, 100), F(1, 100)), (F(1, 3), F(1, 2))):
        best = theory.optimal_depth(a, c)
        brute = max(range(1, 400), key=lambda g: (theory.speedup(a, g, c), -g))
        assert best == brute, (a, c)
