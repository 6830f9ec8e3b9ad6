"""Measure the Playground's re-render time at V = 12, depth 5 (AppTest script runs, no browser).

Each interaction (Step, every tenth a Next round, then one edit) is timed in wall-clock time and in the
process's CPU time: on a shared machine the CPU time is the steadier figure of the server's own work.
The tree mode plays a width-2 tree of depth 3 (14 nodes) on the same weights.

Usage: .venv/bin/python scripts/measure_playground.py [--modes fixed,markov,tree] [--clicks 40]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from specviz.playground import presets, share  # noqa: E402
from specviz.scenario import Scenario, Table  # noqa: E402

VOCAB = tuple(f"w{i}" for i in range(12))
MODES = ("fixed", "markov", "tree")


def scenario(mode: str) -> Scenario:
    base = Scenario(vocab=VOCAB, target=Table((1,) * 12), draft=Table((1,) * 12), depth=5, seed=3)
    far = presets.apply_preset(base, "far apart", mode == "markov")
    return far.with_changes(verification="multi:2", depth=3) if mode == "tree" else far


def measure(mode: str, clicks: int = 40) -> tuple[list[float], list[float]]:
    """(wall seconds, CPU seconds) of each interaction."""
    at = AppTest.from_file(str(ROOT / "views" / "playground.py"), default_timeout=60)
    for key, value in share.scenario_to_query(scenario(mode), 0).items():
        at.query_params[key] = value
    at.run()
    wall, cpu = [], []

    def timed(action) -> None:
        start, start_cpu = time.perf_counter(), time.process_time()
        action()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        assert not at.exception, at.exception

    for i in range(clicks):
        button = "pg_forward" if i % 10 else "pg_next"
        timed(lambda button=button: at.button(key=button).click().run())
    timed(lambda: at.slider(key="pg_depth").set_value(2 if mode == "tree" else 4).run())  # an edit replays
    return wall, cpu


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated: " + ", ".join(MODES))
    parser.add_argument("--clicks", type=int, default=40)
    args = parser.parse_args(argv)
    for mode in args.modes.split(","):
        wall, cpu = measure(mode, args.clicks)
        ms = 1000
        print(f"{mode:6} V=12 depth={scenario(mode).depth}: median {statistics.median(wall) * ms:.0f} ms, "
              f"p90 {sorted(wall)[int(0.9 * len(wall))] * ms:.0f} ms, max {max(wall) * ms:.0f} ms, "
              f"CPU median {statistics.median(cpu) * ms:.0f} ms over {len(wall)} interactions")


if __name__ == "__main__":
    main()
