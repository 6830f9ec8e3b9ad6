"""The process supervisor: one Ctrl-C stops every child (grandchildren and stubborn ones included), nothing is
left behind when the supervisor itself is killed, and a child that exits is seen and can be restarted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import psutil
import pytest

from deploy.supervisor import Child, Supervisor

ROOT = Path(__file__).resolve().parents[2]
SLEEPER = "import time\nfor _ in range(3000): time.sleep(0.2)"  # ten minutes at most
STUBBORN = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n" + SLEEPER
PARENT = textwrap.dedent("""\
    import subprocess, sys, time
    grandchild = subprocess.Popen([sys.executable, "-c", "import time\\nfor _ in range(3000): time.sleep(0.2)"])
    open(sys.argv[1], "w").write(str(grandchild.pid))
    for _ in range(3000): time.sleep(0.2)
""")
HARNESS = textwrap.dedent("""\
    import json, sys
    from pathlib import Path
    sys.path.insert(0, {root!r})
    from deploy.supervisor import Child, Supervisor
    folder = Path(sys.argv[1])
    programs = json.loads(sys.argv[2])
    sup = Supervisor(stop_timeout_s=float(sys.argv[3]))
    sup.handle_signals()
    children = [Child(name, [sys.executable, "-c", code, *extra], folder / f"{{name}}.log")
                for name, code, extra in programs]
    for child in children:
        sup.start(child)
    print(json.dumps([c.pid for c in children]), flush=True)
    for _ in range(6000):
        if sup.stopping.wait(0.1):
            break
    print(json.dumps(sup.stop_all()), flush=True)
""")


def gone(pid: int) -> bool:
    """No such process, or only its zombie (this sandbox's init may be slow to reap an orphan)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def all_gone(pids: list[int], within_s: float = 20.0) -> list[int]:
    """The pids still alive after waiting up to within_s (a bounded wait, not a timed assertion)."""
    done = threading.Event()
    for _ in range(int(within_s / 0.1)):
        left = [p for p in pids if not gone(p)]
        if not left or done.wait(0.1):
            return left
    return [p for p in pids if not gone(p)]


def read_line(stream, timeout_s: float = 30.0) -> str:
    """One line from a child's stdout, or an error after timeout_s."""
    box: list[str] = []
    reader = threading.Thread(target=lambda: box.append(stream.readline()), daemon=True)
    reader.start()
    reader.join(timeout_s)
    if not box:
        raise AssertionError("the harness printed nothing")
    return box[0]


def start_harness(tmp_path: Path, programs: list, stop_timeout_s: float = 1.0) -> subprocess.Popen:
    script = tmp_path / "harness.py"
    script.write_text(HARNESS.format(root=str(ROOT)))
    return subprocess.Popen([sys.executable, str(script), str(tmp_path), json.dumps(programs), str(stop_timeout_s)],
                            stdout=subprocess.PIPE, text=True, start_new_session=True)


def kill_leftovers(pids: list[int]) -> None:
    for pid in pids:
        if not gone(pid):
            os.kill(pid, signal.SIGKILL)  # ours: started by this test


def test_one_ctrl_c_stops_every_child_and_grandchild(tmp_path):
    marker = tmp_path / "grandchild.pid"
    programs = [["sleeper", SLEEPER, []], ["stubborn", STUBBORN, []], ["parent", PARENT, [str(marker)]]]
    harness = start_harness(tmp_path, programs)
    children: list[int] = []
    try:
        children = json.loads(read_line(harness.stdout))
        for _ in range(200):
            if marker.exists() and marker.read_text():
                break
            threading.Event().wait(0.05)
        grandchild = int(marker.read_text())
        children.append(grandchild)
        assert not any(gone(p) for p in children)
        os.killpg(harness.pid, signal.SIGINT)  # what a terminal's Ctrl-C does to the foreground group
        killed = json.loads(read_line(harness.stdout))
        assert harness.wait(30) == 0
        assert killed == ["stubborn"]  # it ignored SIGTERM, so it was killed after the stop timeout
        assert all_gone(children) == []
    finally:
        if harness.poll() is None:
            harness.kill()
        kill_leftovers(children)


def test_the_children_follow_a_killed_supervisor(tmp_path):
    if not sys.platform.startswith("linux"):
        pytest.skip("PR_SET_PDEATHSIG is Linux's")
    harness = start_harness(tmp_path, [["a", SLEEPER, []], ["b", SLEEPER, []]])
    children: list[int] = []
    try:
        children = json.loads(read_line(harness.stdout))
        harness.kill()  # SIGKILL: no chance to clean up
        harness.wait(10)
        assert all_gone(children) == []
    finally:
        kill_leftovers(children)


def test_an_exited_child_is_seen_and_restarted(tmp_path):
    sup = Supervisor(stop_timeout_s=5)
    quick = sup.start(Child("quick", [sys.executable, "-c", "pass"], tmp_path / "quick.log"))
    try:
        quick.process.wait(30)
        assert sup.exited() == [quick] and not quick.alive()
        sup.start(quick)
        assert quick.starts == 2
        quick.process.wait(30)
        long = sup.start(Child("long", [sys.executable, "-c", SLEEPER], tmp_path / "long.log"))
        with pytest.raises(RuntimeError, match="already running"):
            sup.start(long)
    finally:
        assert sup.stop_all() == []
    assert all(not c.alive() for c in sup.children)


def test_a_second_signal_hurries_the_stop():
    sup = Supervisor()
    sup._on_signal(signal.SIGINT, None)
    assert sup.stopping.is_set() and not sup.hurry.is_set()
    sup._on_signal(signal.SIGINT, None)
    assert sup.hurry.is_set()
