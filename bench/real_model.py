"""When speculative decoding pays off on a real model: every preset against plain sampling, in one run.

    .venv/bin/python bench/real_model.py [--model smollm2] [--repeats 2] [--races 3] [--threads 2]

For each preset (specviz.models.model_presets): plain sampling through the exact core on the same prompt and
settings, the exact speculative run, transformers' assisted generation with the same draft where it has
one (prompt lookup: `prompt_lookup_num_tokens`; early exit and bfloat16: `assistant_model`), and the
speedup the cost model (measured in this run) predicts beside the measured one, the same draft under
block verification (Sun et al. 2025: the same target pass, never fewer accepted drafts in expectation),
and the same draft as a tree (the whole tree scored in one target pass; prompt lookup's by exact match,
``exact-match:K``, its rule; a model draft's by recursive rejection sampling, ``multi-distinct:K``; widths 2
and 3 for prompt lookup, 2 for a partial early exit, whose full tree of depth 4 has 30 nodes; none for
q = p or bfloat16, which accept nearly every draft already).
Rows are interleaved `--repeats` times and the fastest of each is kept, so a busy moment on a shared
machine hits every row alike; speedups are ratios against the plain run of the same preset in the same
run. Every preset is then raced as the page and the command line race it (interleaved over consecutive
seeds; the median speedup and its spread). Prints a text table, then the same table as markdown.
"""

from __future__ import annotations

import argparse
import copy
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
from specviz.models.drafts import SharedTargetDraft, half_precision_copy  # noqa: E402
from specviz.models.lm import early_exit_view  # noqa: E402
from specviz.models.model_presets import PRESETS, ModelPreset  # noqa: E402
from specviz.models.race import TRIALS, Leg, prediction_for, race, run_leg, trials_line  # noqa: E402
from specviz.models.round_loop import Session  # noqa: E402
from specviz.models.stats import paired_expected_accepted  # noqa: E402
from specviz.models.target import encode_prompt  # noqa: E402


def hf_generate(target, ids: torch.Tensor, preset: ModelPreset, **assist) -> float:
    """Seconds of transformers' own sampling (optionally assisted) for the preset's token count."""
    n = preset.max_new_tokens
    torch.manual_seed(0)
    began = time.perf_counter()
    target.model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=n, min_new_tokens=n,
                          do_sample=True, top_k=0, top_p=1.0, temperature=preset.temperature, **assist)
    return time.perf_counter() - began


def assistant_kwargs(target, preset: ModelPreset) -> dict | None:
    """transformers' assisted-generation arguments for the preset's draft, or None where it has none."""
    spec = preset.draft_spec
    if spec.kind == "lookup":
        return {"prompt_lookup_num_tokens": preset.depth, "max_matching_ngram_size": spec.ngram}
    if spec.kind == "early-exit" and spec.layers < target.n_layers:
        assistant = early_exit_view(target.model, spec.layers)
    elif spec.kind == "bf16":
        assistant = half_precision_copy(target.model)
    else:
        return None  # q = p: transformers has no "the target drafts for itself" mode
    assistant.generation_config = copy.deepcopy(target.model.generation_config)
    assistant.generation_config.num_assistant_tokens = preset.depth
    assistant.generation_config.num_assistant_tokens_schedule = "constant"
    assistant.generation_config.assistant_confidence_threshold = 0.0
    return {"assistant_model": assistant}


def tree_widths(target, preset: ModelPreset) -> tuple[int, ...]:
    """The tree widths benchmarked for a preset's draft (see the module docstring)."""
    spec = preset.draft_spec
    if spec.kind == "lookup":
        return (2, 3)
    return (2,) if spec.kind == "early-exit" and spec.layers < target.n_layers else ()


def tree_rule(preset: ModelPreset, width: int) -> str:
    """The tree rule of a preset's draft: exact match for prompt lookup (no draft distribution), else recursive
    rejection sampling with distinct children."""
    return f"exact-match:{width}" if preset.draft_spec.kind == "lookup" else f"multi-distinct:{width}"


def exact_leg(target, preset: ModelPreset, prompt, seed: int, plain: bool,
              verification: str = "token") -> tuple[Leg, Session]:
    session = Session(target, None if plain else preset.draft_spec,
                      preset.settings(seed=seed, ignore_eos=True, verification=verification), prompt, top_n=None,
                      keep_raw=verification == "block")  # block traces give the paired acceptance comparison
    return run_leg("plain" if plain else "speculative", session), session


def keep_best(best: dict, key: str, seconds: float, **extra) -> None:
    print(f"# {key}: {seconds:.2f} s", file=sys.stderr, flush=True)
    if key not in best or seconds < best[key]["seconds"]:
        best[key] = {"seconds": seconds, **extra}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--repeats", type=int, default=2, help="interleaved passes over every row; the best is kept")
    parser.add_argument("--races", type=int, default=TRIALS,
                        help="interleaved races per preset (seeds 1, 2, ...), as on the page and the command line")
    parser.add_argument("--threads", type=int, default=2, help="torch CPU threads")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    target = load_model(args.model)
    print(f"# {args.model}: vocabulary {target.vocab_size}, {target.n_layers} layers, {target.device_name}, "
          f"loaded in {target.load_seconds:.1f}s", file=sys.stderr)
    prompts = {p.name: encode_prompt(target.tokenizer, p.prompt, chat=target.is_chat) for p in PRESETS}
    print("# measuring the cost model", file=sys.stderr, flush=True)
    cost = measure_costs(target, [p.draft_spec for p in PRESETS], max_tokens=max(p.depth for p in PRESETS) + 1,
                         use_cache=False, widest=40)  # trees' wider passes too
    best: dict[str, dict] = {}
    for _ in range(args.repeats):
        for preset in PRESETS:
            prompt = prompts[preset.name]
            ids = torch.tensor([prompt], device=target.device)
            leg, _ = exact_leg(target, preset, prompt, 1, plain=True)
            keep_best(best, f"{preset.name}|plain", leg.summary.wall_s, leg=leg)
            keep_best(best, f"{preset.name}|hf plain", hf_generate(target, ids, preset))
            leg, session = exact_leg(target, preset, prompt, 1, plain=False)
            keep_best(best, f"{preset.name}|exact", leg.summary.wall_s, leg=leg,
                      shared=isinstance(session.draft, SharedTargetDraft))
            leg, session = exact_leg(target, preset, prompt, 1, plain=False, verification="block")
            keep_best(best, f"{preset.name}|block", leg.summary.wall_s, leg=leg,
                      shared=isinstance(session.draft, SharedTargetDraft))
            for width in tree_widths(target, preset):
                leg, session = exact_leg(target, preset, prompt, 1, plain=False,
                                         verification=tree_rule(preset, width))
                keep_best(best, f"{preset.name}|tree{width}", leg.summary.wall_s, leg=leg,
                          shared=isinstance(session.draft, SharedTargetDraft))
            assist = assistant_kwargs(target, preset)
            if assist is not None:
                keep_best(best, f"{preset.name}|hf assisted", hf_generate(target, ids, preset, **assist))

    header = ["preset", "method", "tokens/s", "speedup", "predicted", "tokens per verification pass",
              "drafted nodes per pass", "acceptance", "accepted drafts per drafting round"]
    table = []
    for preset in PRESETS:
        n = preset.max_new_tokens
        plain_s = best[f"{preset.name}|plain"]["seconds"]
        rows = [("plain sampling (exact core)", plain_s, "", "1.00", "-", "-", "-"),
                ("plain sampling (transformers)", best[f"{preset.name}|hf plain"]["seconds"], "", "-", "-", "-", "-")]
        kinds = [("exact", "tokenwise"), ("block", "block verification")] + [
            (f"tree{k}", f"tree ×{k} ({tree_rule(preset, k)})") for k in tree_widths(target, preset)]
        for key, how in kinds:
            exact = best[f"{preset.name}|{key}"]
            s = exact["leg"].summary
            prediction = prediction_for(cost, exact["leg"], shared_target=exact["shared"])
            drafting_rounds = s.rounds - s.plain_rounds
            rows.append((f"exact speculative, {preset.draft}, depth {preset.depth}, {how}", exact["seconds"],
                         f"{prediction.speedup:.2f}x" if prediction else "-", f"{s.tokens_per_target_forward:.2f}",
                         f"{s.nodes_per_pass:.1f}" if s.nodes_per_pass is not None else "-",
                         f"{s.acceptance_rate:.2f}" if s.acceptance_rate is not None else "-",
                         f"{s.accepted / drafting_rounds:.2f}" if drafting_rounds else "-"))
        if f"{preset.name}|hf assisted" in best:
            rows.append(("transformers assisted, same draft", best[f"{preset.name}|hf assisted"]["seconds"], "",
                         "-", "-", "-", "-"))
        for method, seconds, predicted, per_pass, nodes, acceptance, accepted in rows:
            table.append([preset.name, method, f"{n / seconds:.1f}", f"{plain_s / seconds:.2f}x", predicted or "-",
                          per_pass, nodes, acceptance, accepted])
    race_lines = []
    for preset in PRESETS:  # the page's and the command line's race: interleaved, median and spread
        raced = race(target, prompts[preset.name], preset.draft_spec, preset.settings(seed=1, ignore_eos=True),
                     cost=cost, trials=args.races)
        race_lines.append(f"{preset.name}: {raced.line()}; {trials_line(raced)}")

    widths = [max(len(x[i]) for x in [header, *table]) for i in range(len(header))]
    for line in [header, *table]:
        print("  ".join(cell.ljust(w) for cell, w in zip(line, widths)))
    print()
    for line in race_lines:
        print(line)
    for preset in PRESETS:  # exact expectations on the block run's own drafted blocks (common draws)
        paired = paired_expected_accepted(best[f"{preset.name}|block"]["leg"].generation)
        if paired is not None:
            token, block, blocks = paired
            gain = f"{100 * float(block / token - 1):+.1f}%" if token else "-"
            print(f"{preset.name}: expected accepted drafts per round on the same {blocks} drafted blocks: "
                  f"tokenwise {float(token):.3f}, block {float(block):.3f} ({gain})")
    passes = ", ".join(f"{k}: {cost.pass_ratio(k):.2f}" for k in range(1, len(cost.target_pass_s) + 1))
    drafts = ", ".join(f"{k} {v / cost.pass_s(1):.3f}" for k, v in cost.draft_step_s.items())
    print(f"cost model on {cost.device}: a pass over k new tokens in single passes ({passes}); one draft step in "
          f"single passes ({drafts}); single pass {1000 * cost.pass_s(1):.1f} ms")
    print()
    print_markdown(header, table)


if __name__ == "__main__":
    main()
