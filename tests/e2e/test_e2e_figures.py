"""Figures for slides, in Chromium: the step player's own drawing downloads as SVG and as PNG (made by the browser,
no server), and every other chart's mode bar gives both formats (a chart of another page drawn with plotly's
default config, whose own button gives PNG)."""

from __future__ import annotations

import e2e_support as sup
import pytest
from test_e2e_lecture import link
from test_e2e_playground import assert_clean

from specviz.playground import presets

pytestmark = pytest.mark.e2e

PNG = b"\x89PNG\r\n\x1a\n"


def download(page, chart, button) -> tuple[str, bytes]:
    chart.hover()
    with page.expect_download() as caught:
        button.click()
    got = caught.value
    with open(got.path(), "rb") as data:
        return got.suggested_filename, data.read()


def test_the_players_step_downloads_as_svg_and_png(app_url, app_page, page, recorder):
    app_page("playground")
    sup.open_page(page, link(app_url, presets.default_scenario().with_changes(verification="block"), 3))
    chart = page.locator(f"{sup.PLAYER} svg.chart").first
    name, data = download(page, chart, sup.player_button(page, "save-png"))
    assert name == "specviz-block-step-4.png" and data.startswith(PNG)
    name, data = download(page, chart, sup.player_button(page, "save-svg"))
    assert name == "specviz-block-step-4.svg" and data.lstrip().startswith(b"<?xml") and b"<svg" in data
    assert b"Block check at position 4" not in data and b"Block check at position" in data  # the step's own chart
    assert b"class=" not in data and b"fill=" in data  # styles written into the file: it needs no stylesheet
    assert_clean(page, recorder, "downloading a step")


def test_another_pages_chart_gets_the_other_format_beside_plotlys_own(app_url, app_page, page, recorder):
    theory = app_page("theory")
    sup.open_page(page, theory.url(app_url))
    chart = page.locator(".js-plotly-plot").first
    chart.locator("[data-specviz-format=svg]").wait_for(state="attached")
    name, data = download(page, chart, chart.locator("[data-specviz-format=svg]"))
    assert name.endswith(".svg") and data.lstrip().startswith(b"<svg")
    assert not recorder.page_errors, recorder.page_errors
