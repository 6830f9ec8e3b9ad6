"""`specviz generate`: exact speculative sampling on a real model, printed as marked text, a race or JSON."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from .args import UsageError, shown
from .terminal import Progress, legend, marked_text, use_color


def generation_json(args: argparse.Namespace, target, gen, summary, pieces: list[str]) -> dict:
    """The full trace of a generation as JSON-ready data."""
    from specviz.models.text import token_label, token_text

    def label_events(events: list[dict]) -> list[dict]:
        for event in events:
            for key in ("p", "q", "residual"):
                if isinstance(event.get(key), dict):
                    for entry in event[key]["top"]:
                        entry["text"] = token_label(target.tokenizer, entry["token"])
            if "token" in event:
                event["text"] = token_text(target.tokenizer, event["token"])
        return events

    return {
        "prompt": args.prompt, "model": target.name, "vocab_size": target.vocab_size, "draft": str(args.draft),
        "device": gen.device, "context_length": target.context_length,
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
                    "plain": r.plain, "shape": r.shape, "depth": r.depth, "nodes": r.nodes,
                    "chain_tokens": r.chain_tokens,
                    "events": label_events(r.events or [])}
                   for r in gen.rounds],
        "tree_scoring": gen.tree_scoring.to_dict() if gen.tree_scoring is not None else None,
        "summary": summary.to_dict(),
    }


def check_max_new_tokens(args: argparse.Namespace) -> None:
    """Refuse, before torch is imported, a model that is not installed and a --max-new-tokens beyond the model's
    context length as it is known ahead (a bundled model's facts, a .gguf header, a folder's config.json): one
    line naming the flag, the value and the range (UsageError), or the missing package's install line."""
    from specviz.models.locate import context_before_load

    limit = context_before_load(args.model)
    if limit is not None and args.max_new_tokens >= limit:
        raise UsageError(f"specviz generate: error: argument --max-new-tokens: {shown(str(args.max_new_tokens))} is "
                         f"not allowed; use a whole number in 1..{limit - 1} ({args.model}'s context length is "
                         f"{limit:,} tokens, and the prompt takes at least one of them)")


def _refusal_line(error) -> str:
    """The refusal in the words the pages show for it (``narration.problems``)."""
    from specviz.narration.problems import refusal_line

    return refusal_line(error)


def cmd_generate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run one speculative generation and print it."""
    from specviz.core.errors import SpecvizError

    try:
        check_max_new_tokens(args)  # milliseconds, before torch loads
    except UsageError as error:
        err.write(f"{error}\n")
        return 2
    except SpecvizError as error:  # a missing package (its install line), a folder without config.json
        err.write(f"error: {_refusal_line(error)}\n")
        return 2
    from specviz.models import DraftSpec, GenerationSettings, Session, load_model
    from specviz.models.round_loop import session_rule
    from specviz.models.stats import format_summary, summarize
    from specviz.models.text import token_pieces

    try:
        spec = DraftSpec(args.draft.kind, **args.draft.fields)
        settings = GenerationSettings(depth=args.depth, seed=args.seed, max_new_tokens=args.max_new_tokens,
                            temperature=args.temperature, top_k=args.top_k, top_p=args.top_p,
                            draft_top_k=args.draft_top_k, chat=not args.no_chat, verification=args.verification)
        check_device(args.device)
        session_rule(settings, spec.kind)  # a tree too wide or too big for the draft, before any load
        err.write(f"loading {args.model} ...\n")
        target = load_model(args.model, args.device)
        draft_model = load_model(spec.model, args.device) if spec.kind == "model" else None
        err.write(f"loaded in {target.load_seconds:.1f}s on {target.device_name}: vocabulary {target.vocab_size:,}"
                  f"{f', context {target.context_length:,} tokens' if target.context_length else ''}\n")
        if target.terms:
            err.write(f"{target.terms}\n")
        session = Session(target, spec, settings, args.prompt, draft_model=draft_model,
                          top_n=args.top_n if args.json else None)
    except SpecvizError as error:  # a refusal: bad input, a model that cannot load (anything else is a bug)
        err.write(f"error: {_refusal_line(error)}\n")
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
    color = use_color(args.color, out)
    out.write(marked_text(pieces, gen.origins, color) + "\n\n")
    out.write(legend(color) + "\n")
    out.write(format_summary(summary) + "\n")
    return 0


def cmd_race(args: argparse.Namespace, target, spec, settings, draft_model, out: TextIO, err: TextIO) -> int:
    """Plain sampling, then the speculative run, each with progress; both texts, the table, the speedup line."""
    from specviz.models.race import CHAIN, PLAIN, SPECULATIVE, TRIALS, race, race_table
    from specviz.models.text import token_pieces

    bar: list[Progress] = []

    def close() -> None:
        while bar:
            bar.pop().close()

    def progress(leg: str, session, record) -> None:
        if record is None:  # a run starts: say which, in which race
            close()
            err.write(f"race {session.settings.seed - settings.seed + 1} of {TRIALS}, {leg} "
                      f"({session.label}, seed {session.settings.seed}):\n")
            bar.append(Progress(settings.max_new_tokens, err))
        elif bar:
            bar[0].update(len(session.generation.tokens))

    def stage(text: str) -> None:
        close()
        err.write(f"{text}\n")

    result = race(target, args.prompt, spec, settings, draft_model=draft_model, progress=progress, stage=stage)
    close()
    color = use_color(args.color, out)
    legs = result.median_trial.legs
    for leg in (legs[name] for name in (PLAIN, CHAIN, SPECULATIVE) if name in legs):  # plain first, as on the page
        gen = leg.generation
        out.write(f"--- {leg.name} ({leg.label}) ---\n")
        pieces = token_pieces(target.tokenizer, gen.tokens)
        out.write(("".join(pieces) if leg is result.plain else marked_text(pieces, gen.origins, color)) + "\n\n")
    out.write(legend(color) + "\n")
    out.write("\n".join(race_table(result)) + "\n")
    out.write(result.line() + "\n")
    return 0


def check_device(device: str | None) -> None:
    """Refuse (ModelSettingError) a device this machine does not have, before any model loads."""
    if device in (None, "", "auto"):
        return
    from specviz.models.device import available_devices
    from specviz.models.model_errors import ModelSettingError

    kind, _, index = device.partition(":")
    if kind not in available_devices():
        raise ModelSettingError(f"--device {device!r} is not available here "
                                f"(available: {', '.join(available_devices())})")
    if kind == "cuda" and index:
        import torch

        count = torch.cuda.device_count()
        if int(index) >= count:
            raise ModelSettingError(f"--device {device!r}: this machine has {count} CUDA device(s), "
                                    f"cuda:0..cuda:{count - 1}")
