"""The Monte Carlo's integer tables with one of the float verifier's engine bugs injected.

``specviz.lab.montecarlo`` simulates rounds from per-state integer tables (draft tickets,
target tickets, residual tickets, exact acceptance numerators and denominators). Each
engine bug of ``specviz.lab.float_verifier.BUGS`` is a change to those tables, in exact
arithmetic, with the same law as the float verifier's exact engine law with float32 off:

* ``greedy``: accept only the target's argmax; the correction and the bonus are the argmax;
* ``residual_from_p``: on a rejection draw from p instead of the residual (p − q)+;
* ``unprocessed_q``: verify against the draft's q before its top-k (acceptance and residual
  from the full q) while the draft still samples from its top-k;
* ``skip_bonus``: no bonus token after a fully accepted block (``drop_bonus`` on the rounds).

``first_token_law`` gives the exact law of the first committed token from any tables, so the
distance a bug causes is computed, not estimated.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np

from ..scenario import Scenario
from .draws import INT64_LIMIT as _INT64_LIMIT
from .float_verifier import BUGS, EngineSettingsError
from .montecarlo import StateTables, build_tables

__all__ = ["BUGS", "drop_bonus", "first_token_law", "tables_with_bug"]


def _argmax(tickets: list[int]) -> int:
    """The likeliest token, the smallest id on ties (as Categorical.top orders them)."""
    return tickets.index(max(tickets))


def _one_hot(v: int, token: int) -> list[int]:
    return [1 if i == token else 0 for i in range(v)]


def _fits(t: StateTables) -> bool:
    totals = [sum(row) for table in (t.q, t.p, t.residual) for row in table]
    return max(totals + [d for row in t.acc_den for d in row]) <= _INT64_LIMIT


def tables_with_bug(scenario: Scenario, bug: str = "none") -> StateTables:
    """The scenario's exact tables with ``bug`` injected (``none``: the exact verifier's tables)."""
    if bug not in BUGS:
        raise EngineSettingsError(f"unknown bug {bug!r}; choose one of {sorted(BUGS)}")
    t = build_tables(scenario)
    v = t.vocab_size
    if bug == "greedy":
        tops = [_argmax(row) for row in t.p]
        t = replace(
            t,
            p=[_one_hot(v, top) for top in tops],
            residual=[_one_hot(v, top) for top in tops],
            acc_num=[[int(x == top) for x in range(v)] for top in tops],
            acc_den=[[1] * v for _ in tops],
        )
    elif bug == "residual_from_p":
        t = replace(t, residual=[list(row) for row in t.p])
    elif bug == "unprocessed_q" and scenario.draft_topk is not None:
        full = build_tables(scenario.with_changes(draft_topk=None))
        t = replace(t, acc_num=full.acc_num, acc_den=full.acc_den, residual=full.residual)
    return replace(t, fits_int64=_fits(t))


def drop_bonus(tokens: np.ndarray, depth: int) -> np.ndarray:
    """Rounds as ``skip_bonus`` commits them: the bonus column (the only token at index depth) removed."""
    out = tokens.copy()
    out[:, depth] = -1
    return out


def first_token_law(t: StateTables, start: int) -> list[Fraction]:
    """Exact P(first committed token = x) of a round from state ``start``: accepted first draft or correction."""
    q = t.q[start]
    total = sum(q)
    accept = [Fraction(q[x] * t.acc_num[start][x], total * t.acc_den[start][x]) for x in range(t.vocab_size)]
    reject = 1 - sum(accept, Fraction(0))
    r = t.residual[start]
    r_total = sum(r)
    if reject and not r_total:
        raise AssertionError("a rejection is possible but the residual table is empty")  # tables are built whole
    return [a + (reject * Fraction(r[x], r_total) if reject else 0) for x, a in enumerate(accept)]
