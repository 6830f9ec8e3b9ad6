"""Lecture rooms have bad networks: the app and every page work with no network at all.

The servers run with their network cut off (offline/sitecustomize.py logs and refuses every
lookup or connect that is not loopback), and the browser's requests are recorded: none may
leave 127.0.0.1 / localhost (no telemetry, no web font, script or model from outside).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
import urllib.parse
import urllib.request

import e2e_support as sup
import pytest

pytestmark = pytest.mark.e2e


def outside(attempts: list[str]) -> list[str]:
    # a UDP "connect" sends nothing: Streamlit uses one to learn the LAN address (fails quietly offline)
    return [a for a in attempts if not a.startswith("probe ")]


def test_every_page_works_with_no_network_via_the_sidebar(app_server, pages, fresh_page, recorder):
    """A first-time browser (empty cache) walks the sidebar through every page; nothing leaves the machine."""
    page = fresh_page
    sup.open_page(page, app_server.url + "/")
    links = page.locator('[data-testid="stSidebarNav"] [data-testid="stSidebarNavLink"]')
    titles = [t.replace("\n", " ").strip() for t in links.all_inner_texts()]
    for entry in pages.values():
        assert any(entry.title in t for t in titles), f"the sidebar lacks {entry.title!r}: {titles}"
    for entry in pages.values():
        if not sup.page_file(entry.stem).exists():
            continue  # reported by test_e2e_pages
        if urllib.parse.urlsplit(page.url).path.strip("/") != entry.url_path:
            # clicking the page already shown starts no run, so only the others are clicked
            before = sup.runs(page)
            links.filter(has_text=entry.title).first.click()
            # generous: a page may load the bundled model when first opened (~17 s on a laptop CPU)
            sup.wait_for_rerun(page, before, timeout=180_000)
        path = urllib.parse.urlsplit(page.url).path.strip("/")
        assert path == entry.url_path, f"the sidebar's {entry.title!r} opened /{path}, not /{entry.url_path}"
        sup.wait_for_charts(page)
        boxes = sup.exceptions(page)
        assert not boxes, f"{entry.stem} offline: exception box:\n" + "\n---\n".join(boxes)
    assert not recorder.page_errors, f"uncaught errors in the browser: {recorder.page_errors}"
    foreign = sorted({u for u in recorder.requests if not sup.is_local_url(u)})
    assert not foreign, f"the browser fetched from outside: {foreign}"
    assert any(u.startswith(app_server.url) for u in recorder.requests), "no request reached the app at all"
    attempts = outside(app_server.network_attempts())
    assert not attempts, (f"the server tried to reach the network: {attempts}\nserver log:\n"
                          f"{app_server.log_tail()}")


def _make_run_command(port: int) -> tuple[list[str], str]:
    """`make run PORT=<port>` if .venv is installed; else the recipe's own streamlit line (no pip install)."""
    dry = subprocess.run(["make", "-n", "run", f"PORT={port}"], cwd=sup.ROOT, capture_output=True, text=True,
                         timeout=60)
    assert dry.returncode == 0, dry.stderr
    if subprocess.run(["make", "-q", "install"], cwd=sup.ROOT, capture_output=True, timeout=60).returncode == 0:
        return ["make", "run", f"PORT={port}"], dry.stdout
    lines = [line for line in dry.stdout.splitlines() if "streamlit run" in line]
    assert lines, f"`make -n run` has no `streamlit run` line:\n{dry.stdout}"
    return ["bash", "-c", lines[-1]], dry.stdout


def test_make_run_starts_offline_and_prints_the_url(tmp_path):
    """What a lecturer types: `make run` starts with no network, prints its URL, and Streamlit phones nobody."""
    port = sup.free_port()
    cmd, recipe = _make_run_command(port)
    url_text = f"http://localhost:{port}"
    assert url_text in recipe, f"`make run` does not print {url_text}:\n{recipe}"
    log, netlog = tmp_path / "make-run.log", tmp_path / "network.log"
    with open(log, "wb") as out:
        # its own process group, so that make and the streamlit it starts stop together
        proc = subprocess.Popen(cmd, cwd=sup.ROOT, env=sup.offline_env(netlog), stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        healthy = False
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as response:
                    healthy = response.status == 200
            except OSError:
                pass
            # Streamlit prints its banner after start-up's network checks (the External URL's lookup)
            if healthy and re.search(r"(URL|Unix Socket):", log.read_text(errors="replace")):
                break
            time.sleep(0.25)
        output = log.read_text(errors="replace")
        assert healthy, f"`{' '.join(cmd)}` did not become healthy:\n{output[-3000:]}"
        netlog_lines = netlog.read_text().splitlines() if netlog.exists() else []
        attempts = outside(netlog_lines)
        assert not attempts, (
            f"`make run` tries to reach the network at start-up: {attempts}\n"
            "(Streamlit looks up its External URL at checkip.amazonaws.com when headless and no address is "
            "set; `[browser] serverAddress = \"localhost\"` in .streamlit/config.toml turns that off)\n"
            f"output:\n{output[-2000:]}"
        )
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
