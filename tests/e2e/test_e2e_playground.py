"""The Playground in a real browser: a slider, stepping to a rejection and its residual draw, Play, shared links.

Buttons are found by their widget keys, not their labels (which carry icons and shortcuts):
Streamlit gives each keyed element the class ``st-key-<key>``; the page's keys are pg_forward,
pg_play, pg_back, pg_reset, pg_next.
"""

from __future__ import annotations

import re

import e2e_support as sup
import pytest

pytestmark = pytest.mark.e2e

MAX_STEPS = 60  # "far apart" rejects within a few events; a runaway loop stops here
STEP_CAPTION = re.compile(r"Step (\d+) · round (\d+) · event (\d+) of (\d+) · (.+)")


def button(page, key: str):
    # a button with a tooltip or shortcut is rendered twice (one hidden copy measures its width)
    return page.locator(f".st-key-{key} button:visible").first


def position(page) -> tuple[int, int, str]:
    """(step, round, phase) from the caption above the animation, e.g. 'Step 5 · round 1 · event 2 of 8 · ...'."""
    for text in page.locator('[data-testid="stMain"] [data-testid="stCaptionContainer"]').all_inner_texts():
        found = STEP_CAPTION.search(text)
        if found:
            return int(found[1]), int(found[2]), found[5].strip()
    raise AssertionError(f"no 'Step N · round R' caption on the Playground:\n{sup.main_text(page)[:1500]}")


def headline(page) -> str:
    return page.locator('[data-testid="stMain"] [data-testid="stHeading"]').last.inner_text().strip()


STEP_CAPTION_JS = ("() => (document.querySelector('[data-testid=\"stMain\"]')?.innerText"
                   " .match(/Step \\d+ · round \\d+ · event \\d+/) || [''])[0]")


def click(page, key: str) -> None:
    """Click a Playground button and wait for its rerun to finish (a step may be seen by its caption)."""
    before, caption = sup.runs(page), page.evaluate(STEP_CAPTION_JS)
    button(page, key).click()
    # a fast fragment rerun can finish without the run counter seeing its state flip; the step's
    # caption changing is then the sign that the click was handled
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(f"([before, caption]) => (window.__specvizRuns || 0) > before || "
                               f"({STEP_CAPTION_JS})() !== caption", arg=[before, caption], timeout=8_000)
    except PlaywrightTimeout:  # as in sup.wait_for_rerun: an idle, fresh app is then the sign
        pass
    sup.wait_for_app(page)
    sup.wait_for_charts(page)


def assert_clean(page, recorder, what: str) -> None:
    boxes = sup.exceptions(page)
    assert not boxes, f"Playground, {what}: exception box:\n" + "\n---\n".join(boxes)
    assert not recorder.page_errors, f"Playground, {what}: uncaught browser errors: {recorder.page_errors}"


@pytest.fixture
def playground(app_url, app_page, page, recorder):
    target = app_page("playground")
    sup.open_page(page, target.url(app_url))
    assert_clean(page, recorder, "on opening")
    page.wait_for_url(re.compile(r"[?&]step=\d+"))  # the scenario goes into the link at once
    return page


def move_slider(page, label: str, presses: int) -> None:
    """Move the slider whose label contains `label` with the keyboard (as a lecturer could), then wait."""
    slider = page.locator('[data-testid="stSlider"]').filter(has_text=label).first
    thumb = slider.get_by_role("slider").first
    old = thumb.input_value()
    before = sup.runs(page)
    thumb.focus()
    for _ in range(abs(presses)):
        thumb.press("ArrowRight" if presses > 0 else "ArrowLeft")
    sup.wait_for_rerun(page, before)
    assert thumb.input_value() != old, f"the {label!r} slider did not move"
    sup.wait_for_app(page)


def choose_preset(page, name: str) -> None:
    """Pick a preset in the sidebar's select box: it applies at once."""
    box = page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').filter(has_text="Preset").first
    box.click()
    before = sup.runs(page)
    page.get_by_role("option", name=name, exact=True).click()
    sup.wait_for_rerun(page, before)
    sup.wait_for_charts(page)


def test_slider_then_step_until_rejection_and_residual(playground, recorder):
    page = playground
    # "far apart": q favours what p dislikes, so a rejection comes within the first round or two
    choose_preset(page, "far apart")
    page.wait_for_url(re.compile(r"[?&]q=1%2C4%2C9"))  # q is p reversed: 1,4,9,16,25,36
    # a slider: the depth of the drafted block, 3 -> 4; the link follows and the animation restarts
    move_slider(page, "Depth", 1)
    page.wait_for_url(re.compile(r"[?&]depth=4(&|$)"))
    assert position(page)[0] == 1, "a new scenario starts at step 1"
    assert_clean(page, recorder, "after moving the depth slider")

    seen: list[tuple[int, int, str, str]] = []
    rejected = residual = False
    for _ in range(MAX_STEPS):
        click(page, "pg_forward")
        step, round_id, phase = position(page)
        seen.append((step, round_id, phase, headline(page)))
        rejected = rejected or "is rejected" in seen[-1][3]
        residual = residual or "residual" in phase.lower()
        if rejected and residual:
            break
    assert_clean(page, recorder, "after stepping")
    assert rejected and residual, f"no rejection + residual draw in {MAX_STEPS} steps: {seen[-5:]}"
    assert [s[0] for s in seen] == list(range(2, len(seen) + 2)), "each Forward press moves exactly one event"

    # the text of the trace is shown: the residual event explains itself, and the committed text is there
    text = sup.main_text(page)
    assert "drawn from the residual" in headline(page)
    assert "(p − q)+" in text, "the residual event's explanation is not shown"
    assert "Committed text" in text
    assert re.search(rf"[?&]step={seen[-1][0] - 1}(&|$)", page.url), f"the link does not hold the step: {page.url}"
    sup.screenshot(page, "playground")

    # Back steps one event back
    click(page, "pg_back")
    assert position(page)[0] == seen[-1][0] - 1


def test_play_advances_the_step(playground, recorder):
    page = playground
    start = position(page)[0]
    button(page, "pg_play").click()
    # Play ticks once a second at normal speed: the step must move on by itself
    page.wait_for_function(
        """(start) => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stCaptionContainer"]')]
             .some(c => { const m = c.innerText.match(/Step (\\d+) ·/); return m && +m[1] >= start + 2; })""",
        arg=start, timeout=20_000,
    )
    assert "Pause" in button(page, "pg_play").inner_text()
    click(page, "pg_play")  # pause
    sup.wait_for_app(page)
    paused_at = position(page)[0]
    assert paused_at >= start + 2
    page.wait_for_timeout(2_500)  # more than two ticks: a paused animation stays put
    assert position(page)[0] == paused_at, "the animation kept moving after Pause"
    assert "Play" in button(page, "pg_play").inner_text()
    assert_clean(page, recorder, "after Play and Pause")


def test_shared_link_and_reload_show_the_same_state(playground, browser, recorder):
    page = playground
    move_slider(page, "Depth", -1)  # depth 2: a link that differs from the default scenario
    for _ in range(5):
        click(page, "pg_forward")
    state = (position(page), headline(page))
    link = page.url
    assert sup.query_of(link).get("depth") == "2" and sup.query_of(link).get("step") == "5", link

    # the same browser tab, reloaded
    page.reload(wait_until="domcontentloaded")
    sup.wait_for_app(page)
    page.wait_for_selector('[data-testid="stMain"] [data-testid="stCaptionContainer"]')
    sup.wait_for_charts(page)
    assert (position(page), headline(page)) == state, "a reload lost the state"
    assert sup.query_of(page.url) == sup.query_of(link)

    # a student's browser: a fresh context (no session, no cookies) opening the shared link
    other = browser.new_context(viewport=sup.VIEWPORT, device_scale_factor=1)
    try:
        other.add_init_script(sup.RUN_COUNTER_JS)
        student = other.new_page()
        sup.open_page(student, link)
        student.wait_for_selector('[data-testid="stMain"] [data-testid="stCaptionContainer"]')
        assert (position(student), headline(student)) == state, "the shared link opened another state"
        assert sup.query_of(student.url) == sup.query_of(link)
        assert not sup.exceptions(student)
    finally:
        other.close()
    assert_clean(page, recorder, "after reload")
