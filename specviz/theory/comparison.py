"""Tokenwise against block verification on one scenario, depth by depth, with the joint-probability bound."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from ..core import Prefix
from ..scenario import Scenario
from .expectation import RoundExpectation, ideal_accepted_drafts
from .rule_theory import round_expectation


@dataclass(frozen=True)
class VerificationRow:
    """Tokenwise against block verification at one depth."""

    depth: int
    token: RoundExpectation
    block: RoundExpectation
    ideal: Fraction | None  # the joint-probability bound, for context-free scenarios without stops

    @property
    def gain(self) -> Fraction:
        """Extra accepted drafts (= extra committed tokens without stops) per round from block verification."""
        return self.block.accepted_drafts - self.token.accepted_drafts


def compare_verifications(scenario: Scenario, depths: Iterable[int] | None = None,
                          prefix: Prefix = ()) -> list[VerificationRow]:
    """Tokenwise and block verification of scenario side by side (default: its own depth), exactly."""
    rows = []
    context_free = scenario.target.rows is None and scenario.draft.rows is None and not scenario.stop_ids
    for g in depths if depths is not None else [scenario.depth]:
        at = scenario.with_changes(depth=g)
        ideal = None
        if context_free:
            p = at.processor()((), at.target_model()(()))
            ideal = ideal_accepted_drafts(p, at.draft_model()(()), g)
        rows.append(VerificationRow(g, round_expectation(at, prefix, verification="token"),
                                    round_expectation(at, prefix, verification="block"), ideal))
    return rows
