"""Command-line values, validated before anything slow runs: argparse ``type=`` readers and the draft kinds.

Every reader takes the flag's text and returns the value, or raises ``argparse.ArgumentTypeError``
whose message names the value and the allowed range (argparse prefixes the flag). Nothing here
imports torch or transformers: a bad flag is refused in well under a second.

``DRAFT_KINDS`` is the one place that lists the drafts ``--draft`` accepts and their options; a new
kind is one more entry there (and its builder in ``specviz.models.drafts``).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from specviz.core.errors import SpecvizError

MIN_TEMPERATURE = 1e-6  # far below it float32 logits / T overflow; a tiny T is greedy in effect anyway
MAX_ROUNDS = 1000  # rounds `play` narrates in one call
MAX_TOP_N = 1000  # entries of each distribution --json keeps: 50,257 would write tens of MB per token
MAX_NGRAM = 8  # lookup drafts match at most this many tokens (specviz.models' draft specs agree)
DEVICE_PATTERN = re.compile(r"auto|cpu|mps|cuda(:\d+)?")
GREEDY_HINT = ("0 would mean greedy decoding (always the most likely token), which leaves no distribution to "
               "sample from; for greedy use {top_k_1} (with any temperature)")

Reader = Callable[[str], Any]


class UsageError(SpecvizError, ValueError):
    """A refused command line: ``str(error)`` is the one line to print (exit status 2)."""


class Parser(argparse.ArgumentParser):
    """argparse with one-line refusals: ``error`` raises UsageError instead of printing usage and exiting."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: error: {message} (see {self.prog} --help)")


def shown(text: str, limit: int = 40) -> str:
    """The refused text as it appears in a message: quoted, one line, long text cut in the middle."""
    quoted = repr(text)
    return quoted if len(quoted) <= limit else f"{quoted[: limit // 2]}…{quoted[-limit // 2:]}"


def _refuse(text: str, allowed: str) -> argparse.ArgumentTypeError:
    return argparse.ArgumentTypeError(f"{shown(text)} is not allowed; {allowed}")


# --- numbers ------------------------------------------------------------------------------------------
def _digits_note(text: str) -> str:
    """'; only the ASCII digits 0-9 are read' when text holds other digits (or '_'): links and files read the same."""
    from specviz.scenario.reading import digits_hint

    hint = digits_hint(text.strip())
    return f"; {hint.strip()[1:-1]}" if hint else ""


def _int_text(text: str, allowed: str) -> int:
    """A whole number in the one grammar of links and files (ASCII digits, an optional sign, no '_')."""
    from specviz.scenario import ScenarioError, int_from_text

    try:
        return int_from_text(text, "value")
    except ScenarioError:
        raise _refuse(text, allowed + _digits_note(text)) from None


def _range_text(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f"a whole number in {low}..{high}"
    if low is not None:
        return f"a whole number ≥ {low}"
    return "a whole number"


def int_in(low: int | None = None, high: int | None = None, note: str = "") -> Reader:
    """A reader of whole numbers in low..high (None: unbounded); note explains special values."""
    allowed = _range_text(low, high) + (f" ({note})" if note else "")

    def read(text: str) -> int:
        value = _int_text(text, f"use {allowed}")
        if (low is not None and value < low) or (high is not None and value > high):
            raise _refuse(text, f"use {allowed}")
        return value

    read.__name__ = "whole number"
    return read


def _float_text(text: str, allowed: str) -> float:
    """A finite number in the one grammar of links and files: 0.5, 1e-3, 1/2 (ASCII digits; no nan, inf or '_')."""
    from specviz.scenario import ScenarioError, real_from_text

    try:
        return real_from_text(text, "value", allowed)
    except ScenarioError:
        raise _refuse(text, allowed + _digits_note(text)) from None


def read_top_p(text: str) -> float:
    """--top-p: a finite number in (0, 1]; 1 switches it off."""
    allowed = "use a number P with 0 < P ≤ 1 (the smallest set of tokens whose mass reaches P; 1 = off)"
    value = _float_text(text, allowed)
    if not 0 < value <= 1:
        raise _refuse(text, allowed)
    return value


def temperature_reader(top_k_1: str) -> Reader:
    """A temperature reader: a finite number ≥ MIN_TEMPERATURE; 0 is answered with how to get greedy (top_k_1)."""
    allowed = f"use a finite number T ≥ {MIN_TEMPERATURE:g} (1 = unchanged, < 1 sharper, > 1 flatter)"

    def read(text: str) -> float:
        value = _float_text(text, allowed)
        if value == 0:
            raise _refuse(text, f"{GREEDY_HINT.format(top_k_1=top_k_1)}; or {allowed}")
        if value < MIN_TEMPERATURE:
            raise _refuse(text, allowed)
        return value

    read.__name__ = "temperature"
    return read


read_temperature = temperature_reader("--top-k 1")


def read_device(text: str) -> str:
    """--device: auto, cpu, mps, cuda or cuda:N (whether it exists here is checked before loading)."""
    if not DEVICE_PATTERN.fullmatch(text.strip()):
        raise _refuse(text, "use auto, cpu, cuda, cuda:N or mps")
    return text.strip()


def read_model(text: str) -> str:
    """--model: a nonempty name, folder or file."""
    if not text.strip():
        raise _refuse(text, "name a model: smollm2, a hub id, a folder or a .gguf file")
    return text.strip()


def seed_range() -> tuple[int, int]:
    """The seeds every part of specviz accepts: the Playground's range (0 .. 2^53 − 1, exact in a browser)."""
    from specviz.playground.form import SEED_MAX

    return 0, SEED_MAX


def read_seed(text: str) -> int:
    """--seed: a whole number in the Playground's range, so a seed on the command line replays on the page."""
    low, high = seed_range()
    return int_in(low, high, note="the Playground's range, 2^53 − 1 at most")(text)


def read_preset(text: str) -> str:
    """play --preset: one of the Playground's presets."""
    from specviz.playground.presets import PRESETS

    if text not in PRESETS:
        raise _refuse(text, f"choose one of: {', '.join(repr(name) for name in PRESETS)}")
    return text


def _verification_names() -> dict[str, str]:
    """Every word --verification accepts (lower case) and the rule it names: names and short labels."""
    from specviz.core.verification import playable_names, rule

    words = {}
    for name in playable_names():
        words[name] = name
        words.setdefault(rule(name).short.lower(), name)
    return words


def verification_allowed() -> str:
    """The playable rules as a refusal lists them, in the registry's words: 'token (tokenwise), block (...)'."""
    from specviz.core.verification import playable_forms, playable_names, rule

    names = [f"{name} ({rule(name).label})" for name in playable_names()]
    return ", ".join(names + list(playable_forms()[len(names):])) + "; any case"


def verification_help() -> str:
    """--verification's help: every playable rule with the engine setting that runs it, and the engines' names."""
    from specviz.core.verification import playable_help

    return playable_help() + " (docs/design.md names each); any case"


def read_verification(text: str) -> str:
    """--verification (play and generate alike): a rule the core can run, by the registry's names, any case.

    A refusal carries the registry's own message (the same words as the library and the Playground).
    """
    from specviz.core.verification import VerificationError, check_verification
    from specviz.scenario.document import MAX_RULE_NAME_CHARS

    value = text.strip().lower()
    if len(value) > MAX_RULE_NAME_CHARS:  # refused by its length before the registry reads it (as links do)
        raise _refuse(text, f"a rule name has at most {MAX_RULE_NAME_CHARS} characters: {verification_allowed()}")
    try:
        return check_verification(_verification_names().get(value, value))
    except VerificationError as error:
        raise argparse.ArgumentTypeError(f"{shown(text)} is not allowed: {error}") from None


# --- drafts -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DraftOption:
    """One setting of a draft kind: its name (the DraftSpec field), reader and default (None: required)."""

    name: str
    read: Reader
    default: Any
    help: str


@dataclass(frozen=True)
class DraftKind:
    """A draft --draft accepts: 'kind:VALUE' (one positional option) or 'kind:name=value,...' (named options)."""

    name: str
    aliases: tuple[str, ...]
    example: str
    positional: DraftOption | None = None
    options: tuple[DraftOption, ...] = ()

    def parse(self, arg: str, text: str) -> dict[str, Any]:
        if self.positional is not None:
            option = self.positional
            if not arg:
                if option.default is None:
                    raise _refuse(text, f"{self.name} needs its {option.help}: e.g. {self.example}")
                return {option.name: option.default}
            return {option.name: _draft_value(option, arg, text, self)}
        if not self.options and arg:
            raise _refuse(text, f"{self.name} takes no options: use {self.example}")
        values = {option.name: option.default for option in self.options}
        known = {option.name: option for option in self.options}
        seen: set[str] = set()
        for part in filter(None, (p.strip() for p in arg.split(","))):
            name, equals, value = part.partition("=")
            name = name.strip()
            if not equals or name not in known:
                raise _refuse(text, f"{self.name} takes {', '.join(f'{o}=…' for o in known)}; e.g. {self.example}")
            if name in seen:
                raise _refuse(text, f"{name} is given twice")
            seen.add(name)
            values[name] = _draft_value(known[name], value, text, self)
        return values


def _draft_value(option: DraftOption, value: str, text: str, kind: DraftKind) -> Any:
    try:
        return option.read(value)
    except argparse.ArgumentTypeError as error:
        raise argparse.ArgumentTypeError(f"{shown(text)}: the {option.help} of {kind.name} draft: {error}") from None


def _nonempty(text: str) -> str:
    if not text.strip():
        raise _refuse(text, "name a hub id or folder")
    return text.strip()


DRAFT_KINDS: tuple[DraftKind, ...] = (
    DraftKind("early-exit", ("early_exit", "ee"), "early-exit:8",
              positional=DraftOption("layers", int_in(1, note="at most the target's layer count"), 8,
                                     "layer count K")),
    DraftKind("target", (), "target:temperature=1.5,top_k=20",
              options=(DraftOption("temperature", temperature_reader("top_k=1"), 1.0, "temperature"),
                       DraftOption("top_k", int_in(0, note="0 = off"), 0, "top_k"))),
    DraftKind("lookup", ("prompt-lookup",), "lookup:3",
              positional=DraftOption("ngram", int_in(1, MAX_NGRAM), 3, "n-gram length N")),
    DraftKind("bf16", (), "bf16"),  # the target itself in bfloat16 (no options)
    DraftKind("model", (), "model:HuggingFaceTB/SmolLM2-360M-Instruct",
              positional=DraftOption("model", _nonempty, None, "hub id or folder")),
)


@dataclass(frozen=True)
class DraftChoice:
    """A validated --draft: the DraftSpec kind and fields, and the text as given."""

    kind: str
    fields: dict[str, Any] = field(default_factory=dict)
    text: str = ""

    def __str__(self) -> str:
        return self.text


def draft_usage() -> str:
    return " | ".join(kind.example for kind in DRAFT_KINDS)


def read_draft(text: str) -> DraftChoice:
    """--draft: one of DRAFT_KINDS with valid options."""
    name, _, arg = text.strip().partition(":")
    name = name.strip().lower()
    for kind in DRAFT_KINDS:
        if name == kind.name or name in kind.aliases:
            return DraftChoice(kind.name, kind.parse(arg.strip(), text), text.strip())
    raise _refuse(text, f"use {draft_usage()}")


read_draft.__name__ = "draft"
