"""The lecturer's Step in Chromium: from the key to the next step shown, the websocket's frames, the motion's frames.

Starts `streamlit run app.py` (this checkout, or --root another one, e.g. the code before the step player) on a
free local port, opens the Playground in headless Chromium at 1280x800 on a link of each mode (normal and presenter
mode), and presses PageDown as a clicker does, --pause seconds apart, through every event kind of the mode's rounds.
Each press is timed in the page: from its keydown event to the first animation frame that shows the next step's
label (the step player's, or the Streamlit caption of the code before it). Around each press it counts the
websocket's frames (Chrome's protocol, both ways), and while the step's motion runs it counts animation frames
(frames per second). The baseline, measured in the same run, is a key that changes nothing (Shift): from its
keydown to the next animation frame, what the page costs before any step is drawn.

Printed: per mode, the press-to-shown p50 and p95 over the presses inside a round, the worst event kind's p95, the
frames a Step sends or receives inside a round, the presses that needed a new round (p50), the motion's frames per
second (p50, and the slowest transition), the baseline, and a table per event kind. No assertion: figures.

    .venv/bin/python bench/player_step.py --modes tree3,fixed --presses 40
    .venv/bin/python bench/player_step.py --root /tmp/before --label before   # the code before the player
"""

from __future__ import annotations

import argparse
import json
import os
import re
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
CHROMIUM = os.environ.get("SPECVIZ_E2E_CHROMIUM", "/usr/bin/chromium")
LABEL = re.compile(r"Step (\d+) · round (\d+) · event (\d+) of (\d+) · (.+)")
MODES = {  # name: (verification, depth, preset)
    "fixed": ("token", 5, "far apart"), "markov": ("token", 5, "far apart"),
    "tree": ("multi:2", 3, "far apart"), "tree3": ("multi:3", 3, "far apart"),
    "block": ("block", 4, "far apart"), "ensemble": ("ensemble:0.5", 4, "far apart"),
    "sglang": ("threshold:0.5,0.8,2", 3, "far apart"), "medusa": ("typical:0.09", 4, "far apart"),
    "traversal3": ("traversal:3", 3, "far apart"),  # the code before the player refused it: after only
}

# in the page: the label now (the player's, or the Streamlit caption before it), and the timing of one press
PAGE_JS = """
window.__bench = {
  label() {
    const p = window.__specvizPlayer;
    if (p && p.root.isConnected) return p.root.querySelector('.caption').textContent;
    const c = [...document.querySelectorAll('[data-testid="stCaptionContainer"]')]
      .map(e => e.innerText).find(t => /^Step \\d+ ·/.test(t));
    return c || '';
  },
  idle() {
    const app = document.querySelector('[data-testid="stApp"]');
    const p = window.__specvizPlayer;
    return !!app && app.getAttribute('data-test-script-state') === 'notRunning'
      && !document.querySelector('[data-stale="true"]') && (!p || (!p.waiting && !p.motion.running));
  },
  arm(expect) {
    // the next keydown (a real one: Playwright's, through Chrome's input) -> the first animation frame whose label
    // starts with `expect` (null: the next frame); then the frames drawn while the motion runs
    this.result = new Promise((resolve) => {
      window.addEventListener('keydown', (event) => {
        const pressed = event.timeStamp;  // when the browser received the key
        this.watch(pressed, expect).then(resolve);
      }, {capture: true, once: true});
    });
  },
  async watch(pressed, expect) {
    const limit = performance.now() + 20000;
    let shown = null;
    while (performance.now() < limit) {
      await new Promise(r => requestAnimationFrame(r));
      if (expect === null || this.label().startsWith(expect)) { shown = performance.now(); break; }
    }
    const p = window.__specvizPlayer;
    let frames = 0, motionEnd = shown;
    if (p && p.root.isConnected && shown !== null) {
      while (p.motion.running && performance.now() < limit) {
        await new Promise(r => requestAnimationFrame(r));
        frames += 1;
        motionEnd = performance.now();
      }
    }
    return {ms: shown === null ? null : shown - pressed, frames, motion_ms: motionEnd - shown};
  },
};
"""


def scenario(mode: str) -> Scenario:
    verification, depth, preset = MODES[mode]
    base = Scenario(vocab=VOCAB, target=Table((1,) * 12), draft=Table((1,) * 12), depth=depth, seed=3)
    played = presets.apply_preset(base, preset, mode == "markov")
    return played.with_changes(verification=verification, depth=depth)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(root: Path, port: int) -> subprocess.Popen:
    python = root / ".venv" / "bin" / "python"
    log = open(Path(os.environ.get("TMPDIR", "/tmp")) / f"player-step-{port}.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen([str(python if python.exists() else sys.executable), "-m", "streamlit", "run", "app.py",
                             "--server.headless", "true", "--server.address", "127.0.0.1", "--server.port",
                             str(port), "--server.fileWatcherType", "none"], cwd=root, stdout=log,
                            stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                return proc
        except OSError:
            time.sleep(0.3)
    proc.terminate()
    raise RuntimeError(f"the app at {root} did not start")


def link(base: str, mode: str, presenter: bool, legacy: bool) -> str:
    query = share.scenario_to_query(scenario(mode), 0)
    if legacy:  # the code before the player read step= (from 0)
        query = {k: v for k, v in query.items() if k != share.STEP_KEY} | {"step": "0"}
    return f"{base}/playground?{urllib.parse.urlencode(query | ({'presenter': '1'} if presenter else {}))}"


def wait_idle(page, timeout: float = 60_000) -> None:
    page.wait_for_function("() => window.__bench && window.__bench.idle() && window.__bench.label() !== ''",
                           timeout=timeout)


def measure(page, frames: dict, presses: int, pause: float) -> list[dict]:
    """PageDown `presses` times: each press's time to the next label, its websocket frames, its motion."""
    rows = []
    page.evaluate("() => document.activeElement && document.activeElement.blur()")  # no control has the focus
    for _ in range(presses):
        before = LABEL.search(page.evaluate("window.__bench.label()"))
        expect = f"Step {int(before[1]) + 1} ·"
        frames["n"] = 0
        got = press(page, "PageDown", expect)
        page.wait_for_timeout(250)  # frames a step sends come within this (a rerun's deltas) ...
        sent = frames["n"]
        wait_idle(page)
        after = LABEL.search(page.evaluate("window.__bench.label()"))
        rows.append({"ms": got["ms"], "frames": sent, "motion_frames": got["frames"], "motion_ms": got["motion_ms"],
                     "kind": after[5].strip() if after else "?", "new_round": bool(after and after[2] != before[2])})
        page.wait_for_timeout(int(pause * 1000))
    return rows


def press(page, key: str, expect: str | None) -> dict:
    """A real key press (through Chrome's input), timed in the page from the key's event to the label shown."""
    page.evaluate("(e) => window.__bench.arm(e)", expect)
    page.keyboard.press(key)
    return page.evaluate("() => window.__bench.result")


def baseline(page, count: int = 15) -> list[float]:
    rows = []
    for _ in range(count):
        rows.append(press(page, "Shift", None)["ms"])
        page.wait_for_timeout(100)
    return rows


def pct(values: list[float], q: float) -> float | None:
    values = sorted(v for v in values if v is not None)
    if not values:
        return None
    k = (len(values) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def summarize(rows: list[dict], base: list[float]) -> dict:
    inside = [r for r in rows if not r["new_round"] and r["ms"] is not None]
    kinds: dict[str, list[float]] = {}
    for r in inside:
        kinds.setdefault(r["kind"], []).append(r["ms"])
    fps = [1000 * r["motion_frames"] / r["motion_ms"] for r in inside if r["motion_frames"] >= 3 and r["motion_ms"]]
    worst = max(kinds.items(), key=lambda kv: pct(kv[1], 0.95) or 0, default=("-", []))
    return {"presses": len(rows), "inside": len(inside), "p50": pct([r["ms"] for r in inside], 0.5),
            "p95": pct([r["ms"] for r in inside], 0.95), "worst_kind": worst[0], "worst_p95": pct(worst[1], 0.95),
            "frames_per_step": statistics.mean([r["frames"] for r in inside]) if inside else None,
            "new_rounds": [r["ms"] for r in rows if r["new_round"]], "fps_p50": pct(fps, 0.5),
            "fps_min": min(fps) if fps else None, "baseline_p50": pct(base, 0.5),
            "kinds": {k: {"n": len(v), "p50": pct(v, 0.5), "p95": pct(v, 0.95)} for k, v in kinds.items()}}


def fmt(x: float | None, digits: int = 0) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def run(args: argparse.Namespace) -> dict:
    from playwright.sync_api import sync_playwright

    root = Path(args.root).resolve()
    port = free_port()
    server = start_server(root, port)
    results: dict = {"label": args.label, "root": str(root), "load_at_start": os.getloadavg(), "modes": {}}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         args=["--no-sandbox", "--disable-gpu"])
            for mode in args.modes:
                for presenter in (False, True):
                    context = browser.new_context(viewport={"width": 1280, "height": 800}, device_scale_factor=1)
                    context.add_init_script(PAGE_JS)
                    page = context.new_page()
                    frames = {"n": 0}
                    cdp = context.new_cdp_session(page)
                    cdp.send("Network.enable")
                    for event in ("Network.webSocketFrameSent", "Network.webSocketFrameReceived"):
                        cdp.on(event, lambda _e, seen=frames: seen.__setitem__("n", seen["n"] + 1))
                    legacy = False
                    page.goto(link(f"http://127.0.0.1:{port}", mode, presenter, False), timeout=120_000)
                    wait_idle(page, 120_000)
                    if not page.evaluate("!!window.__specvizPlayer"):  # the code before the player: step= from 0
                        legacy = True
                        page.goto(link(f"http://127.0.0.1:{port}", mode, presenter, True), timeout=120_000)
                        wait_idle(page, 120_000)
                    measure(page, frames, 3, args.pause)  # warm-up: caches, JIT, fonts
                    base = baseline(page)
                    rows = measure(page, frames, args.presses, args.pause)
                    name = mode + (", presenter" if presenter else "")
                    results["modes"][name] = {"legacy": legacy, **summarize(rows, base), "rows": rows}
                    s = results["modes"][name]
                    print(f"  {name}: p50 {fmt(s['p50'])} p95 {fmt(s['p95'])} ms (worst {s['worst_kind']}: "
                          f"{fmt(s['worst_p95'])}), {fmt(s['frames_per_step'], 1)} frames a Step, fps "
                          f"{fmt(s['fps_p50'])}, baseline {fmt(s['baseline_p50'])} ms", flush=True)
                    context.close()
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=20)
    results["load_at_end"] = os.getloadavg()
    return results


def print_tables(results: dict) -> None:
    label = results["label"]
    print(f"\n{label} ({results['root']}; load {results['load_at_start'][0]:.1f} at start, "
          f"{results['load_at_end'][0]:.1f} at end)")
    print("\n| mode | presses in a round | key → shown p50 (ms) | p95 (ms) | worst kind (p95 ms) "
          "| websocket frames a Step | new round p50 (ms) | motion fps p50 / slowest "
          "| baseline: a key that changes nothing (ms) | p50 / baseline |")
    print("|---|---:|---:|---:|---|---:|---:|---|---:|---:|")
    for name, s in results["modes"].items():
        ratio = s["p50"] / s["baseline_p50"] if s["p50"] and s["baseline_p50"] else None
        print(f"| {name} | {s['inside']} | {fmt(s['p50'])} | {fmt(s['p95'])} | {s['worst_kind']} "
              f"({fmt(s['worst_p95'])}) | {fmt(s['frames_per_step'], 1)} | {fmt(pct(s['new_rounds'], 0.5))} | "
              f"{fmt(s['fps_p50'])} / {fmt(s['fps_min'])} | {fmt(s['baseline_p50'], 1)} | {fmt(ratio, 1)}x |")
    print("\n| mode | event kind | presses | p50 (ms) | p95 (ms) |")
    print("|---|---|---:|---:|---:|")
    for name, s in results["modes"].items():
        for kind, k in sorted(s["kinds"].items()):
            print(f"| {name} | {kind} | {k['n']} | {fmt(k['p50'])} | {fmt(k['p95'])} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--modes", default="fixed,tree3", help=f"comma-separated: {', '.join(MODES)}")
    ap.add_argument("--presses", type=int, default=30, help="PageDown presses per mode (after 3 warm-ups)")
    ap.add_argument("--pause", type=float, default=0.6, help="seconds between presses (a lecturer's pace)")
    ap.add_argument("--root", default=str(ROOT), help="the checkout to serve (another one: the code before)")
    ap.add_argument("--label", default="this checkout", help="the run's name in the tables")
    ap.add_argument("--out", default=None, help="write every figure as JSON here")
    args = ap.parse_args(argv)
    args.modes = [m for m in args.modes.split(",") if m]
    unknown = [m for m in args.modes if m not in MODES]
    if unknown or not 1 <= args.presses <= 1000 or not 0 <= args.pause <= 10:
        ap.error(f"--modes takes {', '.join(MODES)}; --presses 1..1000; --pause 0..10 s")
    results = run(args)
    print_tables(results)
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
