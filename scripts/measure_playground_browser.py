"""Measure the lecturer's Step in Chromium: now the step player's benchmark, bench/player_step.py.

The Step no longer reruns Streamlit: the step player moves in the browser, so what this script used to time (a
click to the fragment rerun drawn) is the benchmark's "key -> shown" figure, beside the websocket's frames a Step
sends and the motion's frames per second. Run on the code before the player (--root), the same benchmark times
that code's Streamlit Step the way this script did (the key to the caption drawn).

Usage: .venv/bin/python scripts/measure_playground_browser.py [--modes fixed,tree3] [--presses 30] [--root PATH]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.player_step import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
