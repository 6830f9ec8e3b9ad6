"""The real drafting and verifier code run on every possible sequence of integer draws, for the engine-rule tests.

``played_law`` answers each ``randrange(n)`` from a script and branches over all n values, each weighted 1/n,
so the law of (committed tokens, accepted drafts) it returns is exactly the code's own, with no reading of the
trace and nothing from the rule's theory. Meant for toy distributions (small ticket totals).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from fractions import Fraction as F

from specviz.core import Categorical, Owner, RandomStreams, propose, propose_tree

OWNER = Owner("engine-rules", 0)
Law = dict[tuple[tuple[int, ...], int], F]
MAX_RUNS = 100_000


class Scripted:
    """A stand-in for random.Random: randrange answers from a script (0 past its end) and logs each range."""

    def __init__(self, script: tuple[int, ...], log: list[int]):
        self.script, self.log = script, log

    def randrange(self, n: int) -> int:
        index = len(self.log)
        self.log.append(n)
        return self.script[index] if index < len(self.script) else 0


def enumerate_draws(run: Callable[[Scripted], object]) -> dict[object, F]:
    """The exact law of run's outcome over every value of every randrange it makes."""
    out: dict[object, F] = defaultdict(F)
    pending: list[tuple[tuple[int, ...], F]] = [((), F(1))]
    runs = 0
    while pending:
        script, weight = pending.pop()
        log: list[int] = []
        outcome = run(Scripted(script, log))
        runs += 1
        assert runs <= MAX_RUNS, "too many draw sequences for an exact enumeration"
        if len(log) == len(script):
            out[outcome] += weight
            continue
        n = log[len(script)]
        pending.extend((script + (v,), weight / n) for v in range(n))
    return dict(out)


def played_law(verifier_class: type, p: Categorical, q: Categorical, depth: int, *, width: int | None = None,
               distinct: bool = False, stop_ids: frozenset[int] = frozenset(), **kwargs) -> Law:
    """Context-independent p and q: draft a chain (width None) or a tree, verify it, over every draw."""

    def run(rng: Scripted) -> tuple[tuple[int, ...], int]:
        streams = RandomStreams(0, OWNER, 0)
        streams.proposal = streams.acceptance = streams.correction = rng
        if width is None:
            drafted = propose(lambda c: q, (), streams, depth=depth, context_id="play", stop_ids=stop_ids)
        else:
            drafted = propose_tree(lambda c: q, (), streams, depth=depth, width=width, context_id="play",
                                   distinct=distinct, stop_ids=stop_ids)
        verifier = verifier_class(OWNER, (), "play", lambda c: p, stop_ids=stop_ids, **kwargs)
        result = verifier.verify(drafted, streams)
        return result.tokens, result.accepted_drafts

    return enumerate_draws(run)  # type: ignore[return-value]


def first_token(law: Law, vocab_size: int) -> tuple[F, ...]:
    out = [F(0)] * vocab_size
    for (tokens, _), w in law.items():
        out[tokens[0]] += w
    return tuple(out)


def mean_accepted(law: Law) -> F:
    return sum((w * kept for (_, kept), w in law.items()), F(0))


def chi_square_pvalue(counts: list[int], law: tuple[F, ...] | list[F]) -> float:
    """The chi-square p-value of observed counts against an exact law (cells of zero mass must be empty)."""
    from scipy.stats import chi2

    n = sum(counts)
    assert all(c == 0 for c, w in zip(counts, law) if w == 0), "a draw landed where the law has no mass"
    cells = [(c, float(w) * n) for c, w in zip(counts, law) if w]
    if len(cells) < 2:
        return 1.0
    stat = sum((c - e) ** 2 / e for c, e in cells)
    return float(chi2.sf(stat, len(cells) - 1))


def monte_carlo(verifier_class: type, p: Categorical, q: Categorical, depth: int, rounds: int, *,
                width: int | None = None, distinct: bool = False, seed: int = 0, **kwargs):
    """(first-token counts, accepted-draft counts) of ``rounds`` real rounds with seeded RandomStreams."""
    first = [0] * p.vocab_size
    kept = [0] * (depth + 1)
    for i in range(rounds):
        streams = RandomStreams(seed * 1_000_003 + i, OWNER, 0)
        if width is None:
            drafted = propose(lambda c: q, (), streams, depth=depth, context_id="mc")
        else:
            drafted = propose_tree(lambda c: q, (), streams, depth=depth, width=width, context_id="mc",
                                   distinct=distinct)
        result = verifier_class(OWNER, (), "mc", lambda c: p, **kwargs).verify(drafted, streams)
        first[result.tokens[0]] += 1
        kept[result.accepted_drafts] += 1
    return first, kept


def accepted_law(a: F, depth: int) -> list[F]:
    """P(k drafts kept), k = 0..depth, when every node keeps one with probability a (no stop tokens)."""
    return [a**k * (1 - a) for k in range(depth)] + [a**depth]


def weights(size: int, max_weight: int = 6):
    """A hypothesis strategy: integer weights of one distribution over ``size`` tokens, some mass."""
    from hypothesis import strategies as st

    return st.lists(st.integers(0, max_weight), min_size=size, max_size=size).filter(lambda w: sum(w) > 0)


def pairs(min_size: int = 2, max_size: int = 4, max_weight: int = 6):
    """A hypothesis strategy: (p, q) as Categoricals on one small vocabulary."""
    from hypothesis import strategies as st

    return st.integers(min_size, max_size).flatmap(
        lambda v: st.tuples(weights(v, max_weight), weights(v, max_weight))).map(
        lambda pq: (Categorical.dense(pq[0]), Categorical.dense(pq[1])))


def probs(dist: Categorical) -> list[F]:
    return [dist.prob(x) for x in range(dist.vocab_size)]
