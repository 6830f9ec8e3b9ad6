"""The gallery's rules card opens the Exactness lab's rules view on the paper's example (photographed)."""

from __future__ import annotations

import urllib.parse

import e2e_support as sup
import pytest

pytestmark = pytest.mark.e2e


def test_the_rules_card_opens_every_rule_side_by_side(app_url, app_page, page, recorder):
    gallery, lab = app_page("edge_cases"), app_page("exactness_lab")
    sup.open_page(page, gallery.url(app_url))
    button = page.locator('[data-testid="stMain"] [class*="st-key-open_verification-rules"] button')
    assert button.count() == 1, "the gallery has no button on the rules card"
    before = sup.runs(page)
    button.click()
    sup.wait_for_rerun(page, before)
    page.wait_for_url(lambda url: urllib.parse.urlsplit(url).path.strip("/") == lab.url_path)
    page.wait_for_selector('[data-testid="stMain"] >> text=Who uses which rule')
    sup.wait_for_charts(page)
    assert not sup.exceptions(page) and not recorder.page_errors
    text = sup.main_text(page)
    for value in ("112/81", "7/9", "23/27", "8/9", "NO (lossy)", "EAGLE", "Medusa", "mlx-lm"):
        assert value in text, value
    # an exact value on hover: a long decimal's cell carries its fraction in a title
    assert page.locator("span[title='≈ 0.7778']").count() >= 1
    sup.screenshot(page, "lab-rules")
