"""The Playground as a lecturer uses it, in Chromium at 1280x800: presenter mode fits the screen at a check
and a correction step (and outside presenter mode the step's chart and draw need no scrolling), growing the
vocabulary keeps "keep all", clicker keys step without piling up browser history, the proof and many-rounds views
draw; and the server logs no traceback meanwhile."""

from __future__ import annotations

import re
import urllib.parse

import e2e_support as sup
import pytest
from test_e2e_playground import assert_clean, button, click, position

from specviz.playground import presets, share, state

pytestmark = pytest.mark.e2e

FAR = presets.apply_preset(presets.default_scenario(), "far apart")
CLOSE = presets.apply_preset(presets.default_scenario(), "close")


def first_step(scenario, kind: str) -> int:
    timeline = state.timeline_for(scenario)
    timeline.ensure_rounds(10)
    return next(i for i, e in enumerate(timeline.events) if e.kind == kind)


def link(base: str, scenario, step: int, presenter: bool = False) -> str:
    query = share.scenario_to_query(scenario, step) | ({"presenter": "1"} if presenter else {})
    return f"{base}/playground?{urllib.parse.urlencode(query)}"


DRAW = "draw"  # the draw strip's SVG (in the step's words, found by its class)


def chart_box(page, key: str) -> dict:
    """The box of the player's chart (``pg_main_chart``), of its draw strip (``DRAW``), or of a plotly chart by
    its container key."""
    selector = {DRAW: f"{sup.PLAYER} .specviz-draw svg", "pg_main_chart": f"{sup.PLAYER} svg.chart"}.get(
        key, f'.st-key-{key} [data-testid="stPlotlyChart"]')
    box = page.locator(selector).first.bounding_box()
    assert box is not None, f"no chart {key}"
    return box


def wholly_on_screen(box: dict) -> bool:
    return (box["y"] >= 0 and box["x"] >= 0 and box["y"] + box["height"] <= sup.VIEWPORT["height"]
            and box["x"] + box["width"] <= sup.VIEWPORT["width"])


@pytest.mark.parametrize("scenario, kind", [(FAR, "check"), (FAR, "correction"), (CLOSE, "bonus")])
def test_presenter_mode_fits_the_step_on_one_screen(scenario, kind, app_url, app_page, page, recorder):
    app_page("playground")
    sup.open_page(page, link(app_url, scenario, first_step(scenario, kind), presenter=True))
    assert position(page)[2].lower().startswith({"check": "checking", "correction": "rejection",
                                                 "bonus": "all accepted"}[kind])
    # the sidebar is collapsed: the main chart starts near the left edge of the window
    assert chart_box(page, "pg_main_chart")["x"] < 150, "presenter mode collapses the sidebar"
    for key in ("pg_main_chart", DRAW):
        box = chart_box(page, key)
        assert wholly_on_screen(box), f"{kind}: {key} is not wholly on screen at 1280x800: {box}"
    verdict = page.locator(f"{sup.PLAYER} .headline").first.bounding_box()
    assert verdict and verdict["y"] + verdict["height"] <= sup.VIEWPORT["height"]
    assert_clean(page, recorder, f"presenter mode at a {kind} step")
    sup.screenshot(page, f"playground-presenter-{kind}")


@pytest.mark.parametrize("kind", ["check", "correction"])
def test_outside_presenter_mode_the_step_and_its_draw_need_no_scrolling(kind, app_url, app_page, page, recorder):
    """With the sidebar open, a check (chart beside its draw) and a correction (the residual's chart across the
    page, its draw and words beneath) show the chart, the draw and the draw's axis on the first screen."""
    app_page("playground")
    sup.open_page(page, link(app_url, FAR, first_step(FAR, kind)))
    assert position(page)[2].lower().startswith({"check": "checking", "correction": "rejection"}[kind])
    for key in ("pg_main_chart", DRAW):
        box = chart_box(page, key)
        assert wholly_on_screen(box), f"{kind}: {key} is not wholly on screen at 1280x800: {box}"
    assert_clean(page, recorder, f"a {kind} step outside presenter mode")


BLOCK_FAR = FAR.with_changes(verification="block")


def test_presenter_mode_fits_a_block_check_on_one_screen(app_url, app_page, page, recorder):
    """Block verification: the p/q chart, the stop draw against h_i and the verdict fit at 1280x800."""
    app_page("playground")
    timeline = state.timeline_for(BLOCK_FAR)
    timeline.ensure_rounds(10)
    # an inner check whose draw has both a hit and a no-hit segment: every line of the narration is there
    step = next(i for i, e in enumerate(timeline.events) if e.kind == "block_check" and e.position > 0
                and not e.last and 0 < e.stop_probability < 1)
    k = timeline.events[step].position + 1  # w_k, h_k: named by the position (from 1) they are computed at
    sup.open_page(page, link(app_url, BLOCK_FAR, step, presenter=True))
    assert position(page)[2].lower().startswith("block check")
    assert chart_box(page, "pg_main_chart")["x"] < 150, "presenter mode collapses the sidebar"
    for key in ("pg_main_chart", DRAW):
        box = chart_box(page, key)
        assert wholly_on_screen(box), f"block check: {key} is not wholly on screen at 1280x800: {box}"
    verdict = page.locator(f"{sup.PLAYER} .headline").first.bounding_box()
    assert verdict and verdict["y"] + verdict["height"] <= sup.VIEWPORT["height"]
    text = sup.player_text(page)
    assert f"w_{k} = min(1, w_{k - 1} · p/q)" in text and f"h_{k} = ρ_{k} / (ρ_{k} + 1 − w_{k})" in text
    assert_clean(page, recorder, "presenter mode at a block check step")
    sup.screenshot(page, "playground-block")


def test_growing_the_vocabulary_keeps_keep_all(app_url, app_page, page, recorder):
    app_page("playground")
    sup.open_page(page, f"{app_url}/playground")
    box = page.get_by_label("Vocabulary (2 to 12 labels, comma-separated)")
    before = sup.runs(page)
    box.fill(", ".join("abcdefghijkl"))
    box.press("Enter")
    sup.wait_for_rerun(page, before)
    page.wait_for_url(re.compile(r"vocab=a%2Cb%2Cc"))
    query = sup.query_of(page.url)
    assert "draft_topk" not in query and "top_k" not in query, page.url
    for label in ("Draft top-k", "Target top-k"):
        thumb = page.locator('[data-testid="stSlider"]').filter(has_text=label).first.get_by_role("slider")
        assert thumb.first.input_value() == "12", label
    assert_clean(page, recorder, "after growing the vocabulary")


def test_clicker_keys_step_and_replace_the_history_entry(app_url, app_page, page, recorder):
    app_page("playground")
    sup.open_page(page, link(app_url, FAR, 0))
    page.locator(f"{sup.PLAYER} .headline").first.click()  # focus the page, not a field
    start, length = position(page)[0], page.evaluate("history.length")
    for key in ("PageDown", "PageDown", " ", "PageUp"):
        sup.press_player(page, key)
    assert position(page)[0] == start + 2
    page.wait_for_url(re.compile(rf"[?&]at={start + 2}(&|$)"))  # the link's step reads as the label
    assert page.evaluate("history.length") == length, "stepping added browser-history entries"
    click(page, "pg_forward")
    assert position(page)[0] == start + 3
    assert page.evaluate("history.length") == length
    assert_clean(page, recorder, "after clicker keys")


def test_proof_and_many_rounds_views(app_url, app_page, page, recorder):
    app_page("playground")
    sup.open_page(page, link(app_url, FAR, first_step(FAR, "correction")))
    before = sup.runs(page)
    page.get_by_role("tab", name=re.compile("Why exactly p")).click()
    sup.wait_for_rerun(page, before)
    sup.wait_for_charts(page)
    assert "p rebuilt exactly" in sup.main_text(page)
    assert wholly_on_screen(chart_box(page, "pg_proof_chart"))
    sup.screenshot(page, "playground-proof")
    before = sup.runs(page)
    page.get_by_role("tab", name=re.compile("Many rounds")).click()
    sup.wait_for_rerun(page, before)
    page.locator(".st-key-pg_many_bug").click()
    before = sup.runs(page)
    page.get_by_role("option", name="residual from p").click()
    sup.wait_for_rerun(page, before)
    before = sup.runs(page)
    button(page, "pg_many_run").click()
    sup.wait_for_rerun(page, before)
    sup.wait_for_charts(page)
    text = sup.main_text(page)
    assert "179/1183" in text and "not to p" in text  # the exact distance of this bug on "far apart"
    sup.screenshot(page, "playground-many-rounds")
    assert_clean(page, recorder, "proof and many rounds")


def test_the_server_logged_no_traceback(app_server, app_url, app_page, page, recorder):
    """After a walk through every Playground tab (and whatever ran before in this session)."""
    app_page("playground")
    sup.open_page(page, link(app_url, FAR, 0))
    for _ in range(7):  # through a rejection: the rounds table gets a "rejected at" number
        click(page, "pg_forward")
    for name in ("Why exactly p", "Many rounds", "weights", "Share", "Animation"):
        sup.wait_for_app(page)
        before = sup.runs(page)
        page.get_by_role("tab", name=re.compile(name)).click()
        sup.wait_for_rerun(page, before)
    log = app_server.log.read_text(errors="replace")
    assert "Traceback" not in log, app_server.log_tail()
    assert "Inotify" not in log
