"""`specviz play`: toy rounds of a Playground preset, narrated event by event, or their trace as JSON.

Both outputs stream: each round is played, written and dropped, so time and memory grow linearly
with the number of events (1,000 rounds at depth 5 take seconds). A tree drafts up to
width + width² + ... nodes a round: a run projected (``projection``) past MAX_SECONDS or MAX_CHARS
of output is refused before it starts, with the projection and the rounds that fit, unless
``--allow-long`` is given (then one line on stderr says what it will cost).

The JSON (``"format": "specviz-play", "version": 2``) gives the text each round drafts from once,
not once per event::

    {"format": "specviz-play", "version": 2,
     "scenario": {...},                    # specviz.scenario.scenario_to_dict
     "prefix": [],                         # the text the first round drafts from
     "rounds": [                           # one line per round
       {"round_id": 0, "prefix_length": 0, "tokens": [...], "accepted_drafts": 2, "rejected": true,
        "stopped": false,
        "events": [{"kind": "draft", "round_id": 0, "position": 0, "prefix_tail": [], ...}, ...]},
       ...],
     "error": "..."}                       # only when a later round could not be played

A round's prefix is ``prefix`` followed by the tokens of the rounds before it (``prefix_length``
tokens in all); an event's prefix is its round's prefix followed by its ``prefix_tail`` (the drafts
before it). Every other field is ``specviz.core.trace.event_to_dict`` with whole distributions.
``expand`` rebuilds version 1 (every round's and every event's full ``prefix``) from version 2.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any, TextIO

from specviz.narration import TERMINAL, Narrator, Setting

from .terminal import legend, marked_text, use_color

FORMAT, VERSION = "specviz-play", 2

# What one drafted node costs `play` (its draft, check and narration or JSON): bench/tree_play.py
# measured 30-34 us (narration) and 94-100 us (JSON) of CPU per node on the project's 2-core x86
# machine while other work loaded it, for multi:4 at depth 5 on the presets' 6 tokens, and 220 and
# 1,090 characters per node. A projection to answer before a long run starts, not a promise.
SECONDS_PER_NODE = {"text": 40e-6, "json": 110e-6}
CHARS_PER_NODE = {"text": 220, "json": 1100}
MAX_SECONDS = 180  # longer runs are refused unless --allow-long: "a few minutes"
MAX_CHARS = 10**9  # about 1 GB of output


@dataclass(frozen=True)
class Projection:
    """What a play would cost: drafted nodes at most (full trees, no early stop), CPU time and output size."""

    verification: str
    depth: int
    rounds: int
    nodes_per_round: int
    mode: str  # "text" or "json"

    @property
    def seconds(self) -> float:
        return self.rounds * self.nodes_per_round * SECONDS_PER_NODE[self.mode]

    @property
    def chars(self) -> int:
        return self.rounds * self.nodes_per_round * CHARS_PER_NODE[self.mode]

    @property
    def too_long(self) -> bool:
        return self.seconds > MAX_SECONDS or self.chars > MAX_CHARS

    def rounds_that_fit(self) -> int:
        per_round = self.nodes_per_round
        return max(1, min(int(MAX_SECONDS / (per_round * SECONDS_PER_NODE[self.mode])),
                          MAX_CHARS // (per_round * CHARS_PER_NODE[self.mode])))

    def words(self) -> str:
        """'--rounds 1000 of multi:8 at depth 5 draft up to 37,448 nodes a round: about 34 min and 9.0 GB of text'."""
        output = "JSON" if self.mode == "json" else "narration"
        return (f"--rounds {self.rounds} of {self.verification} at --depth {self.depth} draft up to "
                f"{self.nodes_per_round:,} nodes a round: about {_duration(self.seconds)} and {_size(self.chars)} "
                f"of {output}")


def projection(args: argparse.Namespace) -> Projection:
    """The projected cost of `play` with these arguments (before anything is played)."""
    from specviz.core.tree import tree_size
    from specviz.core.verification import rule

    width = rule(args.verification).width  # a chain drafts depth nodes a round (width 1)
    return Projection(args.verification, args.depth, args.rounds, tree_size(args.depth, width),
                      "json" if args.json else "text")


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 600:
        return f"{seconds / 60:.1f} min"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _size(chars: int) -> str:
    return f"{chars / 1e9:.1f} GB" if chars >= 1e9 else f"{chars / 1e6:.0f} MB"


def check_projection(args: argparse.Namespace, err: TextIO) -> bool:
    """False (the refusal written, one line) for a run projected past a few minutes or 1 GB without --allow-long.

    With --allow-long such a run goes ahead after one line on err saying what it will cost.
    """
    planned = projection(args)
    if not planned.too_long:
        return True
    if args.allow_long:
        err.write(f"specviz play: note: {planned.words()}; running it (--allow-long)\n")
        return True
    over = [f"{MAX_SECONDS // 60} min" for _ in range(planned.seconds > MAX_SECONDS)]
    over += [f"{_size(MAX_CHARS)}" for _ in range(planned.chars > MAX_CHARS)]
    err.write(f"specviz play: error: {planned.words()}: over {' and '.join(over)}, the most play runs without "
              f"--allow-long; use --rounds {planned.rounds_that_fit()} or fewer, a smaller width or --depth, or "
              "pass --allow-long to run it anyway\n")
    return False


def scenario_of(args: argparse.Namespace):
    """The Playground preset with the flags applied."""
    from specviz.playground.presets import apply_preset, default_scenario

    scenario = apply_preset(default_scenario(args.markov), args.preset, args.markov)
    return scenario.with_changes(depth=args.depth, seed=args.seed, fp32=args.fp32, verification=args.verification)


def rounds_of(scenario, count: int) -> Iterator:
    """Play up to count rounds one at a time (stopping early when the request stops)."""
    from specviz.scenario import play_round

    verifier = scenario.verifier()
    for round_id in range(count):
        yield play_round(scenario, verifier, round_id)
        if verifier.stopped:
            return


def round_to_dict(played) -> dict[str, Any]:
    """One round as version 2 data: its prefix by length, each event's prefix as the tail after it."""
    from specviz.core.trace import event_to_dict

    prefix = tuple(played.prefix)
    events = []
    tails: dict[int, tuple[tuple, tuple | None]] = {}  # id(event prefix) -> (it, its tail): a tree's node shares one
    for event in played.trace:
        full = getattr(event, "prefix", None)
        tail = None if full is None else _tail(full, prefix, tails)
        if tail is None:  # no prefix, or not the round's: kept whole
            events.append(event_to_dict(event, top_n=None))
            continue
        # convert the tail only: converting the whole prefix per event is what made version 1 quadratic
        data = event_to_dict(replace(event, prefix=tail), top_n=None)
        events.append({("prefix_tail" if k == "prefix" else k): v for k, v in data.items()})
    result = played.result
    return {"round_id": played.round_id, "prefix_length": len(prefix), "tokens": list(result.tokens),
            "accepted_drafts": result.accepted_drafts, "rejected": result.rejected, "stopped": result.stopped,
            "events": events}


def _tail(full: tuple, prefix: tuple, seen: dict[int, tuple[tuple, tuple | None]]) -> tuple | None:
    """full after the round's prefix (None when full does not start with it); compared once per prefix object."""
    known = seen.get(id(full))
    if known is not None and known[0] is full:
        return known[1]
    tail = tuple(full[len(prefix):]) if full is prefix or tuple(full[: len(prefix)]) == prefix else None
    seen[id(full)] = (full, tail)
    return tail


def expand(data: dict[str, Any]) -> dict[str, Any]:
    """Version 2 as version 1: every round with its full ``prefix``, every event with its full ``prefix``.

    Quadratic in the rounds by nature (version 1 repeats the text); for readers written for version 1.
    """
    prefix = list(data.get("prefix", []))
    rounds = []
    for r in data["rounds"]:
        if "prefix_length" not in r:  # already version 1
            rounds.append(r)
            continue
        events = [{("prefix" if k == "prefix_tail" else k): (prefix + v if k == "prefix_tail" else v)
                   for k, v in e.items()} for e in r["events"]]
        head = {k: v for k, v in r.items() if k not in ("prefix_length", "events")}
        rounds.append({"round_id": r["round_id"], "prefix": list(prefix), **head, "events": events})
        prefix += r["tokens"]
    old = {k: v for k, v in data.items() if k not in ("format", "version", "prefix", "rounds")}
    return {**old, "rounds": rounds}


def _refusal(error: Exception, scenario, round_id: int | None = None, preset: str = "") -> str:
    """One line naming the flag that chose what was refused, its value, and the refusal (rounds counted from 1)."""
    from specviz.core.errors import VerificationError
    from specviz.core.medusa import TypicalSupportError
    from specviz.narration.problems import problem_of

    from .args import shown

    if isinstance(error, (TypicalSupportError, VerificationError)):
        flag = f"--verification {shown(scenario.verification)}"
    else:
        flag = "--fp32" if scenario.fp32 else "--preset"
    on = f" on --preset {shown(preset)}" if preset and not flag.startswith("--preset") else \
        f" {shown(preset)}" if preset else ""
    when = "" if round_id is None else f", round {round_id + 1}"
    return f"specviz play: error: {flag}{on}{when}: {problem_of(error, scenario=scenario).line()}\n"


def first_round_problem(scenario) -> None:
    """Play the first round once, quietly: a scenario that cannot play it is refused before anything is written."""
    from specviz.scenario import play_round

    play_round(scenario, scenario.verifier(), 0)


def write_json(scenario, count: int, out: TextIO, err: TextIO, preset: str = "") -> int:
    """Stream the scenario and its rounds as version 2 JSON, one line per round."""
    from specviz.scenario import scenario_to_dict

    head = {"format": FORMAT, "version": VERSION, "scenario": scenario_to_dict(scenario), "prefix": []}
    out.write(json.dumps(head, indent=1)[:-2] + ',\n "rounds": [\n')
    code, ending, written = 0, "\n ]\n}\n", 0
    try:
        for played in rounds_of(scenario, count):
            out.write(("," if written else "") + "  " + json.dumps(round_to_dict(played)) + "\n")
            written += 1
    except (ValueError, TypeError) as error:
        message = _refusal(error, scenario, written, preset)
        err.write(message)
        code, ending = 2, f' ],\n "error": {json.dumps(message.removeprefix("specviz play: error: ").strip())}\n}}\n'
    out.write(ending)
    return code


def write_text(scenario, count: int, color: bool, out: TextIO, err: TextIO, preset: str = "") -> int:
    """Each event's headline and numbers as it is played, then the committed text marked by origin."""
    narrator = Narrator(Setting.of(scenario), TERMINAL)
    code, played_rounds = 0, 0
    try:
        for played in rounds_of(scenario, count):
            for event in played.trace:
                head, lines = narrator.tell(event)
                out.write(head + "\n" + "".join(f"    {line}\n" for line in lines))
            played_rounds += 1
    except (ValueError, TypeError) as error:
        err.write(_refusal(error, scenario, played_rounds, preset))
        code = 2
    if not played_rounds:
        return code  # nothing was played: no committed text to show
    pieces = [scenario.vocab[token] + " " for token, _ in narrator.committed]
    origins = [origin for _, origin in narrator.committed]
    out.write("\n" + marked_text(pieces, origins, color).rstrip() + "\n" + legend(color) + "\n")
    return code


def cmd_play(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Play toy rounds and print each step of the verifier's trace with its numbers (or the trace as JSON)."""
    if not check_projection(args, err):
        return 2
    scenario = scenario_of(args)
    try:
        scenario.verifier()  # a refused scenario is answered before anything is written
        first_round_problem(scenario)
    except (ValueError, TypeError) as error:
        err.write(_refusal(error, scenario, 0, args.preset))
        return 2
    if args.json:
        return write_json(scenario, args.rounds, out, err, args.preset)
    return write_text(scenario, args.rounds, use_color(args.color, out), out, err, args.preset)
