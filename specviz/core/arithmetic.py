"""Exact acceptance probabilities and residual distributions, O(V) in integers."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .categorical import Categorical
from .errors import ProposalError, SupportError, VocabularyMismatchError
from .tickets import DyadicTickets, IntTickets

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


def _positive_part_dyadic(p: Categorical, q: Categorical) -> tuple[list[int], list[int]]:
    """Ids and numerators t_i*U - u_i*T of (p - q)+ where both are dyadic (numpy fast path)."""
    t, u = _dense_dyadic(p), _dense_dyadic(q)
    big_t, big_u = t.total, u.total
    difference = t.floats() - u.floats()
    # both float vectors carry a relative error of a few ulps: decide only clear signs in floats
    margin = 2.0**-48 * (t.floats() + u.floats()) + 2.0**-1000
    positive = difference > margin
    unclear = np.flatnonzero((np.abs(difference) <= margin) & (t.mant != 0))
    for i in unclear.tolist():
        positive[i] = t.at(i) * big_u > u.at(i) * big_t
    ids = np.flatnonzero(positive)
    values = [
        (a << s) * big_u - (b << v) * big_t
        for a, s, b, v in zip(t.mant[ids].tolist(), t.shift[ids].tolist(), u.mant[ids].tolist(), u.shift[ids].tolist())
    ]
    return ids.tolist(), values


def _positive_part(p: Categorical, q: Categorical) -> tuple[list[int], list[int], int]:
    """(ids, numerators, denominator) of the positive part (p - q)+ over the full vocabulary."""
    _check_same_vocab(p, q)
    if isinstance(p._tickets, DyadicTickets) and isinstance(q._tickets, DyadicTickets):
        ids, values = _positive_part_dyadic(p, q)
    else:
        big_t, big_u = p.total, q.total
        ids, values = [], []
        for i, (a, b) in enumerate(zip(p.ticket_ints(), q.ticket_ints())):
            value = a * big_u - b * big_t
            if value > 0:
                ids.append(i)
                values.append(value)
    return ids, values, p.total * q.total


def residual_mass(p: Categorical, q: Categorical) -> Fraction:
    """sum_x (p(x) - q(x))+ = 1 - sum_x min(p(x), q(x)): the rejection probability."""
    _, values, denominator = _positive_part(p, q)
    return Fraction(sum(values), denominator)


def residual_with_mass(p: Categorical, q: Categorical) -> tuple[Categorical, Fraction]:
    """The normalized residual (p - q)+ over the full vocabulary, and its mass before normalizing."""
    ids, values, denominator = _positive_part(p, q)
    if not values:
        raise SupportError(
            "empty effective support (all zero or all masked): the residual (p - q)+ is zero because "
            "q covers p everywhere (p = q), so a rejection cannot happen"
        )
    mass = Fraction(sum(values), denominator)
    full = [0] * p.vocab_size
    divisor = math.gcd(*values)
    for i, value in zip(ids, values):
        full[i] = value // divisor
    tickets = IntTickets(full, sum(values) // divisor)
    return Categorical._from_tickets(p.vocab_size, np.arange(p.vocab_size, dtype=np.int64), tickets), mass


def residual(p: Categorical, q: Categorical) -> Categorical:
    """(p - q)+ normalized, over the FULL target vocabulary, never just the transmitted support."""
    return residual_with_mass(p, q)[0]
