"""A round as one self-contained HTML deck: the step player itself, with the round's frames, in one file.

``deck_html(scenario, round_id)`` writes the player's HTML, CSS and ES module (``files``) and the round's frames
(``round_frames.payload``) into one page that needs no server and no network: opened from disk it plays with the
Playground's motion, keys (PageDown, Space, → and PageUp, ←) and labels; Play, Jump to and the speed work as there.
The frames travel as JSON in a ``<script type="application/json">`` element with every ``<`` written as ``\\u003c``,
so a label that is markup stays text; the module is inlined and called with them.

``drawings(html, steps)`` opens such a deck in Chromium (Playwright, every request refused but the file itself)
and returns each step's drawing as a standalone SVG file, drawn by the player: a step's SVG is the player's own
picture, not a second drawing of it.
"""

from __future__ import annotations

import html
import json
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ..core.verification import rule
from ..narration.counting import nth
from ..playground import jump
from ..plots import step_page, style
from ..scenario import Scenario
from . import browser_files, round_frames

CHROMIUM = Path("/usr/bin/chromium")  # Debian's Chromium (BROWSER_PATH names another)
DECK_CSS = f"""
body {{margin: 0; font-family: {style.FONT_FAMILY}; color: #000; background: #fff;}}
header {{padding: 0.8rem 2rem 0 2rem; color: #555; font-size: 1rem;}}
header b {{color: #000;}}
main {{padding: 0.4rem 2rem 2rem 2rem; max-width: 1280px; box-sizing: border-box;}}
"""
BOOT = """
// the deck's start: the round's frames (JSON, '<' written as \\u003c) given to the player, as the Playground does
const deckData = JSON.parse(document.getElementById("specviz-round").textContent);
mount({data: deckData, parentElement: document.querySelector("main"), setStateValue() {}, setTriggerValue() {}});
window.specvizDeck = {
  steps: deckData.round.frames.length,
  drawing(index) {  // a step's drawing as a standalone SVG file (used by `specviz export --format svg`)
    const player = window.__specvizPlayer;
    player.show(index, {animate: false});
    return player.standalone();
  },
};
"""


def data(scenario: Scenario, round_id: int, presenter: bool = True) -> dict[str, Any]:
    """The player's data for the deck: the round's frames, opened at its first step, with no server behind it."""
    payload = round_frames.payload(scenario, round_id, presenter)
    return {"schema": round_frames.SCHEMA, "token": "deck", "seq": 0, "step": payload["first"], "presenter": presenter,
            "playing": False, "notice": "", "bounds": None, "lecture": None, "link": None, "offline": True,
            "filename": step_page.filename(scenario, 0).rsplit("-", 1)[0],
            "targets": [{"key": t, "label": t.capitalize(), "help": jump.HELP[t]} for t in jump.TARGETS],
            "round": payload}


def _json_for_html(value: Any) -> str:
    """JSON safe inside a <script> element: no '<' at all, so no '</script>' a label could hold ends it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def deck_html(scenario: Scenario, round_id: int, presenter: bool = True) -> str:
    """The round as one self-contained HTML file: the step player, its module inlined, the round's frames."""
    module = browser_files.js()
    if "</script" in module.lower():  # would end the inline module early
        raise AssertionError("player.js holds '</script': it cannot be inlined")
    title = (f"specviz: round {nth(round_id)} under {rule(scenario.verification).label}, seed {scenario.seed}, "
             f"depth {scenario.depth}")
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>{html.escape(title)}</title><style>{DECK_CSS}{browser_files.css()}</style></head><body>"
            f"<header><b>{html.escape(title)}</b> · → PageDown or Space for the next step, ← or PageUp for the "
            "previous; Play, Jump to and the speed as in the Playground</header>"
            f"<main>{browser_files.html()}</main>"
            f"<script type='application/json' id='specviz-round'>{_json_for_html(data(scenario, round_id, presenter))}"
            f"</script><script type='module'>\n{module}\n{BOOT}</script></body></html>\n")


def browser_problem() -> str | None:
    """Why a step's SVG cannot be drawn here (None: it can): the player draws it in Chromium, through Playwright."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "SVG needs the Playwright package (pip install -r requirements.txt) to run the player in Chromium."
    browser = Path(os.environ.get("BROWSER_PATH") or CHROMIUM)
    if not browser.is_file():
        return (f"SVG is drawn by the step player in Chromium, and there is none at {browser} (apt-get install "
                "chromium, or set BROWSER_PATH to a Chrome or Chromium).")
    return None


def drawings(deck: str, steps: int) -> list[str]:
    """Each step's drawing of a deck, as the player draws it (Chromium, every request but the file refused).

    Playwright's sync API refuses to start in a thread whose asyncio loop runs (a notebook, or a process that
    already drives a browser, such as the test session after its end-to-end tests), so it runs in a thread of
    its own."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="specviz-deck") as pool:
        return pool.submit(_drawings, deck, steps).result()


def _drawings(deck: str, steps: int) -> list[str]:
    from playwright.sync_api import sync_playwright

    browser_path = Path(os.environ.get("BROWSER_PATH") or CHROMIUM)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "deck.html"
        path.write_text(deck, encoding="utf-8")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(browser_path), headless=True,
                                                 args=["--no-sandbox", "--disable-gpu"])
            try:
                page = browser.new_page(viewport={"width": 1280, "height": 800}, reduced_motion="reduce")
                page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
                           else route.abort())
                page.goto(path.as_uri())
                page.wait_for_function("() => window.specvizDeck && window.__specvizPlayer", timeout=30_000)
                return [page.evaluate("(i) => window.specvizDeck.drawing(i)", index) for index in range(steps)]
            finally:
                browser.close()
