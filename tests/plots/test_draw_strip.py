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


def test_labels_shrink_to_fit_or_move_under_the_bar():
    """Issue 20 item 5: a label too long for its segment is no longer dropped: it is written under the bar."""
    narrow = DrawStrip("t", (Segment("a very long label indeed", Fraction(0), Fraction(1, 50), "q"),
                             Segment("rest", Fraction(1, 50), Fraction(1), "q")), 0, 50, 0)
    text = svg(narrow)
    assert "<title>a very long label indeed" in text and ">rest</text>" in text
    callout = re.search(r"<text x='([\d.]+)' y='[\d.]+' font-size='[\d.]+' text-anchor='start' fill='[^']+' "
                        r"font-weight='700'>a very long label indeed</text>", text)
    assert callout is not None
    # inside the strip: the label starts at or after x = 2 and ends before the right edge
    assert float(callout.group(1)) >= 2
    assert float(callout.group(1)) + 0.58 * 0.85 * style.font_size() * len("a very long label indeed") <= WIDTH[False]


def test_callouts_that_would_overlap_are_left_to_the_hover_and_the_chosen_one_wins():
    tiny = tuple(Segment(f"token{i}", Fraction(i, 100), Fraction(i + 1, 100), "q") for i in range(3))
    strip = DrawStrip("t", (*tiny, Segment("rest", Fraction(3, 100), Fraction(1), "p")), 1, 100, 1)
    text = svg(strip)
    shown = [name for name in ("token0", "token1", "token2") if f">{name}</text>" in text]
    assert shown == ["token1"]  # the chosen segment's label; its neighbours would overlap it
    assert all(f"<title>{name}" in text for name in ("token0", "token2"))


def test_a_strip_without_narrow_segments_keeps_its_height():
    assert "viewBox='0 0 320 " in svg(STRIP)
    wide_h = float(re.search(r"viewBox='0 0 320 ([\d.]+)'", svg(STRIP)).group(1))
    narrow = DrawStrip("t", (Segment("a long label", Fraction(0), Fraction(1, 50), "q"),
                             Segment("rest", Fraction(1, 50), Fraction(1), "q")), 0, 50, 0)
    assert float(re.search(r"viewBox='0 0 320 ([\d.]+)'", svg(narrow)).group(1)) > wide_h


def test_text_is_escaped():
    odd = DrawStrip("<b>", (Segment("<i>", Fraction(0), Fraction(1), "p"),), 0, 1, 0)
    text = svg(odd)
    assert "<b>" not in text and "<i>" not in text and "&lt;i&gt;" in text
