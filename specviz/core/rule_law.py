"""What one verification node commits, exactly: the shape the engine rules' theory shares.

``NodeLaw`` is the one node law of the project (``specviz.theory.NodeLaw`` is this class): it lives in the
core so that a rule's module holds its own exact law beside its verifier, and theory reads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from .arithmetic import check_categorical
from .categorical import Categorical
from .errors import LawError, VocabularyMismatchError

Law = dict[int, Fraction]  # a distribution (or part of one) over token ids, zeros left out
MAX_LAW_DEPTH = 10_000  # drafts per round the closed forms accept (a + a^2 + ... + a^g in Fractions)


@dataclass(frozen=True)
class NodeLaw:
    """One node of a rule: ``kept[x]`` = P(it keeps a draft and that draft is x); ``instead[x]`` = P(it keeps
    none and commits x instead: a correction, or the token the rule chooses in its place)."""

    kept: Law
    instead: Law

    @property
    def acceptance(self) -> Fraction:
        """P(the node keeps a draft)."""
        return sum(self.kept.values(), Fraction(0))

    def committed(self, vocab_size: int) -> tuple[Fraction, ...]:
        """The law of the token the node commits, in vocabulary order."""
        zero = Fraction(0)
        return tuple(self.kept.get(x, zero) + self.instead.get(x, zero) for x in range(vocab_size))


def check_pair(p: object, q: object) -> None:
    """p and q are Categoricals on one vocabulary, else the core's precise errors."""
    check_categorical(p, "p (the target distribution)")
    check_categorical(q, "q (the draft distribution)")
    if p.vocab_size != q.vocab_size:  # type: ignore[attr-defined]
        raise VocabularyMismatchError(
            f"target/proposal vocabulary mismatch: p has {p.vocab_size} tokens, q has {q.vocab_size}; "  # type: ignore[attr-defined]
            "draft and target must share one vocabulary")


def support(c: Categorical) -> Law:
    """{token: probability} over the tokens with mass."""
    total = c.total
    return {x: Fraction(t, total) for x, t in zip(c.ids, c.tickets) if t}


def add(law: Law, token: int, mass: Fraction) -> None:
    if mass:
        law[token] = law.get(token, Fraction(0)) + mass


def check_depth(depth: object) -> int:
    if type(depth) is not int or not 1 <= depth <= MAX_LAW_DEPTH:
        raise LawError(f"depth (drafts per round) must be an int in 1..{MAX_LAW_DEPTH}, got {depth!r}")
    return depth


def geometric(a: Fraction, depth: int) -> Fraction:
    """a + a^2 + ... + a^depth: the accepted drafts of a round whose every node keeps a draft with probability a."""
    check_depth(depth)
    return Fraction(depth) if a == 1 else a * (1 - a**depth) / (1 - a)


def total_variation(law: Sequence[Fraction], p: Categorical) -> Fraction:
    """TV between a law over token ids (in vocabulary order) and p, exactly."""
    if len(law) != p.vocab_size:
        raise LawError(f"a law over {len(law)} tokens cannot be compared with p over {p.vocab_size}")
    target = support(p)
    return sum((abs(Fraction(a) - target.get(x, Fraction(0))) for x, a in enumerate(law)), Fraction(0)) / 2
