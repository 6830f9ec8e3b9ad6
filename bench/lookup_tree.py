"""Does a width-K prompt-lookup tree pay on this CPU? Plain vs chain lookup vs tree lookup, same prompt.

    .venv/bin/python bench/lookup_tree.py [--model smollm2] [--max-new-tokens 32] [--repeats 2] [--threads 2]

On the copy preset's prompt (specviz.models.presets), with its temperature, depth and n-gram: plain
sampling through the exact core, the lookup chain (tokenwise), and the lookup tree at widths 2 and 3
(multi-distinct:K, specviz.models.lookup_tree). Rows are interleaved `--repeats` times and the fastest
of each is kept; speedups are ratios against the plain row of the same run. Besides tokens/s it prints
tokens per verification pass (committed tokens / target forwards), target forwards per drafting round
and target tokens scored per round (positions fed to the target, the prompt's prefill left out: a pass
over more tokens costs more), then what a target pass over k new tokens costs on this machine.
Prints a text table, then the same table as markdown.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402
from tables import print_markdown  # noqa: E402  (bench/tables.py: run as a script, its folder is on sys.path)

from specviz.models import load_model  # noqa: E402
from specviz.models.cost import measure_costs  # noqa: E402
from specviz.models.generate import Session  # noqa: E402
from specviz.models.lookup_tree import LookupTreeSession  # noqa: E402
from specviz.models.presets import DEFAULT  # noqa: E402
from specviz.models.target import encode_prompt  # noqa: E402

WIDTHS = (2, 3)


def session_for(row: str, target, prompt, settings) -> Session:
    """The session of one row: 'plain', 'chain' or 'tree:K'."""
    if row == "plain":
        return Session(target, None, settings, prompt, top_n=None)
    if row == "chain":
        return Session(target, DEFAULT.draft_spec, settings, prompt, top_n=None)
    return LookupTreeSession(target, settings, prompt, width=int(row.split(":")[1]), ngram=DEFAULT.draft_spec.ngram,
                             top_n=None)


def timed(session: Session) -> dict:
    """Run the session; its wall time and per-round counts."""
    began = time.perf_counter()
    gen = session.run()
    seconds = time.perf_counter() - began
    rounds = gen.rounds
    drafting = [r for r in rounds if not r.plain]
    forwards = sum(r.target_forwards for r in rounds)
    return {"seconds": seconds, "tokens": len(gen.tokens), "rounds": len(rounds), "forwards": forwards,
            "drafting": len(drafting), "drafted": sum(len(r.drafted) for r in drafting),
            "accepted": sum(r.accepted for r in drafting),
            "drafting_forwards": sum(r.target_forwards for r in drafting),
            "scored": session.target_lm.tokens_scored - len(gen.prompt_ids)}  # the prompt's prefill left out


def per_drafting_round(result: dict, key: str) -> str:
    """result[key] per drafting round, or '-' when no round drafted."""
    return f"{result[key] / result['drafting']:.2f}" if result["drafting"] else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--max-new-tokens", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=2, help="interleaved passes over every row; the best is kept")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2, help="torch CPU threads")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    target = load_model(args.model)
    prompt = encode_prompt(target.tokenizer, DEFAULT.prompt, chat=target.is_chat)
    settings = DEFAULT.settings(seed=args.seed, ignore_eos=True, max_new_tokens=args.max_new_tokens)
    print(f"# {args.model} on {target.device_name}, {args.threads} threads; preset {DEFAULT.name!r}: "
          f"{DEFAULT.draft}, depth {settings.depth}, temperature {settings.temperature:g}, "
          f"{settings.max_new_tokens} new tokens, prompt of {len(prompt)} tokens", file=sys.stderr, flush=True)
    rows = ["plain", "chain", *(f"tree:{k}" for k in WIDTHS)]
    best: dict[str, dict] = {}
    for _ in range(args.repeats):
        for row in rows:
            result = timed(session_for(row, target, prompt, settings))
            print(f"# {row}: {result['seconds']:.2f} s", file=sys.stderr, flush=True)
            if row not in best or result["seconds"] < best[row]["seconds"]:
                best[row] = result

    header = ["method", "tokens/s", "vs plain", "tokens per verification pass", "target passes per drafting round",
              "target tokens scored per round", "drafted nodes per drafting round", "accepted per drafting round"]
    names = {"plain": "plain sampling (exact core)", "chain": f"lookup chain ({DEFAULT.draft}, tokenwise)"}
    plain_s = best["plain"]["seconds"]
    table = []
    for row in rows:
        r = best[row]
        name = names[row] if row in names else f"lookup tree, width {row[5:]} (multi-distinct:{row[5:]})"
        table.append([name, f"{r['tokens'] / r['seconds']:.1f}", f"{plain_s / r['seconds']:.2f}x",
                      f"{r['tokens'] / r['forwards']:.2f}", per_drafting_round(r, "drafting_forwards"),
                      f"{r['scored'] / r['rounds']:.1f}", per_drafting_round(r, "drafted"),
                      per_drafting_round(r, "accepted")])
    widths = [max(len(x[i]) for x in [header, *table]) for i in range(len(header))]
    for line in [header, *table]:
        print("  ".join(cell.ljust(w) for cell, w in zip(line, widths)))
    cost = measure_costs(target, [], max_tokens=9, use_cache=False)  # why more passes, or wider ones, cost more
    passes = ", ".join(f"{k}: {cost.pass_ratio(k):.2f}" for k in range(1, 10))
    print(f"a target pass over k new tokens, in single-token passes ({passes}); single pass "
          f"{1000 * cost.pass_s(1):.1f} ms")
    print()
    print_markdown(header, table)


if __name__ == "__main__":
    main()
