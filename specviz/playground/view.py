"""What the page shows at one step: the narrative with exact fractions, the coloured text, history, stats.

``step_view(scenario, step)`` is a pure function of its arguments (through the memoized
timeline); the page renders the returned data and the plots module draws its figures.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

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
    StopEvent,
    TreeCheckEvent,
    TreeCorrectionEvent,
)
from ..core.verification import rule
from ..scenario import Scenario
from . import block_explain
from .state import Timeline, timeline_for

LONG_DIGITS = 12  # integers longer than this are abbreviated in the narration (exact values in an expander)


def fmt_int(value: int) -> str:
    """'123' as is; a long integer as '123456…890 (80 digits)', short enough for a projected sentence."""
    text = str(value)
    if len(text.lstrip("-")) <= LONG_DIGITS:
        return text
    return f"{text[:6]}…{text[-3:]} ({len(text.lstrip('-'))} digits)"


def is_long(value: Fraction | int) -> bool:
    value = Fraction(value)
    return max(len(str(abs(value.numerator))), len(str(value.denominator))) > LONG_DIGITS


def fmt_fraction(value: Fraction | int, digits: int = 4) -> str:
    """'3/10 ≈ 0.3000' (exact first, then the decimal); whole numbers stay '1', '0'.

    A fraction of long integers reads '≈ 0.3000 (exact: 80-digit fraction)'; the page lists it in full.
    """
    value = Fraction(value)
    if value.denominator == 1:
        return fmt_int(value.numerator)
    if is_long(value):
        return f"≈ {float(value):.{digits}f} (exact: {len(str(value.denominator))}-digit fraction)"
    exact = f"{value.numerator}/{value.denominator}"
    return f"{exact} ≈ {float(value):.{digits}f}"


def fmt_draw(draw: int, draw_range: int) -> str:
    """The integer draw over its range and the point it marks on [0, 1)."""
    return f"draw {fmt_int(draw)} of 0..{fmt_int(draw_range - 1)} (u = {fmt_fraction(Fraction(draw, draw_range))})"


def exact_values(event: Event, vocab: tuple[str, ...]) -> list[tuple[str, str]]:
    """(name, exact value) of every number the narration of this event abbreviates (empty: none is long)."""
    values: list[tuple[str, Fraction | int]] = []
    draw = getattr(event, "draw", None)
    if draw is not None:
        values += [("draw", event.draw), ("draw range", event.draw_range)]
    token = getattr(event, "token", None)
    if isinstance(event, CheckEvent):
        x = vocab[event.token]
        values += [(f"p({x})", event.p_token), (f"q({x})", event.q_token), ("min(1, p(x)/q(x))", event.acceptance)]
    elif isinstance(event, BlockCheckEvent):
        x, i = vocab[event.token], event.position + 1
        values += [(f"p({x})", event.p_token), (f"q({x})", event.q_token), (f"w_{i - 1}", event.previous_weight),
                   (f"w_{i}", event.weight), (f"h_{i}", event.stop_probability)]
        if event.residual_mass is not None:
            values.append((f"ρ_{i}", event.residual_mass))
    elif isinstance(event, BlockDecisionEvent):
        values += [(f"w_{i}", w) for i, w in enumerate(event.weights)]
        values += [(f"h_{i}", h) for i, h in enumerate(event.stop_probabilities)]
    elif isinstance(event, DraftEvent):
        values.append((f"q({vocab[token]})", event.q.prob(token)))
    elif isinstance(event, CorrectionEvent):
        values += [("residual mass", event.residual_mass), (f"r({vocab[token]})", event.residual.prob(token))]
        if isinstance(event, ScaledCorrectionEvent):
            values.append(("scale w_τ", event.scale))
    elif isinstance(event, BonusEvent):
        values.append((f"p({vocab[token]})", event.p.prob(token)))
    if not any(is_long(v) for _, v in values):
        return []
    return [(name, str(Fraction(v))) for name, v in values]


def label(scenario: Scenario, token: int) -> str:
    return f"‘{scenario.vocab[token]}’"


def text_of(scenario: Scenario, tokens: tuple[int, ...] | list[int]) -> str:
    return " ".join(scenario.vocab[t] for t in tokens) if tokens else "(empty)"


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


def _short_exact(value: Fraction | int) -> str:
    """An exact value for a formula: '3/10', or '≈ 0.3000' when its integers are long (the expander lists it)."""
    value = Fraction(value)
    if value.denominator == 1:
        return fmt_int(value.numerator)
    return f"≈ {float(value):.4f}" if is_long(value) else block_explain._exact(value)


VIEW_FORMATS = block_explain.Formats(fraction=fmt_fraction, exact=_short_exact, draw=fmt_draw)


def origin_of(event: Event) -> str | None:
    if isinstance(event, (CheckEvent, TreeCheckEvent)):
        return "accepted" if event.accepted else None
    if isinstance(event, CorrectionEvent):
        return "correction"
    if isinstance(event, BonusEvent):
        return "bonus"
    return None


def _narrate(scenario: Scenario, event: Event, drafted: list[int]) -> tuple[str, list[str]]:
    r = event.round_id
    told = block_explain.narrate_event(event, scenario.vocab, VIEW_FORMATS)
    if told is not None:
        return told
    if isinstance(event, DraftEvent):
        q = event.q.prob(event.token)
        if scenario.draft.rows is None:
            context = "the same at every position"
        elif event.prefix:
            context = f"its row after the previous token {label(scenario, event.prefix[-1])}"
        else:
            context = "its start row (nothing before)"
        head = (f"Round {r}, drafting position {event.position}: the draft samples {label(scenario, event.token)} "
                f"from q")
        return head, [
            f"q is the draft's distribution: {context}.",
            f"The {fmt_draw(event.draw, event.draw_range)} lands on {label(scenario, event.token)}, "
            f"whose probability is q({scenario.vocab[event.token]}) = {fmt_fraction(q)}.",
            f"Drafted so far this round: **{text_of(scenario, drafted)}**.",
        ]
    if isinstance(event, CheckEvent):
        x = scenario.vocab[event.token]
        verdict = "accepted" if event.accepted else "rejected"
        compare = "<" if event.accepted else "≥"
        head = f"Round {r}, checking position {event.position}: {label(scenario, event.token)} is {verdict}"
        lines = [
            f"Proposed token x = {label(scenario, event.token)}: p({x}) = {fmt_fraction(event.p_token)}, "
            f"q({x}) = {fmt_fraction(event.q_token)}.",
            f"Acceptance probability min(1, p(x)/q(x)) = {fmt_fraction(event.acceptance)}.",
            f"The acceptance {fmt_draw(event.draw, event.draw_range)}: u {compare} "
            f"{fmt_fraction(event.acceptance)}, so x is **{verdict}**"
            + (" and committed." if event.accepted else "; a correction is drawn from the residual next."),
        ]
        return head, lines
    if isinstance(event, CorrectionEvent):
        overlap = 1 - event.residual_mass
        head = (f"Round {r}, rejection at position {event.position}: the correction {label(scenario, event.token)} "
                f"is drawn from the residual")
        return head, [
            "The residual (p − q)+ is the part of p that sticks out above q.",
            f"Its mass is 1 − Σ min(p, q) = 1 − {fmt_fraction(overlap)} = {fmt_fraction(event.residual_mass)}; "
            "dividing by it gives the normalized residual.",
            f"The correction {fmt_draw(event.draw, event.draw_range)} picks {label(scenario, event.token)} "
            f"with residual probability {fmt_fraction(event.residual.prob(event.token))}; the round ends here.",
        ]
    if isinstance(event, BonusEvent):
        kept = "kept" if scenario.verification == "block" else "accepted"
        head = f"Round {r}: all {event.position} drafts {kept}, bonus token {label(scenario, event.token)}"
        return head, [
            f"Every draft was {kept}, so the target's distribution p after the last draft "
            f"{label(scenario, event.prefix[-1])} gives one more token for free.",
            f"The bonus {fmt_draw(event.draw, event.draw_range)} picks {label(scenario, event.token)} with "
            f"p = {fmt_fraction(event.p.prob(event.token))}.",
        ]
    if isinstance(event, StopEvent):
        if event.stage == "draft":
            head = (f"Round {r}: the draft drew the stop token {label(scenario, event.token)}, so the block ends "
                    f"early")
            how = "jointly (block verification)" if scenario.verification == "block" else "as usual"
            return head, [f"The block has {event.position + 1} of {scenario.depth} proposals; the verifier checks "
                          f"them {how}."]
        head = f"Round {r}: the stop token {label(scenario, event.token)} was committed, so the request stops"
        return head, ["No further round can be played from this text: press Reset or New seed."]
    assert isinstance(event, ResultEvent)
    kept = "kept" if scenario.verification == "block" else "accepted"
    parts = [f"{event.accepted_drafts} {kept} draft" + ("" if event.accepted_drafts == 1 else "s")]
    if event.rejected:
        parts.append("1 correction")
    elif not event.stopped or len(event.tokens) > event.accepted_drafts:
        parts.append("1 bonus")
    count = len(event.tokens)
    head = f"Round {r} commits {count} token{'' if count == 1 else 's'}: {text_of(scenario, event.tokens)}"
    return head, [f"That is {' + '.join(parts)}.",
                  "Next round drafts again from the committed text." if not event.stopped else
                  "The request has stopped."]


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
    block = scenario.verification == "block"
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
    head, lines = _narrate(scenario, event, drafted)
    finished = isinstance(event, ResultEvent) and event.stopped
    return StepView(step, known, round_id, step - start, len(round_events), event, phase_of(event), head, lines,
                    committed, drafted, history, stats, finished, list(round_events))


def _chip(text: str, cue, pending: bool = False) -> str:
    border = {"solid": "solid", "dash": "dashed", "dot": "dotted"}.get(cue.dash, "solid")
    style = (f"display:inline-block;margin:2px 3px;padding:1px 8px;border:3px {border} {cue.color};"
             f"border-radius:8px;color:{cue.color};font-weight:600;")
    if pending:
        style += "opacity:0.75;font-style:italic;"
    return f"<span style='{style}'>{html.escape(text)}<sup>&nbsp;{cue.glyph}</sup></span>"


def committed_html(view: StepView, vocab: tuple[str, ...], large: bool = False) -> str:
    """The committed text as chips coloured by origin (colour + border style + glyph), pending drafts after it.

    large: presenter type (the chips grow with the rest of the page).
    """
    from ..plots import style

    chips = [_chip(style.token_label(t.text), style.origin(t.origin)) for t in view.committed]
    pending = pending_drafts(view)
    chips += [_chip(style.token_label(vocab[t]), style.role("q"), pending=True) for t in pending]
    if not chips:
        chips = ["<span style='color:#777'>(nothing committed yet)</span>"]
    size = "font-size:1.6rem;line-height:2.3" if large else "line-height:2.2"
    return f"<div style='{size}'>" + "".join(chips) + "</div>"


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

    if stats.verification == "block":
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


def exact_values_html(values: list[tuple[str, str]]) -> str:
    """The step's long numbers in full, folded (a details element inside the narration, not a widget)."""
    if not values:
        return ""
    items = "".join(f"<li>{html.escape(name)} = <code style='word-break:break-all'>{html.escape(value)}</code></li>"
                    for name, value in values)
    return f"<details><summary>Exact values of this step (long integers in full)</summary><ul>{items}</ul></details>"
