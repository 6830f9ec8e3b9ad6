"""A lecture hall on the Playground: N simulated students against `make run` and `make serve`.

Each student is a browser tab speaking Streamlit's websocket protocol (bench/streamlit_tab.py): it GETs the page
(with --static, every file a first visit downloads, as Chromium listed them), opens the Playground, then steps
every U(think) seconds as the step player does: within the round it holds, in the browser (no message at all);
past the round's end it asks the server for the next round, with the page's widget values as the frontend sends
them. --play K of them press Play instead (a step a second, a request per round). Every request must bring the
next round with its next step, its label and its link, or it counts as lost. Students join over --ramp seconds and
leave together; --waves W repeats the class W times on the same server and measures memory after each wave
(sessions must not leak).

Printed per server and class size: page-open and new-round latency percentiles, Steps/s (all of them, in the
browser or not) and new rounds/s, the servers' CPU (all app processes and nginx) per Step and per new round, memory,
errors, lost steps, how the sessions spread over the processes, and, as the baseline measured in the same run, one
student alone (new round p50 "x solo"); with --first-visit, the bytes of a first visit in Chromium, compressed or
not. Every loop is bounded in count and time; traffic goes to 127.0.0.1.

    .venv/bin/python bench/class_load.py --targets run,serve --workers 2 --students 30,60 --duration 40
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import random
import re
import resource
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import first_visit, load_targets  # noqa: E402  (run as a script: the repository root goes first)
from bench.load_targets import HOST, Target  # noqa: E402
from bench.streamlit_tab import Tab, http_get, now  # noqa: E402

SOLO_ROUNDS = 8  # the lone student's new rounds, the baseline
SAMPLE_S = 1.0
BROWSER_CONNECTIONS = 6  # parallel downloads per host, as a browser does
MB = 2**20


@dataclass(frozen=True)
class ClassConfig:
    """One class: how many students, how long they step, how they think, how they arrive."""

    students: int
    duration_s: float = 40.0
    think_s: tuple[float, float] = (1.0, 3.0)
    ramp_s: float = 5.0
    play: int = 0
    static: bool = False
    own_seeds: bool = False
    op_timeout_s: float = 60.0
    settle_s: float = 5.0


@dataclass
class Wave:
    """What one wave of students measured (times in seconds from the wave's start)."""

    students: int
    opens: list[float] = field(default_factory=list)
    http_opens: list[float] = field(default_factory=list)
    steps: list[float] = field(default_factory=list)  # when each Step was taken (in the browser or not)
    rounds: list[tuple[float, float]] = field(default_factory=list)  # the requests for a new round: (sent at, latency)
    step_bytes: list[int] = field(default_factory=list)  # bytes received for each new round
    ticks: list[float] = field(default_factory=list)
    play_steps: int = 0
    lost: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    disconnects: int = 0
    all_open_at: float | None = None
    steady_from: float = 0.0  # the steady window: every student in (or the ramp's end, if some never got in) ...
    steady_to: float = 0.0  # ... to the end of stepping
    sessions: list[int] = field(default_factory=list)  # active sessions per app process, before leaving
    cpu_s: dict[str, float] = field(default_factory=dict)  # per role, over the steady window
    rss_before_mb: float = 0.0
    rss_peak_mb: float = 0.0
    rss_after_mb: float = 0.0
    app_rss_after_mb: list[float] = field(default_factory=list)
    client_cpu_s: float = 0.0
    load_before: float = 0.0


def pct(values: list[float], q: float) -> float | None:
    """The q-quantile, linearly interpolated; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


class Monitor:
    """Samples the server's processes once a second: CPU seconds and RSS summed per role (app, nginx, ...)."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.samples: list[tuple[float, dict[str, float], dict[str, float]]] = []
        self._cpu: dict[int, tuple[str, float]] = {}  # pid -> (role, last CPU seconds), the gone ones kept

    def sample(self) -> tuple[float, dict[str, float], dict[str, float]]:
        rss: dict[str, float] = {}
        for role, proc in self.target.processes():
            try:
                times, memory = proc.cpu_times(), proc.memory_info()
            except psutil.NoSuchProcess:
                continue
            self._cpu[proc.pid] = (role, times.user + times.system)
            rss[role] = rss.get(role, 0.0) + memory.rss / MB
        cpu: dict[str, float] = {}
        for role, seconds in self._cpu.values():
            cpu[role] = cpu.get(role, 0.0) + seconds
        row = (now(), cpu, rss)
        self.samples.append(row)
        return row

    async def run(self, stop: asyncio.Event) -> None:
        for _ in range(1_000_000):
            self.sample()
            try:
                await asyncio.wait_for(stop.wait(), SAMPLE_S)
                return
            except TimeoutError:
                pass

    def cpu_between(self, t0: float, t1: float) -> dict[str, float]:
        """CPU seconds per role between the samples nearest to t0 and t1."""
        inside = [s for s in self.samples if t0 - SAMPLE_S / 2 <= s[0] <= t1 + SAMPLE_S / 2]
        if len(inside) < 2:
            return {}
        first, last = inside[0][1], inside[-1][1]
        scale = (t1 - t0) / max(1e-9, inside[-1][0] - inside[0][0])
        return {role: (last[role] - first.get(role, 0.0)) * scale for role in last}

    def rss_peak(self, t0: float, t1: float) -> float:
        return max((sum(s[2].values()) for s in self.samples if t0 <= s[0] <= t1), default=0.0)


def served_mb(monitor: Monitor) -> tuple[float, list[float]]:
    """RSS now, MB: all server processes together, and each app process."""
    apps = []
    for role, proc in monitor.target.processes():
        if role == "app":
            try:
                apps.append(proc.memory_info().rss / MB)
            except psutil.NoSuchProcess:
                pass
    return sum(monitor.sample()[2].values()), apps


async def active_sessions(target: Target) -> list[int]:
    """Each app process's count of connected sessions (Streamlit's /_stcore/metrics)."""
    counts = []
    for port in target.app_ports():
        text = await asyncio.to_thread(metrics_text, port)
        found = re.search(r"^active_sessions (\d+)", text, re.M)
        counts.append(int(found.group(1)) if found else -1)
    return counts


def metrics_text(port: int) -> str:
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://{HOST}:{port}/_stcore/metrics", timeout=10) as answer:
            return answer.read().decode()
    except OSError:
        return ""


async def first_visit_http(port: int, static: list[str]) -> dict[str, str]:
    """The page, its health and host-config, then (static) the first visit's files six at a time; its cookies."""
    _, _, cookies = await http_get(HOST, port, "/playground")
    await asyncio.gather(http_get(HOST, port, "/_stcore/health", cookies),
                         http_get(HOST, port, "/_stcore/host-config", cookies))
    gate = asyncio.Semaphore(BROWSER_CONNECTIONS)

    async def one(path: str) -> None:
        async with gate:
            await http_get(HOST, port, path, cookies)

    await asyncio.gather(*(one(p) for p in static))
    return cookies


class Classroom:
    """One wave: every student's life on one server, recorded into a Wave."""

    def __init__(self, target: Target, config: ClassConfig, link: str, static: list[str], seed: int) -> None:
        self.target, self.config, self.link, self.static = target, config, link, static
        self.rng = random.Random(seed)
        self.wave = Wave(config.students)
        self.start = 0.0
        self.end = 0.0
        self.opened = 0

    def query_for(self, index: int) -> str:
        """The shared link (everyone on one scenario), or with own seeds the same link at seed 1000 + i."""
        if not self.config.own_seeds:
            return ""
        return re.sub(r"(^|&)seed=\d+", rf"\g<1>seed={1000 + index}", self.link)

    async def student(self, index: int, rng: random.Random) -> None:
        c = self.config
        await asyncio.sleep(rng.uniform(0, c.ramp_s))
        began = now()
        tab = None
        try:
            cookies = await first_visit_http(self.target.port, self.static if c.static else [])
            self.wave.http_opens.append(now() - began)
            tab = Tab(HOST, self.target.port, query=self.query_for(index), cookies=cookies,
                      op_timeout_s=c.op_timeout_s)
            await tab.open()
            self.wave.opens.append(now() - began)
        except Exception as error:  # noqa: BLE001 - a failed open is a result, not a crash
            self.wave.errors.append(f"student {index} open: {type(error).__name__} {error}"[:300])
            if tab is not None:
                await tab.close()
            return
        self.opened += 1
        if self.opened == c.students:
            self.wave.all_open_at = now() - self.start
        try:
            if index < c.play:
                await self.play(tab)
            else:
                await self.keep_stepping(tab, rng)
            if tab.model.app_errors:
                self.wave.errors.append(f"student {index}: {tab.model.app_errors[0]}")
            await asyncio.sleep(max(0.0, self.end - now()))  # the class leaves together
        finally:
            if tab.closed_by_server:
                self.wave.disconnects += 1
            await tab.close()

    async def keep_stepping(self, tab: Tab, rng: random.Random) -> None:
        for _ in range(10_000):
            pause = rng.uniform(*self.config.think_s)
            if now() + pause >= self.end:
                return
            await asyncio.sleep(pause)
            sent = now() - self.start
            outcome = await tab.step()
            if outcome.ok:
                self.wave.steps.append(sent)
                if outcome.server:
                    self.wave.rounds.append((sent, outcome.latency_s))
                    self.wave.step_bytes.append(outcome.nbytes)
            elif tab.closed_by_server or "Error" in outcome.problem:
                self.wave.errors.append(outcome.problem)
                return
            else:
                self.wave.lost.append(outcome.problem)

    async def play(self, tab: Tab) -> None:
        outcome = await tab.play(self.end)
        self.wave.ticks.extend(outcome.ticks_s)
        self.wave.play_steps += outcome.steps
        if not outcome.ok:
            self.wave.errors.append(outcome.problem)

    async def run(self, monitor: Monitor) -> Wave:
        c, wave = self.config, self.wave
        wave.load_before = os.getloadavg()[0]
        wave.rss_before_mb, _ = served_mb(monitor)
        usage = resource.getrusage(resource.RUSAGE_SELF)
        self.start = now()
        self.end = self.start + c.ramp_s + c.duration_s
        tasks = [asyncio.create_task(self.student(i, random.Random(self.rng.random()))) for i in range(c.students)]
        stepping = asyncio.create_task(self.count_sessions_before(self.end))
        _, late = await asyncio.wait(tasks, timeout=c.ramp_s + c.duration_s + 2 * c.op_timeout_s + 30)
        for task in late:
            task.cancel()
            wave.errors.append("a student was still busy at the wave's time limit")
        await stepping
        used = resource.getrusage(resource.RUSAGE_SELF)
        wave.client_cpu_s = used.ru_utime + used.ru_stime - usage.ru_utime - usage.ru_stime
        wave.steady_to = c.ramp_s + c.duration_s
        opened = wave.all_open_at if wave.all_open_at is not None else c.ramp_s
        wave.steady_from = opened if opened < wave.steady_to - 1 else c.ramp_s
        wave.cpu_s = monitor.cpu_between(self.start + wave.steady_from, self.start + wave.steady_to)
        wave.rss_peak_mb = monitor.rss_peak(self.start, now())
        await asyncio.sleep(c.settle_s)  # the sessions' threads end, Streamlit stores them for reconnect
        wave.rss_after_mb, wave.app_rss_after_mb = served_mb(monitor)
        return wave

    async def count_sessions_before(self, end: float) -> None:
        await asyncio.sleep(max(0.0, end - now() - 2.0))
        self.wave.sessions = await active_sessions(self.target)


@dataclass
class Solo:
    """One student alone on the server: the baseline every class is compared with (its new rounds)."""

    open_s: float
    steps_s: list[float]  # each new round's latency
    cpu_ms_per_step: float | None  # app CPU per new round
    link: str

    @property
    def p50(self) -> float:
        return pct(self.steps_s, 0.5) or float("nan")


async def step_to_a_new_round(tab: Tab):
    """Step until the player asks for a new round (a round has at most 47 steps here): that request's outcome."""
    for _ in range(500):
        outcome = await tab.step()
        if outcome.server or not outcome.ok:
            return outcome
    raise RuntimeError("no new round in 500 steps")


async def warm_up(target: Target) -> None:
    """Each app process opens the page and plays 3 rounds on its own port (its imports and caches warm), as the
    lecturer's own rehearsal would; behind nginx a first student would otherwise pay for them."""
    for port in target.app_ports():
        tab = Tab(HOST, port)
        try:
            await tab.open()
            for _ in range(3):
                await step_to_a_new_round(tab)
        finally:
            await tab.close()


async def solo(target: Target, monitor: Monitor) -> Solo:
    """The lecturer's tab before the class: open, then step through SOLO_ROUNDS new rounds, each asked 0.3 s after
    the last (after 2 warm-ups); the new rounds' latencies and the app's CPU per new round."""
    cookies = await first_visit_http(target.port, [])
    tab = Tab(HOST, target.port, cookies=cookies)
    opened = await tab.open()
    for _ in range(2):
        await step_to_a_new_round(tab)
    latencies = []
    t0 = monitor.sample()
    for _ in range(SOLO_ROUNDS):
        await asyncio.sleep(0.3)
        outcome = await step_to_a_new_round(tab)
        if outcome.ok:
            latencies.append(outcome.latency_s)
    t1 = monitor.sample()
    await tab.close()
    cpu = t1[1].get("app", 0.0) - t0[1].get("app", 0.0)
    return Solo(opened, latencies, 1000 * cpu / len(latencies) if latencies else None, tab.model.query)


async def idle_memory(target: Target, monitor: Monitor, idle_s: float) -> dict:
    """After idle_s with nobody connected, one visitor opens and closes the page (Streamlit drops the sessions it
    kept for reconnecting, two minutes by default, only when another one is stored), then memory is read."""
    await asyncio.sleep(idle_s)
    tab = Tab(HOST, target.port)
    try:
        await tab.open()
    finally:
        await tab.close()
    await asyncio.sleep(3.0)
    total, apps = served_mb(monitor)
    return {"idle_s": idle_s, "rss_mb": total, "app_rss_mb": apps, "sessions": await active_sessions(target)}


async def measure_target(target: Target, sizes: list[int], waves: int, make: ClassConfig,
                         static: list[str], idle_s: float = 0.0) -> dict:
    """The baseline, then each class size (waves times) on one started server; then, with idle_s, memory after
    that long with nobody there."""
    monitor = Monitor(target)
    stop = asyncio.Event()
    sampling = asyncio.create_task(monitor.run(stop))
    try:
        await warm_up(target)
        alone = await solo(target, monitor)
        print(f"  {target.label}: one student alone: open {alone.open_s:.2f} s, new round p50 "
              f"{1000 * alone.p50:.0f} ms, {alone.cpu_ms_per_step or 0:.0f} ms of app CPU per new round", flush=True)
        results = []
        for n in sizes:
            for w in range(waves):
                config = dataclasses.replace(make, students=n)
                wave = await Classroom(target, config, alone.link, static, seed=1000 * n + w).run(monitor)
                results.append(wave)
                print("  " + summary_line(target, wave, alone, w), flush=True)
        idle = await idle_memory(target, monitor, idle_s) if idle_s > 0 else None
        if idle:
            print(f"  after {idle_s:.0f} s idle: RSS {idle['rss_mb']:.0f} MB (app processes "
                  f"{[round(x) for x in idle['app_rss_mb']]}), sessions {idle['sessions']}", flush=True)
        return {"target": target.label, "kind": target.kind, "workers": target.workers, "solo": asdict(alone),
                "waves": [asdict(w) for w in results], "idle": idle}
    finally:
        stop.set()
        await sampling


def summary_line(target: Target, wave: Wave, alone: Solo, index: int) -> str:
    row = figures(wave, alone)
    return (f"{target.kind} n={wave.students} wave {index + 1}: new round p50 {row['p50']} p95 {row['p95']} ms, "
            f"open median {row['open']} s, {row['rate']} Steps/s ({row['round_rate']} new rounds/s), CPU "
            f"{row['cores']} cores, {row['cpu_step']} ms a Step, {row['cpu_round']} ms a new round, "
            f"RSS {row['rss']} MB, "
            f"errors {len(wave.errors)}, lost {len(wave.lost)}, sessions {wave.sessions}"
            + (f"; Play: {len(wave.ticks)} new rounds, p95 {row['tick95']} ms, {wave.play_steps} steps"
               if wave.ticks else ""))


def figures(wave: Wave, alone: Solo) -> dict[str, str]:
    """The printed figures of a wave (strings, '-' where nothing was measured), over its steady window."""
    steady = [lat for sent, lat in wave.rounds if wave.steady_from <= sent <= wave.steady_to]
    stepped = [sent for sent in wave.steps if wave.steady_from <= sent <= wave.steady_to]
    span = wave.steady_to - wave.steady_from
    p50, p95 = pct(steady, 0.5), pct(steady, 0.95)
    app_cpu, nginx_cpu = wave.cpu_s.get("app", 0.0), wave.cpu_s.get("nginx", 0.0)
    measured = bool(wave.cpu_s) and span > 0

    def ms(x: float | None) -> str:
        return "-" if x is None else f"{1000 * x:.0f}"

    return {
        "p50": ms(p50), "p95": ms(p95), "max": ms(max(steady) if steady else None),
        "solo": "-" if p50 is None else f"{p50 / alone.p50:.1f}x",
        "open": "-" if not wave.opens else f"{statistics.median(wave.opens):.2f}",
        "open95": "-" if not wave.opens else f"{pct(wave.opens, 0.95):.2f}",
        "rate": f"{len(stepped) / span:.1f}" if span > 0 else "-",
        "round_rate": f"{len(steady) / span:.1f}" if span > 0 else "-",
        "cores": f"{(app_cpu + nginx_cpu) / span:.2f}" if measured else "-",
        "nginx": f"{nginx_cpu / span:.2f}" if measured else "-",
        "cpu_step": f"{1000 * (app_cpu + nginx_cpu) / len(stepped):.1f}" if measured and stepped else "-",
        "cpu_round": f"{1000 * app_cpu / len(steady):.0f}" if measured and steady else "-",
        "rss": f"{wave.rss_before_mb:.0f} → {wave.rss_peak_mb:.0f} → {wave.rss_after_mb:.0f}",
        "opened": f"{len(wave.opens)}/{wave.students}",
        "tick95": ms(pct(wave.ticks, 0.95)),
    }


def print_tables(report: dict) -> None:
    """The markdown tables: the classes, the waves (memory), the first visits."""
    print("\n| server | students | opened | new round p50 (ms) | new round p95 (ms) | new round max (ms) "
          "| p50 vs one student | page open median (s) | open p95 (s) | Steps/s | new rounds/s | server CPU (cores) "
          "| of it nginx | server CPU per Step (ms) | app CPU per new round (ms) | RSS before → peak → after (MB) "
          "| errors | lost | sessions per process |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|")
    for result in report["targets"]:
        alone = Solo(**result["solo"])
        for raw in result["waves"]:
            wave = Wave(**{**raw, "rounds": [tuple(s) for s in raw["rounds"]]})
            f = figures(wave, alone)
            print(f"| {result['target']} | {wave.students} | {f['opened']} | {f['p50']} | {f['p95']} | {f['max']} | "
                  f"{f['solo']} | {f['open']} | {f['open95']} | {f['rate']} | {f['round_rate']} | {f['cores']} | "
                  f"{f['nginx']} | {f['cpu_step']} | {f['cpu_round']} | {f['rss']} | {len(wave.errors)} | "
                  f"{len(wave.lost)} | {wave.sessions} |")
    print_memory(report)
    logged = [r for r in report["targets"] if r.get("gc")]
    if logged:
        print("\n| server | full collections | CPU per collection p50 / max (ms) | wall p50 / max (ms) "
              "| GC CPU per Step (ms) |")
        print("|---|---:|---:|---:|---:|")
        for result in logged:
            cpu, wall = [c for c, _ in result["gc"]], [w for _, w in result["gc"]]
            steps = sum(len(w["steps"]) for w in result["waves"])
            print(f"| {result['target']} | {len(cpu)} | {pct(cpu, 0.5):.0f} / {max(cpu):.0f} | "
                  f"{pct(wall, 0.5):.0f} / {max(wall):.0f} | {sum(cpu) / max(1, steps):.2f} |")
    visits = report.get("first_visits") or []
    if visits:
        base = visits[0]["wire_bytes"] or 1
        print("\n| server | files | bytes sent | bytes decoded | sent vs the first row | compressed answers "
              "| found by |")
        print("|---|---:|---:|---:|---:|---:|---|")
        for v in visits:
            print(f"| {v['target']} | {len(v['paths'])} | {v['wire_bytes'] / 1e6:.2f} MB | "
                  f"{v['decoded_bytes'] / 1e6:.2f} MB | {v['wire_bytes'] / base:.2f}x | {v['encoded_files']} | "
                  f"{v['how']} |")


def print_memory(report: dict) -> None:
    """Memory wave by wave: the app processes' RSS after each class left, against the first wave's."""
    print("\n| server | wave | students | app processes' RSS after (MB) | all server processes (MB) "
          "| vs wave 1 | sessions still connected |")
    print("|---|---:|---:|---|---:|---:|---|")
    for result in report["targets"]:
        first = None
        for i, w in enumerate(result["waves"], 1):
            first = w["rss_after_mb"] if first is None else first
            print(f"| {result['target']} | {i} | {w['students']} | {[round(x) for x in w['app_rss_after_mb']]} | "
                  f"{w['rss_after_mb']:.0f} | {w['rss_after_mb'] - first:+.0f} | {w['sessions']} (before leaving) |")
        idle = result.get("idle")
        if idle:
            print(f"| {result['target']} | after {idle['idle_s']:.0f} s idle | 0 | "
                  f"{[round(x) for x in idle['app_rss_mb']]} | {idle['rss_mb']:.0f} | {idle['rss_mb'] - first:+.0f} "
                  f"| {idle['sessions']} |")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--targets", default="run,serve",
                    help="servers one after another: run, serve (--workers processes), serve:N (N processes), "
                         "serve:N:plain (without deploy/worker.py's preloading and gc.freeze)")
    ap.add_argument("--workers", type=int, default=2, help="app processes for serve")
    ap.add_argument("--students", default="30", help="class sizes, comma-separated (30 to 240)")
    ap.add_argument("--waves", type=int, default=1, help="classes of each size one after another (memory check)")
    ap.add_argument("--duration", type=float, default=40.0, help="seconds of stepping after the ramp")
    ap.add_argument("--think", default="1,3", help="seconds between a student's Steps: min,max")
    ap.add_argument("--ramp", type=float, default=5.0, help="students join over this many seconds")
    ap.add_argument("--play", type=int, default=0, help="this many students press Play instead of stepping (a step a "
                    "second, in the browser)")
    ap.add_argument("--static", action="store_true", help="each student downloads a first visit's files")
    ap.add_argument("--first-visit", action="store_true", help="count a first visit's bytes in Chromium")
    ap.add_argument("--own-seeds", action="store_true", help="student i opens the link at seed 1000+i")
    ap.add_argument("--settle", type=float, default=5.0, help="seconds after a wave before memory is read")
    ap.add_argument("--idle-after", type=float, default=0.0,
                    help="then wait this long with nobody there (Streamlit keeps left sessions 120 s) and read memory")
    ap.add_argument("--port", type=int, default=8790, help="first port to use (one per server)")
    ap.add_argument("--out", default=None, help="write every figure as JSON here")
    args = ap.parse_args(argv)
    args.sizes = [int(x) for x in args.students.split(",")]
    args.think_s = tuple(float(x) for x in args.think.split(","))
    kinds = args.targets.split(",")
    known = all(re.fullmatch(r"run|serve(:[1-9][0-9]?(:plain)?)?", k) for k in kinds)
    if not known or any(not 1 <= n <= 1000 for n in args.sizes):
        ap.error("--targets takes run, serve, serve:N and serve:N:plain (N from 1 to 99); --students sizes from "
                 "1 to 1000")
    if len(args.think_s) != 2 or not 0 < args.think_s[0] <= args.think_s[1]:
        ap.error("--think takes min,max seconds with 0 < min <= max")
    args.kinds = [(k.split(":")[0], int(k.split(":")[1]) if ":" in k else args.workers, not k.endswith(":plain"))
                  for k in kinds]
    return args


def visit_once(target: Target) -> first_visit.FirstVisit:
    """A first visit's files: counted in Chromium when it is there, else the page's HTML's own list."""
    why_not = first_visit.chromium_available()
    if not why_not:
        return first_visit.chromium_visit(f"http://{HOST}:{target.port}")
    import urllib.request

    with urllib.request.urlopen(f"http://{HOST}:{target.port}/playground", timeout=30) as answer:
        visit = first_visit.index_files(answer.read().decode())
    visit.how += f" ({why_not})"
    return visit


def read_gc_log(folder: Path) -> list[tuple[float, float]]:
    """The full collections serve's processes logged: (CPU ms, wall ms) each; none for `make run`."""
    found = []
    for path in sorted(folder.glob("gc-*.txt")) if folder.exists() else []:
        for line in path.read_text().splitlines():
            cpu, wall = line.split()
            found.append((float(cpu), float(wall)))
    return found


def machine() -> dict:
    return {"cpus": os.cpu_count(), "load_at_start": os.getloadavg(), "python": sys.version.split()[0],
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "memory_gb": round(psutil.virtual_memory().total / 2**30, 1)}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    report: dict = {"machine": machine(), "args": {k: v for k, v in vars(args).items()}, "targets": [],
                    "first_visits": []}
    print(f"class load: {report['machine']}", flush=True)
    make = ClassConfig(students=0, duration_s=args.duration, think_s=args.think_s, ramp_s=args.ramp,
                       play=args.play, static=args.static, own_seeds=args.own_seeds, settle_s=args.settle)
    log_dir = Path(os.environ.get("TMPDIR", "/tmp")) / "specviz-class-load"
    for i, (kind, workers, freeze) in enumerate(args.kinds):
        gc_log = log_dir / f"gc-{os.getpid()}-{i}"
        target = load_targets.start(kind, args.port + i, workers, log_dir, freeze=freeze, gc_log=gc_log)
        try:
            visit = visit_once(target) if (args.first_visit or args.static) else None
            if visit is not None:
                report["first_visits"].append({"target": target.label, **asdict(visit)})
                print(f"  {target.label}: a first visit: {visit.files} files, {visit.wire_bytes / 1e6:.2f} MB sent "
                      f"({visit.decoded_bytes / 1e6:.2f} MB decoded; {visit.how})", flush=True)
            static = visit.paths if (visit and args.static) else []
            report["targets"].append(asyncio.run(measure_target(target, args.sizes, args.waves, make, static,
                                                                args.idle_after)))
        finally:
            left = load_targets.stop(target)
            if left:
                print(f"  {target.label}: {len(left)} processes outlived the stop and were killed: {left}")
        if report["targets"] and report["targets"][-1]["target"] == target.label:
            report["targets"][-1]["gc"] = read_gc_log(gc_log)
    report["machine"]["load_at_end"] = os.getloadavg()
    print_tables(report)
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1, default=str))
        print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
