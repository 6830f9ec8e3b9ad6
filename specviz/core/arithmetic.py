"""Exact acceptance probabilities and residual distributions, O(V) in integers.

The engine rules' own thresholds live beside their verifiers (``ensemble``, ``threshold``, ``medusa``).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .categorical import Categorical, _shared_arange
from .errors import (
    DistributionTypeError,
    ProposalError,
    ScaleError,
    SupportError,
    VocabularyMismatchError,
)
from .tickets import DifferenceTickets, DyadicTickets, Fp32Tickets, IntTickets, RawTickets

_MISMATCH = "target/proposal vocabulary mismatch: p has {} tokens, q has {}; draft and target must share one vocabulary"


def check_categorical(value: object, name: str) -> None:
    """DistributionTypeError naming the argument unless value is a Categorical."""
    if not isinstance(value, Categorical):
        text = repr(value)
        shown = text if len(text) <= 60 else text[:57] + "..."
        raise DistributionTypeError(f"{name} must be a Categorical, got {shown} of type {type(value).__name__}")


def _check_same_vocab(p: Categorical, q: Categorical) -> None:
    check_categorical(p, "p (the target distribution)")
    check_categorical(q, "q (the draft distribution)")
    if p.vocab_size != q.vocab_size:
        raise VocabularyMismatchError(_MISMATCH.format(p.vocab_size, q.vocab_size))


def acceptance(p: Categorical, q: Categorical, token: int) -> Fraction:
    """min(1, p(token) / q(token)) as an exact Fraction."""
    _check_same_vocab(p, q)
    q_ticket = q._raw_ticket(token)
    if q_ticket == 0:
        raise ProposalError(
            f"proposal token has zero q mass: token {token} has q = 0, so the draft could not have "
            "proposed it; sample drafts from q itself"
        )
    # raw (unreduced) tickets: the ratio is the same, and no gcd is needed to form it
    p_ticket, q_total = p._raw_ticket(token), q._tickets.raw_total
    upper = getattr(p._tickets, "raw_total_upper", None)  # FP32: a float bound often settles p >= q
    if upper is not None and p_ticket * q_total >= q_ticket * upper:
        return Fraction(1)  # p's exact total is then never needed (unless p is later sampled)
    p_total = p._tickets.raw_total
    if p_ticket * q_total >= q_ticket * p_total:
        return Fraction(1)
    return Fraction(p_ticket * q_total, q_ticket * p_total)


def _raw_dense(tickets: RawTickets, c: Categorical) -> RawTickets:
    """tickets (c's, in FP32 or general dyadic storage) over the full vocabulary."""
    return tickets if c.is_dense else tickets.spread(c._ids, c.vocab_size)


_MASK_SLICE = 8192  # float64 temporaries of 64 KiB: reused by the allocator, not faulted in afresh


def _positive_mask(t: RawTickets, u: RawTickets, scale: Fraction,
                   with_difference: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """Exactly where c*t_i/T > u_i/U (clear signs from floats, near-ties in integers), and (c*p - q)+ in floats.

    The float differences (only when asked for) are zero off that set. The floats are
    formed slice by slice: whole-vector temporaries would be page-faulted in at every call.
    """
    n = len(t)
    positive = np.empty(n, dtype=bool)
    difference = np.empty(n, dtype=np.float64) if with_difference else None
    c = float(scale)
    near_parts = []
    for start in range(0, n, _MASK_SLICE):
        stop = min(start + _MASK_SLICE, n)
        d = t.float_slice(start, stop)
        if scale != 1:
            d *= c
        qf = u.float_slice(start, stop)
        # both float vectors carry a relative error of a few ulps: decide only clear signs in floats
        margin = d + qf
        margin *= 2.0**-47
        margin += 2.0**-1000
        d -= qf
        clear = np.greater(d, margin, out=positive[start:stop])
        np.negative(margin, out=margin)
        near = d >= margin
        near &= ~clear  # |c*p - q| <= margin: too close to call in floats
        if near.any():
            near_parts.append(np.flatnonzero(near) + start)
        if difference is not None:
            d *= clear | near
            np.maximum(d, 0.0, out=difference[start:stop])
    if near_parts:
        coef_t, coef_u = scale.numerator * u.raw_total, scale.denominator * t.raw_total
        candidates = np.concatenate(near_parts)
        candidates = candidates[t.nonzero_at(candidates)]
        if coef_t == coef_u and isinstance(t, Fp32Tickets) and isinstance(u, Fp32Tickets):
            # raw FP32 tickets are w * 2**149 on both sides: comparing the float32 weights is exact
            # (this is q = p, where every token is a near-tie)
            positive[candidates] = t.singles[candidates] > u.singles[candidates]
        else:
            for i in candidates.tolist():
                positive[i] = t.raw_at(i) * coef_t > u.raw_at(i) * coef_u
        if difference is not None:
            difference[candidates[~positive[candidates]]] = 0.0
    return positive, difference


def _check_scale(scale: object) -> Fraction:
    if isinstance(scale, bool) or not isinstance(scale, (int, Fraction)) or not 0 <= scale <= 1:
        raise ScaleError(f"residual scale must be an exact int or Fraction in [0, 1], got {scale!r}")
    return Fraction(scale)


_Parts = tuple[RawTickets, RawTickets, np.ndarray, np.ndarray | None, tuple[int, int]]


def _dyadic_from_ints(tickets: object) -> object:
    """Integer tickets below 2**62 as dyadic tickets (the same integers, shift 0); anything else unchanged."""
    if isinstance(tickets, IntTickets) and max(tickets.values) < 1 << 62:
        mant = np.array(tickets.values, dtype=np.int64)
        return DyadicTickets(mant, np.zeros_like(mant), tickets.total)
    return tickets


def _residual_parts(p: Categorical, q: Categorical, scale: Fraction, with_difference: bool) -> _Parts | None:
    """The dense raw tickets t and u, where c*t/T > u/U, (c*p - q)+ in floats, and the exact sums of t and u there.

    None unless both storages are raw (dyadic or FP32). The float differences (None unless
    asked for) only serve a draw. Kept on p per (q, scale): block verification asks for the
    mass at every position and then, at one of them, for the residual itself.
    """
    t, u = p._tickets, q._tickets
    raw = (DyadicTickets, Fp32Tickets)
    if isinstance(t, raw) != isinstance(u, raw):  # a small-integer side (a one-hot draft, say) joins the dyadic form
        t, u = _dyadic_from_ints(t), _dyadic_from_ints(u)
    if not (isinstance(t, raw) and isinstance(u, raw)):
        return None
    cache = p.__dict__.setdefault("_residual_parts", {})
    key = (id(q), scale)
    hit = cache.get(key)
    if hit is not None and hit[0] is q and (hit[1][3] is not None or not with_difference):
        return hit[1]
    if type(t) is not type(u):  # mixed storages meet in the general dyadic one
        t = t.dyadic if isinstance(t, Fp32Tickets) else t
        u = u.dyadic if isinstance(u, Fp32Tickets) else u
    t, u = _raw_dense(t, p), _raw_dense(u, q)
    positive, difference = _positive_mask(t, u, scale, with_difference)
    sums = hit[1][4] if hit is not None and hit[0] is q else (t.masked_total(positive), u.masked_total(positive))
    parts = (t, u, positive, difference, sums)
    if len(cache) >= 2 and key not in cache:
        cache.clear()
    cache[key] = (q, parts)
    return parts


def _difference_tickets(p: Categorical, q: Categorical,
                        scale: Fraction) -> tuple[DifferenceTickets | IntTickets, int, int]:
    """Tickets of (c*p - q)+ over the full vocabulary, their raw sum and its denominator.

    The mass is raw sum / denominator. Raises SupportError when c*p <= q everywhere.
    """
    _check_same_vocab(p, q)
    parts = _residual_parts(p, q, scale, with_difference=True)
    if parts is not None:
        t, u, positive, difference, sums = parts
        tickets = DifferenceTickets(t, u, positive, scale, difference, sums)
        return tickets, tickets.raw_total, tickets.denominator
    big_t, big_u = p.total, q.total
    a, b = scale.numerator * big_u, scale.denominator * big_t
    values = [max(a * x - b * y, 0) for x, y in zip(p.ticket_ints(), q.ticket_ints())]
    return IntTickets.from_ints(values), sum(values), scale.denominator * big_t * big_u


def residual_mass(p: Categorical, q: Categorical, scale: Fraction = Fraction(1)) -> Fraction:
    """sum_x (c*p(x) - q(x))+ for c = scale; with c = 1 it is 1 - sum_x min(p(x), q(x)), the rejection probability."""
    scale = _check_scale(scale)
    _check_same_vocab(p, q)
    parts = _residual_parts(p, q, scale, with_difference=False)
    if parts is not None:  # the mass needs the two exact sums only, not the residual's gcd
        t, u, _, _, (t_sum, u_sum) = parts
        raw_total = scale.numerator * u.raw_total * t_sum - scale.denominator * t.raw_total * u_sum
        return Fraction(raw_total, scale.denominator * t.raw_total * u.raw_total)
    try:
        _, raw_total, denominator = _difference_tickets(p, q, scale)
    except SupportError:
        return Fraction(0)
    return Fraction(raw_total, denominator)


def residual_with_mass(p: Categorical, q: Categorical,
                       scale: Fraction = Fraction(1)) -> tuple[Categorical, Fraction]:
    """The normalized residual (c*p - q)+ over the full vocabulary (c = scale, default 1), and its mass.

    With c = 1 this is the reference's residual, draw for draw. Block verification uses
    c in [0, 1]: the mass is sum_x max(c*p(x) - q(x), 0) before normalizing.
    """
    scale = _check_scale(scale)
    try:
        tickets, raw_total, denominator = _difference_tickets(p, q, scale)
    except SupportError as error:
        raise SupportError(
            "empty effective support (all zero or all masked): the residual (p - q)+ is zero because "
            "q covers p everywhere (p = q), so a rejection cannot happen"
            if scale == 1 else
            f"empty effective support (all zero or all masked): the residual ({scale}*p - q)+ is zero "
            "everywhere, so there is nothing to draw"
        ) from error
    residual_dist = Categorical._from_tickets(p.vocab_size, _shared_arange(0, p.vocab_size), tickets)
    return residual_dist, Fraction(raw_total, denominator)


def residual(p: Categorical, q: Categorical) -> Categorical:
    """(p - q)+ normalized, over the FULL target vocabulary, never just the transmitted support."""
    return residual_with_mass(p, q)[0]
