"""Benchmark: rounds/s of the vectorized exact Monte Carlo against the one-round-at-a-time loop
through ``play_round`` (the reference style), measured in the same run, at V = 8, depth 3; then the
same for block verification (Sun et al. 2025) against ``play_round`` with the core's BlockVerifier.

    .venv/bin/python bench/montecarlo.py [--rounds 1000000] [--reference-rounds 5000] [--markov]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from specviz.lab import montecarlo as mc  # noqa: E402
from specviz.playground.presets import preset_scenario  # noqa: E402


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--reference-rounds", type=int, default=5_000)
    parser.add_argument("--vocab", type=int, default=8)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--preset", default="close")
    parser.add_argument("--markov", action="store_true")
    args = parser.parse_args(argv)
    scenario = preset_scenario(args.preset, args.vocab, args.depth, args.markov)

    began = time.perf_counter()
    sim = mc.MonteCarlo(scenario, seed=0)
    counts = sim.run(args.rounds)
    wall = time.perf_counter() - began  # includes building the exact tables
    law = mc.exact_law(scenario)
    fit = mc.goodness_of_fit(counts.first, law.first)

    reference = mc.reference_counts(scenario, args.reference_rounds, seed=0)
    fast, slow = args.rounds / wall, reference.rounds_per_second
    print(f"scenario: preset {args.preset!r}, V = {args.vocab}, depth {args.depth}, "
          f"{'Markov' if args.markov else 'fixed'}; sampler: {sim.method}")
    print(f"vectorized exact Monte Carlo: {args.rounds:,} rounds in {wall:.3f} s = {fast:,.0f} rounds/s")
    print(f"play_round loop:              {args.reference_rounds:,} rounds in {reference.seconds:.3f} s = "
          f"{slow:,.0f} rounds/s")
    print(f"ratio: {fast / slow:,.0f}x")
    print(f"check: first-token TV {fit.total_variation:.5f}, chi-square p-value {fit.p_value:.3f}")
    block = measure_block(scenario.with_changes(verification="block"), args.rounds, args.reference_rounds)
    return {"vectorized": fast, "reference": slow, "ratio": fast / slow, **block}


def measure_block(scenario, rounds: int, reference_rounds: int) -> dict[str, float]:
    """Block verification: the vectorized exact Monte Carlo against play_round with BlockVerifier."""
    began = time.perf_counter()
    sim = mc.MonteCarlo(scenario, seed=0)
    counts = sim.run(rounds)
    wall = time.perf_counter() - began  # includes tabulating the weight nodes
    law = mc.exact_law(scenario)
    length = mc.goodness_of_fit(counts.length[1:], law.length[1:])
    reference = mc.reference_counts(scenario, reference_rounds, seed=0)
    fast, slow = rounds / wall, reference.rounds_per_second
    print(f"block verification, sampler: {sim.method}")
    print(f"vectorized exact Monte Carlo: {rounds:,} rounds in {wall:.3f} s = {fast:,.0f} rounds/s")
    print(f"play_round loop (BlockVerifier): {reference_rounds:,} rounds in {reference.seconds:.3f} s = "
          f"{slow:,.0f} rounds/s")
    print(f"ratio: {fast / slow:,.0f}x")
    print(f"check: committed-length TV {length.total_variation:.5f}, chi-square p-value {length.p_value:.3f}")
    return {"block vectorized": fast, "block reference": slow, "block ratio": fast / slow}


if __name__ == "__main__":
    main()
