"""Narration of a block verification round (Sun et al. 2025) from its trace, with exact fractions and draws.

``narrate_event`` turns one block event (``BlockCheckEvent``, ``BlockDecisionEvent``,
``ScaledCorrectionEvent``) into a headline and explanation lines; other events return None, so a
page can keep its own narration for drafts, bonus tokens, stops and results. ``narrate`` does a
whole trace. Pure functions: events in, text out. A caller that abbreviates long integers (the
Playground, the command line) passes its own ``Formats``; the default writes every digit.

One counting convention everywhere (``POSITIONS``, and ``narration.counting``): draft positions count from 1, as
rounds and steps do, and a quantity computed at a position carries that position's number: the check at position
k computes the running weight w_k (after the draft x_k; the weight before position 1 is w_0 = 1), the scaled
residual mass ρ_k and the stop probability h_k, as Sun et al. number them. τ counts drafts *kept*: a last hit at
position k keeps positions 1..k, τ = k drafts. The trace's events keep Python's indices (``position`` from 0) and
the paper's arrays. ``names`` gives each quantity its name at a position (given as the event's index from 0), for
the narration, the figures and the folded exact values alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from .. import formats
from ..core.block_verifier import tau_distribution
from ..core.trace import BlockCheckEvent, BlockDecisionEvent, Event, ScaledCorrectionEvent
from .counting import nth
from .tellers import Values, correction_values, draws, narrate_own, tells

Narration = tuple[str, list[str]]
POSITIONS = ("Positions count from 1, and w_k, ρ_k and h_k are computed at position k (the weight before "
             "position 1 is 1); τ counts drafts kept: a last hit at position k keeps positions 1..k, τ = k.")


@dataclass(frozen=True)
class Names:
    """The names of a block check's quantities at one position: w before it, w, ρ and h after it."""

    before: str  # 'w_1', or '1' at position 1
    weight: str  # 'w_2'
    mass: str  # 'ρ_2'
    stop: str  # 'h_2'


def names(position: int) -> Names:
    """What the check at the event's ``position`` (an index from 0: position k = index + 1 as read) calls its
    quantities: w_{k-1} (1 at position 1), w_k, ρ_k, h_k."""
    k = nth(position)
    return Names("1" if k == 1 else f"w_{k - 1}", f"w_{k}", f"ρ_{k}", f"h_{k}")


def scale_name(kept: int) -> str:
    """The weight of the scaled residual after τ = kept drafts: w_τ (the last kept position's), 1 at τ = 0."""
    return "1" if kept == 0 else f"w_{kept}"


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


def _check_values(event: BlockCheckEvent, vocab: Sequence[str]) -> Values:
    """Named by position, as the narration names them (``names``)."""
    x, n = vocab[event.token], names(event.position)
    values = draws(event) + [(f"p({x})", event.p_token), (f"q({x})", event.q_token)]
    values += [(n.before, event.previous_weight)] if event.position else []
    values += [(n.weight, event.weight), (n.stop, event.stop_probability)]
    return values + ([(n.mass, event.residual_mass)] if event.residual_mass is not None else [])


@tells(BlockCheckEvent, values=_check_values)
def _check(event: BlockCheckEvent, vocab: Sequence[str], f: Formats) -> Narration:
    k, n = event.position, names(event.position)
    x = vocab[event.token]
    ratio = event.p_token / event.q_token
    verdict = "hit" if event.hit else "no hit"
    kept = "the first draft" if k == 0 else f"the drafts up to position {nth(k)}"
    head = f"Round {nth(event.round_id)}, block check at position {nth(k)}: keep {kept}? {verdict}"
    if k == 0:
        running = (f"Running weight, from 1 before the first draft: {n.weight} = min(1, p/q) = "
                   f"min(1, {f.exact(ratio)}) = {f.fraction(event.weight)}.")
    else:
        running = (f"Running weight {n.weight} = min(1, {n.before} · p/q) = min(1, "
                   f"{f.exact(event.previous_weight)} · {f.exact(ratio)}) = {f.fraction(event.weight)}.")
    lines = [
        f"Drafted x = {_tok(vocab, event.token)}: p({x}) = {f.fraction(event.p_token)}, "
        f"q({x}) = {f.fraction(event.q_token)}, so p/q = {f.exact(ratio)}.",
        running,
    ]
    if event.last:
        lines.append(f"The block's last draft: the whole block is kept with {n.stop} = {n.weight} = "
                     f"{f.fraction(event.stop_probability)}.")
    else:
        mass = event.residual_mass
        denominator = mass + 1 - event.weight
        residual = f"Scaled residual mass {n.mass} = Σ ({n.weight}·p − q)+ = {f.fraction(mass)}"
        if denominator:
            lines.append(f"{residual}; stop probability {n.stop} = {n.mass} / ({n.mass} + 1 − {n.weight}) = "
                         f"{_operand(mass, f.exact)} / ({f.exact(mass)} + 1 − {f.exact(event.weight)}) = "
                         f"{f.fraction(event.stop_probability)}.")
        else:
            lines.append(f"{residual}, and {n.mass} + 1 − {n.weight} = 0: nothing to resample here, so {n.stop} = 0 "
                         "(a later position is then kept for certain).")
    compare = "<" if event.hit else "≥"
    outcome = (f"a hit: keep {kept} unless a later draw hits" if event.hit else "no hit")
    h = event.stop_probability
    lines.append(f"The acceptance {f.draw(event.draw, event.draw_range)}: u {compare} {n.stop}, i.e. draw "
                 f"{f.exact(event.draw)} {compare} {f.exact(h.numerator)} ({n.stop}'s numerator): {outcome}.")
    return head, lines


def _decision_values(event: BlockDecisionEvent, vocab: Sequence[str]) -> Values:
    return ([(f"w_{k}", w) for k, w in enumerate(event.weights[1:], 1)]  # w_k at position k, from 1
            + [(f"h_{k}", h) for k, h in enumerate(event.stop_probabilities[1:], 1)])


def _decision_kept(event: BlockDecisionEvent) -> list[tuple[int, str]]:
    """Block verification keeps its first τ drafts at once."""
    return [(t, "accepted") for t in event.drafts[: event.accepted_drafts]]


@tells(BlockDecisionEvent, values=_decision_values, committed=_decision_kept)
def _decision(event: BlockDecisionEvent, vocab: Sequence[str], f: Formats) -> Narration:
    g, tau = len(event.drafts), event.accepted_drafts
    head = f"Round {nth(event.round_id)}, block decision: keep {tau} of {g} draft{'s' if g > 1 else ''}"
    marks = ", ".join(f"{nth(k)} {'✓' if hit else '✗'}" for k, hit in enumerate(event.hits))
    taus = tau_distribution(event.stop_probabilities)
    lines = [
        f"Stop draws by position: {marks}. τ = the drafts kept: the last position whose draw hit, "
        f"or 0 when none did: τ = {tau}.",
        f"Weights (w_1..w_{g}) = (" + ", ".join(f.exact(w) for w in event.weights[1:]) + f"), stop probabilities "
        f"(h_1..h_{g}) = (" + ", ".join(f.exact(h) for h in event.stop_probabilities[1:]) + ").",
        "So P(τ = i), the chance that the last hit is at position i (none at all for i = 0), is ("
        + ", ".join(f.exact(t) for t in taus) + f") for i = 0..{g}.",
    ]
    kept = " ".join(vocab[t] for t in event.drafts[:tau]) or "(nothing)"
    if event.ending == "correction":
        weight = ("w = 1, as no draft is kept" if tau == 0 else
                  f"w = {scale_name(tau)} = {f.exact(event.weights[tau])}, the weight after the last kept position")
        lines.append(f"Committed drafts: **{kept}**; one token is drawn next from the normalized scaled residual "
                     f"(w·p − q)+ with {weight}.")
    elif event.ending == "bonus":
        lines.append(f"All {g} drafts are kept (**{kept}**): a bonus token from p follows.")
    else:
        lines.append(f"All {g} drafts are kept (**{kept}**) and the last is the stop token "
                     f"{_tok(vocab, event.drafts[-1])}: the request stops, no bonus.")
    return head, lines


def _correction_values(event: ScaledCorrectionEvent, vocab: Sequence[str]) -> Values:
    return correction_values(event, vocab) + [(f"scale w = {scale_name(event.position)}", event.scale)]


@tells(ScaledCorrectionEvent, values=_correction_values)
def _correction(event: ScaledCorrectionEvent, vocab: Sequence[str], f: Formats) -> Narration:
    tau = event.position
    head = (f"Round {nth(event.round_id)}: correction {_tok(vocab, event.token)} drawn from the scaled residual "
            f"after {tau} kept draft{'' if tau == 1 else 's'}")
    scaled = "p" if event.scale == 1 else f"{f.exact(event.scale)}·p"
    weight = ("w = 1: no draft was kept" if tau == 0 else
              f"w = {scale_name(tau)} = {f.exact(event.scale)}, the weight after the last kept position {tau}")
    return head, [
        f"The residual is ({scaled} − q)+: the part of w·p that sticks out above q, with {weight}.",
        f"Its mass is {f.fraction(event.residual_mass)}; dividing by it gives the normalized residual.",
        f"The correction {f.draw(event.draw, event.draw_range)} picks {_tok(vocab, event.token)} with residual "
        f"probability {f.fraction(event.residual.prob(event.token))}; the round ends here.",
    ]


def narrate_event(event: Event, vocab: Sequence[str], formats: Formats = EXACT) -> Narration | None:
    """(headline, lines) for a block verification event; None for any other (a tree's: ``narration.tree_words``)."""
    return narrate_own(event, vocab, formats, __name__)


def narrate(events: Iterable[Event], vocab: Sequence[str], formats: Formats = EXACT) -> list[str]:
    """Every block event of a trace as text: its headline, then its lines indented."""
    out = []
    for event in events:
        told = narrate_event(event, vocab, formats)
        if told is not None:
            out.append(told[0])
            out.extend(f"  {line}" for line in told[1])
    return out
