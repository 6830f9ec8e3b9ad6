"""The proof figure's title names the claim and the acceptance rate apart (issue 20 item 5)."""

from fractions import Fraction

from specviz.core import Categorical
from specviz.playground.proof import proof
from specviz.plots import proof as proof_plots


def test_the_title_does_not_read_as_a_product_with_p():
    pr = proof(Categorical.dense([1, 2]), Categorical.dense([2, 1]), ("a", "b"))
    assert pr.alpha == Fraction(2, 3)
    title = proof_plots.proof_figure(pr).layout.title.text
    assert title == "Why the committed token is distributed as p (acceptance rate α = Σ min(p, q) = 2/3)"
    assert "p ·" not in title and "·" not in title


def test_a_long_alpha_is_shortened_in_the_title():
    pr = proof(Categorical.dense([10**9, 3]), Categorical.dense([7, 10**9 + 1]), ("a", "b"))
    assert "≈ " in proof_plots.title(pr)
