"""Built step pages shared by every session: the same page as a fresh build, once per key, bounded, never a refusal."""

import json

import plotly.io
import plotly.tools
import pytest

from specviz.app.playground import step_cache
from specviz.app.playground.step_cache import FrozenFigure, StepPages
from specviz.core import SpecvizError
from specviz.playground import narrative, presets
from specviz.plots import step_page
from specviz.scenario import Scenario, Table

VOCAB = tuple(f"w{i}" for i in range(6))
BASE = presets.apply_preset(Scenario(vocab=VOCAB, target=Table((1,) * 6), draft=Table((1,) * 6), depth=3, seed=3),
                            "far apart", False)


def spec(figure) -> str:
    """What Streamlit sends for a figure: st.plotly_chart's own two calls."""
    return plotly.io.to_json(plotly.tools.return_figure_from_figure_or_data(figure, validate_figure=True),
                             validate=False)


@pytest.mark.parametrize("scenario", [BASE, BASE.with_changes(verification="block"),
                                      BASE.with_changes(verification="multi:3", depth=2)],
                         ids=["token", "block", "tree"])
@pytest.mark.parametrize("presenter", [False, True])
def test_a_cached_page_is_the_page_a_fresh_build_gives(scenario, presenter):
    pages = StepPages()
    for step in range(0, 24, 3):
        shown, page = pages.get(scenario, step, presenter)
        view = narrative.step_view(scenario, step)
        fresh = step_page.build(view, scenario, presenter)
        assert shown == view.step
        fields = ("caption", "headline", "narration", "words", "committed", "tables", "draw_svg", "layout",
                  "filename")
        assert [getattr(page, f) for f in fields] == [getattr(fresh, f) for f in fields]
        assert isinstance(page.figure, FrozenFigure)
        assert json.loads(spec(page.figure)) == json.loads(spec(fresh.figure))
        assert (page.history is None) == (fresh.history is None)
        if fresh.history is not None:
            assert json.loads(spec(page.history)) == json.loads(spec(fresh.history))


def test_each_key_is_built_once_and_then_shared():
    pages = StepPages()
    first = pages.get(BASE, 4, False)
    assert pages.get(BASE, 4, False) is first
    assert pages.get(BASE, 4, True) is not first  # presenter mode is a page of its own
    assert pages.get(BASE.with_changes(seed=4), 4, False) is not first  # so is another link
    info = pages.info()
    assert (info.hits, info.misses, info.size) == (1, 3, 3)


def test_the_cache_keeps_its_most_recent_pages_only():
    pages = StepPages(capacity=3)
    for step in range(5):
        pages.get(BASE, step, False)
    assert pages.info().size == 3
    pages.get(BASE, 4, False)  # still there
    assert pages.info().hits == 1
    pages.get(BASE, 0, False)  # pushed out: built again
    assert (pages.info().misses, pages.info().size) == (6, 3)


def test_a_step_past_the_end_is_shown_clamped():
    stopped = BASE.with_changes(stop_ids=frozenset(range(6)))  # every token stops: one round only
    shown, page = StepPages().get(stopped, 10**6, False)
    assert shown == narrative.step_view(stopped, 10**6).step < 10**6
    assert page.caption.startswith(f"Step {shown + 1} ·")


def test_a_refusal_is_raised_every_time_and_never_cached(monkeypatch):
    pages = StepPages()
    calls = []

    def refused(scenario, step):
        calls.append(step)
        raise SpecvizError("refused for the test")

    monkeypatch.setattr(narrative, "step_view", refused)
    for _ in range(2):
        with pytest.raises(SpecvizError, match="refused for the test"):
            pages.get(BASE, 2, False)
    assert calls == [2, 2] and pages.info().size == 0


def test_a_frozen_figure_is_read_only_data_made_once():
    figure = step_page.build(narrative.step_view(BASE, 1), BASE, False).figure
    frozen = FrozenFigure(figure)
    assert frozen.to_dict() is frozen.to_dict() is frozen.spec  # no copy per render
    assert frozen.spec == figure.to_dict()
    figure.update_layout(title="changed afterwards")
    assert frozen.spec["layout"]["title"] != figure.to_dict()["layout"]["title"]
    assert "FrozenFigure(" in repr(frozen)


def test_the_app_shares_one_cache_that_the_test_fixture_empties():
    assert step_cache.pages.info().size == 0  # tests/conftest.py clears it before every test
    step_cache.pages.get(BASE, 0, False)
    assert step_cache.pages.info().size == 1
