"""The Streamlit processes: their command line, free ports for them, and their health check."""

from __future__ import annotations

import os
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

HEALTH_PATH = "/_stcore/health"


@dataclass(frozen=True)
class WorkerSpec:
    """One `streamlit run` of the app: where it listens and what it shares with the others."""

    python: str
    app: Path
    host: str
    port: int
    cookie_secret: str  # the same for every process, so a cookie one signs the others accept
    freeze: bool = True  # deploy.worker imports the libraries and freezes them out of the GC first
    flags: Sequence[str] = field(default_factory=tuple)


def worker_argv(spec: WorkerSpec) -> list[str]:
    """`make run`'s command, on its own address and port, with no browser, telemetry or file watcher."""
    launcher = ["-m", "deploy.worker"] if spec.freeze else ["-m", "deploy.worker", "--no-freeze"]
    return [spec.python, *launcher, str(spec.app),
            "--server.address", spec.host, "--server.port", str(spec.port),
            "--server.headless", "true", "--browser.gatherUsageStats", "false",
            "--server.fileWatcherType", "none", *spec.flags]


def worker_env(spec: WorkerSpec, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment: the shared cookie secret goes here, not on the command line (ps shows that)."""
    env = dict(os.environ if base is None else base)
    env["STREAMLIT_SERVER_COOKIE_SECRET"] = spec.cookie_secret
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def free_ports(count: int, host: str = "127.0.0.1") -> list[int]:
    """`count` distinct ports free on host now (held open together, so none is handed out twice)."""
    held = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
            s.bind((host.strip("[]"), 0))
            held.append(s)
        return [s.getsockname()[1] for s in held]
    finally:
        for s in held:
            s.close()


def port_is_free(host: str, port: int) -> bool:
    """Whether a server could listen on host:port now."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host.strip("[]"), port))
        except OSError:
            return False
    return True


def url_of(host: str, port: int, path: str = "") -> str:
    """http://host:port/path, asking a loopback address for a worker bound to all interfaces."""
    reach = {"0.0.0.0": "127.0.0.1", "::": "[::1]", "[::]": "[::1]"}.get(host, host)
    return f"http://{reach}:{port}{path}"


def is_healthy(url: str, timeout_s: float = 2.0) -> bool:
    """GET url answers 200 "ok"."""
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as answer:  # noqa: S310 - our own http URL
            return answer.status == 200 and answer.read(16).strip() == b"ok"
    except (urllib.error.URLError, OSError):
        return False


def wait_healthy(urls: Sequence[str], alive: Callable[[int], bool], give_up: Callable[[], bool],
                 timeout_s: float = 120.0, poll_s: float = 0.25) -> list[int]:
    """Poll each url until it is healthy; returns the indices that never were (dead, given up, or timed out)."""
    waiting = set(range(len(urls)))
    deadline = time.monotonic() + timeout_s
    for _ in range(int(timeout_s / poll_s) + 2):
        for i in sorted(waiting):
            if not alive(i):
                return sorted(waiting)
            if is_healthy(urls[i]):
                waiting.discard(i)
        if not waiting or give_up() or time.monotonic() > deadline:
            break
        time.sleep(poll_s)
    return sorted(waiting)


def log_tail(path: Path, lines: int = 15) -> str:
    """The last lines of a log file, for a message about a process that failed."""
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"
