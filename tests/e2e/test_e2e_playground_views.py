"""Issue 20 items 3-5 in Chromium at 1280x800, with screenshots to look at: the Markov weight tables show
every column, presenter mode shows the committed text on the first screen, a refused gallery card shows
one consistent state, and a weight edit reaches the address bar at once."""

from __future__ import annotations

import re
import urllib.parse

import e2e_support as sup
import pytest
from test_e2e_lecture import first_step, link
from test_e2e_playground import assert_clean, position

from specviz import gallery
from specviz.playground import presets, share

pytestmark = pytest.mark.e2e

FAR = presets.apply_preset(presets.default_scenario(), "far apart")
FAR_MARKOV = presets.apply_preset(presets.default_scenario(markov=True), "far apart", True)
NO_OVERFLOW_JS = """() => [...document.querySelectorAll(
  '[data-testid="stMain"] [data-testid="stDataFrame"] .dvn-scroller')].map(s => [s.scrollWidth, s.clientWidth])"""


def open_tab(page, name: str) -> None:
    before = sup.runs(page)
    page.get_by_role("tab", name=re.compile(name)).click()
    sup.wait_for_rerun(page, before)
    sup.wait_for_app(page)


@pytest.mark.parametrize("vocab", [presets.DEFAULT_VOCAB, tuple("abcdefghijkl")], ids=["6 tokens", "12 tokens"])
def test_markov_weight_tables_show_every_column(vocab, app_url, app_page, page, recorder):
    app_page("playground")
    scenario = FAR_MARKOV if len(vocab) == 6 else presets.apply_preset(_with_vocab(vocab), "far apart", True)
    sup.open_page(page, link(app_url, scenario, 0))
    open_tab(page, "weights")
    page.wait_for_function("() => document.querySelectorAll('[data-testid=\"stMain\"] .dvn-scroller').length >= 5")
    page.wait_for_timeout(500)  # the grids settle their column widths
    sizes = page.evaluate(NO_OVERFLOW_JS)
    assert len(sizes) >= 5 and all(scroll <= client + 1 for scroll, client in sizes), (
        f"a weight table scrolls sideways at 1280 px (columns hidden): {sizes}")
    assert_clean(page, recorder, "Markov weights tab")
    if len(vocab) == 6:
        sup.screenshot(page, "playground-markov-weights")


def _with_vocab(vocab):
    from specviz.scenario import Scenario, Table

    ones = (1,) * len(vocab)
    return Scenario(vocab=vocab, target=Table(ones, (ones,) * len(vocab)), draft=Table(ones, (ones,) * len(vocab)),
                    depth=3, seed=0, request_id="demo")


@pytest.mark.parametrize("scenario, kind", [(FAR, "check"), (FAR, "correction"), (presets.default_scenario(),
                                                                                   "bonus")])
def test_presenter_mode_shows_the_committed_text_on_the_first_screen(scenario, kind, app_url, app_page, fresh_page,
                                                                      recorder):
    # a fresh browser profile: Streamlit remembers a sidebar the lecturer opened (the navigation test does)
    page = fresh_page
    app_page("playground")
    sup.open_page(page, link(app_url, scenario, first_step(scenario, kind), presenter=True))
    # presenter mode collapses the sidebar with a CSS transition: measure once the main column is full width
    page.wait_for_function("() => { const p = window.__specvizPlayer; return p"
                           " && p.root.querySelector('.specviz-committed').getBoundingClientRect().left < 200; }",
                           timeout=15_000)
    box = page.locator(f"{sup.PLAYER} .specviz-committed").first.bounding_box()
    assert box is not None and box["y"] + box["height"] <= sup.VIEWPORT["height"], f"committed text at {box}"
    assert page.locator(f"{sup.PLAYER} .specviz-committed .chip").count() >= 1, "no chip"
    assert_clean(page, recorder, f"presenter mode at a {kind} step")
    if kind == "correction":
        sup.screenshot(page, "playground-presenter")


def test_a_refused_gallery_card_shows_one_consistent_state(app_url, app_page, page, recorder):
    gallery_page, playground = app_page("edge_cases"), app_page("playground")
    card = gallery.BY_SLUG["mask-all"]
    sup.open_page(page, gallery_page.url(app_url))
    before = sup.runs(page)
    page.locator(f".st-key-open_{card.slug} button").click()
    sup.wait_for_rerun(page, before)
    page.wait_for_url(lambda url: urllib.parse.urlsplit(url).path.strip("/") == playground.url_path)
    page.get_by_text("Nothing to animate").first.wait_for()
    sup.wait_for_app(page)
    assert sup.query_of(page.url) == share.scenario_to_query(card.scenario, 0), page.url
    text = sup.main_text(page)
    assert "no support" in text and "Undo last edit" in text
    assert not re.search(r"Step \d+ · round", text), "an animation is shown beside the refusal"
    depth = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]').filter(has_text="Depth").first
    assert depth.get_by_role("slider").first.input_value() == "2"
    vocab = page.get_by_label("Vocabulary (2 to 12 labels, comma-separated)")
    assert vocab.input_value() == "a, b, c, d"
    assert_clean(page, recorder, "a refused gallery card")
    sup.screenshot(page, "playground-refused-card")


def test_a_weight_slider_edit_reaches_the_address_bar_and_the_preset_box_at_once(app_url, app_page, page, recorder):
    app_page("playground")
    sup.open_page(page, link(app_url, presets.default_scenario(), 0))
    open_tab(page, "weights")
    before = sup.runs(page)
    page.get_by_text("Edit weights with sliders").click()
    sup.wait_for_rerun(page, before)
    thumb = page.locator('[data-testid="stMain"] [data-testid="stSlider"]').first.get_by_role("slider").first
    before = sup.runs(page)
    thumb.focus()
    thumb.press("ArrowRight")
    sup.wait_for_rerun(page, before)
    page.wait_for_url(re.compile(r"[?&]p=7%2C5%2C4"))  # the weights tab is still the one shown
    sup.wait_for_app(page)
    preset = page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').filter(has_text="Preset").first
    assert preset.get_by_role("combobox").input_value() == "custom (from close)"
    assert_clean(page, recorder, "after a weight slider edit")
    open_tab(page, "Animation")
    assert position(page)[0] == 1
