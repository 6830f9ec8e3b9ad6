"""Helpers of the end-to-end tests: the app's pages, waiting for Streamlit runs, checks, screenshots.

Kept out of conftest.py so the tests can import them (``import e2e_support``): pytest puts
this folder on sys.path because it has a conftest.py and no __init__.py.
"""

from __future__ import annotations

import ast
import os
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

# the checkout whose app.py is served (another one with SPECVIZ_E2E_ROOT, e.g. to try a branch)
ROOT = Path(os.environ.get("SPECVIZ_E2E_ROOT") or Path(__file__).resolve().parents[2]).resolve()
APP = ROOT / "app.py"
ASSETS = ROOT / "assets"
SCRATCH = ASSETS / "_e2e_tmp"  # git-ignored: full-page captures and logs for a human to look at
# Debian's Chromium (apt-get install chromium), launched by path; never a browser Playwright downloads
CHROMIUM = Path(os.environ.get("SPECVIZ_E2E_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    # belt and braces for the offline check: every name but the app's own fails to resolve,
    # so a stray fetch fails fast (and still shows up in the recorded requests)
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
]
VIEWPORT = {"width": 1280, "height": 800}  # a projector
LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]", "::1"}

# The pages the issue asks for, by file stem; a missing file skips its tests ("page not present").
EXPECTED_PAGES = ("home", "playground", "real_models", "exactness_lab", "theory", "edge_cases")

RUN_DONE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
EXCEPTION = '[data-testid="stException"]'

# Counts finished script runs (full and fragment reruns): the app root's data-test-script-state
# attribute goes running -> notRunning once per run.
RUN_COUNTER_JS = """
(() => {
  window.__specvizRuns = 0;
  const observer = new MutationObserver((mutations) => {
    for (const m of mutations) {
      const now = m.target.getAttribute('data-test-script-state');
      if (now === 'notRunning' && m.oldValue !== 'notRunning') window.__specvizRuns += 1;
    }
  });
  observer.observe(document, {subtree: true, attributes: true, attributeOldValue: true,
                              attributeFilter: ['data-test-script-state']});
})();
"""


@dataclass(frozen=True)
class AppPage:
    stem: str  # file stem: views/<stem>.py
    title: str
    url_path: str  # "" for the default page
    path: str = ""  # as app.py names it, relative to app.py

    def url(self, base: str) -> str:
        return f"{base}/{self.url_path}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _const(node: ast.AST | None) -> object:
    return node.value if isinstance(node, ast.Constant) else None


def registered_pages(app: Path = APP) -> dict[str, AppPage]:
    """The pages app.py registers with st.Page("views/<stem>.py", title=..., url_path=..., default=...)."""
    pages: dict[str, AppPage] = {}
    for node in ast.walk(ast.parse(app.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "Page"):
            continue
        target = _const(node.args[0]) if node.args else None
        kwargs = {k.arg: _const(k.value) for k in node.keywords}
        target = target if target is not None else kwargs.get("page")
        if not isinstance(target, str) or not target.endswith(".py"):
            continue
        stem = Path(target).stem
        title = kwargs.get("title") or stem.replace("_", " ")
        url_path = "" if kwargs.get("default") else (kwargs.get("url_path") or stem).strip("/")
        pages[stem] = AppPage(stem, str(title), str(url_path), target)
    return pages


def page_file(stem: str) -> Path:
    """The page's file: where app.py says it is, else views/<stem>.py (which may not exist yet)."""
    registered = registered_pages().get(stem)
    if registered is not None:
        return (APP.parent / registered.path).resolve()
    return ROOT / "views" / f"{stem}.py"


def runs(page) -> int:
    return page.evaluate("window.__specvizRuns || 0")


def wait_for_app(page, timeout: float = 30_000) -> None:
    """Wait until Streamlit is connected, not running, and shows no stale (greyed-out) element."""
    page.wait_for_selector('[data-testid="stApp"][data-test-connection-state="CONNECTED"]', timeout=timeout)
    page.wait_for_selector(RUN_DONE, timeout=timeout)
    page.wait_for_function(
        "() => !document.querySelector('[data-stale=\"true\"]') && !document.querySelector("
        "'[data-testid=\"stSkeleton\"], [data-testid=\"stAppSkeleton\"]')",
        timeout=timeout,
    )


def wait_for_rerun(page, before: int, timeout: float = 30_000, counter_wait: float = 8_000) -> None:
    """After an interaction: wait for at least one more finished run than ``before``, then settle.

    A fast rerun can finish without the counter seeing the root's state flip (seen with tab
    switches and fragment reruns); after counter_wait ms without it, settling on an idle, fresh
    app is the sign instead, and the caller's own assertions check what the rerun did.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(f"() => (window.__specvizRuns || 0) > {before}", timeout=min(timeout, counter_wait))
    except PlaywrightTimeout:
        pass
    wait_for_app(page, timeout)


def open_page(page, url: str, timeout: float = 60_000) -> None:
    page.goto(url, wait_until="domcontentloaded", timeout=timeout)
    wait_for_app(page, timeout)
    # the first run of a page: wait until at least one element of the main area has rendered
    page.wait_for_selector('[data-testid="stMain"] [data-testid="stElementContainer"]', timeout=timeout)
    wait_for_charts(page, timeout)
    if page.locator(".stBidiComponent").count():  # the Playground's step player: its round drawn
        wait_for_player(page, timeout)


def wait_for_charts(page, timeout: float = 30_000) -> None:
    """Every Plotly chart on the page has drawn its SVG."""
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=\"stPlotlyChart\"]')]"
        ".every(c => c.querySelector('.main-svg'))",
        timeout=timeout,
    )


def exceptions(page) -> list[str]:
    """The text of every exception box (st.exception / an uncaught error) on the page."""
    return [e.inner_text()[:2000] for e in page.locator(EXCEPTION).all()]


def main_text(page) -> str:
    return page.locator('[data-testid="stMain"]').inner_text()


def query_of(url: str) -> dict[str, str]:
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query, keep_blank_values=True))


def is_local_url(url: str) -> bool:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme in ("data", "blob", "about", "chrome-error", "javascript"):
        return True
    return (parts.hostname or "") in LOCAL_HOSTS


def screenshot(page, name: str) -> Path:
    """assets/screenshot-<name>.png at the viewport size (1280x800); SPECVIZ_E2E_FULL_PAGE=1 adds a full page."""
    ASSETS.mkdir(exist_ok=True)
    SCRATCH.mkdir(exist_ok=True)
    page.mouse.move(0, 0)  # no hover tooltip in the picture
    wait_for_charts(page)
    page.wait_for_timeout(400)  # Plotly's and Streamlit's short transitions
    path = ASSETS / f"screenshot-{name}.png"
    page.screenshot(path=str(path), animations="disabled", scale="css")
    if os.environ.get("SPECVIZ_E2E_FULL_PAGE"):  # for reviewing what lies below the fold
        full_page_capture(page, name)
    return path


def full_page_capture(page, name: str) -> None:
    """SCRATCH/full-<name>.png: the whole page at 1280 wide."""
    # Streamlit scrolls inside its main area, not the document: grow the window to see it all
    height = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('[data-testid=\"stMain\"], "
        "[data-testid=\"stAppViewContainer\"], [data-testid=\"stSidebarContent\"]')].map(e => e.scrollHeight))"
    )
    if height > VIEWPORT["height"]:
        page.set_viewport_size({"width": VIEWPORT["width"], "height": min(int(height) + 40, 12_000)})
        page.wait_for_timeout(600)  # charts re-layout
    page.screenshot(path=str(SCRATCH / f"full-{name}.png"), animations="disabled", scale="css")
    page.set_viewport_size(VIEWPORT)


def offline_env(netlog: Path) -> dict[str, str]:
    """The environment of a server with no network: the audit hook on, the Hub flags as `make run` has them."""
    env = os.environ.copy()
    # tests/conftest.py sets these for the unit tests; `make run` does not, so neither do we:
    # the app itself must not need them to stay off the network
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        env.pop(name, None)
    hook = Path(__file__).resolve().parent / "offline"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(hook), env.get("PYTHONPATH", "")]))
    env["SPECVIZ_E2E_NETLOG"] = str(netlog)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def wait_healthy(url: str, proc: subprocess.Popen, log: Path, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with {proc.returncode}:\n{log.read_text(errors='replace')[-4000:]}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.25)
    raise RuntimeError(f"streamlit not healthy after {timeout:.0f} s:\n{log.read_text(errors='replace')[-4000:]}")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@dataclass(frozen=True)
class AppServer:
    url: str
    log: Path
    netlog: Path

    def network_attempts(self) -> list[str]:
        return self.netlog.read_text().splitlines() if self.netlog.exists() else []

    def log_tail(self, chars: int = 3000) -> str:
        return self.log.read_text(errors="replace")[-chars:] if self.log.exists() else ""


@contextmanager
def serve(folder: Path) -> Iterator[AppServer]:
    """`streamlit run app.py` on a free port of 127.0.0.1 with no network; logs in `folder`; stopped after."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log, netlog = folder / "streamlit.log", folder / "network.log"
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
           "--server.address", "127.0.0.1", "--server.port", str(port), "--server.fileWatcherType", "none"]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=offline_env(netlog), stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_healthy(url, proc, log)
        yield AppServer(url, log, netlog)
    finally:
        stop(proc)


# --- the step player (specviz/player/browser): a custom component in a shadow root -------------------------------
# Playwright's CSS locators pierce open shadow roots, so '.specviz-player .caption' finds the player's label; a
# page script reaches the mounted player as window.__specvizPlayer (player.js sets it for tests and benchmarks).
PLAYER = ".specviz-player"
PLAYER_CAPTION_JS = ("() => { const p = window.__specvizPlayer;"
                     " return p && p.root.isConnected ? p.root.querySelector('.caption').textContent : ''; }")
PLAYER_IDLE_JS = ("() => { const p = window.__specvizPlayer; return !!p && p.root.isConnected && !p.waiting"
                  " && p.root.getAttribute('data-state') === 'ready' && !p.motion.running; }")


def wait_for_player(page, timeout: float = 30_000) -> None:
    """The player mounted, its round drawn, no request to the server pending and no motion running."""
    page.wait_for_function(PLAYER_IDLE_JS, timeout=timeout)
    if page.locator('[data-testid="stApp"]').count():  # the Playground (the exported deck has no Streamlit)
        wait_for_app(page, timeout)


def player_caption(page) -> str:
    return page.evaluate(PLAYER_CAPTION_JS)


def player_text(page) -> str:
    """Everything the player shows in words (its label, headline, narration, chips, tables, notice)."""
    return page.locator(PLAYER).first.inner_text()


def player_button(page, name: str):
    """One of the player's buttons by its class: step, back, play, reset, next-round, new-seed, lecture-end, ..."""
    return page.locator(f"{PLAYER} button.{name}").first


def press_player(page, key: str, timeout: float = 30_000) -> None:
    """A key where the focus is; then the player's label changed (or a notice said why not), and all settled."""
    before = player_caption(page)
    page.keyboard.press(key)
    page.wait_for_function(f"(before) => ({PLAYER_CAPTION_JS})() !== before || (window.__specvizPlayer"
                           " && !window.__specvizPlayer.root.querySelector('.notice').hidden)", arg=before,
                           timeout=timeout)
    wait_for_player(page, timeout)
