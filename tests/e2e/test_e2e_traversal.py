"""Traversal verification in Chromium at 1280x800 (issue 36, phase 2): a link with ``verification=traversal:3``
opens and steps by PageDown through a round, the step label and the tree change at every key, the walk's states
appear in the drawing (rejected, pruned, the kept path), presenter mode fits every step of the round within 800
px, and Compare shows the tree verified two ways. Screenshots (normal and presenter, a check mid-walk and the
correction) are written to assets/ to be looked at."""

from __future__ import annotations

import re

import e2e_support as sup
import pytest
from test_e2e_lecture import link
from test_e2e_playground import assert_clean, position
from test_e2e_presenter_fit import MEASURE_JS

from specviz.playground import presets, state

pytestmark = pytest.mark.e2e

# far apart, width 3, depth 2, seed 3: round 1 rejects node [1]'s subtree, prunes under node [2] (weight 0), keeps
# node [3] after its three children were rejected and corrects from its r (tests/player/test_traversal_frames.py)
WALK = presets.apply_preset(presets.default_scenario(), "far apart").with_changes(verification="traversal:3",
                                                                                   depth=2, seed=3)
# close, width 3 distinct, depth 3 (39 drafted nodes, folded to the rows): rejections, 18 nodes pruned, then the
# leaf [3, 1, 1] kept with its whole path and the bonus after it
DEEP = presets.apply_preset(presets.default_scenario(), "close").with_changes(verification="traversal-distinct:3",
                                                                               depth=3, seed=4)
TREE_JS = """() => { const root = window.__specvizPlayer.root;
  return [...root.querySelectorAll('svg.chart path.node')].map(n => n.getAttribute('class')).join(' ')
    + ' | ' + [...root.querySelectorAll('svg.chart line.edge.struck')].length
    + ' | ' + (root.querySelector('svg.chart text.title') || {}).textContent; }"""


def _round(scenario=WALK):
    timeline = state.timeline_for(scenario)
    timeline.ensure_rounds(1)
    return timeline.rounds[0].trace.events


def _first(kind: str, path: tuple[int, ...] | None = None) -> int:
    return next(i for i, e in enumerate(_round()) if e.kind == kind and (path is None or tuple(e.path) == path))


def _tree(page) -> str:
    return page.evaluate(TREE_JS)


def test_a_traversal_link_steps_through_a_round_with_pagedown(app_url, app_page, fresh_page, recorder):
    page = fresh_page
    app_page("playground")
    events = _round()
    start = _first("traversal_check")
    sup.open_page(page, link(app_url, WALK, start))
    sup.wait_for_player(page)
    assert position(page)[0] == start + 1
    assert "Traversal" in position(page)[2]
    seen = {"pruned": False, "struck": False}
    for index in range(start + 1, len(events)):
        caption, tree = sup.player_caption(page), _tree(page)
        sup.press_player(page, "PageDown")
        assert sup.player_caption(page) != caption and position(page)[0] == index + 1
        now = _tree(page)
        assert now != tree, f"step {index + 1}: the tree did not change"
        seen["pruned"] |= "node pruned" in now
        seen["struck"] |= int(now.split(" | ")[1]) > 0
        if events[index].kind == "traversal_check" and tuple(events[index].path) == (2, 0):  # u against 1/36
            assert "u vs its weight 1/36" in sup.player_text(page) or "u vs its weight" in now
            sup.SCRATCH.mkdir(exist_ok=True)
            page.screenshot(path=str(sup.SCRATCH / "traversal-draw.png"))  # to look at, not committed
        if events[index].kind == "traversal_check" and tuple(events[index].path) == (2,):
            assert "node [3]" in sup.player_text(page) and "kept" in sup.player_text(page)
        if events[index].kind == "correction":
            assert "the next token from its r" in now and "from its residual" in sup.player_text(page)
    assert seen == {"pruned": True, "struck": True}
    assert_clean(page, recorder, "a traversal round stepped by PageDown")


@pytest.mark.parametrize("presenter", [False, True], ids=["normal", "presenter"])
def test_traversal_reads_at_1280x800_mid_walk_and_at_the_correction(presenter, app_url, app_page, fresh_page,
                                                                    recorder):
    page = fresh_page
    app_page("playground")
    suffix = "-presenter" if presenter else ""
    for name, step in (("check", _first("traversal_check", (1,))), ("correction", _first("correction"))):
        sup.open_page(page, link(app_url, WALK, step, presenter=presenter))
        sup.wait_for_player(page)
        assert position(page)[0] == step + 1
        measured = page.evaluate(MEASURE_JS)
        parts = {k: v for k, v in measured["parts"].items() if v is not None}
        assert {"chart", "verdict", "committed"} <= set(parts), parts
        if presenter:  # the step being explained fits the projector, nothing to scroll
            assert max(parts.values()) <= sup.VIEWPORT["height"], (name, parts)
        assert measured["clipped"] is None or measured["clipped"] <= 0, measured
        assert_clean(page, recorder, f"traversal {name}{suffix}")
        # the README's picture: a check mid-walk in presenter mode (a pruned subtree, a rejected one, the weights)
        sup.screenshot(page, "playground-traversal" if presenter and name == "check" else f"traversal-{name}{suffix}")


@pytest.mark.parametrize("scenario", [WALK, DEEP], ids=["width3-depth2-correction", "width3-depth3-bonus"])
def test_presenter_mode_fits_every_step_of_the_round(scenario, app_url, app_page, fresh_page, recorder):
    page = fresh_page
    app_page("playground")
    events = _round(scenario)
    kinds = {e.kind for e in events}
    assert {"traversal_check", "result"} <= kinds and kinds & {"correction", "bonus"}
    sup.open_page(page, link(app_url, scenario, 0, presenter=True))
    sup.wait_for_player(page)
    worst = (0, 0, "")
    for index in range(len(events)):
        if index:
            sup.press_player(page, "PageDown")
        page.wait_for_timeout(100)
        measured = page.evaluate(MEASURE_JS)
        parts = {k: v for k, v in measured["parts"].items() if v is not None}
        worst = max(worst, (max(parts.values()), index + 1, events[index].kind))
        if max(parts.values()) > sup.VIEWPORT["height"]:  # the step that does not fit, to look at
            sup.SCRATCH.mkdir(exist_ok=True)
            page.screenshot(path=str(sup.SCRATCH / f"traversal-unfit-{index + 1}.png"))
        assert max(parts.values()) <= sup.VIEWPORT["height"], (index, events[index].kind, parts)
        assert measured["clipped"] is None or measured["clipped"] <= 0, (index, measured["title"])
    assert_clean(page, recorder, f"presenter walk of {scenario.verification}")
    print(f"{scenario.verification} depth {scenario.depth}: bottom {worst[0]} px at step {worst[1]} ({worst[2]})")


def test_compare_shows_the_tree_verified_two_ways(app_url, app_page, fresh_page, recorder):
    page = fresh_page
    app_page("playground")
    sup.open_page(page, link(app_url, WALK, _first("correction")))
    sup.wait_for_player(page)
    before = sup.runs(page)
    page.get_by_role("tab", name=re.compile("Compare")).click()
    sup.wait_for_rerun(page, before)
    sup.wait_for_charts(page)
    text = sup.main_text(page)
    assert "one drafted tree" in text and "recursive rejection sampling (multi:3)" in text
    assert "traversal (traversal:3)" in text and "E[drafts kept] per round (exact)" in text
    assert_clean(page, recorder, "Compare of a traversal round")
    sup.screenshot(page, "traversal-compare")
