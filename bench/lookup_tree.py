"""Does a draft tree pay on this machine? Plain vs chain vs tree (width 2 and 3), prompt lookup and a model draft.

    .venv/bin/python bench/lookup_tree.py [--model smollm2] [--max-new-tokens 40] [--repeats 5] [--threads 1]
                                          [--prompts copy,list] [--drafts lookup:3,early-exit:8] [--device cpu]

Two prompts: the copy preset's (specviz.models.model_presets: the n-gram continuations agree) and a list whose
lines share beginnings (``LIST_PROMPT``: after "The red fox ran to the" the earlier lines continue
"barn", "river" and "hill", so the n-gram continuations disagree). For each prompt and draft: plain
sampling through the exact core, the draft as a chain and as a tree of width 2 and 3 (the target scores the
whole tree in one pass with a tree attention mask), each under the rule the race runs: prompt lookup by exact
match (``exact-match``, ``exact-match:K``: the lookup tree's rule), a model draft by tokenwise verification and
recursive rejection sampling (``token``, ``multi-distinct:K``).
Every row runs once per repeat, interleaved (the order rotates each repeat); a row's figure is the
median over repeats of its wall speedup against plain *in the same repeat* (the machine is shared),
the same ratio in process CPU time (less sensitive to other processes on a shared machine than wall
time; run with --threads 1 so that no thread spins waiting for a descheduled one), the tree's wall
time against the chain's in the same repeat, and its peak memory: on a GPU
``torch.cuda.max_memory_allocated`` above the run's start, on the CPU the C heap's bytes in live
allocations (glibc's mallinfo2, where torch's CPU tensors live) above the run's start, sampled every
2 ms (a short-lived peak between samples can be missed). Tokens per target pass and nodes per pass
are counts, the same on every repeat. Prints a text table, then the same table as markdown, then
what a target pass over k tokens costs.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import sys
import threading
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402
from tables import print_markdown  # noqa: E402  (bench/tables.py: run as a script, its folder is on sys.path)

from specviz.models import load_model, parse_draft  # noqa: E402
from specviz.models.cost import measure_costs  # noqa: E402
from specviz.models.model_presets import DEFAULT, LIST_PROMPT  # noqa: E402
from specviz.models.round_loop import GenerationSettings, Session  # noqa: E402
from specviz.models.target import encode_prompt  # noqa: E402

WIDTHS = (2, 3)
MODEL_DEPTH = 3  # a model draft's tree is full: width 3 at depth 3 is 39 nodes a round
PROMPTS = {"copy": DEFAULT.prompt, "list": LIST_PROMPT}


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                      "fsmblks", "uordblks", "fordblks", "keepcost")]


def heap_in_use() -> int:
    """Bytes the C heap holds for live allocations (glibc's mallinfo2: in-use chunks + mmapped blocks).

    torch's CPU tensors come from this heap; unlike the resident set size, it drops when they are freed.
    """
    info = _MALLINFO2()
    return int(info.uordblks + info.hblkhd)


try:
    _MALLINFO2 = ctypes.CDLL("libc.so.6").mallinfo2
    _MALLINFO2.restype = _MallInfo2
except (OSError, AttributeError):  # not glibc: the resident set size instead (it never shrinks: a rough figure)
    def heap_in_use() -> int:  # type: ignore[misc]
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class PeakMemory:
    """Peak memory above the start of a run: CUDA's allocator counter, or the C heap in use (sampled)."""

    def __init__(self, device: torch.device):
        self.device = device
        self.peak = self.start = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> PeakMemory:
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
            torch.cuda.reset_peak_memory_stats(self.device)
            self.start = torch.cuda.memory_allocated(self.device)
            return self
        self.start = self.peak = heap_in_use()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(0.002):
            self.peak = max(self.peak, heap_in_use())

    def __exit__(self, *exc) -> None:
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
            self.peak = torch.cuda.max_memory_allocated(self.device)
            return
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, heap_in_use())

    @property
    def mb(self) -> float:
        return (self.peak - self.start) / 2**20


def rows_for(draft: str) -> list[tuple[str, str | None, str]]:
    """(row name, draft or None, verification) for plain, the chain and the trees of one draft: prompt lookup by
    exact match (its tree's rule), a model draft by tokenwise verification and recursive rejection sampling."""
    chain, tree = ("exact-match", "exact-match:{k}") if draft.startswith("lookup") else ("token", "multi-distinct:{k}")
    return ([("plain", None, "token"), (f"{draft} chain", draft, chain)]
            + [(f"{draft} tree ×{k}", draft, tree.format(k=k)) for k in WIDTHS])


def settings_for(draft: str | None, verification: str, seed: int, tokens: int) -> GenerationSettings:
    """The copy preset's settings (temperature, depth); a model draft drafts full trees, so a shallower depth."""
    depth = DEFAULT.depth if draft is None or draft.startswith("lookup") else MODEL_DEPTH
    return DEFAULT.settings(seed=seed, ignore_eos=True, max_new_tokens=tokens, depth=depth,
                            verification=verification)


def timed(target, prompt, draft: str | None, settings: GenerationSettings) -> dict:
    """One run: wall time, counts and peak memory."""
    session = Session(target, None if draft is None else parse_draft(draft), settings, prompt, top_n=None)
    with PeakMemory(target.device) as memory:
        began, cpu = time.perf_counter(), time.process_time()
        gen = session.run()
        seconds, cpu_seconds = time.perf_counter() - began, time.process_time() - cpu
    drafting = [r for r in gen.rounds if not r.plain]
    passes = sum(r.target_forwards for r in gen.rounds)
    drafting_passes = sum(r.target_forwards for r in drafting)
    return {"seconds": seconds, "cpu_seconds": cpu_seconds, "tokens": len(gen.tokens), "passes": passes,
            "rounds": len(gen.rounds),
            "nodes_per_pass": sum(r.nodes for r in drafting) / drafting_passes if drafting_passes else 0.0,
            "accepted": sum(r.accepted for r in drafting) / len(drafting) if drafting else 0.0,
            "memory_mb": memory.mb, "scoring": gen.tree_scoring.words if gen.tree_scoring else "-"}


def bench(target, prompts: dict, drafts: list[str], repeats: int, tokens: int, seed: int) -> list[list[str]]:
    """Every prompt and draft, rows interleaved per repeat; one table row per (prompt, row)."""
    table = []
    for prompt_name, prompt in prompts.items():
        for draft in drafts:
            rows = rows_for(draft)
            runs: dict[str, list[dict]] = {name: [] for name, _, _ in rows}
            for repeat in range(repeats):
                shift = repeat % len(rows)
                for name, row_draft, verification in rows[shift:] + rows[:shift]:
                    result = timed(target, prompt, row_draft, settings_for(row_draft, verification, seed, tokens))
                    runs[name].append(result)
                    print(f"# {prompt_name} {name}: {result['seconds']:.2f} s, {result['tokens']} tokens",
                          file=sys.stderr, flush=True)
            table += table_rows(prompt_name, rows, runs)
    return table


def table_rows(prompt_name: str, rows, runs: dict[str, list[dict]]) -> list[list[str]]:
    """Each row's median speedup against plain in the same repeat, and its counts."""
    out = []
    plain = runs["plain"]
    chain_name = rows[1][0]
    for name, _, _ in rows:
        mine = runs[name]
        speedups = [p["seconds"] / m["seconds"] for p, m in zip(plain, mine)]
        cpu = [p["cpu_seconds"] / m["cpu_seconds"] for p, m in zip(plain, mine)]
        over_chain = [c["seconds"] / m["seconds"] for c, m in zip(runs[chain_name], mine)]
        first = mine[0]
        out.append([prompt_name, name, f"{first['tokens'] / first['passes']:.2f}",
                    f"{first['nodes_per_pass']:.1f}" if name != "plain" else "-",
                    f"{statistics.median(speedups):.2f}x ({min(speedups):.2f}–{max(speedups):.2f})",
                    f"{statistics.median(cpu):.2f}x",
                    f"{statistics.median(over_chain):.2f}x" if name != "plain" else "-",
                    f"{statistics.median(m['memory_mb'] for m in mine):.1f}",
                    f"{first['accepted']:.2f}" if name != "plain" else "-"])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--max-new-tokens", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=5, help="interleaved runs of every row; medians are shown")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--prompts", default="copy,list", help=f"comma-separated, of {', '.join(PROMPTS)}")
    parser.add_argument("--drafts", default="lookup:3,early-exit:8", help="comma-separated drafts")
    parser.add_argument("--device", default=None, help="cpu, cuda, ... (default: the best available)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    target = load_model(args.model, args.device)
    prompts = {name: encode_prompt(target.tokenizer, PROMPTS[name], chat=target.is_chat)
               for name in args.prompts.split(",")}
    drafts = args.drafts.split(",")
    print(f"# {args.model} on {target.device_name} ({target.dtype}), {args.threads} threads; copy preset settings "
          f"(temperature {DEFAULT.temperature:g}; depth {DEFAULT.depth} for lookup, {MODEL_DEPTH} for a model draft), "
          f"{args.max_new_tokens} new tokens, {args.repeats} interleaved repeats; prompts of "
          + ", ".join(f"{name} {len(p)}" for name, p in prompts.items()) + " tokens", file=sys.stderr, flush=True)
    table = bench(target, prompts, drafts, args.repeats, args.max_new_tokens, args.seed)
    header = ["prompt", "method", "tokens per target pass", "drafted nodes per pass",
              "wall speedup vs plain (median, range)", "CPU-time speedup vs plain", "wall vs the chain",
              "peak memory MB", "accepted per drafting round"]
    widths = [max(len(x[i]) for x in [header, *table]) for i in range(len(header))]
    for line in [header, *table]:
        print("  ".join(cell.ljust(w) for cell, w in zip(line, widths)))
    cost = measure_costs(target, [], max_tokens=9, use_cache=False, widest=40)  # what a wider pass costs
    passes = ", ".join(f"{k}: {cost.pass_ratio(k):.2f}" for k in (1, 2, 4, 6, 8, 16, 32, 40))
    print(f"a target pass over k new tokens, in single-token passes ({passes}); single pass "
          f"{1000 * cost.pass_s(1):.1f} ms")
    print()
    print_markdown(header, table)


if __name__ == "__main__":
    main()
