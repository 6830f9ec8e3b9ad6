"""The command line.

`python -m specviz generate "prompt" --model smollm2 --draft early-exit:8 ...` runs real models;
`python -m specviz play --preset "far apart" --rounds 3` narrates toy rounds from the same trace.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import TextIO

from specviz.cli_args import (
    MAX_ROUNDS,
    MIN_TEMPERATURE,
    Parser,
    UsageError,
    draft_usage,
    int_in,
    read_device,
    read_draft,
    read_model,
    read_preset,
    read_temperature,
    read_top_p,
    read_verification,
)
from specviz.core.verifier import MAX_DEPTH

ANSI = {"accepted": "\033[32m", "correction": "\033[31;1m", "bonus": "\033[35;1m", "target": "\033[2m"}
RESET = "\033[0m"
MARKS = {"accepted": ("", ""), "correction": ("[", "]"), "bonus": ("{", "}"), "target": ("«", "»")}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with its subcommands; every value is validated by a reader in cli_args."""
    parser = Parser(prog="specviz", description="Exact speculative sampling, visualised.")
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate", help="generate text with exact speculative sampling on a real model")
    gen.add_argument("prompt")
    gen.add_argument("--model", type=read_model, default="smollm2",
                     help="smollm2 (bundled), a hub id, a folder or a .gguf file")
    gen.add_argument("--draft", type=read_draft, default=read_draft("early-exit:8"), help=draft_usage())
    gen.add_argument("--depth", type=int_in(1, MAX_DEPTH), default=4,
                     help=f"drafted tokens per round (1..{MAX_DEPTH})")
    gen.add_argument("--seed", type=int_in(), default=1)
    gen.add_argument("--max-new-tokens", type=int_in(1), default=64, help="tokens to generate (≥ 1)")
    gen.add_argument("--temperature", type=read_temperature, default=1.0,
                     help=f"target temperature (≥ {MIN_TEMPERATURE:g}; for greedy use --top-k 1)")
    gen.add_argument("--top-k", type=int_in(0, note="0 = off"), default=0, help="target top-k (0: off)")
    gen.add_argument("--top-p", type=read_top_p, default=1.0, help="target top-p in (0, 1] (1: off)")
    gen.add_argument("--draft-top-k", type=int_in(0, note="0 = off"), default=0,
                     help="cut the draft's q to its top k (0: off)")
    gen.add_argument("--device", type=read_device, default=None,
                     help="auto, cpu, cuda, cuda:N or mps (default: the best available)")
    gen.add_argument("--no-chat", action="store_true", help="do not apply the chat template")
    gen.add_argument("--json", action="store_true", help="print the full trace as JSON")
    gen.add_argument("--race", action="store_true", help="race plain target sampling against the speculative run")
    gen.add_argument("--verification", choices=("token", "block"), default="token",
                     help="tokenwise, or block verification (Sun et al. 2025): same target pass, never fewer "
                          "accepted drafts in expectation")
    gen.add_argument("--top-n", type=int_in(1), default=10, help="entries of each distribution kept in --json (≥ 1)")
    gen.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    toy = sub.add_parser("play", help="play rounds of a toy scenario (the Playground's presets) and narrate them")
    toy.add_argument("--preset", type=read_preset, default="close",
                     help="a Playground preset, e.g. 'far apart' or 'p = q'")
    toy.add_argument("--markov", action="store_true", help="p and q depend on the previous token")
    toy.add_argument("--depth", type=int_in(1, MAX_DEPTH), default=3, help=f"drafted tokens per round (1..{MAX_DEPTH})")
    toy.add_argument("--verification", type=read_verification, default="token",
                     help="token (tokenwise, the default) or block (block verification, Sun et al. 2025)")
    toy.add_argument("--seed", type=int_in(), default=0)
    toy.add_argument("--rounds", type=int_in(1, MAX_ROUNDS), default=3, help=f"rounds to play (1..{MAX_ROUNDS})")
    toy.add_argument("--fp32", action="store_true", help="quantize the weights to FP32 first")
    toy.add_argument("--json", action="store_true", help="print the scenario and the full trace as JSON")
    toy.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    return parser


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The validated arguments; raises UsageError (one line) for anything refused. Imports no torch."""
    return build_parser().parse_args(argv)


class Progress:
    """A one-line progress bar on stderr (only when stderr is a terminal)."""

    def __init__(self, total: int, stream: TextIO = sys.stderr):
        self.total, self.stream = total, stream
        self.enabled = stream.isatty()
        self.began = time.perf_counter()

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        width = 30
        filled = int(width * min(done, self.total) / max(self.total, 1))
        rate = done / max(time.perf_counter() - self.began, 1e-9)
        self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{self.total} tokens {rate:.1f}/s")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def marked_text(pieces: Sequence[str], origins: Sequence[str], color: bool) -> str:
    """The generated text with each token marked by origin (ANSI colours, or brackets without)."""
    out = []
    for piece, origin in zip(pieces, origins):
        if color:
            out.append(f"{ANSI[origin]}{piece}{RESET}")
        else:
            left, right = MARKS[origin]
            out.append(f"{left}{piece}{right}")
    return "".join(out)


def legend(color: bool) -> str:
    """What the marks mean."""
    if color:
        return " ".join(f"{ANSI[o]}{o}{RESET}" for o in ANSI)
    return "accepted draft: plain, [correction], {bonus}, «target sample without a draft»"


def generation_json(args: argparse.Namespace, target, gen, summary, pieces: list[str]) -> dict:
    """The full trace of a generation as JSON-ready data."""
    from specviz.models.text import token_label

    def label_events(events: list[dict]) -> list[dict]:
        for event in events:
            for key in ("p", "q", "residual"):
                if isinstance(event.get(key), dict):
                    for entry in event[key]["top"]:
                        entry["text"] = token_label(target.tokenizer, entry["token"])
            if "token" in event:
                event["text"] = target.tokenizer.decode([event["token"]])
        return events

    return {
        "prompt": args.prompt, "model": args.model, "draft": str(args.draft), "device": gen.device,
        "settings": {k: getattr(args, k) for k in ("depth", "seed", "max_new_tokens", "temperature", "top_k",
                                                   "top_p", "draft_top_k", "verification")},
        "context_id": gen.context_id,
        "prompt_tokens": list(gen.prompt_ids),
        "text": "".join(pieces),
        "tokens": [{"id": t, "text": s, "origin": o} for t, s, o in zip(gen.tokens, pieces, gen.origins)],
        "rounds": [{"round_id": r.round_id, "drafted": list(r.drafted), "tokens": list(r.tokens),
                    "origins": list(r.origins), "accepted": r.accepted, "rejected": r.rejected,
                    "stopped": r.stopped, "alphas": list(r.alphas),
                    "time_s": {"draft_forward": r.draft_forward_s, "draft_exact": r.draft_exact_s,
                               "target_forward": r.target_forward_s, "verify": r.verify_s, "wall": r.wall_s},
                    "target_forwards": r.target_forwards, "draft_target_forwards": r.draft_target_forwards,
                    "plain": r.plain, "events": label_events(r.events or [])}
                   for r in gen.rounds],
        "summary": summary.to_dict(),
    }


def cmd_generate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run one speculative generation and print it."""
    from specviz.models import DraftSpec, ModelLoadError, Session, Settings, load_model
    from specviz.models.drafts import TokenizerMismatchError
    from specviz.models.loading import check_before_load
    from specviz.models.stats import format_summary, summarize
    from specviz.models.text import token_pieces

    try:
        spec = DraftSpec(args.draft.kind, **args.draft.fields)
        settings = Settings(depth=args.depth, seed=args.seed, max_new_tokens=args.max_new_tokens,
                            temperature=args.temperature, top_k=args.top_k, top_p=args.top_p,
                            draft_top_k=args.draft_top_k, chat=not args.no_chat, verification=args.verification)
        check_device(args.device)
        check_before_load(args.model, args.max_new_tokens)  # a folder's config.json rules out what it can
        err.write(f"loading {args.model} ...\n")
        target = load_model(args.model, args.device)
        draft_model = load_model(spec.model, args.device) if spec.kind == "model" else None
        err.write(f"loaded in {target.load_seconds:.1f}s on {target.device_name}\n")
        session = Session(target, spec, settings, args.prompt, draft_model=draft_model,
                          top_n=args.top_n if args.json else None)
    except (ModelLoadError, TokenizerMismatchError, ValueError) as error:
        err.write(f"error: {error}\n")
        return 2
    if args.race:
        return cmd_race(args, target, spec, settings, draft_model, out, err)
    progress = Progress(settings.max_new_tokens, err)
    gen = session.run(lambda record: progress.update(len(session.generation.tokens)))
    progress.close()
    summary = summarize(gen, settings.depth)
    pieces = token_pieces(target.tokenizer, gen.tokens)
    if args.json:
        json.dump(generation_json(args, target, gen, summary, pieces), out, indent=1)
        out.write("\n")
        return 0
    color = args.color == "always" or (args.color == "auto" and out.isatty())
    out.write(marked_text(pieces, gen.origins, color) + "\n\n")
    out.write(legend(color) + "\n")
    out.write(format_summary(summary) + "\n")
    return 0


def cmd_race(args: argparse.Namespace, target, spec, settings, draft_model, out: TextIO, err: TextIO) -> int:
    """Plain sampling, then the speculative run, each with progress; both texts, the table, the speedup line."""
    from specviz.models.race import race, race_table
    from specviz.models.text import token_pieces

    bars: dict[str, Progress] = {}

    def progress(leg: str, session, record) -> None:
        if leg not in bars:
            for bar in bars.values():
                bar.close()
            err.write(f"{leg}:\n")
            bars[leg] = Progress(settings.max_new_tokens, err)
        bars[leg].update(len(session.generation.tokens))

    result = race(target, args.prompt, spec, settings, draft_model=draft_model, progress=progress)
    for bar in bars.values():
        bar.close()
    color = args.color == "always" or (args.color == "auto" and out.isatty())
    for leg in (result.plain, result.speculative):
        gen = leg.generation
        out.write(f"--- {leg.name} ({leg.label}) ---\n")
        pieces = token_pieces(target.tokenizer, gen.tokens)
        out.write(("".join(pieces) if leg is result.plain else marked_text(pieces, gen.origins, color)) + "\n\n")
    out.write(legend(color) + "\n")
    out.write("\n".join(race_table(result)) + "\n")
    out.write(result.line() + "\n")
    return 0


def cmd_play(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Play toy rounds and print each step of the verifier's trace with its numbers (or the full trace as JSON)."""
    from specviz.cli_narrate import numbers
    from specviz.core.trace import BlockDecisionEvent
    from specviz.playground.explain import explain
    from specviz.playground.presets import apply_preset, default_scenario
    from specviz.playground.view import origin_of, step_view
    from specviz.scenario import play, scenario_to_dict

    scenario = apply_preset(default_scenario(args.markov), args.preset, args.markov)
    scenario = scenario.with_changes(depth=args.depth, seed=args.seed, fp32=args.fp32,
                                     verification=args.verification)
    try:
        rounds = play(scenario, args.rounds)
    except (ValueError, TypeError) as error:
        err.write(f"error: {explain(error, scenario=scenario).markdown()}\n")
        return 2
    if args.json:
        data = {"scenario": scenario_to_dict(scenario),
                "rounds": [{"round_id": r.round_id, "prefix": list(r.prefix), "tokens": list(r.result.tokens),
                            "accepted_drafts": r.result.accepted_drafts, "rejected": r.result.rejected,
                            "stopped": r.result.stopped, **r.trace.to_dict(top_n=None)} for r in rounds]}
        json.dump(data, out, indent=1)
        out.write("\n")
        return 0
    step, pieces, origins = 0, [], []
    for played in rounds:
        for event in played.trace:
            out.write(f"{step_view(scenario, step).headline}\n")
            for line in numbers(event, scenario.vocab):
                out.write(f"    {line}\n")
            step += 1
            if isinstance(event, BlockDecisionEvent):  # block verification keeps its first tau drafts at once
                pieces += [scenario.vocab[t] + " " for t in event.drafts[: event.accepted_drafts]]
                origins += ["accepted"] * event.accepted_drafts
            origin = origin_of(event)
            if origin is not None:
                pieces.append(scenario.vocab[event.token] + " ")
                origins.append(origin)
    color = args.color == "always" or (args.color == "auto" and out.isatty())
    out.write("\n" + marked_text(pieces, origins, color).rstrip() + "\n" + legend(color) + "\n")
    return 0


def check_device(device: str | None) -> None:
    """Refuse (ValueError) a device this machine does not have, before any model loads."""
    if device in (None, "", "auto"):
        return
    from specviz.models.device import available_devices

    kind, _, index = device.partition(":")
    if kind not in available_devices():
        raise ValueError(f"--device {device!r} is not available here (available: {', '.join(available_devices())})")
    if kind == "cuda" and index:
        import torch

        count = torch.cuda.device_count()
        if int(index) >= count:
            raise ValueError(f"--device {device!r}: this machine has {count} CUDA device(s), cuda:0..cuda:{count - 1}")


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Entry point of `python -m specviz` and the `specviz` script: exit status 2 for any refused argument."""
    out, err = out or sys.stdout, err or sys.stderr
    try:
        args = parse(argv)
    except UsageError as error:
        err.write(f"{error}\n")
        return 2
    if args.command == "generate":
        return cmd_generate(args, out, err)
    if args.command == "play":
        return cmd_play(args, out, err)
    return 1
