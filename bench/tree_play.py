"""Does `specviz play` on a draft tree take time linear in its rounds? Per-round time by prefix length.

Runs the command line itself (``specviz.cli.main``, its output counted, not kept) for
``play --verification multi:4 --depth 5 --rounds N`` at N = 200, 400 and 800, and times every round
as the command plays it (drafting the 1,364-node tree, verifying it, writing its narration). Two
tables, each a ratio against a baseline measured in the same run (the machine is shared and noisy;
CPU seconds of this process, so other processes count less):

* per run: total CPU seconds, the ratio against the 200-round run beside the linear ratio N/200,
  milliseconds per round and the output's size;
* per round, by the length of the text drafted from (buckets of 500 tokens, from the longest run):
  milliseconds per round and the ratio against the first bucket (1.0 throughout: linear).

    python bench/tree_play.py                     # the narration, 200/400/800 rounds
    python bench/tree_play.py --json --rounds 50,100,200
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from specviz.cli import main  # noqa: E402
from specviz.cli import play as play_module  # noqa: E402

BUCKET = 500  # prefix tokens per row of the second table


class Counter(io.TextIOBase):
    """A text sink that keeps only the number of characters written."""

    def __init__(self) -> None:
        self.chars = 0

    def write(self, text: str) -> int:
        self.chars += len(text)
        return len(text)


def timed_run(rounds: int, json_out: bool) -> tuple[float, list[tuple[int, float]], int]:
    """(CPU seconds, [(prefix length, CPU seconds) per round], characters written) of one play."""
    original = play_module.rounds_of
    per_round: list[tuple[int, float]] = []

    def rounds_of(scenario, count):
        last, prefix = None, 0
        for played in original(scenario, count):
            now = time.process_time()
            if last is not None:  # the previous round's writing and this round's playing
                per_round.append((prefix, now - last))
            last, prefix = now, len(played.prefix)
            yield played
        if last is not None:
            per_round.append((prefix, time.process_time() - last))

    play_module.rounds_of = rounds_of
    out = Counter()
    argv = ["play", "--verification", "multi:4", "--depth", "5", "--rounds", str(rounds), "--allow-long"]
    try:
        began = time.process_time()
        code = main(argv + (["--json"] if json_out else []), out=out, err=sys.stderr)
        total = time.process_time() - began
    finally:
        play_module.rounds_of = original
    if code != 0:
        raise SystemExit(f"play exited with {code}")
    return total, per_round, out.chars


def main_bench(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", default="200,400,800", help="round counts, the first is the baseline")
    parser.add_argument("--json", action="store_true", help="time `play --json` instead of the narration")
    args = parser.parse_args(argv)
    counts = [int(n) for n in args.rounds.split(",")]
    mode = "play --json" if args.json else "play (narration)"
    print(f"## {mode} --verification multi:4 --depth 5: CPU time by rounds (baseline: {counts[0]} rounds)\n")
    print("| rounds | CPU s | ratio | linear ratio | ms / round | output MB |")
    print("|---|---|---|---|---|---|")
    runs = {}
    for count in counts:
        runs[count] = timed_run(count, args.json)
        total, _, chars = runs[count]
        base = runs[counts[0]][0]
        print(f"| {count} | {total:.1f} | {total / base:.2f} | {count / counts[0]:.2f} | {1000 * total / count:.1f} "
              f"| {chars / 1e6:.1f} |", flush=True)
    longest = runs[counts[-1]][1]
    buckets: dict[int, list[float]] = {}
    for prefix, seconds in longest:
        buckets.setdefault(prefix // BUCKET, []).append(seconds)
    first = sum(buckets[min(buckets)]) / len(buckets[min(buckets)])
    print(f"\n## per round by prefix length ({counts[-1]}-round run; baseline: prefix 0-{BUCKET - 1})\n")
    print("| prefix tokens | rounds | ms / round | ratio |")
    print("|---|---|---|---|")
    for key in sorted(buckets):
        mean = sum(buckets[key]) / len(buckets[key])
        print(f"| {key * BUCKET}-{(key + 1) * BUCKET - 1} | {len(buckets[key])} | {1000 * mean:.1f} | "
              f"{mean / first:.2f} |")
    print()


if __name__ == "__main__":
    main_bench()
