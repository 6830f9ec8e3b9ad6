"""A step's plotly chart for export: the layout a step had, its caption and headline, its title wrapped to fit."""

import pytest

from specviz.playground import narrative, presets, state
from specviz.plots import step_html, step_page

FAR = presets.apply_preset(presets.default_scenario(), "far apart")


def views(scenario, rounds=3):
    timeline = state.timeline_for(scenario)
    timeline.ensure_rounds(rounds)
    return [narrative.step_view(scenario, i) for i in range(len(timeline.events))]


@pytest.mark.parametrize("presenter", [False, True])
def test_each_step_gets_its_chart_named_as_the_player_names_it(presenter):
    layouts = set()
    for view in views(FAR):
        page = step_page.build(view, FAR, presenter)
        layouts.add(page.layout)
        assert page.layout == step_page.layout_of(view.event.kind, presenter)
        assert page.caption == step_html.caption(view) and page.headline == view.headline
        assert page.figure.layout.title.text and page.filename == step_page.filename(FAR, view.step)
        if presenter:
            assert page.figure.layout.height == step_page.PRESENTER_CHART_HEIGHT
    assert layouts == ({"split"} if presenter else {"split", "wide"})  # a rejection's residual spans the page
