"""The engine rules in Chromium at 1280x800 (issue 23 item 2; issue 24's lab items), photographed to be looked at:
each rule's check in the Playground, normal and presenter mode, its *Why exactly p*, the lab's rules view, and a
gallery card that opens the lab at the top with its scenario in the sidebar."""

from __future__ import annotations

import re
import urllib.parse

import e2e_support as sup
import pytest
from test_e2e_lecture import first_step, link
from test_e2e_playground import assert_clean

from specviz import gallery
from specviz.playground import presets

pytestmark = pytest.mark.e2e

SUN = gallery.BY_SLUG["engine-rules"].scenario  # p = (1/3, 2/3), q = (2/3, 1/3)
CLOSE = presets.apply_preset(presets.default_scenario(), "close")
CASES = [  # (screenshot name, scenario, the event kind to show, a text of its narration)
    ("ensemble", CLOSE.with_changes(verification="ensemble:0.5", seed=1), "check", "1 − W + W·p(x)/q(x)"),
    ("threshold", CLOSE.with_changes(verification="threshold:0.5,0.8", seed=2), "check", "min(1, p(x)/A)"),
    ("threshold-tree", CLOSE.with_changes(verification="threshold:0.6,0.9,2", depth=2, seed=2), "threshold_check",
     "One coin for the node"),
    ("medusa", CLOSE.with_changes(verification="typical:0.09", seed=1), "check", "Medusa's threshold T"),
]


def _open(page, app_url, scenario, kind, presenter):
    sup.open_page(page, link(app_url, scenario, first_step(scenario, kind), presenter=presenter))
    sup.wait_for_charts(page)


@pytest.mark.parametrize("name, scenario, kind, said", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("presenter", [False, True], ids=["normal", "presenter"])
def test_each_engine_rules_check_reads_at_1280x800(name, scenario, kind, said, presenter, app_url, app_page,
                                                   fresh_page, recorder):
    page = fresh_page
    app_page("playground")
    _open(page, app_url, scenario, kind, presenter)
    text = sup.player_text(page)
    assert said in text, f"{name}: the step does not narrate its rule ({said!r})"
    assert "min(1, p(x)/q(x))" not in text, f"{name}: the narration says tokenwise's acceptance"
    assert_clean(page, recorder, f"{name} at a {kind}")
    sup.screenshot(page, f"engine-{name}" + ("-presenter" if presenter else ""))


def test_why_exactly_p_shows_the_ensembles_law_and_its_distance(app_url, app_page, fresh_page, recorder):
    page = fresh_page
    app_page("playground")
    _open(page, app_url, SUN, "check", False)
    before = sup.runs(page)
    page.get_by_role("tab", name=re.compile("Why exactly p")).click()
    sup.wait_for_rerun(page, before)
    sup.wait_for_charts(page)
    text = sup.main_text(page)
    assert "not p" in text and "1/6" in text
    assert_clean(page, recorder, "Why exactly p under ensemble:0.5")
    sup.screenshot(page, "engine-ensemble-proof")


def _main_scroll(page) -> float:
    return page.evaluate("() => Math.max(...[...document.querySelectorAll('[data-testid=\"stMain\"], "
                         "[data-testid=\"stAppViewContainer\"]')].map(e => e.scrollTop), window.scrollY)")


def test_a_gallery_card_opens_the_lab_at_the_top_on_its_scenario(app_url, app_page, fresh_page, recorder):
    page = fresh_page
    gallery_page, lab = app_page("edge_cases"), app_page("exactness_lab")
    sup.open_page(page, gallery_page.url(app_url))
    button = page.locator('[data-testid="stMain"] [class*="st-key-open_verification-rules"] button')
    button.scroll_into_view_if_needed()
    assert _main_scroll(page) > 300, "the card is not far down the gallery: the test would prove nothing"
    before = sup.runs(page)
    button.click()
    sup.wait_for_rerun(page, before)
    page.wait_for_url(lambda url: urllib.parse.urlsplit(url).path.strip("/") == lab.url_path)
    page.wait_for_selector('[data-testid="stMain"] >> text=Who uses which rule')
    sup.wait_for_charts(page)
    page.wait_for_timeout(600)
    assert _main_scroll(page) < 5, f"the lab opened scrolled down by {_main_scroll(page)} px"
    sidebar = page.locator('[data-testid="stSidebar"]').inner_text()
    assert "The link's scenario" in sidebar and "2 tokens, depth 2" in sidebar
    text = sup.main_text(page)
    for value in ("ensemble 0.5", "threshold 1,1", "typical 0.09", "SGLang", "transformers"):
        assert value in text, value
    assert "faster" not in text  # issue 24: a lossy rule is not called faster where it keeps fewer drafts
    assert_clean(page, recorder, "the lab's rules view from a gallery card")
    sup.screenshot(page, "engine-lab-rules")
