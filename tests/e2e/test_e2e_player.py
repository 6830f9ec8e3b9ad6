"""The step player's edges in Chromium: labels that are markup read literally and run nothing, a player the
browser cannot run says so in one line, and the page's other controls read the step the browser shows."""

from __future__ import annotations

import re
import urllib.parse

import e2e_support as sup
import pytest
from test_e2e_features import open_tab
from test_e2e_playground import assert_clean, click, headline, position

from specviz.playground import presets, share

pytestmark = pytest.mark.e2e

MARKUP = ("the", "<img src=x onerror=window.__pwned=1>", "sat", "</svg><script>window.__pwned=2</script>", "<b>mat</b>",
          ".")


def link(base: str, scenario, step: int) -> str:
    return f"{base}/playground?{urllib.parse.urlencode(share.scenario_to_query(scenario, step))}"


def test_labels_that_are_markup_read_literally_and_run_nothing(app_url, app_page, page, recorder):
    app_page("playground")
    scenario = presets.apply_preset(presets.default_scenario(), "far apart").with_changes(vocab=MARKUP, seed=1)
    sup.open_page(page, link(app_url, scenario, 0))
    for _ in range(8):  # drafts, checks, a rejection and its correction: the labels in every part of the step
        click(page, "pg_forward")
        assert page.evaluate("window.__pwned === undefined"), "a label ran as script"
    root = f"{sup.PLAYER}"
    assert page.locator(f"{root} img").count() == 0 and page.locator(f"{root} script").count() == 0
    assert not any(t == "mat" for t in page.locator(f"{root} b").all_inner_texts()), "<b>mat</b> was read as markup"
    ticks = page.locator(f"{root} svg.chart text.tick").all_text_contents()
    hovers = page.locator(f"{root} svg.chart text.tick > title").all_text_contents()
    assert "<b>mat</b>" in ticks, ticks  # literally
    long = "<img src=x onerror=window.__pwned=1>"  # whole, or cut with '…' where it would crowd the bars and whole
    assert long in ticks or (long in hovers and any(t.startswith("<img src=x") and "…" in t for t in ticks)), \
        (ticks, hovers)  # in its hover
    text = sup.player_text(page)
    assert "</svg><script>window.__pwned=2</script>" in text or "<img src=x onerror" in text
    assert page.evaluate("window.__pwned === undefined")
    assert_clean(page, recorder, "labels that are markup")


BREAK_THE_MODULE = """(() => {  // a browser that cannot run the player's module (the blob Streamlit imports it from)
  const make = URL.createObjectURL.bind(URL);
  URL.createObjectURL = (blob) => (blob && blob.type === 'text/javascript' && blob.size > 10000)
    ? make(new Blob(['export default function (', ''], {type: 'text/javascript'})) : make(blob);
})();"""


def test_a_player_the_browser_cannot_run_says_so_in_one_line(app_url, app_page, browser, recorder):
    app_page("playground")
    context = browser.new_context(viewport=sup.VIEWPORT)
    context.add_init_script(sup.RUN_COUNTER_JS)
    context.add_init_script(BREAK_THE_MODULE)
    try:
        page = context.new_page()
        page.goto(f"{app_url}/playground", wait_until="domcontentloaded")
        sup.wait_for_app(page)
        line = page.locator(".specviz-player-failed")
        line.wait_for(state="visible", timeout=30_000)
        assert line.inner_text().startswith("The step player could not load in this browser")
        assert "\n" not in line.inner_text().strip()
        assert not page.locator(".stBidiComponent [data-testid=stAlertContentError]").first.is_visible()
        assert "Presenter mode" in page.locator('[data-testid="stSidebar"]').inner_text()  # the rest of the page works
    finally:
        context.close()


def test_the_tabs_read_the_step_the_browser_shows(app_url, app_page, page, recorder):
    """Steps taken in the browser only (no server round trip), then a tab: Share's link and Why exactly p are at
    that step, and back on the animation the player is still there."""
    app_page("playground")
    scenario = presets.apply_preset(presets.default_scenario(markov=True), "far apart", True).with_changes(seed=1)
    sup.open_page(page, link(app_url, scenario, 0))
    for _ in range(4):
        sup.press_player(page, "PageDown")
    shown = position(page)[0]
    open_tab(page, "Share")
    code = page.locator('[data-testid="stCode"]').first.inner_text()
    assert re.search(rf"[?&]at={shown}(&|$)", code), code
    open_tab(page, "Why exactly p")
    assert "the animation's current position" in sup.main_text(page)
    open_tab(page, "Animation")
    sup.wait_for_player(page)
    assert position(page)[0] == shown and headline(page)
    assert_clean(page, recorder, "tabs after steps in the browser")


def test_the_deck_plays_from_disk_with_every_request_refused(browser, recorder, tmp_path):
    """`specviz export`'s deck, opened from file:// with the network refused: the same labels as the Playground's
    frames, the clicker keys step it, the drawing moves, Play plays, and nothing is asked of any server."""
    from specviz.player import deck
    from specviz.player import round_export as export

    scenario = presets.apply_preset(presets.default_scenario(), "far apart").with_changes(seed=1)
    export.write_round(scenario, 0, tmp_path, ("html",))
    path = tmp_path / export.deck_name(0)
    frames = deck.data(scenario, 0)["round"]["frames"]
    context = browser.new_context(viewport=sup.VIEWPORT)
    asked: list[str] = []

    def refuse(route):
        asked.append(route.request.url)
        if route.request.url == path.as_uri():
            route.continue_()
        else:
            route.abort()

    context.route("**/*", refuse)
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: recorder.page_errors.append(str(error)))
        page.goto(path.as_uri())
        page.wait_for_function(sup.PLAYER_IDLE_JS)
        assert sup.player_caption(page) == frames[0]["caption"] and headline(page) == frames[0]["headline"]
        for index in (1, 2, 3):
            sup.press_player(page, "PageDown")
            assert sup.player_caption(page) == frames[index]["caption"]
        sup.press_player(page, "PageUp")
        assert sup.player_caption(page) == frames[2]["caption"]
        seen = page.evaluate(__import__("test_e2e_playground").SAMPLE_MOTION_JS, "ArrowRight")
        assert seen["running"] >= 3 and seen["shapes"] >= 3, f"the deck's drawing did not move: {seen}"
        sup.player_button(page, "play").click()
        page.wait_for_function(f"() => ({sup.PLAYER_CAPTION_JS})() === {frames[-1]['caption']!r}", timeout=20_000)
        assert not page.locator(f"{sup.PLAYER} button.next-round").is_visible()  # nothing a server would answer
        assert asked == [path.as_uri()], f"the deck asked for more than itself: {asked}"
        assert not recorder.page_errors, recorder.page_errors
        sup.SCRATCH.mkdir(exist_ok=True)
        page.screenshot(path=str(sup.SCRATCH / "deck.png"))
    finally:
        context.close()


def test_a_step_the_player_cannot_draw_is_one_plain_box_naming_its_event(browser, recorder, tmp_path):
    """A frame the browser cannot draw (here: a chart of a kind it does not know) shows one box that names the
    event, in the chart's place, never a blank area; the steps before and after it draw as ever."""
    from specviz.player import deck

    scenario = presets.apply_preset(presets.default_scenario(), "far apart").with_changes(seed=1)
    data = deck.data(scenario, 0)
    data["round"]["frames"][1]["chart"]["type"] = "hologram"
    page_text = deck.deck_html(scenario, 0)
    start = page_text.index("id='specviz-round'>") + len("id='specviz-round'>")
    end = page_text.index("</script>", start)
    path = tmp_path / "deck.html"
    path.write_text(page_text[:start] + deck._json_for_html(data) + page_text[end:], encoding="utf-8")
    context = browser.new_context(viewport=sup.VIEWPORT)
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: recorder.page_errors.append(str(error)))
        page.goto(path.as_uri())
        page.wait_for_function(sup.PLAYER_IDLE_JS)
        sup.press_player(page, "PageDown")
        box = page.locator(f"{sup.PLAYER} .frame-error").first
        assert box.is_visible() and box.inner_text().startswith("The step player cannot draw step 2 (DraftEvent)")
        assert "hologram" in box.inner_text() and "\n" not in box.inner_text().strip()
        assert headline(page) == data["round"]["frames"][1]["headline"]  # the words are still there
        sup.press_player(page, "PageDown")
        assert not box.is_visible() and page.locator(f"{sup.PLAYER} svg.chart rect.bar").count() > 0
        assert not recorder.page_errors, recorder.page_errors
    finally:
        context.close()
