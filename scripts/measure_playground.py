"""Measure the Playground's re-render time at V = 12, depth 5 (AppTest script runs, no browser).

Usage: .venv/bin/python scripts/measure_playground.py
"""

from __future__ import annotations

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


def scenario(markov: bool) -> Scenario:
    base = Scenario(vocab=VOCAB, target=Table((1,) * 12), draft=Table((1,) * 12), depth=5, seed=3)
    return presets.apply_preset(base, "far apart", markov)


def measure(markov: bool, clicks: int = 40) -> list[float]:
    at = AppTest.from_file(str(ROOT / "views" / "playground.py"), default_timeout=60)
    for key, value in share.scenario_to_query(scenario(markov), 0).items():
        at.query_params[key] = value
    at.run()
    times = []
    for i in range(clicks):
        button = "pg_forward" if i % 10 else "pg_next"
        start = time.perf_counter()
        at.button(key=button).click().run()
        times.append(time.perf_counter() - start)
        assert not at.exception, at.exception
    start = time.perf_counter()
    at.slider(key="pg_depth").set_value(4).run()  # an edit replays from the start
    times.append(time.perf_counter() - start)
    return times


if __name__ == "__main__":
    for markov in (False, True):
        times = measure(markov)
        print(f"{'Markov' if markov else 'fixed '} V=12 depth=5: median {statistics.median(times) * 1000:.0f} ms, "
              f"p90 {sorted(times)[int(0.9 * len(times))] * 1000:.0f} ms, max {max(times) * 1000:.0f} ms "
              f"over {len(times)} interactions")
