"""Measure Step and Back in a real browser: click to the new step fully drawn, at V = 12, depth 5 (a tree: depth 3).

Starts `streamlit run app.py` on a free local port, opens the Playground in headless Chromium
at 1280x800 (normal and presenter mode; fixed, Markov, and draft trees of width 2 and 3 at depth 3,
whose steps draw the tree node by node), and times each Step and Back until the caption names
the new step, the script run has finished, no element is stale and every chart has drawn.

Each press is timed in the page, from its input event (the click's pointerdown, the clicker's keydown) to the
first animation frame that shows the new step drawn: what the room sees. Steps come --pause seconds apart, a
lecturer's pace at its quickest (0: each click lands while the browser may still be finishing the last step's
work). Step is clicked, then pressed as a clicker does (PageDown); Back is clicked. The "Playwright" column is
the same click timed from the test driver's call, its actionability checks (the button scrolled to and still for
two frames) included. The baseline, measured in the same run, is a rerun of the same animation fragment that
changes nothing on screen (the Play-speed box toggled while paused): Streamlit's own round trip, so
Step / baseline is what drawing the new step costs on top.

Usage: .venv/bin/python scripts/measure_playground_browser.py [--clicks 30] [--modes fixed,markov,tree,tree3]
       [--pause 0.5] [--chromium /usr/bin/chromium]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from specviz.playground import presets, share  # noqa: E402
from specviz.scenario import Scenario, Table  # noqa: E402

VOCAB = tuple(f"w{i}" for i in range(12))
DONE = """(step) => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (document.querySelector('[data-stale="true"]')) return false;
  const charts = [...document.querySelectorAll('[data-testid="stPlotlyChart"]')];
  if (!charts.length || !charts.every(c => c.querySelector('.main-svg'))) return false;
  const strip = document.querySelector('.specviz-draw');
  if (strip && !strip.querySelector('svg')) return false;
  return [...document.querySelectorAll('[data-testid="stCaptionContainer"]')]
    .some(c => c.innerText.startsWith('Step ' + step + ' ·'));
}"""
IDLE = """(before) => {
  const app = document.querySelector('[data-testid="stApp"]');
  return (window.__runs || 0) > before && app && app.getAttribute('data-test-script-state') === 'notRunning'
    && !document.querySelector('[data-stale="true"]');
}"""
# counts finished script runs (the app root's script state goes running -> notRunning once per run), and notes
# the time of the first input event after window.__pressed is reset (capture on window: before the clicker
# script's own listener, which stops the keys it takes)
RUN_COUNTER = """(() => { window.__runs = 0; window.__pressed = null;
for (const kind of ['pointerdown', 'keydown']) window.addEventListener(kind, () => {
  if (window.__pressed === null) window.__pressed = performance.now(); }, true);
new MutationObserver((ms) => { for (const m of ms) {
  if (m.target.getAttribute('data-test-script-state') === 'notRunning' && m.oldValue !== 'notRunning') window.__runs++;
}}).observe(document, {subtree: true, attributes: true, attributeOldValue: true,
                      attributeFilter: ['data-test-script-state']}); })();"""


MODES = ("fixed", "markov", "tree", "tree3")
TREES = {"tree": "multi:2", "tree3": "multi:3"}  # width 2 and width 3 (39 nodes), both at depth 3


def scenario(mode: str) -> Scenario:
    base = Scenario(vocab=VOCAB, target=Table((1,) * 12), draft=Table((1,) * 12), depth=5, seed=3)
    played = presets.apply_preset(base, "far apart", mode == "markov")
    return played.with_changes(verification=TREES[mode], depth=3) if mode in TREES else played


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve(port: int) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
           "--server.address", "127.0.0.1", "--server.port", str(port), "--server.fileWatcherType", "none"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(240):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                return proc
        except OSError:
            time.sleep(0.25)
    proc.terminate()
    raise RuntimeError("streamlit did not start")


def timed(page, action, condition: str, arg=None, timeout: float = 60_000, pause: float = 0.0) -> tuple[float, float]:
    """(seconds in the page from the input event to the frame that shows it done, seconds the driver waited)."""
    page.wait_for_timeout(pause * 1000)
    page.evaluate("window.__pressed = null")
    began = time.perf_counter()
    action()
    # the frame the condition first holds in is the frame painted next: its time is the end
    page.wait_for_function(f"(arg) => {{ const done = ({condition})(arg); if (done) window.__drawn = performance.now();"
                           " return done; }", arg=arg, timeout=timeout, polling="raf")
    waited = time.perf_counter() - began
    pressed, drawn = page.evaluate("[window.__pressed, window.__drawn]")
    return (drawn - pressed) / 1000 if pressed is not None else float("nan"), waited


def measure(page, url: str, clicks: int, pause: float) -> dict[str, list[float]]:
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_function(DONE, arg=1, timeout=120_000)
    step = page.locator(".st-key-pg_forward button:visible").first
    back = page.locator(".st-key-pg_back button:visible").first
    out: dict[str, list[float]] = {"step": [], "playwright": [], "key": [], "back": [], "baseline": []}
    for k in range(clicks):
        in_page, waited = timed(page, step.click, DONE, k + 2, pause=pause)
        out["step"].append(in_page)
        out["playwright"].append(waited)
    for k in range(clicks):
        out["key"].append(timed(page, lambda: page.keyboard.press("PageDown"), DONE, clicks + k + 2, pause=pause)[0])
    for k in range(2 * clicks):
        out["back"].append(timed(page, back.click, DONE, 2 * clicks - k, pause=pause)[0])
    speed = page.locator(".st-key-pg_speed")
    for k in range(clicks):
        speed.click()
        option = page.get_by_role("option", name="fast" if k % 2 == 0 else "normal", exact=True)
        try:
            out["baseline"].append(timed(page, option.click, IDLE, page.evaluate("window.__runs || 0"), 15_000,
                                         pause=pause)[0])
        except Exception:  # noqa: BLE001 - a click that did not reach the box: no sample
            page.keyboard.press("Escape")
        page.wait_for_function(DONE, arg=1, timeout=60_000)
    return out


PLAY_WATCH = """() => { window.__steps = []; let last = '';
  new MutationObserver(() => {
    const c = [...document.querySelectorAll('[data-testid="stCaptionContainer"]')].map(e => e.innerText)
      .find(t => t.startsWith('Step '));
    if (c && c !== last) { last = c; window.__steps.push(performance.now()); }
  }).observe(document.body, {subtree: true, childList: true, characterData: true}); }"""


def play_intervals(page, url: str, steps: int) -> list[float]:
    """Seconds between successive steps while Play runs at 'normal' speed (one event a second)."""
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_function(DONE, arg=1, timeout=120_000)
    page.evaluate(PLAY_WATCH)
    page.locator(".st-key-pg_play button:visible").first.click()
    page.wait_for_function(f"() => window.__steps.length > {steps}", timeout=120_000, polling=200)
    page.locator(".st-key-pg_play button:visible").first.click()
    times = page.evaluate("window.__steps")
    return [(b - a) / 1000 for a, b in zip(times[1:], times[2:])]  # from the first tick on


def samples(values: list[float]) -> list[float]:
    """Sorted, without the presses the page did not see (NaN: no sample)."""
    return sorted(v for v in values if v == v)


def median(values: list[float]) -> float:
    return statistics.median(samples(values))


def summary(values: list[float]) -> str:
    values = samples(values)
    p90 = values[min(len(values) - 1, int(0.9 * len(values)))]
    return f"median {statistics.median(values) * 1000:.0f} ms (p90 {p90 * 1000:.0f}, max {values[-1] * 1000:.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clicks", type=int, default=30)
    parser.add_argument("--modes", default=",".join(MODES),
                        help=f"comma-separated, of {', '.join(MODES)} (tree: {TREES['tree']}, tree3: {TREES['tree3']}, "
                             "at depth 3)")
    parser.add_argument("--pause", type=float, default=0.5,
                        help="seconds between presses (default 0.5: a quick lecturer; 0: back to back)")
    parser.add_argument("--chromium", default=os.environ.get("SPECVIZ_E2E_CHROMIUM", "/usr/bin/chromium"))
    args = parser.parse_args()
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    unknown = [m for m in modes if m not in MODES]
    if unknown or not modes:
        parser.error(f"--modes: {', '.join(unknown) or '(none)'} not among {', '.join(MODES)}")
    from playwright.sync_api import sync_playwright

    port = free_port()
    proc = serve(port)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=args.chromium, headless=True,
                                                 args=["--no-sandbox", "--disable-gpu"])
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            context.add_init_script(RUN_COUNTER)
            page = context.new_page()
            print(f"Playground in Chromium 1280x800, V = 12, depth 5 (trees: depth 3), "
                  f"{args.clicks} presses each, {args.pause:g} s apart; from the input event to the step drawn")
            print("| mode | Step (click) | Step (PageDown) | Back (click) | baseline (same rerun, nothing changes) "
                  "| Step / baseline | Step as Playwright waits |")
            print("|---|---|---|---|---|---|---|")
            for mode in modes:
                for presenter in (False, True):
                    query = share.scenario_to_query(scenario(mode), 0) | ({"presenter": "1"} if presenter else {})
                    url = f"http://127.0.0.1:{port}/playground?{urllib.parse.urlencode(query)}"
                    times = measure(page, url, args.clicks, args.pause)
                    ratio = median(times["step"]) / median(times["baseline"])
                    name = ({"fixed": "fixed", "markov": "Markov"}.get(mode) or f"tree {TREES[mode]}, depth 3") + (
                        ", presenter" if presenter else "")
                    print(f"| {name} | {summary(times['step'])} | {summary(times['key'])} | {summary(times['back'])} | "
                          f"{summary(times['baseline'])} | {ratio:.2f}x | {summary(times['playwright'])} |",
                          flush=True)
            gaps = play_intervals(page, f"http://127.0.0.1:{port}/playground?"
                                  + urllib.parse.urlencode(share.scenario_to_query(scenario(modes[0]), 0)), 12)
            print(f"Play at 'normal' (1 s): {len(gaps)} intervals, median {statistics.median(gaps):.2f} s, "
                  f"min {min(gaps):.2f} s, max {max(gaps):.2f} s")
            browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
