"""Benchmark of the exact core: one depth-5 verification with a rejection, from FP32 weights.

Prints a table of median wall times per vocabulary size for specviz and, where it
finishes in reasonable time, the reference oracle measured in the same run (pass
``--reference PATH``; by default ../shared/seed/reference_oracle.py is used when it
exists), the speed ratio, whether both gave the identical Result, and the peak
memory of a fresh process running the largest case beyond the interpreter and numpy.

    python bench/core.py                  # all sizes
    python bench/core.py --sizes 8192 --repeats 5
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import time
from functools import partial
from pathlib import Path
from types import ModuleType

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from specviz import core  # noqa: E402

DEFAULT_REFERENCE = ROOT.parent / "shared" / "seed" / "reference_oracle.py"
DEPTH = 5


def load_reference(path: Path) -> ModuleType | None:
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location("reference_oracle", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["reference_oracle"] = module
    spec.loader.exec_module(module)
    return module


def softmax_rows(vocab: int, seed: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """FP32 probability rows shaped like a language model's: heavy head, tail over many exponents."""
    rng = np.random.default_rng(seed)
    rows_p, rows_q = [], []
    for _ in range(DEPTH + 1):
        logits = rng.standard_normal(vocab) * 3.0
        logits[rng.integers(0, vocab, 20)] += 12.0
        draft = logits + rng.standard_normal(vocab) * 1.5
        for target, source in ((rows_p, logits), (rows_q, draft)):
            e = np.exp(source - source.max())
            target.append((e / e.sum()).astype(np.float32))
    return rows_p, rows_q


def run_once(impl: ModuleType, rows_p, rows_q, seed: int, as_lists: bool):
    """Build p and q from FP32 weights inside the models, draft 5 tokens, verify; return the Result."""
    vocab = rows_p[0].size
    ids = list(range(vocab)) if as_lists else range(vocab)
    p_rows = [r.tolist() for r in rows_p] if as_lists else rows_p
    q_rows = [r.tolist() for r in rows_q] if as_lists else rows_q

    def target(prefix):
        return impl.fp32_weights(vocab, ids, p_rows[len(prefix) % len(p_rows)])

    def draft(prefix):
        return impl.fp32_weights(vocab, ids, q_rows[len(prefix) % len(q_rows)])

    owner = impl.Owner("bench", 0)
    verifier = impl.Verifier(owner, (), "bench", target)
    streams = impl.RandomStreams(seed, owner, 0)
    block = impl.propose(draft, (), streams, depth=DEPTH, context_id="bench")
    return verifier.verify(block, streams)


def rejecting_seed(rows_p, rows_q) -> int:
    """The first seed whose depth-5 block contains a rejection (the expensive path)."""
    for seed in range(1000):
        if run_once(core, rows_p, rows_q, seed, as_lists=False).rejected:
            return seed
    raise RuntimeError("no rejecting seed found")


def timed(fn, repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def peak_memory(vocab: int) -> dict:
    """Memory of a fresh process running one verification at vocab, beyond the interpreter and numpy.

    Reports the growth of the resident-set high-water mark (reset after importing
    numpy) and tracemalloc's peak of Python and numpy allocations during the run.
    """
    code = f"""
import json, sys, tracemalloc
sys.path.insert(0, {str(ROOT)!r}); sys.path.insert(0, {str(ROOT / 'bench')!r})
import numpy as np

def status(key):
    for line in open('/proc/self/status'):
        if line.startswith(key):
            return int(line.split()[1]) / 1024

base = status('VmRSS')
try:
    open('/proc/self/clear_refs', 'w').write('5')  # reset the high-water mark
except OSError:
    pass
tracemalloc.start()
import core as bench
rows_p, rows_q = bench.softmax_rows({vocab}, 1)
seed = bench.rejecting_seed(rows_p, rows_q)
bench.run_once(bench.core, rows_p, rows_q, seed, as_lists=False)
traced = tracemalloc.get_traced_memory()[1] / 2**20
print(json.dumps({{"base_mb": base, "hwm_mb": status('VmHWM'), "traced_mb": traced}}))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def table_row(vocab: int, reference: ModuleType | None, args: argparse.Namespace) -> str:
    """One markdown row: specviz's median, the reference's where affordable, ratio, identical Result."""
    rows_p, rows_q = softmax_rows(vocab, 1)
    seed = rejecting_seed(rows_p, rows_q)
    ours, result = timed(partial(run_once, core, rows_p, rows_q, seed, as_lists=False), args.repeats)
    ref_cell, ratio_cell, same_cell = "-", "-", "-"
    if reference is not None and vocab <= args.reference_max_vocab:
        repeats = max(1, min(3, args.repeats))
        ref_time, ref_result = timed(partial(run_once, reference, rows_p, rows_q, seed, as_lists=True), repeats)
        ref_cell, ratio_cell = f"{ref_time * 1e3:.0f}", f"{ref_time / ours:.0f}x"
        same = (tuple(ref_result.tokens), ref_result.accepted_drafts, ref_result.rejected, ref_result.stopped)
        same_cell = "yes" if same == (result.tokens, result.accepted_drafts, result.rejected, result.stopped) else "NO"
    return f"| {vocab} | {ours * 1e3:.1f} | {ref_cell} | {ratio_cell} | {same_cell} |"


def toy_rounds_per_second(impl: ModuleType, rounds: int) -> float:
    """Rounds/s of a fresh session per round at V=8, depth 3, integer weights (the lecture-size case)."""
    target_weights, draft_weights = (5, 3, 2, 2, 1, 1, 1, 1), (3, 3, 3, 2, 2, 1, 1, 1)

    def target(prefix):
        return impl.Categorical(8, range(8), target_weights)

    def draft(prefix):
        return impl.Categorical(8, range(8), draft_weights)

    owner = impl.Owner("toy", 0)
    start = time.perf_counter()
    for seed in range(rounds):
        verifier = impl.Verifier(owner, (), "toy", target)
        streams = impl.RandomStreams(seed, owner, 0)
        verifier.verify(impl.propose(draft, (), streams, depth=3, context_id="toy"), streams)
    return rounds / (time.perf_counter() - start)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[8192, 49152, 151936])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE)
    parser.add_argument("--reference-max-vocab", type=int, default=8192,
                        help="largest vocabulary the O(V^2) reference is timed at")
    args = parser.parse_args()
    reference = load_reference(args.reference)
    print(f"exact core benchmark: depth-{DEPTH} block with a rejection, p and q built from FP32 weights; "
          f"median of {args.repeats}")
    print()
    print("| V | specviz (ms) | reference (ms) | speed-up | identical Result |")
    print("|---:|---:|---:|---:|:---:|")
    for vocab in args.sizes:
        print(table_row(vocab, reference, args))
    print()
    ours_toy = statistics.median(toy_rounds_per_second(core, 2000) for _ in range(3))
    if reference is not None:
        ref_toy = statistics.median(toy_rounds_per_second(reference, 2000) for _ in range(3))
        print(f"toy rounds (V=8, depth 3): specviz {ours_toy:,.0f} rounds/s, reference {ref_toy:,.0f} rounds/s "
              f"({ours_toy / ref_toy:.1f}x)")
    else:
        print(f"toy rounds (V=8, depth 3): specviz {ours_toy:,.0f} rounds/s")
    largest = max(args.sizes)
    memory = peak_memory(largest)
    print()
    print(f"memory at V={largest} (fresh process, includes building the test rows): resident peak "
          f"{memory['hwm_mb'] - memory['base_mb']:.0f} MB beyond the interpreter and numpy "
          f"({memory['base_mb']:.0f} MB after importing numpy); tracemalloc peak {memory['traced_mb']:.0f} MB")
    if reference is None:
        print(f"(reference not found at {args.reference}: reference columns left empty)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
