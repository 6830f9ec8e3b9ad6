"""`make serve` for real: two Streamlit processes behind nginx. A session's page and websocket meet one process
and its Steps advance; new visitors spread over both; the bundle comes compressed and cacheable; one SIGINT stops
everything. Skipped, saying why, when nginx is not installed."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import psutil
import pytest

from bench.streamlit_tab import Tab, http_get
from deploy import nginx, workers

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
VISITORS = 24  # new visitors: all on one of two processes by chance about once in 8 million runs
pytestmark = pytest.mark.slow  # two app processes start: about 10-20 s on a busy 2-core machine

try:
    nginx.find_nginx()
    NO_NGINX = ""
except nginx.NginxMissingError:
    NO_NGINX = "nginx is not installed (apt-get install nginx; .ci/run installs it)"


def wait_until(check, within_s: float = 60.0) -> bool:
    """Poll check() up to within_s (a bounded wait for a server, not a timed assertion)."""
    pause = threading.Event()
    for _ in range(int(within_s / 0.2)):
        if check():
            return True
        pause.wait(0.2)
    return check()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    if NO_NGINX:
        pytest.skip(NO_NGINX)
    folder = tmp_path_factory.mktemp("serve")
    port = workers.free_ports(1)[0]
    log = open(folder / "serve.out", "wb")
    process = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "serve.py"), "--workers", "2", "--port",
                                str(port), "--address", HOST, "--dir", str(folder / "site"), "--keep"],
                               cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        ready = wait_until(lambda: "Ctrl-C stops them all" in (folder / "serve.out").read_text() or
                           process.poll() is not None, 180)
        assert ready and process.poll() is None, (folder / "serve.out").read_text()
        tree = psutil.Process(process.pid).children(recursive=True)
        yield {"port": port, "process": process, "folder": folder / "site", "tree": tree, "out": folder / "serve.out"}
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(60)
        log.close()


def run_coroutine(coroutine):
    """asyncio.run on a thread of its own: Playwright's sync API (the e2e suite's session fixture) keeps an
    event loop running in the test thread for the rest of the session, and asyncio.run refuses to nest."""
    outcome: dict = {}

    def target():
        try:
            outcome["value"] = asyncio.run(coroutine)
        except BaseException as error:  # re-raised in the test's own thread, with its traceback
            outcome["error"] = error

    thread = threading.Thread(target=target, name="serve-test-client")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def access_lines(folder: Path) -> list[dict[str, str]]:
    """nginx's access log (format specviz): request, status, upstream and route of each line."""
    path = folder / "logs" / "access.log"
    lines = []
    for line in (path.read_text().splitlines() if path.exists() else []):
        found = re.search(r'"(\S+) (\S+) [^"]*" (\d+) \d+ upstream=(\S+) route=(\S+)', line)
        if found:
            lines.append(dict(zip(("method", "path", "status", "upstream", "route"), found.groups())))
    return lines


def test_a_session_sticks_to_one_process_and_its_steps_advance(served):
    async def visit():
        status, _, cookies = await http_get(HOST, served["port"], "/playground")
        assert status == 200 and re.fullmatch(r"[0-9a-f]{32}", cookies.get("specviz_route", ""))
        _, _, again = await http_get(HOST, served["port"], "/_stcore/host-config", cookies)
        assert again == {} or "specviz_route" not in again  # a visitor with a route keeps it
        tab = Tab(HOST, served["port"], cookies=cookies, op_timeout_s=120)
        try:
            await tab.open()
            first = tab.model.caption
            outcomes = []  # steps in the browser, until one asks the server for the next round
            while not (outcomes and outcomes[-1].server) and len(outcomes) < 60:
                outcomes.append(await tab.step())
        finally:
            await tab.close()
        return cookies["specviz_route"], first, outcomes, tab.model

    route, first, outcomes, model = run_coroutine(visit())
    assert all(o.ok for o in outcomes) and outcomes[-1].server, [o.problem for o in outcomes]
    assert model.caption.step == first.step + len(outcomes) and re.search(rf"(^|&)at={model.caption.step}(&|$)",
                                                                          model.query)
    # the access log names the process of every request of that route: one only, the websocket's included
    assert wait_until(lambda: any(x["path"] == "/_stcore/stream" and x["route"] == route
                                  for x in access_lines(served["folder"])), 30)
    mine = [x for x in access_lines(served["folder"]) if x["route"] == route]
    assert {x["path"] for x in mine} >= {"/playground", "/_stcore/host-config", "/_stcore/stream"}
    assert len({x["upstream"] for x in mine}) == 1, mine
    assert next(x for x in mine if x["path"] == "/_stcore/stream")["status"] == "101"


def test_new_visitors_spread_over_the_processes(served):
    async def visitors():
        return [(await http_get(HOST, served["port"], "/_stcore/health"))[2]["specviz_route"] for _ in range(VISITORS)]

    routes = set(run_coroutine(visitors()))
    assert len(routes) == VISITORS  # each new visitor gets a key of its own
    assert wait_until(lambda: len([x for x in access_lines(served["folder"]) if x["route"] in routes]) == VISITORS, 30)
    used = {x["upstream"] for x in access_lines(served["folder"]) if x["route"] in routes}
    assert len(used) == 2, used


def test_the_bundle_comes_compressed_and_cached_for_a_year(served):
    page = urllib.request.urlopen(f"http://{HOST}:{served['port']}/", timeout=30).read().decode()
    script = re.search(r'src="\./(static/js/index\.[^"]+\.js)"', page).group(1)
    request = urllib.request.Request(f"http://{HOST}:{served['port']}/{script}", headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        assert answer.headers["Content-Encoding"] == "gzip"
        assert answer.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        packed = len(answer.read())
    with urllib.request.urlopen(f"http://{HOST}:{served['port']}/{script}", timeout=30) as answer:
        assert answer.headers.get("Content-Encoding") is None  # a client that asks for no gzip gets none
        assert len(answer.read()) > 2 * packed
    assert urllib.request.urlopen(f"http://{HOST}:{served['port']}/healthz", timeout=30).read() == b"ok\n"


def test_one_sigint_stops_nginx_and_every_app_process(served):
    tree = served["tree"]
    roles = sorted({"nginx" if p.name().startswith("nginx") else "app" for p in tree})
    apps = [p for p in tree if "deploy.worker" in " ".join(p.cmdline())]  # `streamlit run` through deploy/worker.py
    assert roles == ["app", "nginx"] and len(apps) == 2
    os.killpg(served["process"].pid, signal.SIGINT)  # the terminal's Ctrl-C
    assert served["process"].wait(60) == 0
    _, alive = psutil.wait_procs(tree, timeout=30)
    assert alive == []
    assert "stopped." in served["out"].read_text()
