"""The HTML of a Playground step beside its figures: narration, folded exact values, committed text, rounds, stats.

The one place the Playground writes HTML and markdown for a step (the chips themselves are in
``committed_text``, the draw strip's SVG in ``draw_strip``). Pure functions of the step view's plain
data; text from the narration is escaped, so a token label stays text.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from .. import formats, narration
from ..core.trace import Event
from ..core.verification import FamilyTable
from . import committed_text, engine_rules, style

if TYPE_CHECKING:  # the step view is this module's input; nothing here calls back into it
    from ..playground.narrative import HistoryRow, Stats, StepView, Token

PRESENTER_CHIPS = 7  # one line of presenter-size chips in the chart's column at 1280 px
MUTED = "color:#555"


def bullets(lines: Sequence[str]) -> str:
    """Sentences as a markdown list, each escaped (a token such as '<b>' stays text)."""
    return "\n".join(f"- {html.escape(line, quote=False)}" for line in lines)


def exact_values_html(values: Sequence[tuple[str, str]]) -> str:
    """The step's long numbers in full, folded (a details element inside the narration, not a widget)."""
    if not values:
        return ""
    items = "".join(f"<li>{html.escape(name)} = <code style='word-break:break-all'>{html.escape(value)}</code></li>"
                    for name, value in values)
    return f"<details><summary>Exact values of this step (long integers in full)</summary><ul>{items}</ul></details>"


def narration_markdown(lines: Sequence[str], event: Event, vocab: Sequence[str]) -> str:
    """The step's sentences, then its exact values folded when the sentences abbreviate any."""
    exact = exact_values_html(narration.exact_values(event, vocab))
    return bullets(lines) + ("\n\n" + exact if exact else "")


# --- the committed text -------------------------------------------------------------------------------------
def _legend() -> str:
    q = style.role("q")
    return style.legend_html() + f" &nbsp; <span style='color:{q.color}'>{q.glyph} drafted, not yet checked</span>"


def presenter_tail(view: StepView) -> list[Token]:
    """The committed tokens presenter mode shows: the last few (PRESENTER_CHIPS chips at most, pending drafts too)."""
    keep = max(PRESENTER_CHIPS - len(view.pending), 2)
    return list(view.committed[-keep:]) if len(view.committed) > keep else list(view.committed)


def committed_markdown(view: StepView, vocab: tuple[str, ...], presenter: bool) -> str:
    """The committed text as chips under a legend of their colours (in presenter mode a smaller one-line legend
    and the last few tokens, so that legend and chips fit under the chart's column)."""
    if presenter:
        shown, total = presenter_tail(view), len(view.committed)
        chips = committed_text.tokens_html(shown, view.pending, vocab, large=True)
        count = f" (last {len(shown)} of {total})" if len(shown) < total else ""
        return (f"<div style='font-size:0.95rem;white-space:nowrap'><b>Committed text</b>{count} &nbsp; {_legend()}"
                f"</div>{chips}")
    return f"**Committed text** &nbsp; {_legend()}\n\n{committed_text.committed_html(view, vocab)}"


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
    return [{round_: str(h.round_id), drafted: h.drafted, accepted: str(h.accepted),
             rejected: "—" if h.rejected_at is None else str(h.rejected_at), committed: h.committed,
             tokens: str(h.tokens)} for h in history]


def rounds_html(history: Sequence[HistoryRow], verification: str, last: int = 8) -> str:
    """The finished rounds as a plain HTML table, the latest ``last`` of them, under a heading that says so.

    Plain HTML, not a data grid: the page redraws it on every Step, and a grid costs the browser far more.
    """
    columns = rounds_columns(verification)
    rows = rounds_rows(history, verification)
    shown = rows[-last:]
    heading = "**Rounds so far**"
    if len(rows) > len(shown):
        heading += f" <span style='{MUTED}'>(the last {len(shown)} of {len(rows)})</span>"
    if not rows:
        return heading + f"<br><span style='{MUTED}'>(no round finished yet)</span>"
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(r[c])}</td>" for c in columns) + "</tr>" for r in shown)
    return f"{heading}\n\n" + compact(
        f"<table style='width:100%;margin:0'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")


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
                                               "ensemble": engine_rules.stats_table,
                                               "threshold": engine_rules.stats_table,
                                               "typical": engine_rules.stats_table,
                                               "traversal": engine_rules.stats_table,
                                               "exact-match": engine_rules.stats_table}, scope="playable")


def stats_markdown(stats: Stats) -> str:
    """Measured acceptance (or kept drafts) and tokens per round against the theory, as a markdown table."""
    return STATS_TABLES_BY_FAMILY[stats.verification](stats)


def stats_html(stats: Stats) -> str:
    """The statistics table, compact, with the theory's caveat under it."""
    note = f"\n\n<span style='{MUTED}'>{html.escape(stats.note)}</span>" if stats.note else ""
    return compact(stats_markdown(stats)) + note


# tables beside each other in a column: compact cells, and a scroll bar rather than spilling over
COMPACT_TABLE_CSS = ("<style>.specviz-compact {overflow-x: auto} .specviz-compact td, .specviz-compact th "
                     "{padding: 0.2rem 0.4rem !important; line-height: 1.3; font-size: 0.95em}</style>")


def side_by_side(left: str, right: str, ratio: tuple[int, int], top: str = "0.5rem") -> str:
    """Two markdown blocks beside each other in one element (a CSS grid, widths in ``ratio``).

    One element instead of a row of columns (five elements: the row, two columns, two markdowns): every
    element of the Animation tab is resent and redrawn on each Step.
    """
    cell = "<div style='min-width:0'>\n\n{}\n\n</div>"  # min-width 0: a wide table scrolls inside its cell
    return (f"<div class='specviz-side-by-side' style='display:grid;grid-template-columns:{ratio[0]}fr "
            f"{ratio[1]}fr;gap:1rem;align-items:start;margin-top:{top}'>{cell.format(left)}{cell.format(right)}</div>")


# the classes of the step's HTML parts: the e2e tests and the presenter's fit measures find each part by them
DRAW_CLASS, NARRATION_CLASS, COMMITTED_CLASS = "specviz-draw", "specviz-narration", "specviz-committed"


def named(css_class: str, body: str, style_: str = "") -> str:
    """Markdown in a div of this class (blank lines around the body, so its markdown still renders)."""
    attrs = f" style='{style_}'" if style_ else ""
    return f"<div class='{css_class}'{attrs}>\n\n{body}\n\n</div>"


def words(draw_svg: str | None, narration: str, beside: bool, gap: str) -> str:
    """The step's draw strip and its narration as one element: the draw above the words, or (``beside``: the
    residual's wide page) the words left and the draw right, as the two columns were.

    One element instead of seven (a row, two columns, two keyed containers and two markdowns): every element
    of the Animation tab is resent and redrawn on each Step. ``gap`` is the space the page puts between
    elements (presenter mode's is smaller).
    """
    said = named(NARRATION_CLASS, narration)
    if draw_svg is None:
        return said
    if beside:
        return side_by_side(said, named(DRAW_CLASS, draw_svg), (1, 1), top="0")
    return named(DRAW_CLASS, draw_svg, f"margin-bottom:{gap}") + "\n\n" + said


def compact(table: str) -> str:
    """A markdown or HTML table inside the compact wrapper (markdown between blank lines in a div still renders)."""
    return f"<div class='specviz-compact'>{COMPACT_TABLE_CSS}\n\n{table}\n\n</div>"


def caption(view: StepView) -> str:
    """'Step 4 · round 0 · event 4 of 9 · Checking': where the step is (steps and events counted from 1)."""
    return (f"Step {view.step + 1} · round {view.round_id} · event {view.position_in_round + 1} of "
            f"{view.events_in_round} · {view.phase_title}")
