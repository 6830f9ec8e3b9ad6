"""One narration of trace events, for the Playground page and the command line alike.

``tell(event, setting, drafted, profile)`` turns one event into a headline and lines. Two profiles
write the same facts in two forms:

* ``PAGE``: sentences in markdown for the Playground; a fraction of long integers reads
  '≈ 0.3000 (exact: 80-digit fraction)' and ``exact_values`` gives the full values, which the page folds
  under the narration (``plots.step_html.exact_values_html``);
* ``TERMINAL``: plain text for ``python -m specviz play``: the headline, then the numbers behind the
  step (q(x) and its ticket draw; p(x), q(x), min(1, p/q) and the integer test; the residual mass
  and its draw; the bonus draw), long integers abbreviated by ``specviz.formats``' one rule.

``Narrator`` tells a stream of events in order, in time linear in the number of events, keeping
only the current round's drafts and the committed tokens. Every event class has one entry in
``specviz.narration.tellers.WORDS``, looked up exactly: the chain's events are told here, block verification's
by ``specviz.narration.block``, a tree's by ``specviz.narration.tree_words``, traversal verification's by
``specviz.narration.traversal_words``, exact match's by ``specviz.narration.exact_match_words``, the engine rules'
(ensemble, SGLang's thresholds and top-K drafts, Medusa) by ``specviz.narration.engine_rule_words``, with this
profile's formats.
Pure functions, no Streamlit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import formats
from ..core.trace import BonusEvent, CheckEvent, CorrectionEvent, DraftEvent, Event, ResultEvent, StopEvent
from ..core.verification import FamilyTable, rule
from . import block as block_explain
from . import engine_rule_words, exact_match_words, traversal_words, tree_words  # noqa: F401  (each registers its words)
from .counting import nth
from .tellers import Values, Words, correction_values, draws, register, words_of

Told = tuple[str, list[str]]


@dataclass(frozen=True)
class Profile:
    """How a narration is written: its number formats and whether markdown bold is kept."""

    name: str
    fraction: Callable[[formats.Number], str]  # a value with its decimal: '3/10 ≈ 0.3000'
    exact: Callable[[formats.Number], str]  # an exact value inside a formula: '3/10'
    draw: Callable[[int, int], str]  # an integer draw over its range
    markdown: bool

    @property
    def block_formats(self) -> block_explain.Formats:
        return block_explain.Formats(fraction=self.fraction, exact=self.exact, draw=self.draw)

    def plain(self, line: str) -> str:
        """The line as this profile prints it (the terminal drops markdown bold)."""
        return line if self.markdown else line.replace("**", "")


PAGE = Profile("page", formats.fraction_folded, formats.formula_operand, formats.draw, markdown=True)
TERMINAL = Profile("terminal", formats.fraction_abbreviated, formats.exact_short,
                   lambda value, draw_range: formats.draw(value, draw_range, point=False), markdown=False)


@dataclass(frozen=True)
class Setting:
    """What the narration needs of a scenario: the words, the depth, the rule and whether q has rows."""

    vocab: tuple[str, ...]
    depth: int
    verification: str = "token"
    markov_draft: bool = False

    @classmethod
    def of(cls, scenario: Any) -> Setting:
        """The setting of a Scenario (read by attribute, so any object with these fields will do)."""
        return cls(tuple(scenario.vocab), scenario.depth, scenario.verification, scenario.draft.rows is not None)

    @property
    def kept(self) -> str:
        return rule(self.verification).kept_verb

    @property
    def checking(self) -> str:
        """How the rule's verifier checks a drafted block, in words (``CHECKING_BY_FAMILY``)."""
        return CHECKING_BY_FAMILY[self.verification]


# how each playable family's verifier checks a drafted block, as a stop's narration says it
CHECKING_BY_FAMILY: FamilyTable[str] = FamilyTable("narration.CHECKING_BY_FAMILY", {
    "token": "as usual", "block": "jointly (block verification)", "tree": "as usual",
    "ensemble": "against the mixture W·p + (1 − W)·q (ensemble)", "threshold": "by SGLang's thresholds",
    "typical": "by Medusa's typical threshold", "traversal": "from the leaves up (traversal verification)",
    "exact-match": "by exact match of the target's own sample"},
    scope="playable")


def label(vocab: Sequence[str], token: int) -> str:
    return f"‘{vocab[token]}’"


def text_of(vocab: Sequence[str], tokens: Iterable[int]) -> str:
    words = [vocab[t] for t in tokens]
    return " ".join(words) if words else "(empty)"


def origin_of(event: Event) -> str | None:
    """How the token of this event is committed ('accepted', 'correction', 'bonus'), or None (its class's
    ``origin``: a check, a tree's sibling included, commits its draft only when it kept it)."""
    origin = type(event).origin
    if origin == "accepted" and not event.accepted:  # type: ignore[union-attr]
        return None
    return origin


def committed_by(event: Event) -> list[tuple[int, str]]:
    """(token, origin) of every token this event commits (block verification and traversal keep several drafts at
    once: their entries say which)."""
    words = words_of(event)
    if words.committed is not None:
        return words.committed(event)
    origin = origin_of(event)
    return [] if origin is None else [(event.token, origin)]  # type: ignore[union-attr]


def rule_event(event: Event, vocab: Sequence[str], profile: Profile = PAGE) -> Told | None:
    """The narration of an event a rule's module tells (block verification, a draft tree, traversal, exact match,
    an engine rule); None for the chain's events."""
    narrate = words_of(event).narrate
    return None if narrate is None else narrate(event, vocab, profile.block_formats)


# --- the page's sentences -----------------------------------------------------------------------------
def _draft(event: DraftEvent, s: Setting, drafted: Sequence[int], f: Profile) -> Told:
    v = s.vocab
    if not s.markov_draft:
        context = "the same at every position"
    elif event.prefix:
        context = f"its row after the previous token {label(v, event.prefix[-1])}"
    else:
        context = "its start row (nothing before)"
    head = (f"Round {nth(event.round_id)}, drafting position {nth(event.position)}: the draft samples "
            f"{label(v, event.token)} from q")
    return head, [
        f"q is the draft's distribution: {context}.",
        f"The {f.draw(event.draw, event.draw_range)} lands on {label(v, event.token)}, "
        f"whose probability is q({v[event.token]}) = {f.fraction(event.q.prob(event.token))}.",
        f"Drafted so far this round: **{text_of(v, drafted)}**.",
    ]


def _check(event: CheckEvent, s: Setting, drafted: Sequence[int], f: Profile) -> Told:
    x = s.vocab[event.token]
    verdict = "accepted" if event.accepted else "rejected"
    compare = "<" if event.accepted else "≥"
    head = (f"Round {nth(event.round_id)}, checking position {nth(event.position)}: {label(s.vocab, event.token)} "
            f"is {verdict}")
    test = ("p(x) = 0: **rejected**, no draw needed" if event.acceptance == 0 else
            f"The acceptance {f.draw(event.draw, event.draw_range)}: u {compare} {f.fraction(event.acceptance)}, "
            f"so x is **{verdict}**")
    return head, [
        f"Proposed token x = {label(s.vocab, event.token)}: p({x}) = {f.fraction(event.p_token)}, "
        f"q({x}) = {f.fraction(event.q_token)}.",
        f"Acceptance probability min(1, p(x)/q(x)) = {f.fraction(event.acceptance)}.",
        test + (" and committed." if event.accepted else "; a correction is drawn from the residual next."),
    ]


def _correction(event: CorrectionEvent, s: Setting, drafted: Sequence[int], f: Profile) -> Told:
    overlap = 1 - event.residual_mass
    head = (f"Round {nth(event.round_id)}, rejection at position {nth(event.position)}: the correction "
            f"{label(s.vocab, event.token)} is drawn from the residual")
    return head, [
        "The residual (p − q)+ is the part of p that sticks out above q.",
        f"Its mass is 1 − Σ min(p, q) = 1 − {f.fraction(overlap)} = {f.fraction(event.residual_mass)}; "
        "dividing by it gives the normalized residual.",
        f"The correction {f.draw(event.draw, event.draw_range)} picks {label(s.vocab, event.token)} "
        f"with residual probability {f.fraction(event.residual.prob(event.token))}; the round ends here.",
    ]


def _bonus(event: BonusEvent, s: Setting, drafted: Sequence[int], f: Profile) -> Told:
    head = (f"Round {nth(event.round_id)}: all {event.position} drafts {s.kept}, bonus token "
            f"{label(s.vocab, event.token)}")
    return head, [
        f"Every draft was {s.kept}, so the target's distribution p after the last draft "
        f"{label(s.vocab, event.prefix[-1])} gives one more token for free.",
        f"The bonus {f.draw(event.draw, event.draw_range)} picks {label(s.vocab, event.token)} with "
        f"p = {f.fraction(event.p.prob(event.token))}.",
    ]


def _stop(event: StopEvent, s: Setting, drafted: Sequence[int], f: Profile) -> Told:
    r, token = nth(event.round_id), label(s.vocab, event.token)
    if event.stage == "draft":
        return (f"Round {r}: the draft drew the stop token {token}, so the block ends early",
                [f"The block has {event.position + 1} of {s.depth} proposals; the verifier checks them "
                 f"{s.checking}."])
    return (f"Round {r}: the stop token {token} was committed, so the request stops",
            ["No further round can be played from this text: press Reset or New seed."])


def _result(event: ResultEvent, s: Setting, drafted: Sequence[int], f: Profile) -> Told:
    parts = [f"{event.accepted_drafts} {s.kept} draft" + ("" if event.accepted_drafts == 1 else "s")]
    if event.rejected:
        parts.append("1 correction")
    elif not event.stopped or len(event.tokens) > event.accepted_drafts:
        parts.append("1 bonus")
    count = len(event.tokens)
    head = (f"Round {nth(event.round_id)} commits {count} token{'' if count == 1 else 's'}: "
            f"{text_of(s.vocab, event.tokens)}")
    return head, [f"That is {' + '.join(parts)}.",
                  "Next round drafts again from the committed text." if not event.stopped else
                  "The request has stopped."]


def sentences(event: Event, setting: Setting, drafted: Sequence[int] = (), profile: Profile = PAGE) -> Told:
    """The headline and the sentences of one event (drafted: this round's drafts up to this event)."""
    words = words_of(event)
    if words.narrate is not None:
        return words.narrate(event, setting.vocab, profile.block_formats)
    return words.sentences(event, setting, drafted, profile)  # type: ignore[misc]


# --- the terminal's numbers ---------------------------------------------------------------------------
def numbers(event: Event, vocab: Sequence[str], profile: Profile = TERMINAL) -> list[str]:
    """The numbers behind one event, one line each (none for stops and results: their headline says it all)."""
    words = words_of(event)
    if words.narrate is not None:  # a rule's event: its lines, as the terminal prints them
        return [profile.plain(line) for line in words.narrate(event, vocab, profile.block_formats)[1]]
    return words.numbers(event, vocab, profile) if words.numbers is not None else []


def _draft_numbers(event: DraftEvent, vocab: Sequence[str], f: Profile) -> list[str]:
    x = vocab[event.token]
    return [f"q({x}) = {f.fraction(event.q.prob(event.token))}; ticket {f.draw(event.draw, event.draw_range)} "
            f"picks {x}"]


def _check_numbers(event: CheckEvent, vocab: Sequence[str], f: Profile) -> list[str]:
    x, a, short = vocab[event.token], event.acceptance, formats.abbreviate
    test, verdict = ("<", "accepted") if event.accepted else ("≥", "rejected")
    drawn = ("p(x) = 0: rejected, no draw needed" if a == 0 else
             f"acceptance {f.draw(event.draw, event.draw_range)} (the denominator's range): "
             f"{short(event.draw)} {test} {short(a.numerator)} = the numerator, so {verdict}")
    return [f"p({x}) = {f.fraction(event.p_token)}, q({x}) = {f.fraction(event.q_token)}",
            f"min(1, p/q) = {f.fraction(a)}", drawn]


def _correction_numbers(event: CorrectionEvent, vocab: Sequence[str], f: Profile) -> list[str]:
    x = vocab[event.token]
    return [f"residual mass Σ (p − q)+ = {f.fraction(event.residual_mass)}",
            f"correction {f.draw(event.draw, event.draw_range)} picks {x}, residual probability "
            f"{f.fraction(event.residual.prob(event.token))}"]


def _bonus_numbers(event: BonusEvent, vocab: Sequence[str], f: Profile) -> list[str]:
    x = vocab[event.token]
    return [f"bonus {f.draw(event.draw, event.draw_range)} picks {x}, p({x}) = "
            f"{f.fraction(event.p.prob(event.token))}"]


def tell(event: Event, setting: Setting, drafted: Sequence[int] = (), profile: Profile = PAGE) -> Told:
    """The headline and lines of one event in a profile: the page's sentences, or the terminal's numbers."""
    head, lines = sentences(event, setting, drafted, profile)
    if profile.markdown:
        return head, lines
    return head, numbers(event, setting.vocab, profile)


@dataclass
class Narrator:
    """Tells a stream of events in order: linear time, memory for one round's drafts and the committed text."""

    setting: Setting
    profile: Profile = TERMINAL
    drafted: list[int] = field(default_factory=list)
    committed: list[tuple[int, str]] = field(default_factory=list)  # (token, origin)
    _round: int | None = None

    def tell(self, event: Event) -> Told:
        if event.round_id != self._round:
            self._round, self.drafted = event.round_id, []
        if event.kind == "draft":  # the chain's draft (a tree's child is drawn into its tree, not the block)
            self.drafted.append(event.token)
        told = tell(event, self.setting, self.drafted, self.profile)
        self.committed += committed_by(event)
        return told


# --- the page's folded exact values -------------------------------------------------------------------
def _values(event: Event, vocab: Sequence[str]) -> Values:
    return words_of(event).values(event, vocab)


def exact_values(event: Event, vocab: Sequence[str]) -> list[tuple[str, str]]:
    """(name, exact value) of every number of this event when the narration abbreviates any (else empty)."""
    values = _values(event, vocab)
    if not any(formats.is_long(v) for _, v in values):
        return []
    return [(name, formats.exact(v)) for name, v in values]


# --- the chain's entries (the rules' modules register theirs) ------------------------------------------
def _nothing(event: Event, vocab: Sequence[str]) -> Values:
    return []


def _draft_values(event: DraftEvent, vocab: Sequence[str]) -> Values:
    return draws(event) + [(f"q({vocab[event.token]})", event.q.prob(event.token))]


def _check_values(event: CheckEvent, vocab: Sequence[str]) -> Values:
    x = vocab[event.token]
    return draws(event) + [(f"p({x})", event.p_token), (f"q({x})", event.q_token),
                           ("min(1, p(x)/q(x))", event.acceptance)]


def _bonus_values(event: BonusEvent, vocab: Sequence[str]) -> Values:
    return draws(event) + [(f"p({vocab[event.token]})", event.p.prob(event.token))]


register(DraftEvent, Words(_draft_values, sentences=_draft, numbers=_draft_numbers))
register(CheckEvent, Words(_check_values, sentences=_check, numbers=_check_numbers))
register(CorrectionEvent, Words(correction_values, sentences=_correction, numbers=_correction_numbers))
register(BonusEvent, Words(_bonus_values, sentences=_bonus, numbers=_bonus_numbers))
register(StopEvent, Words(_nothing, sentences=_stop))
register(ResultEvent, Words(_nothing, sentences=_result))
