"""The servers the class benchmark loads: `make run`'s one process or `make serve`'s processes behind nginx.

Each is started on a loopback port of its own, in its own session, and stopped by its own process id; its
processes (the Streamlit ones, nginx's, the supervisor) are found by walking its process tree.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"  # the benchmark's traffic stays on this machine
HEALTH_TIMEOUT_S = 180.0


@dataclass
class Target:
    """A started server: what it is, its port, its launcher process and log."""

    kind: str  # "run" or "serve"
    workers: int
    port: int
    process: subprocess.Popen[bytes]
    log: Path
    freeze: bool = True
    _known: dict[int, psutil.Process] = field(default_factory=dict, repr=False)

    @property
    def label(self) -> str:
        if self.kind == "run":
            return "make run (1 process)"
        return f"make serve ({self.workers} process{'es' if self.workers > 1 else ''} + nginx" + (
            ")" if self.freeze else ", no freeze)")

    def processes(self) -> list[tuple[str, psutil.Process]]:
        """(role, process) for the launcher and every descendant: role "app", "nginx" or "supervisor"."""
        try:
            root = psutil.Process(self.process.pid)
            tree = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return []
        found = []
        for proc in tree:
            proc = self._known.setdefault(proc.pid, proc)  # one Process object per pid keeps cpu_percent's state
            found.append((role_of(proc), proc))
        return found

    def app_ports(self) -> list[int]:
        """The ports the Streamlit processes listen on (from their command lines)."""
        ports = []
        for role, proc in self.processes():
            if role == "app":
                try:
                    found = re.search(r"--server\.port (\d+)", " ".join(proc.cmdline()))
                except psutil.NoSuchProcess:
                    continue
                if found:
                    ports.append(int(found.group(1)))
        return ports


def role_of(proc: psutil.Process) -> str:
    try:
        line = " ".join(proc.cmdline())
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return "gone"
    if ("streamlit" in line and " run " in line) or "deploy.worker" in line:
        return "app"
    return "nginx" if line.startswith("nginx") or "/nginx " in line else "supervisor"


def run_argv(python: str, port: int) -> list[str]:
    """`make run`'s command (Makefile), on a loopback port, without the file watcher the config also turns off."""
    return [python, "-m", "streamlit", "run", "app.py", "--server.port", str(port), "--server.address", HOST,
            "--server.headless", "true", "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]


def serve_argv(python: str, port: int, workers: int, freeze: bool = True) -> list[str]:
    """`make serve`'s command (scripts/serve.py), nginx on loopback only."""
    return [python, "scripts/serve.py", "--port", str(port), "--workers", str(workers), "--address", HOST,
            *([] if freeze else ["--no-freeze"])]


def start(kind: str, port: int, workers: int, log_dir: Path, python: str = sys.executable,
          freeze: bool = True, gc_log: Path | None = None) -> Target:
    """Start the server and wait until /_stcore/health answers through its port (through nginx for serve).
    With gc_log, serve's processes log their full garbage collections there (deploy/worker.py)."""
    argv = run_argv(python, port) if kind == "run" else serve_argv(python, port, workers, freeze)
    log_dir.mkdir(parents=True, exist_ok=True)
    log = log_dir / f"{kind}-{port}.log"
    env = dict(os.environ, **({"SPECVIZ_GC_LOG": str(gc_log)} if gc_log else {}))
    with open(log, "ab") as out:
        process = subprocess.Popen(argv, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   start_new_session=True, env=env)
    target = Target(kind, 1 if kind == "run" else workers, port, process, log, freeze=freeze and kind == "serve")
    deadline = time.monotonic() + HEALTH_TIMEOUT_S
    for _ in range(int(HEALTH_TIMEOUT_S / 0.5) + 1):
        if process.poll() is not None:
            raise RuntimeError(f"{target.label} exited with {process.returncode}; see {log}")
        if healthy(port) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    if not healthy(port):
        stop(target)
        raise RuntimeError(f"{target.label} did not answer on port {port} in {HEALTH_TIMEOUT_S:.0f} s; see {log}")
    return target


def healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://{HOST}:{port}/_stcore/health", timeout=2) as answer:
            return answer.status == 200
    except OSError:
        return False


def stop(target: Target, timeout_s: float = 30.0) -> list[int]:
    """SIGTERM to the launcher (serve stops its own children), then SIGKILL its group; returns pids left over."""
    tree = [p for _, p in target.processes()]
    if target.process.poll() is None:
        target.process.send_signal(signal.SIGTERM)
    try:
        target.process.wait(timeout_s)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(target.process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    target.process.wait(5)
    _, alive = psutil.wait_procs(tree, timeout=5)
    for proc in alive:  # descendants of ours that outlived the stop: reported, then killed by pid
        try:
            proc.kill()
        except psutil.NoSuchProcess:
            pass
    return [p.pid for p in alive]
