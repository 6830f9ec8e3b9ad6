"""A step's page: each part laid out as the Animation tab shows it (the words as one element per layout)."""

import pytest

from specviz.playground import narrative, presets, state
from specviz.plots import step_html, step_page

FAR = presets.apply_preset(presets.default_scenario(), "far apart")


def views(scenario, rounds=3):
    timeline = state.timeline_for(scenario)
    timeline.ensure_rounds(rounds)
    return [narrative.step_view(scenario, i) for i in range(len(timeline.events))]


@pytest.mark.parametrize("presenter", [False, True])
def test_the_words_hold_the_draw_and_the_narration_as_the_layout_places_them(presenter):
    layouts = set()
    for view in views(FAR):
        page = step_page.build(view, FAR, presenter)
        layouts.add(page.layout)
        assert page.layout == step_page.layout_of(view.event.kind, presenter)
        beside = page.layout == "wide"
        assert page.words == step_html.words(page.draw_svg, page.narration, beside,
                                             step_page.ELEMENT_GAP[presenter])
        assert page.narration in page.words
        if page.draw_svg is not None:
            assert page.draw_svg in page.words
            assert page.words.startswith("<div class='specviz-side-by-side'" if beside else "<div class='specviz-draw'")
        assert page.committed.startswith(f"<div class='{step_html.COMMITTED_CLASS}'>")
    assert layouts == ({"split"} if presenter else {"split", "wide"})  # a rejection's residual spans the page
