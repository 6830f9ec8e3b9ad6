"""The smaller lecture items of issue 24 in Chromium, each photographed: a link with only ?presenter=1 opens
presenter mode, collected lecture entries are listed (1 entry, then 2) and reordered, and the weights are
enlarged in presenter mode."""

from __future__ import annotations

import re

import e2e_support as sup
import pytest
from test_e2e_features import open_tab
from test_e2e_lecture import chart_box, link
from test_e2e_playground import assert_clean, click, position

from specviz.playground import presets

pytestmark = pytest.mark.e2e

FAR = presets.apply_preset(presets.default_scenario(), "far apart").with_changes(seed=1)


def test_presenter_alone_in_the_link_opens_presenter_mode(app_url, app_page, fresh_page, recorder):
    page = fresh_page
    app_page("playground")
    sup.open_page(page, f"{app_url}/playground?presenter=1")
    page.wait_for_url(re.compile(r"vocab=.*presenter=1|presenter=1.*vocab="))  # the scenario joins the link
    page.wait_for_function("() => { const p = window.__specvizPlayer;"
                           " return p && p.root.getBoundingClientRect().left < 200; }", timeout=15_000)
    assert chart_box(page, "pg_main_chart")["x"] < 150, "the sidebar is collapsed"
    item = page.locator(f"{sup.PLAYER} .specviz-narration li").first
    size = item.evaluate("li => parseFloat(getComputedStyle(li).fontSize)")
    assert size >= 20, f"presenter type: {size}px"
    assert_clean(page, recorder, "?presenter=1 alone")
    sup.screenshot(page, "playground-presenter-link")


def test_collected_entries_are_listed_reordered_and_shown(app_url, app_page, page, recorder):
    app_page("playground")
    sup.open_page(page, link(app_url, FAR, 2))
    open_tab(page, "Share")
    click(page, "pg_lecture_add")
    text = sup.main_text(page)
    assert "My lecture (1 entry)" in text and "1 entries" not in text
    assert "1. entry 1: far apart · tokenwise · depth 3 · seed 1 · step 3" in text
    open_tab(page, "Animation")
    click(page, "pg_forward")
    assert position(page)[0] == 4
    open_tab(page, "Share")
    click(page, "pg_lecture_add")
    assert "My lecture (2 entries)" in sup.main_text(page)
    click(page, "pg_lecture_mine_up_1")
    text = sup.main_text(page)
    assert text.index("1. entry 2") < text.index("2. entry 1"), "the entries did not swap"
    assert_clean(page, recorder, "collected entries")
    sup.screenshot(page, "playground-lecture-collected")
    before = sup.runs(page)
    page.locator(".st-key-pg_lecture_mine_open_1 button:visible").first.click()  # Show: entry 1, at its step 3
    sup.wait_for_rerun(page, before)
    sup.wait_for_player(page)
    assert position(page)[0] == 3


def test_the_weights_are_enlarged_in_presenter_mode(app_url, app_page, fresh_page, recorder):
    page = fresh_page
    app_page("playground")
    sup.open_page(page, link(app_url, FAR, 0, presenter=True))
    open_tab(page, "weights")
    cell = page.locator(".specviz-weights-large td").first
    cell.wait_for()
    size = page.evaluate("parseFloat(getComputedStyle(document.querySelector('.specviz-weights-large td')).fontSize)")
    assert size >= 20, f"the weights' type in presenter mode: {size}px"
    assert "p normalized" in sup.main_text(page)
    assert_clean(page, recorder, "presenter weights")
    sup.screenshot(page, "playground-presenter-weights")
