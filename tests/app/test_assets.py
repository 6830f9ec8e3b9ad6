"""The app's JavaScript and CSS files: found, wrapped, and every placeholder filled."""

from specviz.app import assets


def test_the_presenter_style_is_a_style_element():
    tag = assets.style_tag("playground_presenter.css")
    assert tag.startswith("<style>") and tag.endswith("</style>") and "font-size: 1.3rem" in tag
