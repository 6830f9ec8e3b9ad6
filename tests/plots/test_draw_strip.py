"""The draw strip's SVG: segments in exact proportion, the chosen one outlined, u marked, exact hovers."""

import re
from fractions import Fraction

import pytest

from specviz.plots import style
from specviz.plots.draw_strip import WIDTH, DrawStrip, Segment, svg

STRIP = DrawStrip("Acceptance draw", (Segment("accept: u < 3/7", Fraction(0), Fraction(3, 7), "accepted"),
                                      Segment("reject", Fraction(3, 7), Fraction(1), "correction")),
                  draw=5, draw_range=7, chosen=1)


def rects(text):
    return [tuple(float(v) for v in m) for m in
            re.findall(r"<rect x='([\d.]+)' y='[\d.]+' width='([\d.]+)' height='[\d.]+' fill='#", text)]


@pytest.mark.parametrize("presenter", [False, True])
def test_segments_span_the_strip_in_exact_proportion(presenter):
    text = svg(STRIP, presenter=presenter)
    assert text.startswith("<svg") and text.endswith("</svg>")
    (x0, w0), (x1, w1) = rects(text)
    assert x0 + w0 == pytest.approx(x1) and (w0 + w1) == pytest.approx(WIDTH[presenter] - 48)
    assert w0 / (w0 + w1) == pytest.approx(3 / 7, abs=1e-3)
    assert f"font-size='{style.font_size(presenter)}'" in text


def test_the_chosen_segment_is_outlined_and_the_draw_carries_its_exact_value():
    text = svg(STRIP)
    outlines = re.findall(r"fill='none' stroke='([^']+)' stroke-width='(\d+)'", text)
    assert outlines == [("#FFFFFF", "1"), (style.HIGHLIGHT_LINE["color"], str(style.HIGHLIGHT_LINE["width"]))]
    assert "<title>reject: [3/7 ≈ 0.4286, 1)</title>" in text  # hover: the exact segment
    assert "draw 5 of 0..6, u = 5/7 ≈ 0.7143" in text and "u = 0.7143" in text
    assert "url(#specviz-draw-correction)" in text  # colour is backed by a pattern


def test_labels_shrink_to_fit_or_are_left_to_the_hover():
    narrow = DrawStrip("t", (Segment("a very long label indeed", Fraction(0), Fraction(1, 50), "q"),
                             Segment("rest", Fraction(1, 50), Fraction(1), "q")), 0, 50, 0)
    text = svg(narrow)
    assert ">a very long label indeed</text>" not in text and "<title>a very long label indeed" in text
    assert ">rest</text>" in text


def test_text_is_escaped():
    odd = DrawStrip("<b>", (Segment("<i>", Fraction(0), Fraction(1), "p"),), 0, 1, 0)
    text = svg(odd)
    assert "<b>" not in text and "<i>" not in text and "&lt;i&gt;" in text
