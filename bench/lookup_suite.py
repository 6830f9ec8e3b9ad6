"""The lookup tree against its chain on prompts the project was not developed on (issue 36, section 2).

    .venv/bin/python bench/lookup_suite.py [--model smollm2|gemma3-270m] [--repeats 3] [--max-new-tokens 48]
                                           [--threads 1] [--width 3] [--only list-groceries,code-python]

``SUITE`` was written before any run and is never changed after one (nothing here is tuned on it): lists,
code, prose and a copy task. For each prompt, three rows run interleaved in each repeat, the order rotating
(the machine is shared), each repeat on its own seed (base seed + repeat): prompt lookup (``lookup:3``) as a
chain verified by exact match (``exact-match``), the lookup tree of width K verified by exact match
(``exact-match:K``, the lookup tree's rule) and the same tree by recursive rejection sampling
(``multi-distinct:K``, the rule it had before: a uniform q over the candidates, invented). Settings: the copy
preset's (temperature 0.5, depth 5), stop tokens ignored.

Per prompt: tokens per target pass of each row (mean over the repeats), the tree's wall speed over the chain's
in the same repeat (median and range over the repeats; also in process CPU time, which the other processes of a
shared machine disturb less than wall time: one thread, no thread waiting on another), and, drawn from the tree's
own rounds, what the chain
would have committed on the very same draws (``RoundRecord.chain_tokens``: never more than the tree, on any
round). Then the suite's median and spread (the lowest and highest prompt) of each ratio. Prints the load
average before and after, a text table, then markdown.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402
from tables import print_markdown  # noqa: E402  (bench/tables.py: run as a script, its folder is on sys.path)

from specviz.models import load_model, parse_draft  # noqa: E402
from specviz.models.model_presets import DEFAULT  # noqa: E402
from specviz.models.round_loop import GenerationSettings, Session  # noqa: E402
from specviz.models.target import encode_prompt  # noqa: E402

# Written before the first run of this suite; none of it appears elsewhere in the project. Never edit after a run.
SUITE: dict[str, tuple[str, str]] = {
    "list-groceries": ("list", "Copy this shopping list exactly:\n\n- 2 cups of flour\n- 2 cups of sugar\n"
                               "- 2 cups of milk\n- 1 jar of honey\n- 1 jar of jam\n- 1 jar of olives\n"
                               "- 3 bags of rice\n- 3 bags of beans\n- 3 bags of lentils\n"),
    "list-timetable": ("list", "Repeat the timetable below exactly.\n\nMonday: math at 9, history at 11, art at 2.\n"
                               "Tuesday: math at 9, physics at 11, music at 2.\nWednesday: math at 9, history at 11, "
                               "sport at 2.\nThursday: chemistry at 9, physics at 11, art at 2.\nFriday: chemistry "
                               "at 9, history at 11, music at 2.\n"),
    "list-steps": ("list", "Repeat these instructions exactly:\n1. Open the box and remove the lid.\n2. Open the bag "
                           "and remove the screws.\n3. Open the manual and read page one.\n4. Attach the legs to the "
                           "table top.\n5. Attach the shelf to the legs.\n6. Attach the handle to the drawer.\n"),
    "code-python": ("code", "Rewrite this Python code exactly as it is:\n\n```python\ndef area_of_square(side):\n"
                            "    return side * side\n\ndef area_of_rectangle(width, height):\n    return width * "
                            "height\n\ndef area_of_triangle(base, height):\n    return base * height / 2\n\ndef "
                            "area_of_circle(radius):\n    return 3.14159 * radius * radius\n```\n"),
    "code-sql": ("code", "Copy this SQL exactly:\n\nSELECT name, city FROM customers WHERE city = 'Paris';\nSELECT "
                         "name, city FROM customers WHERE city = 'Rome';\nSELECT name, email FROM customers WHERE "
                         "city = 'Oslo';\nSELECT name, email FROM suppliers WHERE city = 'Paris';\nSELECT id, total "
                         "FROM orders WHERE city = 'Rome';\n"),
    "prose-open": ("prose", "Write a short paragraph about how rivers shape the valleys they flow through."),
    "prose-summary": ("prose", "Summarize this paragraph in your own words:\n\nThe old bridge was built of stone in "
                               "the year 1820. The old bridge was repaired in 1901 after a flood. The old bridge was "
                               "closed to cars in 1978 and opened to walkers in 1980. Today the old bridge is the "
                               "town's favourite place for photographs."),
    "copy-paragraph": ("copy", "Repeat this paragraph exactly:\n\nMarie walked to the market on Saturday morning. She "
                               "bought bread from the baker, cheese from the farmer and apples from the old woman at "
                               "the corner. On her way home she met her neighbour, who asked about her garden, and "
                               "they talked until the church bell rang noon."),
}
DRAFT = "lookup:3"


def rows(width: int) -> list[tuple[str, str]]:
    """(row name, verification): the chain, the tree by exact match, the tree by recursive rejection sampling."""
    return [("chain, exact match", "exact-match"), (f"tree ×{width}, exact match", f"exact-match:{width}"),
            (f"tree ×{width}, rejection sampling", f"multi-distinct:{width}")]


def run(target, prompt, verification: str, seed: int, tokens: int) -> dict:
    """One run of the draft under this rule: wall seconds, tokens, target passes, the chain on the same draws."""
    settings: GenerationSettings = DEFAULT.settings(seed=seed, ignore_eos=True, max_new_tokens=tokens,
                                                    verification=verification)
    session = Session(target, parse_draft(DRAFT), settings, prompt, top_n=None)
    began, cpu = time.perf_counter(), time.process_time()
    gen = session.run()
    seconds, cpu_seconds = time.perf_counter() - began, time.process_time() - cpu
    chain = [r.chain_tokens for r in gen.rounds]
    drafting = [r for r in gen.rounds if not r.plain]
    return {"seconds": seconds, "cpu_seconds": cpu_seconds, "tokens": len(gen.tokens),
            "passes": sum(r.target_forwards for r in gen.rounds),
            "nodes": sum(r.nodes for r in drafting) / max(1, sum(r.target_forwards for r in drafting)),
            "chain_same_draws": sum(chain) if chain and None not in chain else None,
            "ahead": sum(c is not None and len(r.tokens) > c for r, c in zip(gen.rounds, chain)),
            "behind": sum(c is not None and len(r.tokens) < c for r, c in zip(gen.rounds, chain))}


def bench_prompt(target, name: str, prompt, width: int, repeats: int, seed: int, tokens: int) -> dict:
    """Every row of one prompt, interleaved over the repeats (seed + repeat each)."""
    named = rows(width)
    runs: dict[str, list[dict]] = {row: [] for row, _ in named}
    for repeat in range(repeats):
        shift = repeat % len(named)
        for row, verification in named[shift:] + named[:shift]:
            result = run(target, prompt, verification, seed + repeat, tokens)
            runs[row].append(result)
            print(f"# {name} {row} seed {seed + repeat}: {result['seconds']:.2f} s, {result['tokens']} tokens in "
                  f"{result['passes']} passes", file=sys.stderr, flush=True)
    return runs


def per_pass(results: list[dict]) -> float:
    return statistics.mean(r["tokens"] / r["passes"] for r in results)


def summarize(name: str, kind: str, runs: dict[str, list[dict]], width: int) -> dict:
    """One prompt's figures: tokens per pass, the tree over the chain (per pass, in speed), the same draws."""
    chain, tree, rrs = (runs[row] for row, _ in rows(width))
    speed = [c["seconds"] / t["seconds"] for c, t in zip(chain, tree)]
    cpu = [c["cpu_seconds"] / t["cpu_seconds"] for c, t in zip(chain, tree)]
    rrs_speed = [c["seconds"] / r["seconds"] for c, r in zip(chain, rrs)]
    same = [(t["tokens"], t["chain_same_draws"]) for t in tree]
    return {"prompt": name, "kind": kind, "chain": per_pass(chain), "tree": per_pass(tree), "rrs": per_pass(rrs),
            "nodes": statistics.mean(t["nodes"] for t in tree),
            "chain_nodes": statistics.mean(c["nodes"] for c in chain),
            "speed": speed, "cpu": cpu, "rrs_speed": rrs_speed, "same": same, "ahead": sum(t["ahead"] for t in tree),
            "behind": sum(t["behind"] for t in tree), "rounds": sum(t["passes"] for t in tree)}


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f}x ({min(values):.2f}–{max(values):.2f})"


def table(results: list[dict]) -> tuple[list[str], list[list[str]]]:
    header = ["prompt", "kind", "chain tokens/pass", "tree tokens/pass", "tree / chain per pass",
              "drafted nodes per pass (chain, tree)", "tree / chain speed (median, range)",
              "tree / chain CPU-time speed (median, range)",
              "same draws: tree vs chain tokens", "same draws: tree / chain", "rejection-sampling tree tokens/pass",
              "its speed / chain"]
    out = []
    for r in results:
        tree_tokens = sum(t for t, _ in r["same"])
        chain_tokens = sum(c for _, c in r["same"] if c is not None)
        out.append([r["prompt"], r["kind"], f"{r['chain']:.2f}", f"{r['tree']:.2f}", f"{r['tree'] / r['chain']:.2f}x",
                    f"{r['chain_nodes']:.1f}, {r['nodes']:.1f}", spread(r["speed"]), spread(r["cpu"]),
                    f"{tree_tokens} vs {chain_tokens} (ahead in {r['ahead']} of {r['rounds']} rounds, behind in "
                    f"{r['behind']})", f"{tree_tokens / chain_tokens:.2f}x" if chain_tokens else "-",
                    f"{r['rrs']:.2f}", spread(r["rrs_speed"])])
    return header, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--max-new-tokens", type=int, default=48)
    parser.add_argument("--repeats", type=int, default=3, help="interleaved runs of every row, one seed each")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--width", type=int, default=3, help="the lookup tree's width K")
    parser.add_argument("--only", default="", help=f"comma-separated prompts, of {', '.join(SUITE)}")
    parser.add_argument("--device", default=None)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    load_before = os.getloadavg()
    began = time.perf_counter()
    target = load_model(args.model, args.device)
    print(f"# {args.model} loaded in {target.load_seconds:.1f} s on {target.device_name}, vocabulary "
          f"{target.vocab_size:,}; load average {load_before[0]:.2f}", file=sys.stderr, flush=True)
    chosen = [n for n in args.only.split(",") if n] or list(SUITE)
    results = []
    for name in chosen:
        kind, text = SUITE[name]
        prompt = encode_prompt(target.tokenizer, text, chat=target.is_chat)
        runs = bench_prompt(target, name, prompt, args.width, args.repeats, args.seed, args.max_new_tokens)
        results.append(summarize(name, kind, runs, args.width))
    load_after = os.getloadavg()
    header, body = table(results)
    per_pass_ratios = [r["tree"] / r["chain"] for r in results]
    same = [sum(t for t, _ in r["same"]) / sum(c for _, c in r["same"]) for r in results]
    speed = [statistics.median(r["speed"]) for r in results]
    cpu = [statistics.median(r["cpu"]) for r in results]
    rrs_speed = [statistics.median(r["rrs_speed"]) for r in results]
    widths = [max(len(x[i]) for x in [header, *body]) for i in range(len(header))]
    for line in [header, *body]:
        print("  ".join(cell.ljust(w) for cell, w in zip(line, widths)))
    print(f"\n{args.model} ({target.vocab_size:,} tokens), {DRAFT}, depth {DEFAULT.depth}, temperature "
          f"{DEFAULT.temperature:g}, {args.max_new_tokens} new tokens, {args.repeats} interleaved repeats (seeds "
          f"{args.seed}..{args.seed + args.repeats - 1}), {args.threads} thread(s), {len(results)} prompts; "
          f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after; {time.perf_counter() - began:.0f} s")
    print(f"suite: tree / chain tokens per target pass {spread(per_pass_ratios)}; on the same draws {spread(same)}; "
          f"tree / chain speed (each prompt's median) {spread(speed)}, in CPU time {spread(cpu)}; the "
          f"rejection-sampling tree / chain speed {spread(rrs_speed)}; on the same draws the tree was ahead of its "
          f"chain in {sum(r['ahead'] for r in results)} rounds and behind in "
          f"{sum(r['behind'] for r in results)}, of {sum(r['rounds'] for r in results)}")
    print()
    print_markdown(header, body)


if __name__ == "__main__":
    main()
