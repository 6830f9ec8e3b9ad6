"""Each step chart is drawn once: the margins a figure reserves are the margins plotly ends with, so its
automargin never grows one and draws the chart a second time (a tree of width 3 cost about 40 ms a Step in
Chromium that way). Every event kind of a width-3, depth-3 tree round and of a tokenwise round, normal and
presenter, and the history chart of the next round."""

from __future__ import annotations

import e2e_support as sup
import pytest
from test_e2e_lecture import link

from specviz.playground import narrative, presets

pytestmark = pytest.mark.e2e

FAR = presets.apply_preset(presets.default_scenario(), "far apart").with_changes(seed=3)
TREE = FAR.with_changes(verification="multi:3", depth=3)
# every chart's set margins against plotly's final ones (gd._fullLayout._size), with its title
MARGINS = """() => [...document.querySelectorAll('.js-plotly-plot')].map(gd => {
  const set = gd.layout.margin || {}, got = gd._fullLayout._size;
  return {title: (gd.layout.title && gd.layout.title.text) || '', set: [set.l, set.r, set.t, set.b],
          got: [got.l, got.r, got.t, got.b].map(Math.round)};
})"""


def first_step_of_each_kind(scenario) -> list[int]:
    """The first step of every event kind in round 0, then the first step of round 1 (its history chart)."""
    steps, kinds = [], set()
    step = 0
    while True:
        view = narrative.step_view(scenario, step)
        if view.round_id > 0:
            return steps + [step]
        if view.event.kind not in kinds:
            kinds.add(view.event.kind)
            steps.append(step)
        step += 1


@pytest.mark.parametrize("presenter", [False, True], ids=["normal", "presenter"])
@pytest.mark.parametrize("scenario", [TREE, FAR], ids=["tree-3x3", "tokenwise"])
def test_every_chart_keeps_the_margins_it_reserves(scenario, presenter, app_url, app_page, page, recorder):
    app_page("playground")
    redrawn = []
    for step in first_step_of_each_kind(scenario):
        sup.open_page(page, link(app_url, scenario, step, presenter=presenter))
        sup.wait_for_charts(page)
        charts = page.evaluate(MARGINS)
        assert charts, f"no chart at step {step}"
        redrawn += [f"step {step}: {c['title']!r} set {c['set']} -> {c['got']}" for c in charts if c["set"] != c["got"]]
    assert not redrawn, "charts whose margins plotly grew (drawn twice):\n" + "\n".join(redrawn)
    assert not recorder.page_errors, recorder.page_errors
