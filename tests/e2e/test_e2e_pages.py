"""Every page opens in a real Chromium with no exception box, shows its content, and is photographed.

The screenshots (assets/screenshot-<page>.png, 1280x800, what a projector shows first) are
used in the README; the Playground's is taken by test_e2e_playground.py mid-animation.
"""

from __future__ import annotations

import re
import urllib.parse

import e2e_support as sup
import pytest

pytestmark = pytest.mark.e2e

STATIC_PAGES = [s for s in sup.EXPECTED_PAGES if s not in ("playground", "real_models")]


def check_clean(page, recorder, what: str) -> None:
    boxes = sup.exceptions(page)
    assert not boxes, f"{what}: exception box on the page:\n" + "\n---\n".join(boxes)
    assert not recorder.page_errors, f"{what}: uncaught errors in the browser: {recorder.page_errors}"
    assert page.get_by_text("Page not found").count() == 0, f"{what}: Streamlit says 'Page not found'"


@pytest.mark.parametrize("stem", STATIC_PAGES)
def test_page_renders_without_exception(stem, app_url, app_page, page, recorder):
    target = app_page(stem)
    sup.open_page(page, target.url(app_url))
    check_clean(page, recorder, stem)
    text = sup.main_text(page)
    assert len(text.split()) >= 20, f"{stem}: the page shows almost no text: {text[:300]!r}"
    assert page.locator('[data-testid="stHeading"], h1, h2').count() >= 1, f"{stem}: no heading"
    sup.screenshot(page, stem)


def test_real_models_page_renders_its_controls(app_url, app_page, page, recorder):
    """The page opens without an exception and shows its controls (prompt, draft, depth, ...) and Generate.

    The suite does not generate text. Loading the bundled SmolLM2 ideally waits for a button; if
    the page loads it on opening instead (~17 s on a laptop CPU), the generous timeout absorbs it
    once per session (the model is cached by st.cache_resource).
    """
    target = app_page("real_models")
    sup.open_page(page, target.url(app_url), timeout=180_000)
    check_clean(page, recorder, "real_models")
    main = page.locator('[data-testid="stMain"]')
    buttons = main.locator('[data-testid="stButton"], [data-testid="stFormSubmitButton"]')
    inputs = main.locator(
        '[data-testid="stSlider"], [data-testid="stSelectbox"], [data-testid="stTextArea"], '
        '[data-testid="stTextInput"], [data-testid="stNumberInput"], [data-testid="stRadio"]'
    )
    assert buttons.count() >= 1, "real_models: no button (loading the model should wait for a button press)"
    assert inputs.count() >= 1, "real_models: no input control (prompt, depth, temperature, ...)"
    sup.screenshot(page, "real_models")


def test_a_gallery_card_opens_in_the_playground(app_url, app_page, page, recorder):
    """The gallery's 'Open in the Playground' switches page with the card's scenario in the link."""
    gallery, playground = app_page("edge_cases"), app_page("playground")
    sup.open_page(page, gallery.url(app_url))
    open_buttons = page.locator('[data-testid="stMain"] [class*="st-key-open_"] button:visible')
    assert open_buttons.count() >= 1, "the gallery has no 'Open in the Playground' button"
    before = sup.runs(page)
    open_buttons.first.click()
    sup.wait_for_rerun(page, before)
    page.wait_for_url(lambda url: urllib.parse.urlsplit(url).path.strip("/") == playground.url_path)
    sup.wait_for_player(page)  # the step player's label, its round drawn
    assert re.match(r"Step \d+ · round \d+ ·", sup.player_caption(page)), sup.player_caption(page)
    sup.wait_for_charts(page)
    check_clean(page, recorder, "the Playground opened from the gallery")
    assert {"vocab", "p", "q"} <= set(sup.query_of(page.url)), f"no scenario in the link: {page.url}"


def test_a_deep_link_as_first_visit_gets_the_app_navigation(browser, pages, tmp_path):
    """A freshly started app whose first visitor opens a shared link to a page (not the root).

    Streamlit treats a `pages/` folder next to app.py as an old-style multipage app until
    st.navigation has run once in the process: until then a deep link runs the page file on
    its own (no page config, a sidebar listing file names such as 'app' and 'home').
    """
    deep = [p for p in pages.values() if p.url_path and sup.page_file(p.stem).exists()]
    if not deep:
        pytest.skip("no page besides the default one yet")
    target = deep[0]
    with sup.serve(tmp_path) as server:
        context = browser.new_context(viewport=sup.VIEWPORT)
        try:
            context.add_init_script(sup.RUN_COUNTER_JS)
            page = context.new_page()
            sup.open_page(page, target.url(server.url))
            sup.SCRATCH.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(sup.SCRATCH / "deep-link-first-visit.png"))
            titles = [t.replace("\n", " ").strip() for t in
                      page.locator('[data-testid="stSidebarNavLink"]').all_inner_texts()]
            expected = [p.title for p in pages.values()]
            assert all(any(title in t for t in titles) for title in expected), (
                f"first visit to /{target.url_path}: the sidebar lists {titles}, not app.py's pages {expected}. "
                "Streamlit ran the page as an old-style `pages/` multipage app; rename the folder of the page "
                "files (e.g. pages/ -> views/, and the paths in app.py)")
            assert not sup.exceptions(page)
        finally:
            context.close()


def test_real_models_races_plain_sampling_at_the_default_preset(app_url, app_page, page, recorder):
    """Generate at the default preset (copy with prompt lookup): both legs side by side, the speedup line.

    The result appears right under the Generate button, where the live progress was; the screenshot
    (assets/screenshot-real_models-race.png) is what a projector shows after the click.
    """
    target = app_page("real_models")
    sup.open_page(page, target.url(app_url), timeout=180_000)
    main = page.locator('[data-testid="stMain"]')
    before = sup.runs(page)
    main.get_by_role("button", name="Generate").click()
    page.wait_for_selector('[data-testid="stMain"] [data-testid="stProgress"]', timeout=60_000)
    sup.screenshot(page, "real_models-live")
    sup.wait_for_rerun(page, before, timeout=300_000)
    check_clean(page, recorder, "real_models after Generate")
    text = sup.main_text(page)
    assert "speedup:" in text and "Plain sampling (exact core)" in text, text[-800:]
    assert "Speculative (lookup:3, tokenwise)" in text, text[-800:]
    assert "Tokens/pass" in text and "target verification passes" in text
    assert main.locator('[data-testid="stPlotlyChart"]').count() >= 3
    sup.wait_for_charts(page)
    sup.screenshot(page, "real_models-race")
    main.get_by_role("heading", name="What the speculative run measured").first.evaluate(
        "el => el.scrollIntoView({block: 'start'})")
    sup.screenshot(page, "real_models-generated")
