"""The Playground's lecture features in Chromium at 1280x800: a lecture script walked with PageDown across two
scenarios, the draft tree node by node (normal and presenter mode), the jump-to box and the side-by-side tab;
each one is photographed for the README and checked to draw without an exception."""

from __future__ import annotations

import json
import re

import e2e_support as sup
import pytest
from test_e2e_lecture import DRAW, chart_box, link, wholly_on_screen
from test_e2e_playground import STEP_CAPTION_JS, assert_clean, headline, position

from specviz.playground import lecture, presets, state
from specviz.playground.lecture import Entry, Lecture

pytestmark = pytest.mark.e2e

FAR = presets.apply_preset(presets.default_scenario(), "far apart")
SAME = presets.apply_preset(presets.default_scenario(), "p = q")
TREE = presets.apply_preset(presets.default_scenario(), "close").with_changes(verification="multi:2", depth=3,
                                                                              seed=4)
TWO = Lecture((Entry(FAR.with_changes(seed=1), 1, until=3, title="a rejection"),
               Entry(SAME.with_changes(seed=2, verification="block"), 0, until=2, title="every draft kept")),
              title="Two scenarios")


def press(page, key: str) -> None:
    """Press a clicker key with nothing focused, and wait until the player's label has changed."""
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    caption = page.evaluate(STEP_CAPTION_JS)
    page.keyboard.press(key)
    page.wait_for_function(f"(caption) => ({STEP_CAPTION_JS})() !== caption", arg=caption, timeout=30_000)
    sup.wait_for_player(page)


def open_tab(page, label: str) -> None:
    before = sup.runs(page)
    page.get_by_role("tab", name=label).click()
    sup.wait_for_rerun(page, before)


def load_lecture(page, talk: Lecture, tmp_path) -> None:
    path = tmp_path / "lecture.json"
    path.write_text(lecture.lecture_to_json(talk), encoding="utf-8")
    open_tab(page, "🔗 Share, download, load")
    before = sup.runs(page)
    page.locator(".st-key-pg_lecture_upload input[type=file]").set_input_files(str(path))
    sup.wait_for_rerun(page, before)
    page.locator(f"{sup.PLAYER} .lecture-end").wait_for(timeout=30_000)  # the banner on the player's caption line
    sup.wait_for_player(page)


def query(page) -> dict[str, str]:
    return sup.query_of(page.url)


@pytest.mark.parametrize("presenter", [False, True])
def test_pagedown_walks_a_lecture_across_two_scenarios(presenter, app_url, app_page, page, recorder, tmp_path):
    app_page("playground")
    sup.open_page(page, link(app_url, presets.default_scenario(), 0, presenter=presenter))
    load_lecture(page, TWO, tmp_path)
    first, second = TWO.entries
    seen = [(position(page)[0] - 1, query(page).get("verification", "token"))]  # the caption counts from 1
    for _ in range(4):
        press(page, "PageDown")
        seen.append((position(page)[0] - 1, query(page).get("verification", "token")))
    assert seen == [(1, "token"), (2, "token"), (3, "token"), (0, "block"), (1, "block")]
    assert query(page)["p"] == ",".join(str(w) for w in second.scenario.target.start)
    assert "entry 2/2 · steps 1 to 3 · every draft kept" in sup.player_text(page)
    assert_clean(page, recorder, "walking the lecture")
    sup.screenshot(page, "playground-lecture" + ("-presenter" if presenter else ""))
    press(page, "PageUp")
    press(page, "PageUp")  # back across the entries: the first entry's last step
    assert (position(page)[0] - 1, query(page).get("verification", "token")) == (3, "token")
    assert_clean(page, recorder, "walking back")


def tree_step() -> int:
    """A check of a second sibling, after a rejection: the residual has shrunk on screen."""
    timeline = state.timeline_for(TREE)
    timeline.ensure_rounds(12)
    return next(i for i, e in enumerate(timeline.events) if e.kind == "tree_check" and e.sibling == 1)


@pytest.mark.parametrize("presenter", [False, True])
def test_the_tree_steps_node_by_node_and_fits_the_screen(presenter, app_url, app_page, page, recorder):
    app_page("playground")
    step = tree_step()
    sup.open_page(page, link(app_url, TREE, step, presenter=presenter))
    assert position(page)[2].lower().startswith("tree check")
    assert "sibling 2 of 2" in headline(page)  # siblings count from 1
    for key in ("pg_main_chart", DRAW):
        box = chart_box(page, key)
        assert wholly_on_screen(box), f"tree check: {key} is not wholly on screen at 1280x800: {box}"
    assert_clean(page, recorder, "at a tree check")
    sup.screenshot(page, "playground-tree" + ("-presenter" if presenter else ""))
    press(page, "PageDown")
    assert position(page)[0] == step + 2
    assert_clean(page, recorder, "one node on")


WIDE = presets.apply_preset(presets.default_scenario(), "far apart").with_changes(verification="multi:3", depth=3,
                                                                                  seed=4)


def wide_step(kind: str) -> int:
    """A width-3 depth-3 tree (39 nodes): its last draft, or a sibling check that rejects below the root."""
    timeline = state.timeline_for(WIDE)
    timeline.ensure_rounds(4)
    events = timeline.events
    if kind == "draft":
        return max(i for i, e in enumerate(events[: timeline.round_end(0)]) if e.kind == "tree_draft")
    return next(i for i, e in enumerate(events) if e.kind == "tree_check" and not e.accepted and e.position > 0)


@pytest.mark.parametrize("presenter, kind", [(False, "draft"), (True, "rejection")])
def test_a_wide_tree_reads_at_1280x800(presenter, kind, app_url, app_page, page, recorder):
    """Width 3, depth 3: every shown leaf its own row (subtrees off the checked path folded), the step on screen."""
    app_page("playground")
    sup.open_page(page, link(app_url, WIDE, wide_step(kind), presenter=presenter))
    assert position(page)[2].lower().startswith("drafting the tree" if kind == "draft" else "tree check")
    for key in ("pg_main_chart", DRAW):
        box = chart_box(page, key)
        assert wholly_on_screen(box), f"wide tree: {key} is not wholly on screen at 1280x800: {box}"
    # every node's label and every node's marker (the ring round the step's node too), as drawn in the player
    boxes = """(selector) => [...window.__specvizPlayer.root.querySelectorAll('svg.chart ' + selector)]
        .filter(t => getComputedStyle(t).opacity !== '0')
        .map(t => t.getBoundingClientRect()).filter(r => r.width > 0).map(r => [r.left, r.top, r.right, r.bottom])"""
    labels, markers = page.evaluate(boxes, "text.node-label"), page.evaluate(boxes, "path.node, path.ring")

    def cross(a, b, air=2):
        return a[0] < b[2] - air and b[0] < a[2] - air and a[1] < b[3] - air and b[1] < a[3] - air

    overlaps = [(a, b) for i, a in enumerate(labels) for b in labels[i + 1:] if cross(a, b)]
    covered = [(a, m) for a in labels for m in markers if cross(a, m)]
    assert labels and markers and not overlaps, f"tree labels overprint each other: {overlaps[:3]}"
    assert not covered, f"a marker (a node, the ring, the correction or the bonus) covers a label: {covered[:3]}"
    assert_clean(page, recorder, f"a wide tree ({kind})")
    sup.screenshot(page, "playground-tree-wide" if not presenter else "playground-tree-rejection-presenter")


def test_jump_to_the_first_rejection(app_url, app_page, page, recorder):
    app_page("playground")
    sup.open_page(page, link(app_url, FAR.with_changes(seed=3), 0))
    menu = page.locator(f"{sup.PLAYER} .jump summary").first
    menu.click()
    item = page.get_by_role("menuitem", name=re.compile("^First rejection"))
    item.wait_for()
    sup.screenshot(page, "playground-jump")  # the menu open beside Step
    item.click()
    sup.wait_for_player(page)
    assert "rejected" in headline(page)
    assert re.search(rf"[?&]at={position(page)[0]}(&|$)", page.url)
    assert not page.get_by_role("menuitem").first.is_visible(), "the jump menu stays open over the figure"
    sup.screenshot(page, "playground-jump-after")  # the menu closed, the figure clear
    for _ in range(2):  # the round's end, then Round end again where it already is: it says so
        menu.click()
        page.get_by_role("menuitem", name=re.compile("^Round end")).click()
        sup.wait_for_player(page)
    assert position(page)[2].lower().startswith("round result")
    page.locator(f"{sup.PLAYER} .notice").get_by_text("Already at the end of round 1").wait_for()
    sup.screenshot(page, "playground-round-end")
    assert_clean(page, recorder, "after a jump")


@pytest.mark.parametrize("presenter", [False, True])
def test_the_side_by_side_tab(presenter, app_url, app_page, page, recorder):
    app_page("playground")
    sup.open_page(page, link(app_url, FAR.with_changes(seed=16, depth=4), 0, presenter=presenter))
    open_tab(page, "⚖️ Compare")
    sup.wait_for_charts(page)
    text = sup.main_text(page)
    assert "Tokenwise" in text and "Block verification" in text and "drafts kept" in text
    assert_clean(page, recorder, "side by side")
    sup.screenshot(page, "playground-compare" + ("-presenter" if presenter else ""))


def test_a_refused_lecture_file_names_the_entry(app_url, app_page, page, recorder, tmp_path):
    app_page("playground")
    sup.open_page(page, link(app_url, presets.default_scenario(), 0))
    data = lecture.lecture_to_dict(TWO)
    data["entries"][1]["step"] = -2
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    open_tab(page, "🔗 Share, download, load")
    before = sup.runs(page)
    page.locator(".st-key-pg_lecture_upload input[type=file]").set_input_files(str(path))
    sup.wait_for_rerun(page, before)
    assert "entries[1].step: expected a whole number from 0 to 10,000, got -2" in sup.main_text(page)
    assert_clean(page, recorder, "a refused lecture file")
