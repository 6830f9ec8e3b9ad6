"""Presenter mode fits a 1280x800 projector at every step: every event kind of a round of each playable rule
(the registry's ``playable_names()``, and draft trees of width 2, 3 and 4 at their largest depths), walked as a
lecture (so the lecture's banner is on screen), in Chromium. At each step the chart, the draw, the verdict,
every bullet of the narration and the committed text end within 800 px, and the chart's title is not clipped.

The largest bottom per rule and event kind is written to assets/_e2e_tmp/presenter-fit-<rule>.json (git-ignored)
for the record; the worst step of each kind is photographed there too (SPECVIZ_E2E_FULL_PAGE not needed).
"""

from __future__ import annotations

import json

import e2e_support as sup
import pytest
from test_e2e_features import load_lecture
from test_e2e_lecture import link
from test_e2e_playground import STEP_CAPTION_JS, assert_clean, position

from specviz.core.verification import playable_names
from specviz.playground import presets, state
from specviz.playground.lecture import Entry, Lecture

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

# (rule, depth): every playable rule of the registry at depth 3, and the draft trees at their largest depth under
# the 40-node limit: width 2 at depth 4 (30 nodes), width 3 at depth 3 (39), width 4 at depth 2 (20)
RULES = (*((name, 3) for name in playable_names()), ("multi:2", 4), ("multi:3", 3), ("multi:4", 2))
SCREEN = sup.VIEWPORT["height"]
LONG_TITLE = "a rejection, its correction and the residual"  # a lecturer's entry title, of a real length

MEASURE_JS = """() => {
  const root = window.__specvizPlayer.root;
  const bottom = (el) => { if (!el) return null; const r = el.getBoundingClientRect();
                           return r.height > 0 ? Math.round(r.bottom) : null; };
  const items = [...root.querySelectorAll('.specviz-narration li')];
  const draw = root.querySelector('.specviz-draw');
  const parts = {
    chart: bottom(root.querySelector('svg.chart')),
    draw: draw && !draw.hidden ? bottom(draw.querySelector('svg')) : null,
    verdict: bottom(root.querySelector('.headline')),
    bullets: items.length ? bottom(items[items.length - 1]) : null,
    committed: bottom(root.querySelector('.specviz-committed')),
    banner: bottom(root.querySelector('.lecture-end')),
  };
  const title = root.querySelector('svg.chart text.title');
  const svg = root.querySelector('svg.chart');
  const clipped = title && svg ? Math.round(title.getBoundingClientRect().right - svg.getBoundingClientRect().right)
                               : null;
  return {parts, clipped, title: title ? title.textContent : ''};
}"""


def rounds_to_walk(verification: str, depth: int) -> list[tuple[object, int, int]]:
    """(scenario, first step, last step) of the rounds that show every event kind the rule has: a round with a
    rejection (far apart), a round that ends in a bonus (close) and one a stop token ends (stop-heavy), each the
    first such round of its timeline."""
    walks = []
    for preset, wanted in (("far apart", "correction"), ("close", "bonus"), ("stop-heavy", "stop")):
        scenario = presets.apply_preset(presets.default_scenario(), preset).with_changes(
            verification=verification, depth=depth, seed=4)
        timeline = state.timeline_for(scenario)
        timeline.ensure_rounds(12)
        found = next((r for r in range(len(timeline.rounds))
                      if any(e.kind == wanted for e in timeline.rounds[r].trace.events)), None)
        if found is not None:
            walks.append((scenario, timeline.starts[found], timeline.round_end(found)))
    return walks


def step_once(page) -> None:
    caption = page.evaluate(STEP_CAPTION_JS)
    page.keyboard.press("PageDown")
    page.wait_for_function(f"(caption) => ({STEP_CAPTION_JS})() !== caption", arg=caption, timeout=30_000)
    sup.wait_for_player(page)  # the step drawn where its motion ends


@pytest.mark.parametrize("verification, depth", RULES, ids=[f"{rule}-depth{depth}" for rule, depth in RULES])
def test_presenter_mode_fits_every_event_kind_with_the_lecture_banner(verification, depth, app_url, app_page,
                                                                     fresh_page, recorder, tmp_path):
    page = fresh_page  # a fresh profile: presenter mode's collapsed sidebar, not one a test opened
    app_page("playground")
    walks = rounds_to_walk(verification, depth)
    assert walks, f"{verification}: no round to walk"
    talk = Lecture(tuple(Entry(s, first, until=last, title=LONG_TITLE) for s, first, last in walks),
                   title="Presenter fit")
    sup.open_page(page, link(app_url, walks[0][0], 0, presenter=True))
    load_lecture(page, talk, tmp_path)
    page.wait_for_function("() => { const p = window.__specvizPlayer;"
                           " return p && p.root.getBoundingClientRect().left < 200; }", timeout=15_000)
    worst: dict[str, dict] = {}
    steps = sum(last - first + 1 for _, first, last in walks)
    for index in range(steps):
        if index:
            step_once(page)
        page.wait_for_timeout(100)  # the last paint
        measured = page.evaluate(MEASURE_JS)
        kind = position(page)[2]
        parts = {name: value for name, value in measured["parts"].items() if value is not None}
        assert {"chart", "verdict", "committed", "banner"} <= set(parts), (kind, parts)
        bottom = max(parts.values())
        if bottom > worst.get(kind, {}).get("bottom", 0):
            worst[kind] = {"bottom": bottom, "parts": parts, "step": index}
            sup.SCRATCH.mkdir(exist_ok=True)
            page.screenshot(path=str(sup.SCRATCH / f"presenter-fit-{verification.replace(':', '')}-"
                                                   f"{kind.split(':')[0].replace(' ', '_').lower()}.png"))
        assert bottom <= SCREEN, (f"{verification}, step {index} ({kind}): ends at {bottom} px on an {SCREEN} px "
                                  f"screen: {parts}")
        assert measured["clipped"] is None or measured["clipped"] <= 0, (
            f"{verification}, {kind}: the chart's title {measured['title']!r} runs {measured['clipped']} px past "
            "the chart")
    assert_clean(page, recorder, f"presenter walk of {verification}")
    (sup.SCRATCH / f"presenter-fit-{verification.replace(':', '')}.json").write_text(json.dumps(worst, indent=1))
    print(verification, {kind: w["bottom"] for kind, w in worst.items()})
