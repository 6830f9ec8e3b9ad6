"""Exact acceptance probabilities and residual distributions, O(V) in integers."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .categorical import Categorical
from .errors import ProposalError, SupportError, VocabularyMismatchError
from .tickets import DifferenceTickets, DyadicTickets, IntTickets

_MISMATCH = "target/proposal vocabulary mismatch: p has {} tokens, q has {}; draft and target must share one vocabulary"


def _check_same_vocab(p: Categorical, q: Categorical) -> None:
    if p.vocab_size != q.vocab_size:
        raise VocabularyMismatchError(_MISMATCH.format(p.vocab_size, q.vocab_size))


def acceptance(p: Categorical, q: Categorical, token: int) -> Fraction:
    """min(1, p(token) / q(token)) as an exact Fraction."""
    _check_same_vocab(p, q)
    q_ticket = q.ticket(token)
    if q_ticket == 0:
        raise ProposalError(
            f"proposal token has zero q mass: token {token} has q = 0, so the draft could not have "
            "proposed it; sample drafts from q itself"
        )
    ratio = Fraction(p.ticket(token) * q.total, q_ticket * p.total)
    return min(Fraction(1), ratio)


def _dense_dyadic(c: Categorical) -> DyadicTickets:
    tickets = c._tickets
    assert isinstance(tickets, DyadicTickets)
    if c.is_dense:
        return tickets
    mant = np.zeros(c.vocab_size, dtype=np.int64)
    shift = np.zeros(c.vocab_size, dtype=np.int64)
    mant[c._ids] = tickets.mant
    shift[c._ids] = tickets.shift
    return DyadicTickets(mant, shift, tickets.total)


def _positive_mask(t: DyadicTickets, u: DyadicTickets) -> np.ndarray:
    """Exactly where t_i/T > u_i/U: clear signs from floats, near-ties in integers."""
    big_t, big_u = t.total, u.total
    pf, qf = t.floats(), u.floats()
    difference = pf - qf
    # both float vectors carry a relative error of a few ulps: decide only clear signs in floats
    margin = 2.0**-48 * (pf + qf) + 2.0**-1000
    positive = difference > margin
    for i in np.flatnonzero((np.abs(difference) <= margin) & (t.mant != 0)).tolist():
        positive[i] = t.at(i) * big_u > u.at(i) * big_t
    return positive


def _difference_tickets(p: Categorical, q: Categorical) -> tuple[DifferenceTickets | IntTickets, int]:
    """Tickets of (p - q)+ over the full vocabulary and their raw sum over the denominator T*U.

    Raises SupportError when p <= q everywhere (then the raw sum is 0).
    """
    _check_same_vocab(p, q)
    if isinstance(p._tickets, DyadicTickets) and isinstance(q._tickets, DyadicTickets):
        t, u = _dense_dyadic(p), _dense_dyadic(q)
        tickets = DifferenceTickets(t, u, _positive_mask(t, u))
        return tickets, tickets.raw_total
    big_t, big_u = p.total, q.total
    values = [max(a * big_u - b * big_t, 0) for a, b in zip(p.ticket_ints(), q.ticket_ints())]
    return IntTickets.from_ints(values), sum(values)


def residual_mass(p: Categorical, q: Categorical) -> Fraction:
    """sum_x (p(x) - q(x))+ = 1 - sum_x min(p(x), q(x)): the rejection probability."""
    try:
        return Fraction(_difference_tickets(p, q)[1], p.total * q.total)
    except SupportError:
        return Fraction(0)


def residual_with_mass(p: Categorical, q: Categorical) -> tuple[Categorical, Fraction]:
    """The normalized residual (p - q)+ over the full vocabulary, and its mass before normalizing."""
    try:
        tickets, raw_total = _difference_tickets(p, q)
    except SupportError as error:
        raise SupportError(
            "empty effective support (all zero or all masked): the residual (p - q)+ is zero because "
            "q covers p everywhere (p = q), so a rejection cannot happen"
        ) from error
    residual_dist = Categorical._from_tickets(p.vocab_size, np.arange(p.vocab_size, dtype=np.int64), tickets)
    return residual_dist, Fraction(raw_total, p.total * q.total)


def residual(p: Categorical, q: Categorical) -> Categorical:
    """(p - q)+ normalized, over the FULL target vocabulary, never just the transmitted support."""
    return residual_with_mass(p, q)[0]
