"""The Playground's narrative at one step: headline and sentences, the coloured text, history, stats.

``step_view(scenario, step)`` is a pure function of its arguments (through the memoized
timeline); the page renders the returned data and the plots module draws its figures.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

from .. import formats, narration
from ..core.trace import (
    BlockCheckEvent,
    BlockDecisionEvent,
    BonusEvent,
    CheckEvent,
    CorrectionEvent,
    DraftEvent,
    Event,
    ResultEvent,
    ScaledCorrectionEvent,
    TreeCheckEvent,
    TreeCorrectionEvent,
)
from ..core.verification import rule
from ..scenario import Scenario
from .state import Timeline, timeline_for

# the page's number formats and folded exact values come from the one narration (specviz.formats' rule)
fmt_int = formats.abbreviate
fmt_fraction = formats.fraction_folded
fmt_draw = formats.draw
is_long = formats.is_long
exact_values = narration.exact_values
exact_values_html = narration.exact_values_html
origin_of = narration.origin_of
VIEW_FORMATS = narration.PAGE.block_formats


def label(scenario: Scenario, token: int) -> str:
    return narration.label(scenario.vocab, token)


def text_of(scenario: Scenario, tokens: tuple[int, ...] | list[int]) -> str:
    return narration.text_of(scenario.vocab, tokens)


@dataclass(frozen=True)
class Token:
    token: int
    text: str
    origin: str  # "accepted", "correction", "bonus"
    round_id: int


@dataclass(frozen=True)
class HistoryRow:
    round_id: int
    drafted: str
    accepted: int
    rejected_at: int | None
    committed: str
    tokens: int
    stopped: bool


@dataclass(frozen=True)
class Stats:
    checks: int
    accepted: int
    rounds: int
    tokens: int
    depth: int
    alpha: Fraction | None
    expected: Fraction | None
    note: str
    verification: str = "token"
    expected_accepted: Fraction | None = None  # block: exact E[tau] per round (first position's state)
    accepted_in_rounds: int = 0  # block: drafts kept by the finished rounds

    @property
    def accepted_per_round(self) -> Fraction | None:
        return Fraction(self.accepted_in_rounds, self.rounds) if self.rounds else None

    @property
    def acceptance_rate(self) -> Fraction | None:
        return Fraction(self.accepted, self.checks) if self.checks else None

    @property
    def tokens_per_round(self) -> Fraction | None:
        return Fraction(self.tokens, self.rounds) if self.rounds else None


@dataclass
class StepView:
    step: int
    known_events: int
    round_id: int
    position_in_round: int
    events_in_round: int
    event: Event
    phase: str
    headline: str
    lines: list[str]
    committed: list[Token]
    drafted: list[int]
    history: list[HistoryRow]
    stats: Stats
    finished: bool  # the request stopped and this is its last event
    round_events: list[Event] = field(default_factory=list)


PHASE_TITLES = {
    "draft": "Drafting",
    "check": "Checking",
    "correction": "Rejection: correction from the residual",
    "block_check": "Block check: running weight and stop draw",
    "block_decision": "Block decision: how many drafts to keep",
    "scaled_correction": "Correction from the scaled residual",
    "tree_draft": "Drafting the tree, node by node",
    "tree_check": "Tree check: a sibling against the residual r",
    "tree_correction": "Every sibling rejected: correction from r",
    "bonus": "All accepted: bonus token",
    "stop": "Stop",
    "result": "Round result",
}


def phase_of(event: Event) -> str:
    """The step's kind for titles: the event's kind, with block verification's correction told apart."""
    if isinstance(event, TreeCorrectionEvent):
        return "tree_correction"
    return "scaled_correction" if isinstance(event, ScaledCorrectionEvent) else event.kind


def _history(scenario: Scenario, timeline: Timeline, upto_round: int) -> list[HistoryRow]:
    rows = []
    for played in timeline.rounds[:upto_round]:
        rejected_at = next((e.position for e in played.trace.events
                            if (isinstance(e, CheckEvent) and not e.accepted) or isinstance(e, TreeCorrectionEvent)
                            or (isinstance(e, BlockDecisionEvent) and e.ending == "correction")), None)
        proposals = getattr(played.block, "proposals", None)  # a tree has nodes, not a chain of proposals
        drafted = (text_of(scenario, [p.token for p in proposals]) if proposals is not None else
                   f"a tree of {len(played.block.nodes())} drafts")
        rows.append(HistoryRow(played.round_id, drafted,
                               played.result.accepted_drafts, rejected_at, text_of(scenario, played.result.tokens),
                               len(played.result.tokens), played.result.stopped))
    return rows


def theory_alpha(scenario: Scenario) -> tuple[Fraction | None, Fraction | None, str]:
    """alpha at the first position and (1 - alpha^(g+1)) / (1 - alpha), with a caveat when they are approximate."""
    from .. import theory

    try:
        p = scenario.processor()((), scenario.target_model()(()))
        q = scenario.draft_model()(())
        a = theory.alpha(p, q)
        expected = Fraction(theory.expected_tokens(a, scenario.depth))
    except Exception:  # noqa: BLE001 - a refused scenario has no theory line
        return None, None, ""
    notes = []
    if scenario.target.rows is not None:
        notes.append("Markov mode: alpha is that of the first position; it changes with the previous token.")
    if scenario.stop_ids:
        notes.append("Stop tokens end blocks early, so fewer tokens per round than the formula.")
    return a, expected, " ".join(notes)


BLOCK_THEORY_PATHS = 8_000  # drafted blocks the exact block theory may enumerate (6^5: about a second, once)


def block_theory(scenario: Scenario) -> tuple[Fraction | None, Fraction | None, str]:
    """Exact expected kept drafts and committed tokens per round from the empty text (block verification)."""
    # the draws do not change the theory: one enumeration per distribution setting, not per seed or step
    return _block_theory(scenario.with_changes(seed=0, request_id="demo", generation=0, context_id=""))


@lru_cache(maxsize=32)
def _block_theory(scenario: Scenario) -> tuple[Fraction | None, Fraction | None, str]:
    from .. import theory

    if scenario.vocab_size ** scenario.depth > BLOCK_THEORY_PATHS:
        return None, None, (f"Theory not computed: {scenario.vocab_size}^{scenario.depth} drafted blocks are too "
                            "many to enumerate on every step; the Theory page compares tokenwise and block.")
    try:
        analysis = theory.analyze_round(scenario)
    except Exception:  # noqa: BLE001 - a refused scenario has no theory line
        return None, None, ""
    notes = ["Block theory: exact enumeration of every drafted block from the empty text."]
    if scenario.target.rows is not None:
        notes.append("Markov mode: later rounds start from other tokens, so their expectation differs.")
    return analysis.expected_accepted, theory.mean_length(analysis.blocks), " ".join(notes)


TREE_NOTE = ("Tree: every accepted sibling check commits one draft; the exact expectation of a tree is on the "
             "Theory page (rules compared).")


def step_view(scenario: Scenario, step: int) -> StepView:
    """Everything the page shows at this step; step is clamped to the events that can be played."""
    timeline = timeline_for(scenario)
    known = timeline.ensure_events(step + 1)
    if known == 0:
        raise timeline.error or RuntimeError("no events")
    step = min(max(step, 0), known - 1)
    event = timeline.events[step]
    round_id = timeline.round_of(step)
    start = timeline.starts[round_id]
    round_events = timeline.rounds[round_id].trace.events

    committed: list[Token] = []
    checks = accepted = 0
    for index, e in enumerate(timeline.events[: step + 1]):
        kind = origin_of(e)
        if isinstance(e, (CheckEvent, BlockCheckEvent, TreeCheckEvent)):
            checks += 1
            accepted += isinstance(e, (CheckEvent, TreeCheckEvent)) and e.accepted
        if isinstance(e, BlockDecisionEvent):  # block verification commits its kept drafts all at once
            accepted += e.accepted_drafts
            committed += [Token(t, scenario.vocab[t], "accepted", e.round_id) for t in e.drafts[: e.accepted_drafts]]
        if kind is not None:
            committed.append(Token(e.token, scenario.vocab[e.token], kind, timeline.round_index[index]))
    drafted = [e.token for e in round_events[: step - start + 1] if isinstance(e, DraftEvent)]

    done_rounds = round_id + (1 if isinstance(event, ResultEvent) else 0)
    history = _history(scenario, timeline, done_rounds)
    block = rule(scenario.verification).family == "block"
    if block:
        a = None
        expected_accepted, expected, note = block_theory(scenario)
    elif rule(scenario.verification).family == "tree":  # α's formula is tokenwise: the tree is measured here
        a, expected, expected_accepted = None, None, None
        note = TREE_NOTE
    else:
        a, expected, note = theory_alpha(scenario)
        expected_accepted = None
    stats = Stats(checks, accepted, done_rounds, sum(h.tokens for h in history), scenario.depth, a, expected, note,
                  scenario.verification, expected_accepted, sum(h.accepted for h in history))
    head, lines = narration.sentences(event, narration.Setting.of(scenario), drafted)
    finished = isinstance(event, ResultEvent) and event.stopped
    return StepView(step, known, round_id, step - start, len(round_events), event, phase_of(event), head, lines,
                    committed, drafted, history, stats, finished, list(round_events))


def pending_drafts(view: StepView) -> list[int]:
    """Drafted tokens of the current round not yet checked (none once a rejection happened)."""
    seen = view.round_events[: view.position_in_round + 1]
    if any(isinstance(e, (CorrectionEvent, BonusEvent, ResultEvent, BlockDecisionEvent)) for e in seen):
        return []
    if any(isinstance(e, BlockCheckEvent) for e in seen):  # block: nothing is kept before the decision
        return list(view.drafted)
    checked = sum(isinstance(e, CheckEvent) for e in seen)
    return view.drafted[checked:]


def stats_markdown(stats: Stats) -> str:
    """Measured acceptance rate and tokens per round against the theory, as a markdown table."""
    def cell(value: Fraction | None) -> str:
        return "—" if value is None else fmt_fraction(value, 3)

    if rule(stats.verification).family == "block":
        return "\n".join([
            "| block verification | measured | theory (exact) |",
            "|---|---|---|",
            f"| kept drafts per round | {cell(stats.accepted_per_round)} ({stats.accepted_in_rounds} in "
            f"{stats.rounds}) | E[τ] = {cell(stats.expected_accepted)} |",
            f"| tokens per round | {cell(stats.tokens_per_round)} ({stats.tokens} in {stats.rounds}) "
            f"| {cell(stats.expected)} |",
        ])
    return "\n".join([
        "| | measured | theory |",
        "|---|---|---|",
        f"| acceptance rate | {cell(stats.acceptance_rate)} ({stats.accepted} of {stats.checks}) "
        f"| α = Σ min(p, q) = {cell(stats.alpha)} |",
        f"| tokens per round | {cell(stats.tokens_per_round)} ({stats.tokens} in {stats.rounds}) "
        f"| (1 − α^{stats.depth + 1}) / (1 − α) = {cell(stats.expected)} |",
    ])


def rounds_columns(block: bool = False) -> list[str]:
    """The rounds table's column names (block verification keeps τ drafts at once and corrects at position τ)."""
    accepted, rejected = ("kept τ", "corrected at") if block else ("accepted", "rejected at")
    return ["round", "drafted", accepted, rejected, "committed", "tokens"]


def rounds_rows(view: StepView, block: bool = False) -> list[dict[str, str]]:
    """One row of text cells per finished round, keyed by ``rounds_columns``."""
    round_, drafted, accepted, rejected, committed, tokens = rounds_columns(block)
    return [{round_: str(h.round_id), drafted: h.drafted, accepted: str(h.accepted),
             rejected: "—" if h.rejected_at is None else str(h.rejected_at), committed: h.committed,
             tokens: str(h.tokens)} for h in view.history]


def rounds_html(view: StepView, block: bool = False, last: int = 8) -> str:
    """The finished rounds as a plain HTML table, the latest ``last`` of them, under a heading that says so.

    Plain HTML, not a data grid: the page redraws it on every Step, and a grid costs the browser far more.
    """
    columns = rounds_columns(block)
    rows = rounds_rows(view, block)
    shown = rows[-last:]
    heading = "**Rounds so far**"
    if len(rows) > len(shown):
        heading += f" <span style='color:#555'>(the last {len(shown)} of {len(rows)})</span>"
    if not rows:
        return heading + "<br><span style='color:#555'>(no round finished yet)</span>"
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(r[c])}</td>" for c in columns) + "</tr>" for r in shown)
    return f"{heading}\n\n" + compact(
        f"<table style='width:100%;margin:0'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")


# tables beside each other in a column: compact cells, and a scroll bar rather than spilling over
COMPACT_TABLE_CSS = ("<style>.specviz-compact {overflow-x: auto} .specviz-compact td, .specviz-compact th "
                     "{padding: 0.2rem 0.4rem !important; line-height: 1.3; font-size: 0.95em}</style>")


def compact(table: str) -> str:
    """A markdown or HTML table inside the compact wrapper (markdown between blank lines in a div still renders)."""
    return f"<div class='specviz-compact'>{COMPACT_TABLE_CSS}\n\n{table}\n\n</div>"
