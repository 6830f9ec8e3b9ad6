"""The Playground's step view: everything one step shows, as plain data (no HTML, no figures).

``step_view(scenario, step)`` is a pure function of its arguments (through the memoized timeline):
the headline and sentences, the committed tokens with the drafts still pending, the finished rounds
and the running statistics with their theory. The figures and the HTML of a step are built from it
by ``specviz.plots.step_page``, which reads this data and never calls back here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

from .. import narration
from ..core.errors import SpecvizError
from ..core.trace import (
    CHECK_KINDS,
    Event,
    ExactMatchCheckEvent,
    ExactMatchCorrectionEvent,
    ExactMatchTreeCheckEvent,
    ScaledCorrectionEvent,
    ThresholdTreeCorrectionEvent,
    TraversalCorrectionEvent,
    TreeCorrectionEvent,
)
from ..core.verification import FamilyTable
from ..scenario import Scenario
from . import engine_rules
from .state import Timeline, timeline_for


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

    @property
    def ending(self) -> str:
        """How the round ended: 'correction' (a draft was rejected), 'bonus' (all kept, one more) or 'none'."""
        if self.rejected_at is not None:
            return "correction"
        return "none" if self.tokens == self.accepted else "bonus"


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
    pending: list[int] = field(default_factory=list)  # drafts of this round not checked yet (shown after the text)

    @property
    def phase_title(self) -> str:
        return PHASE_TITLES[self.phase]


PHASE_TITLES = {
    "draft": "Drafting",
    "check": "Checking",
    "correction": "Rejection: correction from the residual",
    "block_check": "Block check: running weight and stop draw",
    "block_decision": "Block decision: how many drafts to keep",
    "scaled_correction": "Correction from the scaled residual",
    "tree_draft": "Drafting the tree, node by node",
    "tree_check": "Tree check: a sibling against the residual r",
    "threshold_check": "Tree check: a sibling against SGLang's thresholds (one coin per node)",
    "tree_correction": "Every sibling rejected: correction from r",
    "traversal_check": "Traversal: a node tested against its path's weight, from the leaves up",
    "traversal_correction": "Traversal: the next token from the kept node's residual r",
    "match_check": "Exact match: a draft against the target's own sample",
    "match_correction": "No draft equals the target's sample: the sample is committed",
    "bonus": "All accepted: bonus token",
    "stop": "Stop",
    "result": "Round result",
}


# the classes whose step title is not their kind's, each exactly (a new class is titled by its kind)
PHASE_BY_CLASS: dict[type, str] = {
    ExactMatchCheckEvent: "match_check", ExactMatchTreeCheckEvent: "match_check",
    ExactMatchCorrectionEvent: "match_correction", TreeCorrectionEvent: "tree_correction",
    ThresholdTreeCorrectionEvent: "tree_correction", TraversalCorrectionEvent: "traversal_correction",
    ScaledCorrectionEvent: "scaled_correction"}


def phase_of(event: Event) -> str:
    """The step's kind for titles: the event's kind, with block verification's, a tree's and exact match's
    corrections, and exact match's checks, told apart (``PHASE_BY_CLASS``)."""
    return PHASE_BY_CLASS.get(type(event), event.kind)


def _rejected_at(event: Event) -> bool:
    """Whether the round's rejection is at this event's position: a chain's rejected check, a tree's correction
    (after every sibling of a node was rejected), block verification's decision to end with a correction."""
    return ((event.kind == "check" and not event.accepted)  # type: ignore[union-attr]
            or (event.kind == "correction" and hasattr(event, "path"))
            or (event.kind == "block_decision" and event.ending == "correction"))  # type: ignore[union-attr]


def _history(scenario: Scenario, timeline: Timeline, upto_round: int) -> list[HistoryRow]:
    rows = []
    for played in timeline.rounds[:upto_round]:
        rejected_at = next((e.position for e in played.trace.events if _rejected_at(e)), None)
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
    except SpecvizError:  # theory refuses this setting: no theory line (a bug still surfaces)
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
    except SpecvizError:  # theory refuses this setting: no theory line (a bug still surfaces)
        return None, None, ""
    notes = ["Block theory: exact enumeration of every drafted block from the empty text."]
    if scenario.target.rows is not None:
        notes.append("Markov mode: later rounds start from other tokens, so their expectation differs.")
    return analysis.expected_accepted, theory.mean_length(analysis.blocks), " ".join(notes)


TREE_NOTE = ("Tree: every accepted sibling check commits one draft; the exact expectation of a tree is on the "
             "Theory page (rules compared).")


@dataclass(frozen=True)
class Theory:
    """What the statistics compare the measured rounds with (None: not computed for this rule)."""

    alpha: Fraction | None = None  # α = Σ min(p, q) at the first position (tokenwise)
    expected: Fraction | None = None  # expected tokens per round
    expected_accepted: Fraction | None = None  # expected kept drafts per round (block: E[τ])
    note: str = ""


def _token_theory(scenario: Scenario) -> Theory:
    a, expected, note = theory_alpha(scenario)
    return Theory(a, expected, None, note)


def _block_theory_line(scenario: Scenario) -> Theory:
    expected_accepted, expected, note = block_theory(scenario)
    return Theory(None, expected, expected_accepted, note)


def _tree_theory(scenario: Scenario) -> Theory:  # α's formula is tokenwise: the tree is measured here
    return Theory(note=TREE_NOTE)


# the statistics' theory column, per rule the Playground plays
STEP_THEORY_BY_FAMILY: FamilyTable[Callable[[Scenario], Theory]] = FamilyTable(
    "playground.narrative.STEP_THEORY_BY_FAMILY",
    {"token": _token_theory, "block": _block_theory_line, "tree": _tree_theory,
     "ensemble": lambda s: Theory(None, *engine_rules.theory_line(s)),
     "threshold": lambda s: Theory(None, *engine_rules.theory_line(s)),
     "typical": lambda s: Theory(None, *engine_rules.theory_line(s)),
     "traversal": lambda s: Theory(None, *engine_rules.theory_line(s)),
     "exact-match": lambda s: Theory(None, *engine_rules.theory_line(s))}, scope="playable")


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
        kind = narration.origin_of(e)
        if e.kind in CHECK_KINDS:
            checks += 1
            accepted += e.kind != "block_check" and e.accepted  # type: ignore[union-attr]
        if e.kind == "block_decision":  # block verification commits its kept drafts all at once
            accepted += e.accepted_drafts
        if kind is not None or e.kind == "block_decision":  # a kept traversal node: its whole path at once
            committed += [Token(t, scenario.vocab[t], origin, timeline.round_index[index])
                          for t, origin in narration.committed_by(e)]
    drafted = [e.token for e in round_events[: step - start + 1] if e.kind == "draft"]

    done_rounds = round_id + (1 if event.kind == "result" else 0)
    history = _history(scenario, timeline, done_rounds)
    theory = STEP_THEORY_BY_FAMILY[scenario.verification](scenario)
    stats = Stats(checks, accepted, done_rounds, sum(h.tokens for h in history), scenario.depth, theory.alpha,
                  theory.expected, theory.note, scenario.verification, theory.expected_accepted,
                  sum(h.accepted for h in history))
    head, lines = narration.sentences(event, narration.Setting.of(scenario), drafted)
    finished = event.kind == "result" and event.stopped  # type: ignore[union-attr]
    seen = round_events[: step - start + 1]
    return StepView(step, known, round_id, step - start, len(round_events), event, phase_of(event), head, lines,
                    committed, drafted, history, stats, finished, list(round_events), pending_drafts(seen, drafted))


def pending_drafts(seen: list[Event], drafted: list[int]) -> list[int]:
    """The round's drafts not checked yet, after its events ``seen`` so far (none once a rejection happened)."""
    if any(e.kind in ("correction", "bonus", "result", "block_decision") for e in seen):
        return []
    if any(e.kind == "block_check" for e in seen):  # block: nothing is kept before the decision
        return list(drafted)
    checked = sum(e.kind == "check" for e in seen)
    return drafted[checked:]
