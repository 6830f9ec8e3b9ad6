"""SmolLM2 (49,152 tokens) and Gemma 3 270M (262,144 tokens) side by side: load time, memory, tokens per second.

    .venv/bin/python bench/two_models.py [--repeats 3] [--max-new-tokens 48] [--threads 1]

Loads: each model in a fresh process, the two alternated `--loads` times (the first load of a process also
imports torch and transformers; said apart): wall seconds of ``load_model`` (Gemma's includes checking the
assembled file's sha256; a first assembly is said apart) and the process's resident set after the load and at
its peak over the load (de-quantizing holds copies) and one 48-token generation. Speeds: both models in one
process, every row run once per repeat, the rows interleaved (the order rotating, the machine is shared), one
torch thread: plain sampling through the exact core, prompt lookup as a chain (exact match) and as a tree of
width 3 (exact match), on the copy preset's prompt and settings (temperature 0.5, depth 5) and on a list whose
lines share beginnings, stop tokens ignored. Each figure is the median over repeats; speedups are against the
same model's plain run in the same repeat, and Gemma's plain speed against SmolLM2's in the same repeat. Prints
the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MODELS = ("smollm2", "gemma3-270m")
ROWS = (("plain", None, "token"), ("lookup chain", "lookup:3", "exact-match"),
        ("lookup tree ×3", "lookup:3", "exact-match:3"))
LOAD_CODE = """
import json, os, sys, time
sys.path.insert(0, {root!r})
os.environ.setdefault("HF_HUB_OFFLINE", "1")
began = time.perf_counter()
import torch
torch.set_num_threads({threads})
from specviz.models import GenerationSettings, Session, load_model
from specviz.models.model_presets import DEFAULT
imported = time.perf_counter() - began

def status(key):
    for line in open('/proc/self/status'):
        if line.startswith(key):
            return int(line.split()[1]) / 1024

model = load_model({model!r}, "cpu")
after_load = status("VmRSS")
session = Session(model, None, DEFAULT.settings(seed=1, ignore_eos=True, max_new_tokens=48), DEFAULT.prompt)
session.run()
print(json.dumps({{"imports_s": imported, "load_s": model.load_seconds, "rss_after_load_mb": after_load,
                   "peak_rss_mb": status("VmHWM"), "vocab": model.vocab_size}}))
"""


def load_once(model: str, threads: int) -> dict:
    """One fresh process: imports, the load, the resident set after it and at its peak over one generation."""
    code = LOAD_CODE.format(root=str(ROOT), threads=threads, model=model)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def loads(repeats: int, threads: int) -> dict[str, list[dict]]:
    found: dict[str, list[dict]] = {m: [] for m in MODELS}
    for repeat in range(repeats):
        for model in (MODELS if repeat % 2 == 0 else MODELS[::-1]):
            found[model].append(load_once(model, threads))
            print(f"# load {model}: {found[model][-1]}", file=sys.stderr, flush=True)
    return found


def speeds(repeats: int, tokens: int, threads: int) -> tuple[dict, dict, dict]:
    """tokens/s per (model, prompt, row) over the repeats, and tokens per target pass."""
    import torch

    from specviz.models import Session, load_model, parse_draft
    from specviz.models.model_presets import DEFAULT, LIST_PROMPT
    from specviz.models.target import encode_prompt

    torch.set_num_threads(threads)
    loaded = {m: load_model(m, "cpu") for m in MODELS}
    prompts = {(m, name): encode_prompt(loaded[m].tokenizer, text, chat=loaded[m].is_chat)
               for m in MODELS for name, text in (("copy", DEFAULT.prompt), ("list", LIST_PROMPT))}
    cells = [(m, p, row) for m in MODELS for p in ("copy", "list") for row in ROWS]
    rates: dict[tuple, list[float]] = {(m, p, r[0]): [] for m, p, r in cells}
    per_pass: dict[tuple, list[float]] = {(m, p, r[0]): [] for m, p, r in cells}
    cpu_rates: dict[tuple, list[float]] = {(m, p, r[0]): [] for m, p, r in cells}
    for repeat in range(repeats):
        shift = repeat % len(cells)
        for model, prompt, (name, draft, verification) in cells[shift:] + cells[:shift]:
            settings = DEFAULT.settings(seed=1 + repeat, ignore_eos=True, max_new_tokens=tokens,
                                        verification=verification)
            session = Session(loaded[model], None if draft is None else parse_draft(draft), settings,
                              prompts[(model, prompt)], top_n=None)
            began, cpu = time.perf_counter(), time.process_time()
            gen = session.run()
            seconds, cpu_seconds = time.perf_counter() - began, time.process_time() - cpu
            rates[(model, prompt, name)].append(len(gen.tokens) / seconds)
            cpu_rates[(model, prompt, name)].append(len(gen.tokens) / cpu_seconds)
            per_pass[(model, prompt, name)].append(len(gen.tokens) / sum(r.target_forwards for r in gen.rounds))
            print(f"# {model} {prompt} {name}: {len(gen.tokens) / seconds:.1f} tokens/s", file=sys.stderr, flush=True)
    return rates, per_pass, cpu_rates


def ratio_text(values: list[float]) -> str:
    return f"{statistics.median(values):.2f}x ({min(values):.2f}–{max(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--loads", type=int, default=2, help="fresh-process loads of each model, alternated")
    parser.add_argument("--max-new-tokens", type=int, default=48)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    before = os.getloadavg()
    found = loads(args.loads, args.threads)
    print(f"loads ({args.loads} fresh processes per model, alternated; load average {before[0]:.2f} at the start):")
    for model in MODELS:
        runs = found[model]
        each = ", ".join(f"{r['load_s']:.1f}" for r in runs)
        print(f"  {model} (vocabulary {runs[0]['vocab']:,}): load_model "
              f"{statistics.median(r['load_s'] for r in runs):.1f} s median ({each}), after importing torch and "
              f"transformers in "
              f"{statistics.median(r['imports_s'] for r in runs):.1f} s; resident set after the load "
              f"{statistics.median(r['rss_after_load_mb'] for r in runs):.0f} MB, peak over the load and a 48-token "
              f"generation "
              f"{statistics.median(r['peak_rss_mb'] for r in runs):.0f} MB")
    rates, per_pass, cpu_rates = speeds(args.repeats, args.max_new_tokens, args.threads)
    after = os.getloadavg()
    header = ["model", "prompt", "method", "tokens/s (median)", "speedup vs plain (median, range)",
              "tokens per CPU second (median)", "CPU-time speedup vs plain", "tokens per target pass"]
    rows = []
    for model in MODELS:
        for prompt in ("copy", "list"):
            plain, plain_cpu = rates[(model, prompt, "plain")], cpu_rates[(model, prompt, "plain")]
            for name, _, _ in ROWS:
                mine, mine_cpu = rates[(model, prompt, name)], cpu_rates[(model, prompt, name)]
                rows.append([model, prompt, name, f"{statistics.median(mine):.1f}",
                             ratio_text([m / p for m, p in zip(mine, plain)]) if name != "plain" else "1.00x",
                             f"{statistics.median(mine_cpu):.1f}",
                             ratio_text([m / p for m, p in zip(mine_cpu, plain_cpu)]) if name != "plain" else "1.00x",
                             f"{statistics.mean(per_pass[(model, prompt, name)]):.2f}"])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    print()
    for line in [header, *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(line, widths)))
    gemma_over = [g / s for g, s in zip(rates[("gemma3-270m", "copy", "plain")], rates[("smollm2", "copy", "plain")])]
    gemma_cpu = [g / s for g, s in zip(cpu_rates[("gemma3-270m", "copy", "plain")],
                                       cpu_rates[("smollm2", "copy", "plain")])]
    print(f"\nGemma's plain speed over SmolLM2's, same repeat (copy prompt): {ratio_text(gemma_over)} (CPU time: "
          f"{ratio_text(gemma_cpu)}); {args.repeats} "
          f"interleaved repeats, {args.max_new_tokens} new tokens, {args.threads} thread(s); load average "
          f"{before[0]:.2f} before, {after[0]:.2f} after")
    print()
    from tables import print_markdown

    print_markdown(header, rows)


if __name__ == "__main__":
    main()
