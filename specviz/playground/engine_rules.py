"""The Playground's statistics for the engine rules (ensemble, SGLang's thresholds, Medusa): the exact theory column.

``theory_line(scenario)`` is what the running statistics compare the measured rounds with: the exact expected
accepted drafts and committed tokens of a round from the empty text, by the rule's own node law
(``theory.round_expectation``), with the caveats of a Markov scenario. Pure; memoized per distribution setting.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from .. import theory
from ..core import SpecvizError, rule
from ..scenario import Scenario


def theory_line(scenario: Scenario) -> tuple[Fraction | None, Fraction | None, str]:
    """(expected committed tokens, expected accepted drafts, note) per round from the empty text, exactly."""
    # the draws do not change the theory: one pass per distribution setting, not per seed or step
    return _theory_line(scenario.with_changes(seed=0, request_id="demo", generation=0, context_id=""))


@lru_cache(maxsize=32)
def _theory_line(scenario: Scenario) -> tuple[Fraction | None, Fraction | None, str]:
    found = rule(scenario.verification)
    try:
        expectation = theory.round_expectation(scenario)
    except SpecvizError:  # theory refuses this setting: no theory line (a bug still surfaces)
        return None, None, ""
    notes = [f"Theory: {found.short}'s exact node law, from the empty text"
             + ("" if found.exact else "; a lossy rule: its text does not follow p") + "."]
    if scenario.target.rows is not None:
        notes.append("Markov mode: later rounds start from other tokens, so their expectation differs.")
    return expectation.tokens, expectation.accepted_drafts, " ".join(notes)
