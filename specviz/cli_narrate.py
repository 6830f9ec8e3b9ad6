"""The numbers behind each step of a toy round, as the lines `python -m specviz play` prints under each headline.

For a draft: q(x) and the ticket draw; for a check: p(x), q(x), min(1, p/q) as a fraction and a
decimal, the integer draw, its range and the test it passes or fails; for a correction: the
residual mass and the draw; for the bonus: p(x) and the draw. Block verification's events
(the running weight w_i, the scaled residual mass ρ_i, the stop probability h_i and its draw;
the decision τ; the correction from (w_τ·p − q)+) are narrated by the Playground's
``block_explain`` with these formats. Long integers are abbreviated to their first and last
digits with the digit count.
"""

from __future__ import annotations

import math
from fractions import Fraction

from .core.trace import BonusEvent, CheckEvent, CorrectionEvent, DraftEvent, Event
from .playground import block_explain
from .playground.view import fmt_fraction

KEEP = 6  # digits kept at each end of an abbreviated integer
SHORT = 2 * KEEP + 3  # integers up to this many digits are printed in full
LOG10_2 = math.log10(2)


def digit_count(n: int) -> int:
    """Decimal digits of |n| (1 for 0), without str(): works past Python's integer-to-text limit."""
    n = abs(n)
    if n < 10:
        return 1
    digits = int(n.bit_length() * LOG10_2)  # within one of the truth
    while 10**digits > n:
        digits -= 1
    while 10 ** (digits + 1) <= n:
        digits += 1
    return digits + 1


def abbreviate(n: int) -> str:
    """'123456…789012 (40 digits)' for a long integer; short ones in full."""
    count = digit_count(n)
    if count <= SHORT:
        return str(n)
    sign = "-" if n < 0 else ""
    n = abs(n)
    head = n // 10 ** (count - KEEP)
    tail = n % 10**KEEP
    return f"{sign}{head}…{tail:0{KEEP}d} ({count} digits)"


def decimal(value: Fraction) -> str:
    """Four significant digits, also for values far below the float range."""
    if value == 0:
        return "0"
    as_float = float(value)
    if as_float != 0 and abs(as_float) >= 1e-300:
        return f"{as_float:.4g}"
    exponent = digit_count(value.numerator) - digit_count(value.denominator)
    mantissa = float(value * Fraction(10) ** -exponent)
    while abs(mantissa) < 1:
        mantissa, exponent = mantissa * 10, exponent - 1
    return f"{mantissa:.3f}e{exponent}"


def fraction_text(value: Fraction | int) -> str:
    """'3/10 ≈ 0.3000' as the Playground writes it; long numerators or denominators abbreviated."""
    value = Fraction(value)
    if digit_count(value.numerator) <= SHORT and digit_count(value.denominator) <= SHORT and (
            value == 0 or abs(value) >= Fraction(1, 10**4)):
        return fmt_fraction(value)
    if value.denominator == 1:
        return abbreviate(value.numerator)
    return f"{abbreviate(value.numerator)}/{abbreviate(value.denominator)} ≈ {decimal(value)}"


def draw_text(draw: int, draw_range: int) -> str:
    """'draw 3 of 0..9' (the integer draw and its range)."""
    return f"draw {abbreviate(draw)} of 0..{abbreviate(draw_range - 1)}"


def exact_text(value: Fraction | int) -> str:
    """'3/10' (no decimal), long numerators or denominators abbreviated."""
    value = Fraction(value)
    if value.denominator == 1:
        return abbreviate(value.numerator)
    return f"{abbreviate(value.numerator)}/{abbreviate(value.denominator)}"


BLOCK_FORMATS = block_explain.Formats(fraction=fraction_text, exact=exact_text, draw=draw_text)


def numbers(event: Event, vocab: tuple[str, ...]) -> list[str]:
    """The lines of numbers for one event (none for stops and results: their headline says it all)."""
    told = block_explain.narrate_event(event, vocab, BLOCK_FORMATS)
    if told is not None:  # a block verification event (checked before CorrectionEvent: a scaled one is one)
        return [line.replace("**", "") for line in told[1]]  # the Playground's bold is markdown
    if isinstance(event, DraftEvent):
        x = vocab[event.token]
        q = fraction_text(event.q.prob(event.token))
        return [f"q({x}) = {q}; ticket {draw_text(event.draw, event.draw_range)} picks {x}"]
    if isinstance(event, CheckEvent):
        x = vocab[event.token]
        a = event.acceptance
        test = "<" if event.accepted else "≥"
        verdict = "accepted" if event.accepted else "rejected"
        return [f"p({x}) = {fraction_text(event.p_token)}, q({x}) = {fraction_text(event.q_token)}",
                f"min(1, p/q) = {fraction_text(a)}",
                f"acceptance {draw_text(event.draw, event.draw_range)} (the denominator's range): "
                f"{abbreviate(event.draw)} {test} {abbreviate(a.numerator)} = the numerator, so {verdict}"]
    if isinstance(event, CorrectionEvent):
        x = vocab[event.token]
        return [f"residual mass Σ (p − q)+ = {fraction_text(event.residual_mass)}",
                f"correction {draw_text(event.draw, event.draw_range)} picks {x}, residual probability "
                f"{fraction_text(event.residual.prob(event.token))}"]
    if isinstance(event, BonusEvent):
        x = vocab[event.token]
        return [f"bonus {draw_text(event.draw, event.draw_range)} picks {x}, p({x}) = "
                f"{fraction_text(event.p.prob(event.token))}"]
    return []
