"""Playground -> every other page -> Playground in Chromium at 1280x800 (issue 20, item 1).

By the sidebar and by the browser's Back button, in normal and presenter mode: the Playground comes
back with the same scenario (its link: weights, depth, vocabulary) and the same step, with no
exception box. Before the fix, the return crashed with `st.session_state has no attribute "pg_vocab"`.
"""

from __future__ import annotations

import urllib.parse

import e2e_support as sup
import pytest
from test_e2e_playground import assert_clean, click, position

from specviz.playground import presets, share

pytestmark = pytest.mark.e2e

OTHER_PAGES = ("home", "exactness_lab", "theory", "edge_cases", "real_models")
SCENARIO = presets.apply_preset(presets.default_scenario(markov=True), "far apart", True).with_changes(
    vocab=("a", "b", "c", "d", "e", "f"), depth=2, seed=7)
SLOW_FIRST_VISIT = 180_000  # Real models imports torch on its first visit


def open_sidebar(page) -> None:
    """Presenter mode collapses the sidebar: open it as a lecturer would, with its arrow."""
    expand = page.locator('[data-testid="stExpandSidebarButton"]')
    if expand.count() and expand.first.is_visible():
        expand.first.click()
        page.wait_for_function("() => { const a = document.querySelector('[data-testid=\"stSidebarNavLink\"]');"
                               " return a && a.getBoundingClientRect().left >= 0; }")
        page.wait_for_timeout(300)  # the sidebar's slide-in transition


def go_by_sidebar(page, target: sup.AppPage) -> None:
    open_sidebar(page)
    before = sup.runs(page)
    page.locator('[data-testid="stSidebarNavLink"]:visible').filter(has_text=target.title).first.click()
    page.wait_for_url(lambda url: urllib.parse.urlsplit(url).path.strip("/") == target.url_path)
    sup.wait_for_rerun(page, before, timeout=SLOW_FIRST_VISIT)


def playground_back(page) -> None:
    page.wait_for_function(f"() => /^Step \\d+/.test(({sup.PLAYER_CAPTION_JS})())", timeout=60_000)
    sup.wait_for_player(page)


def seen(page) -> tuple[dict[str, str], tuple[int, int, str]]:
    """The scenario and step the Playground shows: its link (without presenter) and its Step caption."""
    return sup.query_of(page.url), position(page)


@pytest.mark.parametrize("presenter", [False, True], ids=["normal", "presenter"])
def test_every_page_and_back_keeps_the_scenario_and_the_step(presenter, app_url, app_page, page, recorder):
    playground = app_page("playground")
    others = [app_page(stem) for stem in OTHER_PAGES]
    query = share.scenario_to_query(SCENARIO, 0) | ({"presenter": "1"} if presenter else {})
    sup.open_page(page, f"{playground.url(app_url)}?{urllib.parse.urlencode(query)}")
    for _ in range(4):
        click(page, "pg_forward")
    before = seen(page)
    assert before[0]["at"] == "5" and before[0]["depth"] == "2" and before[0]["vocab"] == "a,b,c,d,e,f"
    assert (before[0].get("presenter") == "1") is presenter
    for other in others:
        go_by_sidebar(page, other)
        assert_clean(page, recorder, f"on {other.title}")
        go_by_sidebar(page, playground)
        playground_back(page)
        assert seen(page) == before, f"{other.title} -> Playground by the sidebar"
        assert_clean(page, recorder, f"back from {other.title} by the sidebar")
        go_by_sidebar(page, other)
        before_run = sup.runs(page)
        page.go_back()
        page.wait_for_url(lambda url: urllib.parse.urlsplit(url).path.strip("/") == playground.url_path)
        sup.wait_for_rerun(page, before_run)
        playground_back(page)
        assert seen(page) == before, f"{other.title} -> Playground by the Back button"
        assert_clean(page, recorder, f"back from {other.title} by the Back button")


def test_a_quick_click_to_another_page_after_steps_leaves_and_the_step_comes_back(app_url, app_page, page, recorder):
    """The player tells Python its step on the click's pointerdown, and Streamlit sends that one task later while a
    link to another page goes at once: a driver's (or a touch's) quick click must still change the page, and the
    Playground must come back at the step the browser showed, even where the report never reached Python."""
    playground, home = app_page("playground"), app_page("home")
    sup.open_page(page, f"{playground.url(app_url)}?{urllib.parse.urlencode(share.scenario_to_query(SCENARIO, 0))}")
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    for trip in range(4):
        for _ in range(3):
            sup.press_player(page, "PageDown")
        shown, runs = position(page), sup.runs(page)
        page.locator('[data-testid="stSidebarNavLink"]:visible').filter(has_text=home.title).first.click()
        page.wait_for_url(lambda url: urllib.parse.urlsplit(url).path.strip("/") == home.url_path, timeout=15_000)
        sup.wait_for_rerun(page, runs)
        go_by_sidebar(page, playground)
        playground_back(page)
        assert position(page) == shown, f"trip {trip + 1}: left at {shown}, came back at {position(page)}"
        assert sup.query_of(page.url)["at"] == str(shown[0]), "the link names the step shown"
        assert_clean(page, recorder, f"back from trip {trip + 1}")
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
