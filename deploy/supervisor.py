"""Child processes that stop together: one Ctrl-C (SIGINT), a SIGTERM, or the supervisor's own death stops them all.

Each child starts in its own session (so the terminal's Ctrl-C reaches only the supervisor, which then stops the
children in order: nginx first, so no request reaches a stopping app) and asks Linux to send it SIGTERM if the
supervisor dies without cleaning up (PR_SET_PDEATHSIG). Stopping sends each child its stop signal, waits, then
kills whatever is left of each child's process group, grandchildren included.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

PR_SET_PDEATHSIG = 1
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _die_with(parent: int) -> Callable[[], None]:
    """preexec_fn: SIGTERM when the parent dies; exit at once if it already has (between fork and here)."""

    def setup() -> None:
        if sys.platform.startswith("linux"):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:
            os._exit(1)

    return setup


@dataclass
class Child:
    """One program to keep running: its command line, its log file, how it is asked to stop."""

    name: str
    argv: Sequence[str]
    log: Path
    env: Mapping[str, str] | None = None
    cwd: Path | None = None
    stop_signal: int = signal.SIGTERM
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    starts: int = 0

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None


class Supervisor:
    """Starts children and stops them all; `stopping` is set by SIGINT, SIGTERM or SIGHUP once handlers are on."""

    def __init__(self, stop_timeout_s: float = 10.0) -> None:
        self.stop_timeout_s = stop_timeout_s
        self.children: list[Child] = []
        self.stopping = threading.Event()
        self.hurry = threading.Event()  # a second Ctrl-C: no more waiting
        self._previous: dict[int, object] = {}

    def start(self, child: Child) -> Child:
        """Start (or restart) a child; its output goes to its log file."""
        if child.alive():
            raise RuntimeError(f"{child.name} is already running (pid {child.pid})")
        child.log.parent.mkdir(parents=True, exist_ok=True)
        with open(child.log, "ab") as log:
            child.process = subprocess.Popen(  # noqa: S603 - our own command lines
                list(child.argv), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                env=None if child.env is None else dict(child.env), cwd=child.cwd,
                start_new_session=True, preexec_fn=_die_with(os.getpid()))
        child.starts += 1
        if child not in self.children:
            self.children.append(child)
        return child

    def exited(self) -> list[Child]:
        """Children that have stopped on their own (not yet restarted)."""
        return [c for c in self.children if c.process is not None and c.process.poll() is not None]

    def stop_all(self) -> list[str]:
        """Stop every child, the last started first; returns the names that had to be killed."""
        for child in reversed(self.children):
            if child.alive():
                _signal(child.process, child.stop_signal)
        deadline = time.monotonic() + (0 if self.hurry.is_set() else self.stop_timeout_s)
        killed = []
        for child in reversed(self.children):
            if child.process is None:
                continue
            left = max(0.0, deadline - time.monotonic())
            try:
                child.process.wait(left)
            except subprocess.TimeoutExpired:
                killed.append(child.name)
            _kill_group(child.process.pid)  # the child's leftovers too (nginx's workers, say)
            child.process.wait(5)
        return killed

    def handle_signals(self) -> None:
        """SIGINT, SIGTERM and SIGHUP set `stopping`; a second one sets `hurry` as well."""
        for number in STOP_SIGNALS:
            self._previous[number] = signal.signal(number, self._on_signal)

    def restore_signals(self) -> None:
        for number, previous in self._previous.items():
            signal.signal(number, previous)  # type: ignore[arg-type]
        self._previous.clear()

    def _on_signal(self, number: int, frame: FrameType | None) -> None:
        if self.stopping.is_set():
            self.hurry.set()
        self.stopping.set()


def _signal(process: subprocess.Popen[bytes], number: int) -> None:
    try:
        process.send_signal(number)
    except ProcessLookupError:
        pass


def _kill_group(pgid: int) -> None:
    """SIGKILL what is left of a child's own process group (it is the group's leader: pgid == its pid)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
