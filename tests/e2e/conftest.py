"""Fixtures of the end-to-end tests: the app on a free port, Debian's Chromium, a tab per test.

The whole folder is skipped with a clear reason when /usr/bin/chromium (``apt-get install
chromium``; never a downloaded browser) or the Playwright package is missing. The app runs
as ``streamlit run app.py`` in a subprocess whose network is cut off (see
offline/sitecustomize.py): every page must work with no network at all.

Run: ``.venv/bin/python -m pytest tests/e2e`` (``-m "not e2e"`` leaves them out).
Environment knobs: SPECVIZ_E2E_FULL_PAGE=1 also writes whole-page captures to
assets/_e2e_tmp/ (git-ignored) for reviewing what lies below the fold; SPECVIZ_E2E_ROOT
serves another checkout; SPECVIZ_E2E_CHROMIUM another Chromium binary.
"""

from __future__ import annotations

import os
from pathlib import Path

import e2e_support as sup
import pytest

HERE = Path(__file__).resolve().parent


def _missing_requirement() -> str | None:
    if not (sup.CHROMIUM.is_file() and os.access(sup.CHROMIUM, os.X_OK)):
        return (f"end-to-end tests need Debian's Chromium at {sup.CHROMIUM} "
                "(apt-get install chromium; .ci/run installs it)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "end-to-end tests need the Playwright Python package (pip install -r requirements.txt)"
    return None


def pytest_collection_modifyitems(config, items):
    """Mark every test of this folder e2e, and skip them all (before any server starts) without Chromium."""
    reason = _missing_requirement()
    for item in items:
        if HERE not in Path(str(item.fspath)).resolve().parents:
            continue
        item.add_marker(pytest.mark.e2e)
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def app_server(tmp_path_factory, browser) -> sup.AppServer:
    """The app for the whole session (network cut off), warmed up by one visit to its root page.

    The warm-up makes the session independent of test order: Streamlit decides on the first
    run in a process whether app.py's st.navigation is in charge (see
    test_e2e_pages.test_a_deep_link_as_first_visit_gets_the_app_navigation, which checks a
    cold server on its own).
    """
    with sup.serve(tmp_path_factory.mktemp("e2e-server")) as server:
        context = browser.new_context(viewport=sup.VIEWPORT)
        try:
            context.add_init_script(sup.RUN_COUNTER_JS)
            sup.open_page(context.new_page(), server.url + "/", timeout=120_000)
        finally:
            context.close()
        yield server


@pytest.fixture(scope="session")
def app_url(app_server) -> str:
    return app_server.url


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    # a fresh temporary profile (user-data dir) is made by Playwright for each launch and removed after
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(sup.CHROMIUM), headless=True,
                                              args=sup.CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class Recorder:
    """What the browser did in one context: every request URL, uncaught page errors, console errors."""

    def __init__(self):
        self.requests: list[str] = []
        self.page_errors: list[str] = []
        self.console_errors: list[str] = []


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


def new_context(browser):
    ctx = browser.new_context(viewport=sup.VIEWPORT, device_scale_factor=1, locale="en-US",
                              color_scheme="light", timezone_id="UTC")
    ctx.set_default_timeout(30_000)
    ctx.add_init_script(sup.RUN_COUNTER_JS)
    return ctx


def watch(page, recorder: Recorder) -> None:
    page.on("request", lambda request: recorder.requests.append(request.url))
    page.on("pageerror", lambda error: recorder.page_errors.append(str(error)))
    page.on("console", lambda msg: recorder.console_errors.append(msg.text) if msg.type == "error" else None)


@pytest.fixture(scope="session")
def shared_context(browser):
    """One browser profile for most tests: its HTTP cache spares reloading Streamlit's scripts each time.

    Each test gets its own tab, and each tab its own Streamlit session (no shared widget state).
    """
    ctx = new_context(browser)
    yield ctx
    ctx.close()


@pytest.fixture
def page(shared_context, recorder):
    tab = shared_context.new_page()
    watch(tab, recorder)
    yield tab
    tab.close()


@pytest.fixture
def fresh_page(browser, recorder):
    """A tab in a new, empty profile (no cache, no storage): what a student's browser sees first."""
    ctx = new_context(browser)
    ctx.on("page", lambda tab: watch(tab, recorder))
    yield ctx.new_page()
    ctx.close()


@pytest.fixture(scope="session")
def pages() -> dict[str, sup.AppPage]:
    return sup.registered_pages()


@pytest.fixture
def app_page(pages):
    """Look up one expected page: skip if its file is absent, fail if app.py does not register it."""

    def lookup(stem: str) -> sup.AppPage:
        if not sup.page_file(stem).exists():
            pytest.skip(f"page not present: views/{stem}.py")
        if stem not in pages:
            pytest.fail(f"views/{stem}.py exists but app.py does not register it with st.Page")
        return pages[stem]

    return lookup
