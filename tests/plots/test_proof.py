"""The proof figure's title names the claim and the acceptance rate apart (issue 20 item 5)."""

from fractions import Fraction

import pytest

from specviz.core import Categorical
from specviz.playground.proof import proof
from specviz.plots import proof_figures as proof_plots


def test_the_title_does_not_read_as_a_product_with_p():
    pr = proof(Categorical.dense([1, 2]), Categorical.dense([2, 1]), ("a", "b"))
    assert pr.alpha == Fraction(2, 3)
    title = proof_plots.proof_figure(pr).layout.title.text.replace("<br>", " ")
    assert title == "Why the committed token is distributed as p (acceptance rate α = Σ min(p, q) = 2/3)"
    assert "p ·" not in title and "·" not in title


@pytest.mark.parametrize("presenter", [False, True])
def test_the_title_wraps_to_the_page_and_never_cuts_its_fraction(presenter):
    from specviz.plots import style

    pr = proof(Categorical.dense([7, 11, 13, 17, 19, 23]), Categorical.dense([29, 31, 37, 41, 43, 47]),
               tuple("abcdef"))
    assert pr.alpha == Fraction(3143, 3420)
    figure = proof_plots.proof_figure(pr, presenter=presenter)
    lines = figure.layout.title.text.split("<br>")
    width = style.PAGE_WIDTH[presenter] - 16 - style.MODEBAR
    per_char = style.TITLE_CHAR * style.font_size(presenter) * style.TITLE_SCALE
    assert all(len(line) * per_char <= width for line in lines), lines  # plotly would clip a longer line
    assert any(line.endswith("= 3143/3420)") for line in lines) and "min(p, q)" in " ".join(lines)
    assert figure.layout.margin.t >= style.title_space(figure.layout.title.text, presenter)


def test_a_long_alpha_is_shortened_in_the_title():
    pr = proof(Categorical.dense([10**9, 3]), Categorical.dense([7, 10**9 + 1]), ("a", "b"))
    assert "≈ " in proof_plots.title(pr)


def test_a_long_label_ticks_short_under_both_halves_and_hovers_whole():
    """Two charts side by side turn their ticks: a label past HALF_TICK_CHARACTERS is cut with '…' there, so the
    bars keep their height; the bars' own x keeps the label whole."""
    long = "<img src=x onerror=1>"
    pr = proof(Categorical.dense([1, 2]), Categorical.dense([2, 1]), (long, "b"))
    figure = proof_plots.proof_figure(pr)
    cut = "&lt;img sr…"
    assert len(cut.replace("&lt;", "<")) == proof_plots.HALF_TICK_CHARACTERS
    assert figure.layout.xaxis.ticktext == (cut, "b") and figure.layout.xaxis2.ticktext == (cut, "b")
    assert figure.data[0].x[0] == "&lt;img src=x onerror=1&gt;"
