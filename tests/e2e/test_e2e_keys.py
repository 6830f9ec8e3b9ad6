"""The clicker keys for the whole life of a tab, in Chromium: PageDown, Space and → step once, PageUp and ← step back
once, after presenter mode is toggled, after a trip to another page and back, right after a sidebar toggle, radio
or slider was clicked (no click elsewhere first), after a lecture script was loaded, and after a reload (which
keeps the lecture). Real key presses, bound by the step player in the top document; every press is checked to
move exactly one step (never two)."""

from __future__ import annotations

import re

import e2e_support as sup
import pytest
from test_e2e_features import load_lecture
from test_e2e_lecture import link
from test_e2e_playground import STEP_CAPTION_JS, assert_clean, position

from specviz.playground import presets
from specviz.playground.lecture import Entry, Lecture

pytestmark = pytest.mark.e2e

FAR = presets.apply_preset(presets.default_scenario(), "far apart").with_changes(seed=1)
SAME = presets.apply_preset(presets.default_scenario(), "p = q").with_changes(seed=2)
KEYS = (("PageDown", 1), (" ", 1), ("ArrowRight", 1), ("PageUp", -1), ("ArrowLeft", -1))
TALK = Lecture((Entry(FAR, 1, until=8, title="a rejection"), Entry(SAME, 0, until=3, title="every draft kept")),
               title="Keys")


def press(page, key: str) -> int:
    """Press a key where the focus already is (nothing blurred first); the steps it moved, once settled."""
    before, caption = position(page)[0], page.evaluate(STEP_CAPTION_JS)
    page.keyboard.press(key)
    page.wait_for_function(f"(caption) => ({STEP_CAPTION_JS})() !== caption", arg=caption, timeout=20_000)
    sup.wait_for_player(page)
    page.wait_for_timeout(600)  # a second step, if any, would have been drawn (or asked for) by now
    sup.wait_for_player(page)
    return position(page)[0] - before


def assert_keys_step_once(page, what: str) -> None:
    moved = [(key, press(page, key)) for key, _ in KEYS]
    assert moved == list(KEYS), f"after {what}: each key must move exactly one step: {moved}"
    assert page.evaluate("window.__specvizPlayerKeys && window.__specvizPlayerKeys.bound") >= 1


def sidebar_click(page, label: str) -> None:
    """Click a sidebar toggle or radio option by its label (the focus stays on it, as a lecturer leaves it)."""
    before = sup.runs(page)
    page.locator('[data-testid="stSidebar"] label').filter(has_text=label).first.click()
    sup.wait_for_rerun(page, before)
    sup.wait_for_player(page)


def test_keys_after_presenter_mode_is_toggled_on_and_off(app_url, app_page, fresh_page, recorder):
    page = fresh_page
    app_page("playground")
    sup.open_page(page, link(app_url, FAR, 0))
    assert_keys_step_once(page, "opening the page")
    sidebar_click(page, "Presenter mode")
    page.wait_for_url(re.compile(r"[?&]presenter=1"))
    assert_keys_step_once(page, "presenter mode toggled on")
    page.locator('[data-testid="stExpandSidebarButton"]').first.click()  # presenter mode collapsed the sidebar
    page.wait_for_function("() => document.querySelector('[data-testid=stSidebar]').getBoundingClientRect().x >= 0")
    page.wait_for_timeout(500)  # the sidebar's slide-in transition
    sidebar_click(page, "Presenter mode")
    page.wait_for_url(lambda url: "presenter=1" not in url)
    assert_keys_step_once(page, "presenter mode toggled off")
    assert_clean(page, recorder, "keys around presenter mode")


def test_keys_after_a_trip_to_another_page_and_back(app_url, app_page, page, recorder):
    app_page("playground")
    app_page("home")
    sup.open_page(page, link(app_url, FAR, 0))
    nav = page.locator('[data-testid="stSidebarNav"]')
    for title in ("Overview", "Playground"):
        before = sup.runs(page)
        nav.get_by_role("link", name=re.compile(title)).first.click()
        sup.wait_for_rerun(page, before)
        sup.wait_for_charts(page)
    sup.wait_for_player(page)
    assert position(page)[0] == 1, "the Playground keeps its step across the round trip"
    assert_keys_step_once(page, "a trip to the Overview and back")
    assert_clean(page, recorder, "keys after a page round trip")


def test_keys_right_after_a_sidebar_toggle_radio_or_slider(app_url, app_page, page, recorder):
    app_page("playground")
    sup.open_page(page, link(app_url, FAR, 0))
    sidebar_click(page, "FP32 quantization")
    assert page.evaluate("document.activeElement.type") == "checkbox"  # the toggle still has the focus
    assert_keys_step_once(page, "the FP32 toggle")
    assert "fp32=1" in page.url, "Space stepped; it did not flip the toggle back"
    sidebar_click(page, "Markov")
    assert_keys_step_once(page, "the Mode radio")
    slider = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]').filter(has_text="Depth").first
    thumb = slider.get_by_role("slider").first
    thumb.click(force=True)  # a mouse click on the slider (its input lies under the thumb): the focus goes there
    sup.wait_for_player(page)
    page.wait_for_timeout(600)
    sup.wait_for_player(page)
    depth = int(thumb.input_value())
    assert depth < 5 and page.evaluate("document.activeElement.type") == "range"
    before = sup.runs(page)
    page.keyboard.press("ArrowRight")  # the arrows are the slider's: it moves, the animation does not step
    sup.wait_for_rerun(page, before)
    page.wait_for_url(re.compile(rf"[?&]depth={depth + 1}(&|$)"))
    sup.wait_for_player(page)
    assert thumb.input_value() == str(depth + 1) and position(page)[0] == 1
    assert_keys_step_once(page, "a click on the depth slider")  # PageDown steps (and lets go of the slider)
    assert_clean(page, recorder, "keys after sidebar widgets")


def test_keys_after_a_lecture_is_loaded_and_after_a_reload(app_url, app_page, page, recorder, tmp_path):
    app_page("playground")
    sup.open_page(page, link(app_url, presets.default_scenario(), 0))
    load_lecture(page, TALK, tmp_path)  # the file chooser leaves the focus where it was
    assert position(page)[0] == 2 and "entry 1/2 · steps 2 to 9 · a rejection" in sup.player_text(page)
    assert_keys_step_once(page, "a lecture loaded")
    query, shown = sup.query_of(page.url), position(page)[0]
    assert query.get("lecture") and query.get("entry") == "0", page.url
    page.reload(wait_until="domcontentloaded")
    sup.wait_for_app(page)
    sup.wait_for_player(page)
    page.locator(f"{sup.PLAYER} .lecture-end").wait_for(timeout=30_000)
    assert "entry 1/2 · steps 2 to 9 · a rejection" in sup.player_text(page), "the reload dropped the lecture"
    assert position(page)[0] == shown, "the reload moved the step"
    assert_keys_step_once(page, "a reload")
    while position(page)[0] < 9:  # to the entry's end (step 9, the file's until = 8) ...
        assert press(page, "PageDown") == 1
    press(page, "PageDown")  # ... then PageDown opens the next entry at its first step
    assert "entry 2/2 · steps 1 to 4 · every draft kept" in sup.player_text(page) and position(page)[0] == 1
    assert_clean(page, recorder, "keys in a lecture, before and after a reload")
