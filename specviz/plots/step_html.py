"""The words around a step: its caption, the finished rounds' rows, the statistics' table per rule, and the
Compare tab's small HTML (bullets, a compact table).

The step player (``specviz.player.frames``) reads the caption, the rounds' rows and the statistics from here, as
plain text; the Compare tab writes its HTML with ``bullets`` and ``compact``, whose text is escaped so that a token
label stays text.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from .. import formats
from ..core.verification import FamilyTable
from ..narration.counting import nth
from . import engine_rule_figures

if TYPE_CHECKING:  # the step view is this module's input; nothing here calls back into it
    from ..playground.narrative import HistoryRow, Stats, StepView

PRESENTER_CHIPS = 7  # one line of presenter-size chips in the chart's column at 1280 px (the player shows the last)


def bullets(lines: Sequence[str]) -> str:
    """Sentences as a markdown list, each escaped (a token such as '<b>' stays text)."""
    return "\n".join(f"- {html.escape(line, quote=False)}" for line in lines)


# --- the finished rounds ----------------------------------------------------------------------------------------
# what a rule calls a committed draft and the position of its correction (block keeps τ drafts at once)
ROUND_COLUMNS_BY_FAMILY: FamilyTable[tuple[str, str]] = FamilyTable(
    "plots.step_html.ROUND_COLUMNS_BY_FAMILY",
    {"token": ("accepted", "rejected at"), "block": ("kept τ", "corrected at"), "tree": ("accepted", "rejected at"),
     "ensemble": ("accepted", "rejected at"), "threshold": ("accepted", "rejected at"),
     "typical": ("accepted", "rejected at"), "traversal": ("kept", "corrected at"),
     "exact-match": ("accepted", "rejected at")}, scope="playable")


def rounds_columns(verification: str) -> list[str]:
    """The rounds table's column names for the rule."""
    accepted, rejected = ROUND_COLUMNS_BY_FAMILY[verification]
    return ["round", "drafted", accepted, rejected, "committed", "tokens"]


def rounds_rows(history: Sequence[HistoryRow], verification: str) -> list[dict[str, str]]:
    """One row of text cells per finished round, keyed by ``rounds_columns``."""
    round_, drafted, accepted, rejected, committed, tokens = rounds_columns(verification)
    return [{round_: str(nth(h.round_id)), drafted: h.drafted, accepted: str(h.accepted),
             rejected: "—" if h.rejected_at is None else str(nth(h.rejected_at)), committed: h.committed,
             tokens: str(h.tokens)} for h in history]


# --- the running statistics -------------------------------------------------------------------------------------
def _cell(value: Fraction | None) -> str:
    return "—" if value is None else formats.fraction_folded(value, 3)


def _chain_table(stats: Stats) -> str:
    return "\n".join([
        "| | measured | theory |",
        "|---|---|---|",
        f"| acceptance rate | {_cell(stats.acceptance_rate)} ({stats.accepted} of {stats.checks}) "
        f"| α = Σ min(p, q) = {_cell(stats.alpha)} |",
        f"| tokens per round | {_cell(stats.tokens_per_round)} ({stats.tokens} in {stats.rounds}) "
        f"| (1 − α^{stats.depth + 1}) / (1 − α) = {_cell(stats.expected)} |",
    ])


def _block_table(stats: Stats) -> str:
    return "\n".join([
        "| block verification | measured | theory (exact) |",
        "|---|---|---|",
        f"| kept drafts per round | {_cell(stats.accepted_per_round)} ({stats.accepted_in_rounds} in "
        f"{stats.rounds}) | E[τ] = {_cell(stats.expected_accepted)} |",
        f"| tokens per round | {_cell(stats.tokens_per_round)} ({stats.tokens} in {stats.rounds}) "
        f"| {_cell(stats.expected)} |",
    ])


# the statistics table per rule: a tree counts its sibling checks as the chain counts its checks
STATS_TABLES_BY_FAMILY: FamilyTable[Callable[[Stats], str]] = FamilyTable(
    "plots.step_html.STATS_TABLES_BY_FAMILY", {"token": _chain_table, "block": _block_table, "tree": _chain_table,
                                               "ensemble": engine_rule_figures.stats_table,
                                               "threshold": engine_rule_figures.stats_table,
                                               "typical": engine_rule_figures.stats_table,
                                               "traversal": engine_rule_figures.stats_table,
                                               "exact-match": engine_rule_figures.stats_table}, scope="playable")


def stats_markdown(stats: Stats) -> str:
    """Measured acceptance (or kept drafts) and tokens per round against the theory, as a markdown table."""
    return STATS_TABLES_BY_FAMILY[stats.verification](stats)


# tables beside each other in a column: compact cells, and a scroll bar rather than spilling over
COMPACT_TABLE_CSS = ("<style>.specviz-compact {overflow-x: auto} .specviz-compact td, .specviz-compact th "
                     "{padding: 0.2rem 0.4rem !important; line-height: 1.3; font-size: 0.95em}</style>")


def compact(table: str) -> str:
    """A markdown or HTML table inside the compact wrapper (markdown between blank lines in a div still renders)."""
    return f"<div class='specviz-compact'>{COMPACT_TABLE_CSS}\n\n{table}\n\n</div>"


def caption(view: StepView) -> str:
    """'Step 4 · round 1 · event 4 of 9 · Checking': where the step is (counted from 1, as every count a person
    reads: narration.counting)."""
    return (f"Step {nth(view.step)} · round {nth(view.round_id)} · event {nth(view.position_in_round)} of "
            f"{view.events_in_round} · {view.phase_title}")
