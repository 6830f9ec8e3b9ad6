"""The Playground in a real browser: a slider, stepping to a rejection and its residual draw in the step player,
Play, the motion between steps, shared links (new and old) and a reload, and no server round trip for a Step.

The player is a custom component in a shadow root (Playwright's CSS locators pierce it); its buttons are found by
their classes (``.specviz-player button.step``), its label by ``.caption``.
"""

from __future__ import annotations

import re

import e2e_support as sup
import pytest

from specviz.playground import presets, share, state

pytestmark = pytest.mark.e2e

MAX_STEPS = 60  # "far apart" rejects within a few events; a runaway loop stops here
STEP_CAPTION = re.compile(r"Step (\d+) · round (\d+) · event (\d+) of (\d+) · (.+)")
STEP_CAPTION_JS = sup.PLAYER_CAPTION_JS  # the player's label ('' while no player is on screen)
BUTTONS = {"pg_forward": "step", "pg_back": "back", "pg_play": "play", "pg_reset": "reset", "pg_next": "next-round",
           "pg_new_seed": "new-seed"}  # the transport's old keys, for the tests that still say them


def button(page, key: str):
    """A player button by its old transport key (or its class); any other key a Streamlit button's."""
    if key in BUTTONS or not key.startswith("pg_"):
        return sup.player_button(page, BUTTONS.get(key, key))
    # a button with a tooltip or shortcut is rendered twice (one hidden copy measures its width)
    return page.locator(f".st-key-{key} button:visible").first


def position(page) -> tuple[int, int, str]:
    """(step, round, phase) from the player's label, e.g. 'Step 5 · round 2 · event 2 of 8 · ...' (from 1)."""
    text = sup.player_caption(page)
    found = STEP_CAPTION.search(text)
    if not found:
        raise AssertionError(f"no 'Step N · round R' label in the player: {text!r}\n{sup.main_text(page)[:800]}")
    return int(found[1]), int(found[2]), found[5].strip()


def headline(page) -> str:
    return page.locator(f"{sup.PLAYER} .headline").first.inner_text().strip()


def click(page, key: str) -> None:
    """Click a player button; then its label changed (or a notice said why not, or the server answered). A
    Streamlit button (any other pg_ key): its rerun finished."""
    before, runs = sup.player_caption(page), sup.runs(page)
    if key.startswith("pg_") and key not in BUTTONS:
        button(page, key).click()
        sup.wait_for_rerun(page, runs)
        return
    button(page, key).click()
    page.wait_for_function(f"([before, runs]) => ({STEP_CAPTION_JS})() !== before || (window.__specvizRuns || 0)"
                           " > runs || !window.__specvizPlayer.root.querySelector('.notice').hidden",
                           arg=[before, runs], timeout=30_000)
    sup.wait_for_player(page)


def assert_clean(page, recorder, what: str) -> None:
    boxes = sup.exceptions(page)
    assert not boxes, f"Playground, {what}: exception box:\n" + "\n---\n".join(boxes)
    assert not recorder.page_errors, f"Playground, {what}: uncaught browser errors: {recorder.page_errors}"
    error = page.locator(f"{sup.PLAYER} .frame-error").first
    assert not error.count() or not error.is_visible(), f"Playground, {what}: the player shows {error.inner_text()}"


@pytest.fixture
def playground(app_url, app_page, page, recorder):
    target = app_page("playground")
    sup.open_page(page, target.url(app_url))
    assert_clean(page, recorder, "on opening")
    page.wait_for_url(re.compile(r"[?&]at=\d+"))  # the scenario goes into the link at once
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
    sup.wait_for_player(page)


def choose_preset(page, name: str) -> None:
    """Pick a preset in the sidebar's select box: it applies at once."""
    box = page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').filter(has_text="Preset").first
    box.click()
    before = sup.runs(page)
    page.get_by_role("option", name=name, exact=True).click()
    sup.wait_for_rerun(page, before)
    sup.wait_for_player(page)


class Frames:
    """The websocket's frames, both ways, counted from the browser's side (Chrome's protocol)."""

    def __init__(self, page):
        self.count = 0
        self.session = page.context.new_cdp_session(page)
        self.session.send("Network.enable")
        for event in ("Network.webSocketFrameSent", "Network.webSocketFrameReceived"):
            self.session.on(event, self._seen)

    def _seen(self, _event) -> None:
        self.count += 1


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

    frames = Frames(page)
    seen: list[tuple[int, int, str, str]] = []
    rejected = residual = False
    in_round = 0
    for _ in range(MAX_STEPS):
        before, round_before = frames.count, position(page)[1]
        click(page, "pg_forward")
        step, round_id, phase = position(page)
        seen.append((step, round_id, phase, headline(page)))
        if round_id == round_before:  # a step within the round the browser holds: no word with the server
            page.wait_for_timeout(150)
            assert frames.count == before, f"step {step}: {frames.count - before} websocket frames within a round"
            in_round += 1
        rejected = rejected or "is rejected" in seen[-1][3]
        residual = residual or "residual" in phase.lower()
        if rejected and residual:
            break
    assert_clean(page, recorder, "after stepping")
    assert rejected and residual, f"no rejection + residual draw in {MAX_STEPS} steps: {seen[-5:]}"
    assert [s[0] for s in seen] == list(range(2, len(seen) + 2)), "each Forward press moves exactly one event"
    assert in_round >= 3

    # the text of the trace is shown: the residual event explains itself, and the committed text is there
    text = sup.player_text(page)
    assert "drawn from the residual" in headline(page)
    assert "(p − q)+" in text, "the residual event's explanation is not shown"
    assert "Committed text" in text
    assert re.search(rf"[?&]at={seen[-1][0]}(&|$)", page.url), f"the link does not hold the step: {page.url}"
    assert "step=" not in page.url  # the link's step reads as the label: at=N is Step N
    sup.screenshot(page, "playground")

    # Back steps one event back
    click(page, "pg_back")
    assert position(page)[0] == seen[-1][0] - 1


def test_play_advances_the_step(playground, recorder):
    page = playground
    start = position(page)[0]
    button(page, "pg_play").click()
    # Play chains the steps in the browser (one a second at normal speed), into the next round too
    page.wait_for_function(f"""(start) => {{ const m = ({STEP_CAPTION_JS})().match(/Step (\\d+) ·/);
                                             return m && +m[1] >= start + 2; }}""", arg=start, timeout=20_000)
    assert "Pause" in button(page, "pg_play").inner_text()
    button(page, "pg_play").click()  # pause
    sup.wait_for_player(page)
    paused_at = position(page)[0]
    assert paused_at >= start + 2
    page.wait_for_timeout(2_500)  # more than two of Play's steps: a paused animation stays put
    assert position(page)[0] == paused_at, "the animation kept moving after Pause"
    assert "Play" in button(page, "pg_play").inner_text()
    assert_clean(page, recorder, "after Play and Pause")


# the chart's bars, sampled on animation frames after a key: attributes that change over time are motion
SAMPLE_MOTION_JS = """async (key) => {
  const player = window.__specvizPlayer;
  const chart = player.root.querySelector('svg.chart');
  const shape = () => [...chart.querySelectorAll('rect.bar, path.marker, path.node, line.edge')]
    .map(n => [n.getAttribute('x'), n.getAttribute('y'), n.getAttribute('height'), n.getAttribute('transform'),
               n.getAttribute('opacity')].join(',')).join(';');
  window.dispatchEvent(new KeyboardEvent('keydown', {key, bubbles: true}));
  const seen = new Set(), running = [];
  const t0 = performance.now();
  while (performance.now() - t0 < 900) {
    await new Promise((r) => requestAnimationFrame(r));
    seen.add(shape());
    running.push(player.motion.running);
  }
  return {shapes: seen.size, running: running.filter(Boolean).length, frames: running.length};
}"""


def link(base: str, scenario, step: int, presenter: bool = False, **extra: str) -> str:
    import urllib.parse

    query = share.scenario_to_query(scenario, step) | ({"presenter": "1"} if presenter else {}) | extra
    return f"{base}/playground?{urllib.parse.urlencode(query)}"


FAR = presets.apply_preset(presets.default_scenario(), "far apart").with_changes(seed=1)


def test_the_drawing_moves_between_steps_and_keeps_still_for_reduced_motion(app_url, app_page, browser, recorder):
    """A check that rejects, then its correction: p's bars split into min(p, q) and the residual, which then
    grows to its normalized height; the u marker travels onto the strip. Frames change over time while the
    motion runs; with prefers-reduced-motion the step is drawn at once and nothing moves."""
    app_page("playground")
    timeline = state.timeline_for(FAR)
    timeline.ensure_rounds(2)
    check = next(i for i, e in enumerate(timeline.events) if e.kind == "correction") - 1
    for reduced, expect_motion in (("no-preference", True), ("reduce", False)):
        context = browser.new_context(viewport=sup.VIEWPORT, reduced_motion=reduced)
        context.add_init_script(sup.RUN_COUNTER_JS)
        try:
            page = context.new_page()
            page.on("pageerror", lambda error: recorder.page_errors.append(str(error)))
            sup.open_page(page, link(app_url, FAR, check))
            seen = page.evaluate(SAMPLE_MOTION_JS, "PageDown")
            assert position(page)[2].lower().startswith("rejection")
            if expect_motion:
                assert seen["running"] >= 3 and seen["shapes"] >= 4, f"nothing moved: {seen}"
                photograph_in_motion(page)
            else:
                assert seen["running"] == 0 and seen["shapes"] <= 2, f"it moved with reduced motion: {seen}"
        finally:
            context.close()
    assert not recorder.page_errors, recorder.page_errors


def photograph_in_motion(page) -> None:
    """The README's picture of a step in motion: back to the check, then at the slow speed into the correction,
    photographed while the residual grows out of p (assets/screenshot-playground-motion.png)."""
    sup.press_player(page, "PageUp")
    page.locator(f"{sup.PLAYER} select.speed").select_option("slow")
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.mouse.move(0, 0)
    page.keyboard.press("PageDown")
    page.wait_for_timeout(420)  # p has split; the residual flies to the right panel, growing to its height
    page.screenshot(path=str(sup.ASSETS / "screenshot-playground-motion.png"), animations="allow", scale="css")
    sup.wait_for_player(page)


def test_shared_link_and_reload_show_the_same_state(playground, browser, recorder):
    page = playground
    move_slider(page, "Depth", -1)  # depth 2: a link that differs from the default scenario
    for _ in range(5):
        click(page, "pg_forward")
    state_ = (position(page), headline(page))
    link_ = page.url
    assert sup.query_of(link_).get("depth") == "2" and sup.query_of(link_).get("at") == "6", link_

    # the same browser tab, reloaded
    page.reload(wait_until="domcontentloaded")
    sup.wait_for_app(page)
    sup.wait_for_player(page)
    assert (position(page), headline(page)) == state_, "a reload lost the state"
    assert sup.query_of(page.url) == sup.query_of(link_)

    # a student's browser: a fresh context (no session, no cookies) opening the shared link
    other = browser.new_context(viewport=sup.VIEWPORT, device_scale_factor=1)
    try:
        other.add_init_script(sup.RUN_COUNTER_JS)
        student = other.new_page()
        sup.open_page(student, link_)
        assert (position(student), headline(student)) == state_, "the shared link opened another state"
        assert sup.query_of(student.url) == sup.query_of(link_)
        assert not sup.exceptions(student)
        # a link written before steps counted from 1 (step=5: the event index) opens the same step
        old = {k: v for k, v in sup.query_of(link_).items() if k != "at"} | {"step": "5"}
        import urllib.parse

        sup.open_page(student, link_.split("?")[0] + "?" + urllib.parse.urlencode(old))
        assert position(student)[0] == 6 and sup.query_of(student.url).get("at") == "6"
    finally:
        other.close()
    assert_clean(page, recorder, "after reload")
