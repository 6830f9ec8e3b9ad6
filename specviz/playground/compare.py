"""Tokenwise against block verification on the same drafts: one drafted block, verified by both rules.

``compare(scenario, prefix, round_id)`` drafts one block from ``prefix`` with the scenario's draft and
its proposal stream of ``round_id`` (the draws the animation's round makes), then verifies that one
block twice, once per rule, each with a fresh copy of the same streams: both rules see the same drafts
and the same acceptance and correction streams, so every difference comes from the rule alone.
Pure: the result depends only on its arguments.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core import Block, Result, Trace, propose
from ..core.trace import BlockCheckEvent, CheckEvent, DraftEvent, StopEvent
from ..core.verification import Rule, rule
from ..scenario import Prefix, Scenario

RULES = ("token", "block")


@dataclass(frozen=True)
class Side:
    """One rule's verification of the shared block."""

    rule: Rule
    trace: Trace  # the shared drafting events, then this rule's checks, correction or bonus, stop, result
    result: Result

    @property
    def kept(self) -> int:
        """Drafts the rule committed (accepted by tokenwise, kept by block)."""
        return self.result.accepted_drafts

    @property
    def checks(self) -> list[CheckEvent | BlockCheckEvent]:
        return [e for e in self.trace.events if isinstance(e, (CheckEvent, BlockCheckEvent))]

    def summary(self) -> str:
        """'2 of 3 drafts accepted, 3 tokens committed' (out of every draft of the block, checked or not)."""
        drafted = len([e for e in self.trace.events if isinstance(e, DraftEvent)])
        tokens = len(self.result.tokens)
        return (f"{self.kept} of {drafted} draft{'s' if drafted != 1 else ''} {self.rule.kept_verb}, "
                f"{tokens} token{'s' if tokens != 1 else ''} committed")


@dataclass(frozen=True)
class Comparison:
    prefix: Prefix
    round_id: int
    block: Block
    sides: tuple[Side, ...]  # in RULES order

    @property
    def drafts(self) -> tuple[int, ...]:
        return tuple(p.token for p in self.block.proposals)

    def side(self, name: str) -> Side:
        return next(s for s in self.sides if s.rule.name == rule(name).name)


def compare(scenario: Scenario, prefix: Prefix = (), round_id: int = 0, rules: tuple[str, ...] = RULES) -> Comparison:
    """One block drafted from prefix, verified by each rule on fresh copies of the same streams."""
    drafting = Trace()
    block = propose(scenario.draft_model(), tuple(prefix), scenario.streams(round_id), depth=scenario.depth,
                    context_id=scenario.context, stop_ids=frozenset(scenario.stop_ids), trace=drafting)
    sides = []
    for name in rules:
        verifier = scenario.with_changes(verification=name).verifier(tuple(prefix))
        trace = Trace([e for e in drafting.events if isinstance(e, (DraftEvent, StopEvent))])
        # a fresh RandomStreams of the same seed, owner and round: the same acceptance and correction draws
        result = verifier.verify(block, scenario.streams(round_id), trace=trace)
        sides.append(Side(rule(name), trace, result))
    return Comparison(tuple(prefix), round_id, block, tuple(sides))


def compare_at(scenario: Scenario, round_id: int) -> Comparison:
    """The comparison on the animation's round ``round_id``: drafted from that round's committed prefix."""
    from .state import timeline_for

    timeline = timeline_for(scenario)
    timeline.ensure_rounds(round_id + 1)
    played = timeline.rounds[min(round_id, len(timeline.rounds) - 1)] if timeline.rounds else None
    if played is None:
        return compare(scenario, (), 0)
    return compare(scenario, played.prefix, played.round_id)


def rows(comparison: Comparison, vocab: tuple[str, ...]) -> list[dict[str, str]]:
    """One table row per rule: drafted, committed, the count of drafts committed, tokens."""
    drafted = " ".join(vocab[t] for t in comparison.drafts)
    return [{"rule": side.rule.label, "drafted": drafted,
             "committed": " ".join(vocab[t] for t in side.result.tokens),
             "drafts committed": f"{side.kept} of {len(comparison.drafts)} {side.rule.kept_verb}",
             "tokens": str(len(side.result.tokens))} for side in comparison.sides]


def trace_lines(side: Side, vocab: tuple[str, ...]) -> list[str]:
    """The rule's decisions on the shared block, one short line each (numbers exact)."""
    from ..narration.block import fraction_text, names

    lines = []
    for e in side.trace.events:
        x = f"‘{vocab[e.token]}’" if hasattr(e, "token") else ""
        if isinstance(e, CheckEvent):
            verdict = "accepted" if e.accepted else "rejected"
            lines.append(f"position {e.position}: {x} min(1, p/q) = {fraction_text(e.acceptance)}; draw "
                         f"{e.draw} {'<' if e.accepted else '≥'} {e.acceptance.numerator} → {verdict}")
        elif isinstance(e, BlockCheckEvent):
            n = names(e.position)  # w_k and h_k: computed at position k, as the narration names them
            lines.append(f"position {e.position}: {x} {n.weight} = {fraction_text(e.weight)}, {n.stop} "
                         f"= {fraction_text(e.stop_probability)}; draw {e.draw} {'<' if e.hit else '≥'} "
                         f"{e.stop_probability.numerator} → {'hit' if e.hit else 'no hit'}")
        elif e.kind == "block_decision":
            lines.append(f"decision: keep τ = {e.accepted_drafts} of {len(e.drafts)}")
        elif e.kind == "correction":
            lines.append(f"correction {x} (draw {e.draw} of 0..{e.draw_range - 1})")
        elif e.kind == "bonus":
            lines.append(f"bonus {x} from p (draw {e.draw} of 0..{e.draw_range - 1})")
    return lines
