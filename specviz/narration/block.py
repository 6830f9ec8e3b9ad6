"""Narration of a block verification round (Sun et al. 2025) from its trace, with exact fractions and draws.

``narrate_event`` turns one block event (``BlockCheckEvent``, ``BlockDecisionEvent``,
``ScaledCorrectionEvent``) into a headline and explanation lines; other events return None, so a
page can keep its own narration for drafts, bonus tokens, stops and results. ``narrate`` does a
whole trace. Pure functions: events in, text out. A caller that abbreviates long integers (the
Playground, the command line) passes its own ``Formats``; the default writes every digit.

One counting convention everywhere (``POSITIONS``): draft positions count from 0, as rounds and the
Playground's positions do; the weights w_i, the stop probabilities h_i and τ count drafts *kept*, as in
Sun et al.: keeping i drafts keeps positions 0..i−1, so the check at position k computes w_{k+1} and h_{k+1}.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from .. import formats
from ..core.block_verifier import tau_distribution
from ..core.trace import BlockCheckEvent, BlockDecisionEvent, Event, ScaledCorrectionEvent

Narration = tuple[str, list[str]]
POSITIONS = ("Positions count from 0; w_i, h_i and τ count drafts kept (keeping i drafts keeps positions "
             "0..i−1, so the check at position k computes w_{k+1} and h_{k+1}).")


def fraction_text(value: Fraction | int, digits: int = 4) -> str:
    """'3/10 ≈ 0.3000' (exact first, then the decimal); whole numbers stay '1', '0'."""
    return formats.fraction(value, digits)


def _exact(value: Fraction | int) -> str:
    return formats.exact(value)


def _operand(value: Fraction | int, exact: Callable[[Fraction | int], str] = _exact) -> str:
    """A fraction as an operand of a quotient: '(1/3)'; whole numbers bare."""
    text = exact(value)
    return f"({text})" if "/" in text or " " in text else text


def draw_text(draw: int, draw_range: int) -> str:
    """The integer draw over its range and the point it marks on [0, 1)."""
    return f"draw {draw} of 0..{draw_range - 1} (u = {fraction_text(Fraction(draw, draw_range))})"


@dataclass(frozen=True)
class Formats:
    """How numbers are written: a value with its decimal, a bare exact value, and a draw over its range."""

    fraction: Callable[[Fraction | int], str] = fraction_text
    exact: Callable[[Fraction | int], str] = _exact
    draw: Callable[[int, int], str] = draw_text


EXACT = Formats()


def _tok(vocab: Sequence[str], token: int) -> str:
    return f"‘{vocab[token]}’"


def _check(event: BlockCheckEvent, vocab: Sequence[str], f: Formats) -> Narration:
    i = event.position + 1
    x = vocab[event.token]
    ratio = event.p_token / event.q_token
    verdict = "hit" if event.hit else "no hit"
    kept = "the first draft" if i == 1 else f"the first {i} drafts"
    head = f"Round {event.round_id}, block check at position {event.position}: keep {kept}? {verdict}"
    lines = [
        f"Drafted x = {_tok(vocab, event.token)}: p({x}) = {f.fraction(event.p_token)}, "
        f"q({x}) = {f.fraction(event.q_token)}, so p/q = {f.exact(ratio)}.",
        f"Running weight w_{i} = min(1, w_{i - 1} · p/q) = min(1, {f.exact(event.previous_weight)} · "
        f"{f.exact(ratio)}) = {f.fraction(event.weight)}.",
    ]
    if event.last:
        lines.append(f"The block's last draft: the whole block is kept with h_{i} = w_{i} = "
                     f"{f.fraction(event.stop_probability)}.")
    else:
        mass = event.residual_mass
        denominator = mass + 1 - event.weight
        residual = f"Scaled residual mass ρ_{i} = Σ (w_{i}·p − q)+ = {f.fraction(mass)}"
        if denominator:
            lines.append(f"{residual}; stop probability h_{i} = ρ_{i} / (ρ_{i} + 1 − w_{i}) = "
                         f"{_operand(mass, f.exact)} / ({f.exact(mass)} + 1 − {f.exact(event.weight)}) = "
                         f"{f.fraction(event.stop_probability)}.")
        else:
            lines.append(f"{residual}, and ρ_{i} + 1 − w_{i} = 0: nothing to resample here, so h_{i} = 0 "
                         "(a later position is then kept for certain).")
    compare = "<" if event.hit else "≥"
    outcome = (f"a hit: keep {kept} unless a later draw hits" if event.hit else "no hit")
    h = event.stop_probability
    lines.append(f"The acceptance {f.draw(event.draw, event.draw_range)}: u {compare} h_{i}, i.e. draw "
                 f"{f.exact(event.draw)} {compare} {f.exact(h.numerator)} (h_{i}'s numerator): {outcome}.")
    return head, lines


def _decision(event: BlockDecisionEvent, vocab: Sequence[str], f: Formats) -> Narration:
    g, tau = len(event.drafts), event.accepted_drafts
    head = f"Round {event.round_id}, block decision: keep {tau} of {g} draft{'s' if g > 1 else ''}"
    marks = ", ".join(f"{k} {'✓' if hit else '✗'}" for k, hit in enumerate(event.hits))
    taus = tau_distribution(event.stop_probabilities)
    lines = [
        f"Stop draws by position (from 0): {marks}. τ = the drafts up to and including the last position whose "
        f"draw hit, or 0 when none did: τ = {tau}.",
        "Weights w = (" + ", ".join(f.exact(w) for w in event.weights) + "), stop probabilities h = ("
        + ", ".join(f.exact(h) for h in event.stop_probabilities) + ").",
        "So P(τ = i) = h_i · Π_{j>i} (1 − h_j) = ("
        + ", ".join(f.exact(t) for t in taus) + f") for i = 0..{g}.",
    ]
    kept = " ".join(vocab[t] for t in event.drafts[:tau]) or "(nothing)"
    if event.ending == "correction":
        lines.append(f"Committed drafts: **{kept}**; one token is drawn next from the normalized scaled residual "
                     f"(w_{tau}·p − q)+ with w_{tau} = {f.exact(event.weights[tau])}.")
    elif event.ending == "bonus":
        lines.append(f"All {g} drafts are kept (**{kept}**): a bonus token from p follows.")
    else:
        lines.append(f"All {g} drafts are kept (**{kept}**) and the last is the stop token "
                     f"{_tok(vocab, event.drafts[-1])}: the request stops, no bonus.")
    return head, lines


def _correction(event: ScaledCorrectionEvent, vocab: Sequence[str], f: Formats) -> Narration:
    tau = event.position
    head = (f"Round {event.round_id}: correction {_tok(vocab, event.token)} drawn from the scaled residual "
            f"after {tau} kept draft{'' if tau == 1 else 's'}")
    scaled = "p" if event.scale == 1 else f"{f.exact(event.scale)}·p"
    return head, [
        f"The residual is ({scaled} − q)+: the part of w_{tau}·p that sticks out above q, with w_{tau} = "
        f"{f.exact(event.scale)}.",
        f"Its mass is ρ_{tau} = {f.fraction(event.residual_mass)}; dividing by it gives the normalized residual.",
        f"The correction {f.draw(event.draw, event.draw_range)} picks {_tok(vocab, event.token)} with residual "
        f"probability {f.fraction(event.residual.prob(event.token))}; the round ends here.",
    ]


def narrate_event(event: Event, vocab: Sequence[str], formats: Formats = EXACT) -> Narration | None:
    """(headline, lines) for a block verification event; None for any other (a tree's: ``narration.tree``)."""
    if isinstance(event, BlockCheckEvent):
        return _check(event, vocab, formats)
    if isinstance(event, BlockDecisionEvent):
        return _decision(event, vocab, formats)
    if isinstance(event, ScaledCorrectionEvent):
        return _correction(event, vocab, formats)
    return None


def narrate(events: Iterable[Event], vocab: Sequence[str], formats: Formats = EXACT) -> list[str]:
    """Every block event of a trace as text: its headline, then its lines indented."""
    out = []
    for event in events:
        told = narrate_event(event, vocab, formats)
        if told is not None:
            out.append(told[0])
            out.extend(f"  {line}" for line in told[1])
    return out
