"""What a first visit downloads: Debian's Chromium opens the page once and every HTTP response is counted, and
every websocket message the page receives until it has drawn.

`chromium_visit` gives the files and their bytes as sent (compressed or not) and as decoded, so `make run`
(Streamlit sends its bundle uncompressed) and `make serve` (nginx sends it precompressed) compare directly; the
benchmark's simulated students then fetch the same list. The websocket's messages are counted too: all of them,
and those that carry the step player (its module, HTML and CSS, and its feed's round), raw and as gzip would make
them (what a first visit adds for the player, whatever the transport compresses). Without Chromium or Playwright,
`index_files` lists what the page's HTML names (a lower bound: the bundle's lazily loaded parts are missing), and
says so.

    .venv/bin/python bench/first_visit.py [--root PATH]   # starts the app of this checkout (or another) and visits it
"""

from __future__ import annotations

import base64
import gzip
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

CHROMIUM = Path(os.environ.get("SPECVIZ_E2E_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic",
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1"]
STEP_CAPTION = "text=/^Step 1 · round [01] /"  # the step player's label (the code before it: a caption, round 0)
PLAYER_MARKS = (b"specviz.player",)  # a message that holds the player's component or its feed
LAZY_PARTS_S = 2.0  # after the page has drawn, a moment for the chunks it loads late


@dataclass
class FirstVisit:
    """The files of one first visit: paths, bytes as sent, bytes decoded; `how` says how they were found."""

    how: str
    paths: list[str] = field(default_factory=list)
    wire_bytes: int = 0
    decoded_bytes: int = 0
    encoded_files: int = 0  # answers that came compressed (Content-Encoding)
    ws_messages: int = 0  # the websocket's messages to the page, until it had drawn
    ws_bytes: int = 0
    ws_gzip_bytes: int = 0  # the same, each message gzipped (level 6)
    player_bytes: int = 0  # the messages that carry the step player (its code and its round)
    player_gzip_bytes: int = 0

    @property
    def files(self) -> int:
        return len(self.paths)


def chromium_available() -> str:
    """"" when Chromium and Playwright are there, else why not."""
    if not CHROMIUM.exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed"
    return ""


def chromium_visit(base_url: str, page: str = "playground", timeout_s: float = 120.0) -> FirstVisit:
    """Open base_url/page in a fresh headless Chromium (1280x800, empty cache) and count every HTTP answer."""
    from playwright.sync_api import sync_playwright

    finished = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            tab = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
            tab.on("requestfinished", lambda request: finished.append(request))
            messages: list[bytes] = []
            cdp = tab.context.new_cdp_session(tab)
            cdp.send("Network.enable")
            cdp.on("Network.webSocketFrameReceived", lambda event: messages.append(_payload(event["response"])))
            tab.goto(f"{base_url}/{page}", wait_until="domcontentloaded", timeout=timeout_s * 1000)
            tab.wait_for_selector(STEP_CAPTION, timeout=timeout_s * 1000)
            tab.wait_for_timeout(LAZY_PARTS_S * 1000)
            visit = FirstVisit(how="Chromium")
            for request in finished:
                _count(visit, request, base_url)
            for message in messages:
                _count_message(visit, message)
        finally:
            browser.close()
    return visit


def _payload(response: dict) -> bytes:
    """A websocket frame's bytes (Chrome gives a binary frame's payload in base64)."""
    data = response.get("payloadData", "")
    return base64.b64decode(data) if response.get("opcode") == 2 else data.encode()


def _count_message(visit: FirstVisit, message: bytes) -> None:
    packed = len(gzip.compress(message, compresslevel=6))
    visit.ws_messages += 1
    visit.ws_bytes += len(message)
    visit.ws_gzip_bytes += packed
    if any(mark in message for mark in PLAYER_MARKS):
        visit.player_bytes += len(message)
        visit.player_gzip_bytes += packed


def _count(visit: FirstVisit, request, base_url: str) -> None:
    url = urlsplit(request.url)
    if url.scheme not in ("http", "https") or not request.url.startswith(base_url):
        return
    response = request.response()
    if response is None:
        return
    sizes = request.sizes()
    visit.paths.append(url.path + (f"?{url.query}" if url.query else ""))
    visit.wire_bytes += sizes["responseBodySize"]
    try:
        visit.decoded_bytes += len(response.body())
    except Exception:  # noqa: BLE001 - a body Chromium no longer holds: count what came
        visit.decoded_bytes += sizes["responseBodySize"]
    if response.headers.get("content-encoding"):
        visit.encoded_files += 1


def index_files(html: str) -> FirstVisit:
    """The files the page's HTML itself names (script, modulepreload, stylesheet, preload): a lower bound."""
    found = re.findall(r'(?:src|href)="\./([^"]+\.(?:js|css|woff2|png|json))"', html)
    return FirstVisit(how="the page's HTML only (no Chromium): a lower bound",
                      paths=["/" + p for p in dict.fromkeys(found)])


def main(argv: list[str] | None = None) -> int:
    """Start `streamlit run app.py` (this checkout or --root), visit the Playground once, print what came."""
    import argparse
    import socket
    import subprocess
    import time
    import urllib.request

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[1]), help="the checkout to serve")
    args = ap.parse_args(argv)
    why_not = chromium_available()
    if why_not:
        print(f"first visit: {why_not}")
        return 2
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    root = Path(args.root)
    python = root / ".venv" / "bin" / "python"
    server = subprocess.Popen([str(python if python.exists() else sys.executable), "-m", "streamlit", "run",
                               "app.py", "--server.headless", "true", "--server.address", "127.0.0.1",
                               "--server.port", str(port), "--server.fileWatcherType", "none"], cwd=root,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2)
                break
            except OSError:
                time.sleep(0.3)
        chromium_visit(f"http://127.0.0.1:{port}")  # the server's first page builds caches: not counted
        visit = chromium_visit(f"http://127.0.0.1:{port}")
    finally:
        server.terminate()
        server.wait(timeout=20)
    print(f"| checkout | files | HTTP bytes sent | websocket messages | websocket bytes (gzip) "
          f"| of them the step player's (gzip) |\n|---|---:|---:|---:|---:|---:|\n"
          f"| {root} | {visit.files} | {visit.wire_bytes / 1e3:.0f} KB | {visit.ws_messages} | "
          f"{visit.ws_bytes / 1e3:.0f} KB ({visit.ws_gzip_bytes / 1e3:.0f} KB) | {visit.player_bytes / 1e3:.0f} KB "
          f"({visit.player_gzip_bytes / 1e3:.0f} KB) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
