"""Figures for slides, in Chromium: every chart's mode bar downloads it as SVG and as PNG, drawn by the browser
(the Playground's charts, whose own button gives SVG, and a chart of another page drawn with plotly's default
config, whose own button gives PNG)."""

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


def test_a_playground_chart_downloads_as_svg_and_png(app_url, app_page, page, recorder):
    app_page("playground")
    sup.open_page(page, link(app_url, presets.default_scenario().with_changes(verification="block"), 3))
    chart = page.locator(".st-key-pg_main_chart")
    chart.locator("[data-specviz-format=png]").wait_for(state="attached")
    name, data = download(page, chart, chart.locator("[data-specviz-format=png]"))
    assert name == "specviz-block-step-4.png" and data.startswith(PNG)
    name, data = download(page, chart, chart.locator(".modebar-btn[data-title='Download plot']").first)
    assert name == "specviz-block-step-4.svg" and data.lstrip().startswith(b"<svg")
    assert_clean(page, recorder, "downloading a chart")


def test_another_pages_chart_gets_the_other_format_beside_plotlys_own(app_url, app_page, page, recorder):
    theory = app_page("theory")
    sup.open_page(page, theory.url(app_url))
    chart = page.locator(".js-plotly-plot").first
    chart.locator("[data-specviz-format=svg]").wait_for(state="attached")
    name, data = download(page, chart, chart.locator("[data-specviz-format=svg]"))
    assert name.endswith(".svg") and data.lstrip().startswith(b"<svg")
    assert not recorder.page_errors, recorder.page_errors
