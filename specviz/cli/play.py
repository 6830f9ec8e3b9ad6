"""`specviz play`: toy rounds of a Playground preset, narrated event by event, or their trace as JSON.

Both outputs stream: each round is played, written and dropped, so time and memory grow linearly
with the number of events (1,000 rounds at depth 5 take seconds).

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
from dataclasses import replace
from typing import Any, TextIO

from specviz.narration import TERMINAL, Narrator, Setting

from .terminal import legend, marked_text, use_color

FORMAT, VERSION = "specviz-play", 2


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
    for event in played.trace:
        full = getattr(event, "prefix", None)
        if full is None or tuple(full[: len(prefix)]) != prefix:  # no prefix, or not the round's: kept whole
            events.append(event_to_dict(event, top_n=None))
            continue
        # convert the tail only: converting the whole prefix per event is what made version 1 quadratic
        data = event_to_dict(replace(event, prefix=tuple(full[len(prefix):])), top_n=None)
        events.append({("prefix_tail" if k == "prefix" else k): v for k, v in data.items()})
    result = played.result
    return {"round_id": played.round_id, "prefix_length": len(prefix), "tokens": list(result.tokens),
            "accepted_drafts": result.accepted_drafts, "rejected": result.rejected, "stopped": result.stopped,
            "events": events}


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


def _refusal(error: Exception, scenario) -> str:
    from specviz.playground.explain import explain

    return f"error: {explain(error, scenario=scenario).markdown()}\n"


def write_json(scenario, count: int, out: TextIO, err: TextIO) -> int:
    """Stream the scenario and its rounds as version 2 JSON, one line per round."""
    from specviz.scenario import scenario_to_dict

    head = {"format": FORMAT, "version": VERSION, "scenario": scenario_to_dict(scenario), "prefix": []}
    out.write(json.dumps(head, indent=1)[:-2] + ',\n "rounds": [\n')
    code, ending = 0, "\n ]\n}\n"
    try:
        for index, played in enumerate(rounds_of(scenario, count)):
            out.write(("," if index else "") + "  " + json.dumps(round_to_dict(played)) + "\n")
    except (ValueError, TypeError) as error:
        message = _refusal(error, scenario)
        err.write(message)
        code, ending = 2, f' ],\n "error": {json.dumps(message.removeprefix("error: ").strip())}\n}}\n'
    out.write(ending)
    return code


def write_text(scenario, count: int, color: bool, out: TextIO, err: TextIO) -> int:
    """Each event's headline and numbers as it is played, then the committed text marked by origin."""
    narrator = Narrator(Setting.of(scenario), TERMINAL)
    code = 0
    try:
        for played in rounds_of(scenario, count):
            for event in played.trace:
                head, lines = narrator.tell(event)
                out.write(head + "\n" + "".join(f"    {line}\n" for line in lines))
    except (ValueError, TypeError) as error:
        err.write(_refusal(error, scenario))
        code = 2
    pieces = [scenario.vocab[token] + " " for token, _ in narrator.committed]
    origins = [origin for _, origin in narrator.committed]
    out.write("\n" + marked_text(pieces, origins, color).rstrip() + "\n" + legend(color) + "\n")
    return code


def cmd_play(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Play toy rounds and print each step of the verifier's trace with its numbers (or the trace as JSON)."""
    scenario = scenario_of(args)
    try:
        scenario.verifier()  # a refused scenario is answered before anything is written
    except (ValueError, TypeError) as error:
        err.write(_refusal(error, scenario))
        return 2
    if args.json:
        return write_json(scenario, args.rounds, out, err)
    return write_text(scenario, args.rounds, use_color(args.color, out), out, err)
