"""Narration of exact match's events (``specviz.core.exact_match``): the target's own sample decides.

``narrate_event`` turns a chain's or a tree node's comparison with the target's sample, or the sample committed
when no draft equals it, into a headline and lines with the exact numbers (never tokenwise's min(1, p/q)); other
events return None. ``values`` lists the numbers the page folds under the narration. Pure: events in, text out.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.trace import Event, ExactMatchCheckEvent, ExactMatchCorrectionEvent, ExactMatchTreeCheckEvent
from .block import Formats, Narration
from .counting import nth
from .tellers import Values, draws, narrate_own, tells, values_own


def _tok(vocab: Sequence[str], token: int) -> str:
    return f"‘{vocab[token]}’"


def _sample_line(event: Event, vocab: Sequence[str], f: Formats) -> str:
    y, name = _tok(vocab, event.sample), vocab[event.sample]  # type: ignore[attr-defined]
    return (f"The target samples its own token from p: its {f.draw(event.draw, event.draw_range)} of p's tickets "
            f"lands on y = {y} (p({name}) = {f.fraction(event.p.prob(event.sample))}).")  # type: ignore[attr-defined]


def _check_values(event: ExactMatchCheckEvent | ExactMatchTreeCheckEvent, vocab: Sequence[str]) -> Values:
    x = vocab[event.token]
    return draws(event) + [(f"p({x})", event.p_token), (f"q({x})", event.q_token), ("P(y = x)", event.acceptance)]


@tells(ExactMatchCheckEvent, values=_check_values)
def _chain_check(event: ExactMatchCheckEvent, vocab: Sequence[str], f: Formats) -> Narration:
    x, name = _tok(vocab, event.token), vocab[event.token]
    verdict = "accepted" if event.accepted else "rejected"
    head = f"Round {nth(event.round_id)}, checking position {nth(event.position)} (exact match): {x} is {verdict}"
    return head, [
        f"Proposed token x = {x}: q({name}) = {f.fraction(event.q_token)}; exact match keeps x exactly when the "
        f"target's own sample is x, which happens with p({name}) = {f.fraction(event.p_token)}.",
        _sample_line(event, vocab, f),
        f"y {'=' if event.accepted else '≠'} x, so x is **{verdict}**"
        + (" and committed." if event.accepted else f"; y = {_tok(vocab, event.sample)} itself is committed next."),
    ]


@tells(ExactMatchTreeCheckEvent, values=_check_values)
def _tree_check(event: ExactMatchTreeCheckEvent, vocab: Sequence[str], f: Formats) -> Narration:
    x = _tok(vocab, event.token)
    verdict = "accepted" if event.accepted else "rejected"
    head = (f"Round {nth(event.round_id)}, exact match at position {nth(event.position)}: sibling "
            f"{nth(event.sibling)} of {event.siblings}, {x}, is {verdict}")
    given = "" if event.sibling == 0 else (f" given that it is none of the {event.sibling} sibling"
                                           f"{'s' if event.sibling > 1 else ''} before it")
    lines = [_sample_line(event, vocab, f) + (" One sample for the node: every sibling is compared with it."
                                              if event.sibling == 0 else ""),
             f"{x}: the chance that y is {x}{given} is {f.fraction(event.acceptance)}; y "
             f"{'=' if event.accepted else '≠'} {x}, so {x} is **{verdict}**."]
    if event.accepted:
        lines.append(f"{x} is committed; the walk goes down to its children (or, at a leaf, to the bonus from p).")
    elif event.sibling + 1 < event.siblings:
        lines.append("The next sibling is compared with the same y.")
    else:
        lines.append(f"No sibling is left: y = {_tok(vocab, event.sample)} itself is committed.")
    return head, lines


def _correction_values(event: ExactMatchCorrectionEvent, vocab: Sequence[str]) -> Values:
    return draws(event) + [("p's mass off the drafts", event.residual_mass),
                           (f"p({vocab[event.token]})", event.p.prob(event.token))]


@tells(ExactMatchCorrectionEvent, values=_correction_values)
def _correction(event: ExactMatchCorrectionEvent, vocab: Sequence[str], f: Formats) -> Narration:
    y, name = _tok(vocab, event.token), vocab[event.token]
    head = (f"Round {nth(event.round_id)}, no draft at position {nth(event.position)} equals the target's sample: "
            f"{y} is committed")
    return head, [
        f"y = {y} is the target's own sample, so it is committed with no second draw (its "
        f"{f.draw(event.draw, event.draw_range)} of p's tickets).",
        f"Given that it matched no draft, y follows p without the drafted tokens, renormalized: they held "
        f"{f.fraction(1 - event.residual_mass)} of p, and y = {y} has {f.fraction(event.residual.prob(event.token))} "
        f"of the rest (p({name}) = {f.fraction(event.p.prob(event.token))}); the round ends here.",
    ]


def narrate_event(event: Event, vocab: Sequence[str], formats: Formats) -> Narration | None:
    """(headline, lines) for an exact-match event; None for any other event."""
    return narrate_own(event, vocab, formats, __name__)


def values(event: Event, vocab: Sequence[str]) -> Values | None:
    """The exact numbers of an exact-match event, named as its narration names them; None for other events."""
    return values_own(event, vocab, __name__)
