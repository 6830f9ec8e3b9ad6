"""What a first visit downloads: Debian's Chromium opens the page once and every HTTP response is counted.

`chromium_visit` gives the files and their bytes as sent (compressed or not) and as decoded, so `make run`
(Streamlit sends its bundle uncompressed) and `make serve` (nginx sends it precompressed) compare directly; the
benchmark's simulated students then fetch the same list. Without Chromium or Playwright, `index_files` lists what
the page's HTML names (a lower bound: the bundle's lazily loaded parts are missing), and says so.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

CHROMIUM = Path(os.environ.get("SPECVIZ_E2E_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic",
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1"]
STEP_CAPTION = "text=/^Step 1 · round 0/"
LAZY_PARTS_S = 2.0  # after the page has drawn, a moment for the chunks it loads late


@dataclass
class FirstVisit:
    """The files of one first visit: paths, bytes as sent, bytes decoded; `how` says how they were found."""

    how: str
    paths: list[str] = field(default_factory=list)
    wire_bytes: int = 0
    decoded_bytes: int = 0
    encoded_files: int = 0  # answers that came compressed (Content-Encoding)

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
            tab.goto(f"{base_url}/{page}", wait_until="domcontentloaded", timeout=timeout_s * 1000)
            tab.wait_for_selector(STEP_CAPTION, timeout=timeout_s * 1000)
            tab.wait_for_timeout(LAZY_PARTS_S * 1000)
            visit = FirstVisit(how="Chromium")
            for request in finished:
                _count(visit, request, base_url)
        finally:
            browser.close()
    return visit


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
