"""Verification rules node by node: what one node keeps, and what it commits instead, exactly.

One law function per family of rules, each ``(rule, p, q) -> NodeLaw`` over Laws (token -> Fraction);
``specviz.theory.rule_theory`` names them per family (``THEORY_BY_FAMILY``). The engine rules (ensemble,
SGLang's thresholds, Medusa's typical acceptance) hold their laws beside their verifiers in the core
(``specviz.core.ensemble.law``, ...), and ``NodeLaw`` is the core's (``specviz.core.rule_law``). Also the
best acceptance any exact scheme with K i.i.d. drafts can reach (``optimal_multi_draft``) and a law's
distance from p.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from ..core import Categorical, Rule, exact_match
from ..core.rule_law import NodeLaw
from ..core.verification import MAX_WIDTH
from .round_models import Law, add_mass
from .theory_limits import TheoryError, check_pair


def iid_tree_law(p: Law, q: Law, width: int) -> NodeLaw:
    """Recursive rejection sampling over ``width`` i.i.d. children from q (SpecInfer): child j is kept with
    min(1, r(x)/q(x)) against the residual r (r = p first, then the normalized (r - q)+ after a rejection).

    A rejection leaves the same residual whichever child was drawn, so the node is a chain of residuals.
    """
    kept: Law = {}
    r, alive = dict(p), Fraction(1)
    for _ in range(width):
        for x, qx in q.items():
            both = min(qx, r.get(x, Fraction(0)))
            if both:
                add_mass(kept, x, alive * both)
        rest = {x: rx - q.get(x, Fraction(0)) for x, rx in r.items() if rx > q.get(x, Fraction(0))}
        mass = sum(rest.values(), Fraction(0))
        alive *= mass
        if not mass:
            return NodeLaw(kept, {})
        r = {x: v / mass for x, v in rest.items()}
    return NodeLaw(kept, {x: alive * rx for x, rx in r.items()})


def distinct_tree_law(p: Law, q: Law, width: int) -> NodeLaw:
    """Recursive rejection sampling over ``width`` children drawn from q without replacement (Recursive
    Speculative Decoding): child j comes from q' = q renormalized over the tokens not yet drawn and is kept
    with min(1, r(x)/q'(x)); a rejection leaves the normalized (r - q')+. q' depends on which tokens were
    drawn, so the node's law sums over every ordered path of rejected drafts (an explicit stack; the
    caller has checked their number against MAX_REJECTION_PATHS)."""
    kept: Law = {}
    instead: Law = {}
    stack: list[tuple[frozenset[int], Law, Fraction]] = [(frozenset(), dict(p), Fraction(1))]
    while stack:
        drawn, r, alive = stack.pop()
        left = {x: qx for x, qx in q.items() if x not in drawn}
        total = sum(left.values(), Fraction(0))
        if len(drawn) == width or not total:  # no child left: the correction comes from r
            for x, rx in r.items():
                add_mass(instead, x, alive * rx)
            continue
        fresh = {x: qx / total for x, qx in left.items()}
        for x, qx in fresh.items():
            both = min(qx, r.get(x, Fraction(0)))
            if both:
                add_mass(kept, x, alive * both)
        rest = {x: rx - fresh.get(x, Fraction(0)) for x, rx in r.items() if rx > fresh.get(x, Fraction(0))}
        mass = sum(rest.values(), Fraction(0))
        if not mass:
            continue
        after = {x: v / mass for x, v in rest.items()}
        for x, qx in fresh.items():
            rejected = qx - min(qx, r.get(x, Fraction(0)))  # P(x is drawn here and rejected)
            if rejected:
                stack.append((drawn | {x}, after, alive * rejected))
    return NodeLaw(kept, instead)


def tokenwise_law(found: Rule, p: Law, q: Law) -> NodeLaw:
    """One draft checked with min(1, p/q), the correction from the normalized (p - q)+."""
    return iid_tree_law(p, q, 1)


def tree_law(found: Rule, p: Law, q: Law) -> NodeLaw:
    """A node of ``found.width`` children, i.i.d. or (``found.distinct``) drawn without replacement."""
    return (distinct_tree_law if found.distinct else iid_tree_law)(p, q, found.width)


def exact_match_law(found: Rule, p: Law, q: Law) -> NodeLaw:
    """x ~ q (K distinct children for exact-match:K) and the target's own y ~ p: the child equal to y is kept, else
    y is committed (the core's law, ``specviz.core.exact_match.law``)."""
    return exact_match.law(p, q, found.settings)


def greedy_token(q: Law) -> int:
    """argmax q; ties go to the lowest token id (as numpy's and torch's argmax do)."""
    return max(q.items(), key=lambda item: (item[1], -item[0]))[0]


def greedy_draft_law(found: Rule, p: Law, q: Law) -> NodeLaw:
    """The draft proposes argmax q; kept when the target's own sample y ~ p equals it, else y is committed."""
    top = greedy_token(q)
    return NodeLaw({top: p[top]} if top in p else {}, {y: py for y, py in p.items() if y != top})


def law_distance(law: Sequence[Fraction], p: Categorical) -> Fraction:
    """Total variation between a law over token ids and p, exactly."""
    return sum((abs(Fraction(a) - p.prob(x)) for x, a in enumerate(law)), Fraction(0)) / 2


def optimal_multi_draft(p: Categorical, q: Categorical, drafts: int) -> tuple[Fraction, frozenset[int]]:
    """The best acceptance any exact scheme with K i.i.d. drafts from q can reach, and a set S attaining
    min_S p(S) + 1 − q(S)^K (SpecTr; Khisti et al., ICLR 2025): P(keep) ≤ P(output in S) + P(a draft off S).

    Not by listing 2^V sets: p(S) − q(S)^K is minimised by a prefix of the tokens sorted by p(x)/q(x),
    whole tie groups at a time. (At a minimiser with mass t = q(S), a token x outside S has p(x) ≥
    (t + q(x))^K − t^K ≥ K t^(K−1) q(x) and a token y inside has p(y) ≤ t^K − (t − q(y))^K ≤ K t^(K−1) q(y),
    so every ratio inside is at most every ratio outside; within a tie group p = r q and the objective is
    concave in the group's q-mass, so all or none of the group is as good as any part of it.) Tokens
    with q = 0 never help S. O(V log V): one sort of the ratios, integer ticket sums along it, and the
    set built once, for the best prefix.
    """
    check_pair(p, q)
    if type(drafts) is not int or not 1 <= drafts <= MAX_WIDTH:
        raise TheoryError(f"drafts (K) must be an int in 1..{MAX_WIDTH}, got {drafts!r}")
    p_tickets, q_tickets = p.ticket_ints(), q.ticket_ints()
    p_total, q_total = p.total, q.total
    # p(x)/q(x) = (t_p(x)/t_q(x)) (T_q/T_p): the order of the ticket ratios is the order of the ratios
    order = sorted((x for x, t in enumerate(q_tickets) if t), key=lambda x: Fraction(p_tickets[x], q_tickets[x]))
    best, best_end = Fraction(1), 0  # S = {} gives 0 + 1 - 0
    p_sum = q_sum = 0
    q_power = q_total**drafts
    for i, x in enumerate(order):
        p_sum += p_tickets[x]
        q_sum += q_tickets[x]
        last = i + 1 == len(order) or p_tickets[x] * q_tickets[order[i + 1]] != p_tickets[order[i + 1]] * q_tickets[x]
        if not last:  # a tie group is taken whole
            continue
        value = Fraction(p_sum, p_total) + 1 - Fraction(q_sum**drafts, q_power)
        if value < best:
            best, best_end = value, i + 1
    return best, frozenset(order[:best_end])


def optimal_multi_draft_acceptance(p: Categorical, q: Categorical, drafts: int) -> Fraction:
    """min over token sets S of p(S) + 1 − q(S)^K, exactly (see ``optimal_multi_draft``)."""
    return optimal_multi_draft(p, q, drafts)[0]
