"""Benchmark of the exact core: one depth-5 verification with a rejection, from FP32 weights.

Prints a table of median wall times per vocabulary size for specviz and, where it
finishes in reasonable time, the reference oracle measured in the same run (pass
``--reference PATH``; by default ../shared/seed/reference_oracle.py is used when it
exists), the speed ratio, whether both gave the identical Result, and the peak
memory of a fresh process running the largest case beyond the interpreter and numpy.
The real-use rows time a round with a new p and q per position (arrays and lists)
against a float32 engine-style verifier on the same block, and BlockVerifier against
the tokenwise Verifier on the same block, and TreeVerifier (widths 2 and 3, i.i.d. and
distinct children) against the tokenwise Verifier on the same rows.

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
from functools import cache, partial
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


def interleaved(functions: dict, repeats: int) -> dict[str, float]:
    """The fastest of repeats runs of each function, the functions taking turns (the machine is shared)."""
    best = dict.fromkeys(functions, float("inf"))
    for _ in range(repeats):
        for name, fn in functions.items():
            start = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def peak_memory(vocab: int, path: str = "exact") -> dict:
    """Memory of a fresh process running one real-use round at vocab, beyond the interpreter and numpy.

    The rows (the FP32 probabilities a model hands the verifier, 2 x 6 rows) are built first and measured
    apart; then one round runs: path "exact" (propose + Verifier.verify, every p and q built from the rows) or
    "float" (the same round in float32, engine style, on the same draft tokens). Reports tracemalloc's peak of
    Python and numpy allocations during the round with and without the rows, and the growth of the
    resident-set high-water mark (reset before the round). The seed and the drafts come from this process, so
    the fresh one runs nothing before its round.
    """
    rows_p, rows_q, seed = real_use_block(vocab)
    result = exact_round(core, rows_p, rows_q, np.arange(vocab), seed)
    drafts = list(result.tokens[:result.accepted_drafts + 1] if result.rejected else result.tokens[:-1])
    code = f"""
import json, sys, tracemalloc
sys.path.insert(0, {str(ROOT)!r}); sys.path.insert(0, {str(ROOT / 'bench')!r})
import numpy as np
import core as bench

def status(key):
    for line in open('/proc/self/status'):
        if line.startswith(key):
            return int(line.split()[1]) / 1024

tracemalloc.start()
rows_p, rows_q = bench.softmax_rows({vocab}, 1)
ids = np.arange({vocab})
rows = tracemalloc.get_traced_memory()[0] / 2**20
tracemalloc.reset_peak()
base = status('VmRSS')
try:
    open('/proc/self/clear_refs', 'w').write('5')  # the high-water mark from here: the round alone
except OSError:
    pass
if {path!r} == "exact":
    bench.exact_round(bench.core, rows_p, rows_q, ids, {seed})
else:
    bench.float32_round(rows_p, rows_q, tuple({drafts!r}), np.random.default_rng({seed}))
peak = tracemalloc.get_traced_memory()[1] / 2**20
print(json.dumps({{"rows_mb": rows, "peak_mb": peak, "extra_mb": peak - rows, "base_mb": base,
                   "hwm_mb": status('VmHWM')}}))
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


def late_rejecting_seed(rows_p, rows_q) -> int:
    """The first seed whose block is rejected at position 2 or later (real use: a few drafts accepted)."""
    for seed in range(5000):
        result = run_once(core, rows_p, rows_q, seed, as_lists=False)
        if result.rejected and result.accepted_drafts >= 2:
            return seed
    raise RuntimeError("no late-rejecting seed found")


@cache
def real_use_block(vocab: int) -> tuple[list[np.ndarray], list[np.ndarray], int]:
    """The real-use rows at vocab and their first late-rejecting seed, found once for every table."""
    rows_p, rows_q = softmax_rows(vocab, 1)
    return rows_p, rows_q, late_rejecting_seed(rows_p, rows_q)


def exact_round(impl: ModuleType, p_rows, q_rows, ids, seed: int, verifier_class=None):
    """One exact round as a model loop runs it: a new q per draft position, a new p per check."""
    vocab = len(p_rows[0])
    verifier_class = verifier_class or impl.Verifier

    def target(prefix):
        return impl.fp32_weights(vocab, ids, p_rows[len(prefix)])

    def draft(prefix):
        return impl.fp32_weights(vocab, ids, q_rows[len(prefix)])

    owner = impl.Owner("bench", 0)
    verifier = verifier_class(owner, (), "bench", target)
    streams = impl.RandomStreams(seed, owner, 0)
    block = impl.propose(draft, (), streams, depth=DEPTH, context_id="bench")
    return verifier.verify(block, streams)


def block_verifier_row(vocab: int, args: argparse.Namespace) -> str:
    """BlockVerifier against the tokenwise Verifier on the same drafted block (arrays, real use)."""
    rows_p, rows_q, seed = real_use_block(vocab)
    ids = np.arange(vocab)
    seconds = interleaved({
        "token": partial(exact_round, core, rows_p, rows_q, ids, seed, core.Verifier),
        "block": partial(exact_round, core, rows_p, rows_q, ids, seed, core.BlockVerifier),
    }, args.repeats)
    token = exact_round(core, rows_p, rows_q, ids, seed, core.Verifier)
    block = exact_round(core, rows_p, rows_q, ids, seed, core.BlockVerifier)

    def kept(result) -> str:
        return f"{result.accepted_drafts} kept, {'corrected' if result.rejected else 'bonus'}"

    return (f"| {vocab} | {seconds['token'] * 1e3:.2f} | {seconds['block'] * 1e3:.2f} | "
            f"{seconds['block'] / seconds['token']:.2f}x | {kept(token)} | {kept(block)} |")


def real_use_models(p_rows, q_rows, vocab: int, ids):
    """Target and draft of the real-use rows: p and q depend on the position only (every branch alike)."""

    def target(prefix):
        return core.fp32_weights(vocab, ids, p_rows[len(prefix)])

    def draft(prefix):
        return core.fp32_weights(vocab, ids, q_rows[len(prefix)])

    return target, draft


def drafted_round(p_rows, q_rows, seed: int, width: int | None, distinct: bool = False):
    """(draft a Block (width None) or a Tree, verify it) once; returns (the drafted round, the Result)."""
    vocab = len(p_rows[0])
    target, draft = real_use_models(p_rows, q_rows, vocab, np.arange(vocab))
    owner = core.Owner("bench", 0)
    streams = core.RandomStreams(seed, owner, 0)
    if width is None:
        drafted = core.propose(draft, (), streams, depth=DEPTH, context_id="bench")
        return drafted, core.Verifier(owner, (), "bench", target).verify(drafted, streams)
    drafted = core.propose_tree(draft, (), streams, depth=DEPTH, width=width, distinct=distinct, context_id="bench")
    return drafted, core.TreeVerifier(owner, (), "bench", target).verify(drafted, streams)


def verify_only(p_rows, drafted, seed: int):
    """Verify an already drafted Block or Tree with fresh streams (the same draws as in its round)."""
    vocab = len(p_rows[0])
    target, _ = real_use_models(p_rows, p_rows, vocab, np.arange(vocab))
    owner = core.Owner("bench", 0)
    session = core.TreeVerifier if isinstance(drafted, core.Tree) else core.Verifier
    return session(owner, (), "bench", target).verify(drafted, core.RandomStreams(seed, owner, 0))


def tree_seed(p_rows, q_rows, width: int, distinct: bool) -> int:
    """The first seed whose tree round keeps 2 or more drafts and then rejects every child of a node."""
    for seed in range(2000):
        _, result = drafted_round(p_rows, q_rows, seed, width, distinct)
        if result.rejected and result.accepted_drafts >= 2:
            return seed
    raise RuntimeError("no late-rejecting tree seed found")


def tree_verifier_rows(vocab: int, args: argparse.Namespace) -> list[str]:
    """TreeVerifier against Verifier on the real-use rows: whole rounds, and verification alone."""
    rows_p, rows_q, seed = real_use_block(vocab)
    block, _ = drafted_round(rows_p, rows_q, seed, None)
    out = []
    for width, distinct in ((2, False), (2, True), (3, False), (3, True)):
        t_seed = tree_seed(rows_p, rows_q, width, distinct)
        tree, result = drafted_round(rows_p, rows_q, t_seed, width, distinct)
        seconds = interleaved({
            "token round": partial(drafted_round, rows_p, rows_q, seed, None),
            "tree round": partial(drafted_round, rows_p, rows_q, t_seed, width, distinct),
            "token verify": partial(verify_only, rows_p, block, seed),
            "tree verify": partial(verify_only, rows_p, tree, t_seed),
        }, args.repeats)
        checks = len(tree.nodes())
        kind = "distinct" if distinct else "i.i.d."
        out.append(
            f"| {vocab} | {width} {kind} | {checks} | {seconds['token round'] * 1e3:.1f} | "
            f"{seconds['tree round'] * 1e3:.1f} | {seconds['tree round'] / seconds['token round']:.1f}x | "
            f"{seconds['token verify'] * 1e3:.2f} | {seconds['tree verify'] * 1e3:.2f} | "
            f"{seconds['tree verify'] / seconds['token verify']:.2f}x | {result.accepted_drafts} kept, corrected |")
    return out


def float32_round(p_rows: list[np.ndarray], q_rows: list[np.ndarray], drafts: tuple[int, ...],
                  rng: np.random.Generator) -> list[int]:
    """The same round written the way engines write it, in float32, verifying the same draft tokens.

    Per position: normalize q and draw a draft (cumsum, searchsorted; the exact block's token is
    the one verified), normalize p, accept if u < p/q; at the first rejection draw from (p - q)+
    by cumsum and searchsorted; after all acceptances draw the bonus from p the same way.
    """
    out = []
    for position, token in enumerate(drafts):
        q = q_rows[position] / q_rows[position].sum(dtype=np.float32)
        np.searchsorted(np.cumsum(q), np.float32(rng.random()) * q.sum(), side="right")  # drafting
        p = p_rows[position] / p_rows[position].sum(dtype=np.float32)
        if np.float32(rng.random()) < p[token] / q[token]:
            out.append(token)
            continue
        running = np.cumsum(np.maximum(p - q, np.float32(0)))
        out.append(int(np.searchsorted(running, np.float32(rng.random()) * running[-1], side="right")))
        return out
    p = p_rows[len(drafts)] / p_rows[len(drafts)].sum(dtype=np.float32)
    running = np.cumsum(p)
    out.append(int(np.searchsorted(running, np.float32(rng.random()) * running[-1], side="right")))
    return out


class _Recorded(list):
    """A list of rows that notes which rows a round reads (each read is one distribution built)."""

    def __init__(self, rows, reads: list[int]):
        super().__init__(rows)
        self.reads = reads

    def __getitem__(self, index):
        self.reads.append(index)
        return super().__getitem__(index)


def list_floor_row(vocab: int, args: argparse.Namespace) -> str:
    """How far lists can come to arrays at all: one C pass over the Python floats a round reads.

    ``sum`` walks a list in C, reading each float once and storing nothing; no conversion that
    also checks each element's type and keeps its value can be cheaper. Its time over the lists
    one real-use round reads, against the arrays' whole round, bounds lists / arrays from below.
    """
    rows_p, rows_q, seed = real_use_block(vocab)
    list_p, list_q = [r.tolist() for r in rows_p], [r.tolist() for r in rows_q]
    reads_p: list[int] = []
    reads_q: list[int] = []
    exact_round(core, _Recorded(list_p, reads_p), _Recorded(list_q, reads_q), range(vocab), seed)
    # exact_round reads p_rows[0] once for the vocabulary size; every other read builds a distribution
    read = [list_p[i] for i in reads_p[1:]] + [list_q[i] for i in reads_q]

    def one_pass() -> None:
        for row in read:
            sum(row)

    seconds = interleaved({"arrays": partial(exact_round, core, rows_p, rows_q, np.arange(vocab), seed),
                           "pass": one_pass}, args.repeats)
    floor = 1 + seconds["pass"] / seconds["arrays"]
    return (f"| {vocab} | {len(read)} | {seconds['arrays'] * 1e3:.2f} | {seconds['pass'] * 1e3:.2f} | "
            f"{floor:.2f}x |")


def block_rows(vocab: int, reference: ModuleType | None, args: argparse.Namespace) -> list[str]:
    """Rows for one vocabulary: arrays and lists, new p and q per position, against float32 on the same block."""
    rows_p, rows_q, seed = real_use_block(vocab)
    list_p, list_q = [r.tolist() for r in rows_p], [r.tolist() for r in rows_q]
    ids_array, ids_tuple = np.arange(vocab), tuple(range(vocab))
    seconds = interleaved({
        "arrays": partial(exact_round, core, rows_p, rows_q, ids_array, seed),
        "tuple": partial(exact_round, core, list_p, list_q, ids_tuple, seed),
        "range": partial(exact_round, core, list_p, list_q, range(vocab), seed),
    }, args.repeats)
    exact_arrays, exact_lists, exact_range = seconds["arrays"], seconds["tuple"], seconds["range"]
    result = exact_round(core, rows_p, rows_q, ids_array, seed)
    list_result = exact_round(core, list_p, list_q, ids_tuple, seed)
    range_result = exact_round(core, list_p, list_q, range(vocab), seed)
    drafts = result.tokens[:result.accepted_drafts + 1] if result.rejected else result.tokens[:-1]
    rng = np.random.default_rng(seed)
    float_time = min(interleaved({"float": partial(float32_round, rows_p, rows_q, drafts, rng),
                                  "arrays": partial(exact_round, core, rows_p, rows_q, ids_array, seed)},
                                 args.repeats)["float"] for _ in range(3))
    assert result == list_result == range_result, "lists and arrays must give the identical Result"
    same_cell = "not timed"
    if reference is not None and vocab <= args.reference_max_vocab:
        ref_result = exact_round(reference, list_p, list_q, ids_tuple, seed)
        same = (tuple(ref_result.tokens), ref_result.accepted_drafts, ref_result.rejected, ref_result.stopped)
        same_cell = "yes" if same == (result.tokens, result.accepted_drafts, result.rejected,
                                      result.stopped) else "NO"
    where = f"rejected at {result.accepted_drafts}" if result.rejected else "all accepted"
    return [
        f"| {vocab} | arrays | {where} | {exact_arrays * 1e3:.2f} | {float_time * 1e3:.2f} | "
        f"{exact_arrays / float_time:.1f}x | - | {same_cell} |",
        f"| {vocab} | lists, tuple ids | {where} | {exact_lists * 1e3:.2f} | {float_time * 1e3:.2f} | "
        f"{exact_lists / float_time:.1f}x | {exact_lists / exact_arrays:.2f}x | {same_cell} |",
        f"| {vocab} | lists, range ids | {where} | {exact_range * 1e3:.2f} | {float_time * 1e3:.2f} | "
        f"{exact_range / float_time:.1f}x | {exact_range / exact_arrays:.2f}x | {same_cell} |",
    ]


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


def print_table(caption: str, header: str, align: str, rows: list[str]) -> None:
    """A caption, then a markdown table: the header, its alignment row, the rows."""
    print()
    print(caption)
    print()
    for line in (header, align, *rows):
        print(line)


def print_tree_table(args: argparse.Namespace) -> None:
    print_table(f"tree verification (recursive rejection sampling) against tokenwise on the same real-use rows, "
                f"depth {DEPTH}: a round = draft + verify (a full tree drafts a q at every inner node), verify = "
                f"verification alone of the drafted block or tree; each tree seed keeps 2 or more drafts and then "
                f"rejects every child of a node; fastest of {args.repeats}, interleaved",
                "| V | width | tree nodes | Verifier round (ms) | TreeVerifier round (ms) | round ratio | "
                "Verifier verify (ms) | TreeVerifier verify (ms) | verify ratio | tree |",
                "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|",
                [row for vocab in args.tree_sizes for row in tree_verifier_rows(vocab, args)])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[8192, 49152, 151936, 262144],
                        help="vocabularies (SmolLM2 49,152, Qwen 151,936, Gemma 3 262,144)")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--tree-sizes", type=int, nargs="+", default=[49152],
                        help="vocabularies of the TreeVerifier table (a depth-5 tree drafts 31 to 121 q's)")
    parser.add_argument("--only-trees", action="store_true", help="print the TreeVerifier table alone")
    parser.add_argument("--reference", type=Path, default=DEFAULT_REFERENCE)
    parser.add_argument("--reference-max-vocab", type=int, default=8192,
                        help="largest vocabulary the O(V^2) reference is timed at")
    args = parser.parse_args()
    reference = load_reference(args.reference)
    if args.only_trees:
        print_tree_table(args)
        return 0
    print(f"exact core benchmark: depth-{DEPTH} block with a rejection, p and q built from FP32 weights; "
          f"median of {args.repeats}")
    print()
    print("| V | specviz (ms) | reference (ms) | speed-up | identical Result |")
    print("|---:|---:|---:|---:|:---:|")
    for vocab in args.sizes:
        print(table_row(vocab, reference, args))
    print()
    print(f"real use: a new p and q per position from FP32 weights, depth {DEPTH}, rejection at position 2 or "
          f"later; exact = propose + verify (every q and p built from the weights); float32 = the same round "
          f"normalized and verified in float32 on the same draft tokens; fastest of {args.repeats}, interleaved")
    print()
    print("| V | weights | block | exact (ms) | float32 (ms) | exact / float32 | lists / arrays | identical Result |")
    print("|---:|---|---|---:|---:|---:|---:|:---:|")
    for vocab in args.sizes:
        for row in block_rows(vocab, reference, args):
            print(row)
    print_table("the floor for lists: a round must read every Python float of every list it builds a "
                "distribution from; one sum() over those lists (C, reads each float once, keeps nothing) against "
                f"the arrays' whole round, fastest of {args.repeats}, interleaved",
                "| V | lists read | arrays round (ms) | one C pass over the lists (ms) | lowest lists / arrays |",
                "|---:|---:|---:|---:|---:|", [list_floor_row(vocab, args) for vocab in args.sizes])
    print_table(f"block verification (Sun et al. 2025) on the same real-use block: BlockVerifier needs the scaled "
                f"residual mass at every position; fastest of {args.repeats}, interleaved",
                "| V | Verifier (ms) | BlockVerifier (ms) | block / tokenwise | tokenwise | block |",
                "|---:|---:|---:|---:|---|---|", [block_verifier_row(vocab, args) for vocab in args.sizes])
    print_tree_table(args)
    print()
    ours_toy = statistics.median(toy_rounds_per_second(core, 2000) for _ in range(3))
    if reference is not None:
        ref_toy = statistics.median(toy_rounds_per_second(reference, 2000) for _ in range(3))
        print(f"toy rounds (V=8, depth 3): specviz {ours_toy:,.0f} rounds/s, reference {ref_toy:,.0f} rounds/s "
              f"({ours_toy / ref_toy:.1f}x)")
    else:
        print(f"toy rounds (V=8, depth 3): specviz {ours_toy:,.0f} rounds/s")
    largest = max(args.sizes)
    exact, floats = peak_memory(largest, "exact"), peak_memory(largest, "float")
    exact_rss, float_rss = exact["hwm_mb"] - exact["base_mb"], floats["hwm_mb"] - floats["base_mb"]
    print()
    print(f"memory of one real-use round at V={largest} (fresh processes; tracemalloc's peak during the round; the "
          f"FP32 rows both rounds read, {exact['rows_mb']:.1f} MB, built before it): exact {exact['peak_mb']:.1f} MB "
          f"with the rows ({exact['extra_mb']:.1f} MB beyond them), float32 {floats['peak_mb']:.1f} MB "
          f"({floats['extra_mb']:.1f} MB beyond them): exact / float32 {exact['peak_mb'] / floats['peak_mb']:.2f}x "
          f"with the rows, {exact['extra_mb'] / max(floats['extra_mb'], 1e-9):.2f}x beyond them; resident high-water "
          f"growth during the round {exact_rss:.1f} MB and {float_rss:.1f} MB")
    if reference is None:
        print(f"(reference not found at {args.reference}: reference columns left empty)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
