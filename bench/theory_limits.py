"""Benchmark of theory within bounds (issue 25 items 1 and 4): how fast refusals come, and how work grows.

Prints two tables. The first times each refusal of an oversized request (a rule name, a vocabulary, a block
pass, a distinct-draft node) against the largest request of its kind that is still answered, measured in the
same run: a refusal must come in well under 2 s, before the slow work, so its ratio is far below 1. The second
times optimal_multi_draft and Medusa's typical threshold at doubling vocabularies: the ratio of successive times is
about 2 for the O(V log V) the docstrings promise (4 would be quadratic).

    python bench/theory_limits.py
    python bench/theory_limits.py --repeats 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from specviz import theory  # noqa: E402
from specviz.core import Categorical, SpecvizError, rule  # noqa: E402


def pair(vocab: int, seed: int = 0) -> tuple[Categorical, Categorical]:
    """Random p and q with three-digit integer weights (Fractions with large denominators)."""
    rng = np.random.default_rng(seed)
    return (Categorical.dense([int(t) for t in rng.integers(1, 1000, vocab)]),
            Categorical.dense([int(t) for t in rng.integers(1, 1000, vocab)]))


def seconds(call: Callable[[], object], repeats: int) -> tuple[float, str]:
    """Median CPU seconds of call, and what it gave ('answered' or the refusal's class)."""
    times, outcome = [], "answered"
    for _ in range(repeats):
        began = time.process_time()
        try:
            call()
        except SpecvizError as error:
            outcome = type(error).__name__
        times.append(time.process_time() - began)
    return statistics.median(times), outcome


def refusal_rows(repeats: int) -> list[str]:
    big_p, big_q = pair(10**6)
    edge_p, edge_q = pair(theory.MAX_VOCABULARY)
    p4, q4 = pair(4)
    p8, q8 = pair(8)
    u9 = Categorical.dense([1] * 9)
    cases = [
        ("rule('typical:1e-99999999')", lambda: rule("typical:1e-99999999"), "rule('typical:1e-5')",
         lambda: rule("typical:1e-5")),
        ("rule('multi:' + 5,000 digits)", lambda: rule("multi:" + "7" * 5000), "rule('multi:8')",
         lambda: rule("multi:8")),
        ("node_law multi:8, V = 10^6", lambda: theory.node_law("multi:8", big_p, big_q),
         f"node_law multi:8, V = {theory.MAX_VOCABULARY:,}", lambda: theory.node_law("multi:8", edge_p, edge_q)),
        ("node_law typical:0.09, V = 10^6", lambda: theory.node_law("typical:0.09", big_p, big_q),
         f"node_law typical:0.09, V = {theory.MAX_VOCABULARY:,}",
         lambda: theory.node_law("typical:0.09", edge_p, edge_q)),
        ("node_law multi-distinct:2, V = 10^6", lambda: theory.node_law("multi-distinct:2", big_p, big_q),
         "node_law multi-distinct:8, V = 8", lambda: theory.node_law("multi-distinct:8", p8, q8)),
        ("round_expectation multi-distinct:8, V = 9",
         lambda: theory.round_expectation(theory.RoundModels(lambda c: u9, lambda c: u9, 3,
                                                             verification="multi-distinct:8")),
         "round_expectation multi-distinct:8, V = 8",
         lambda: theory.round_expectation(theory.RoundModels(lambda c: p8, lambda c: q8, 1,
                                                             verification="multi-distinct:8"))),
        ("block pass, V = 4, depth 40", lambda: theory.expected_accepted_drafts(p4, q4, 40, "block"),
         "block pass, V = 4, depth 20", lambda: theory.expected_accepted_drafts(p4, q4, 20, "block")),
        ("block pass, V = 8, depth 100", lambda: theory.expected_accepted_drafts(p8, q8, 100, "block"),
         "block pass, V = 8, depth 10", lambda: theory.expected_accepted_drafts(p8, q8, 10, "block")),
        ("optimal_multi_draft, V = 10^6", lambda: theory.optimal_multi_draft(big_p, big_q, 3),
         f"optimal_multi_draft, V = {theory.MAX_VOCABULARY:,}",
         lambda: theory.optimal_multi_draft(edge_p, edge_q, 3)),
    ]
    rows = []
    for refused, refuse, answered, answer in cases:
        t_refused, got = seconds(refuse, repeats)
        t_answered, kept = seconds(answer, repeats)
        rows.append(f"| {refused} | {got} | {t_refused:.3f} | {answered} | {kept} | {t_answered:.3f} | "
                    f"{t_refused / max(t_answered, 1e-9):.4f} |")
    return rows


def growth_rows(repeats: int) -> list[str]:
    rows = []
    for label, call in (("optimal_multi_draft K = 3", lambda p, q: theory.optimal_multi_draft(p, q, 3)),
                        ("Medusa's typical law ε = 0.09", lambda p, q: theory.node_law("typical:0.09", p, q))):
        previous = None
        for vocab in (16_384, 32_768, 65_536, 131_072):
            p, q = pair(vocab, seed=vocab)
            t, _ = seconds(lambda p=p, q=q, call=call: call(p, q), repeats)
            ratio = f"{t / previous:.2f}" if previous else "(baseline)"
            rows.append(f"| {label} | {vocab:,} | {t:.3f} | {ratio} |")
            previous = t
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    print("\n## Theory within bounds: refusals against the largest answered request (CPU seconds, same run)\n")
    print("| refused request | answer | s | largest answered neighbour | answer | s | ratio |")
    print("|---|---|---:|---|---|---:|---:|")
    print("\n".join(refusal_rows(args.repeats)))
    print("\n## O(V log V) in the vocabulary: time at doubling V, ratio to the previous size (2 = V log V, "
          "4 = quadratic)\n")
    print("| computation | V | s | ratio |")
    print("|---|---:|---:|---:|")
    print("\n".join(growth_rows(args.repeats)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
