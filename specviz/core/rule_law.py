"""What one verification node commits, exactly: the law algebra the engine rules' theory shares.

``NodeLaw`` is the one node law of the project (``specviz.theory.NodeLaw`` is this class): it lives in the
core so that a rule's module holds its own exact law beside its verifier, and theory reads it. A rule's module
writes only its law over Laws (``law(p, q, settings, ...)``); ``node_law_forms`` gives the four forms over
Categoricals every such rule offers (its node law, first token's law, expected accepted drafts and distance from p).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NamedTuple

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


class NodeLawForms(NamedTuple):
    """A rule's exact theory over Categoricals p and q, from its node law over Laws (``node_law_forms``)."""

    node_law: Callable[..., NodeLaw]
    first_token_law: Callable[..., tuple[Fraction, ...]]
    expected_accepted_drafts: Callable[..., Fraction]
    distance: Callable[..., Fraction]


def node_law_forms(law: Callable[..., NodeLaw]) -> NodeLawForms:
    """The four forms of a rule whose every node commits ``law(p, q, settings, *shape)`` (shape: a tree rule's
    width and distinct), for context-independent p and q without stop tokens:

    * ``node_law(p, q, settings, *shape)``: one node of Categoricals p and q, checked;
    * ``first_token_law(p, q, settings, *shape)``: the law of the first committed token, in vocabulary order;
    * ``expected_accepted_drafts(p, q, depth, settings, *shape)``: a + a^2 + ... + a^g, a the node's acceptance
      (each depth's node is fresh, so each keeps a draft with the same probability);
    * ``distance(p, q, settings, *shape)``: TV between the first token's law and p (0 for an exact rule).
    """

    def node_law(p: Categorical, q: Categorical, settings: Any, *shape: Any) -> NodeLaw:
        check_pair(p, q)
        return law(support(p), support(q), settings, *shape)

    def first_token_law(p: Categorical, q: Categorical, settings: Any, *shape: Any) -> tuple[Fraction, ...]:
        return node_law(p, q, settings, *shape).committed(p.vocab_size)

    def expected_accepted_drafts(p: Categorical, q: Categorical, depth: int, settings: Any, *shape: Any) -> Fraction:
        return geometric(node_law(p, q, settings, *shape).acceptance, depth)

    def distance(p: Categorical, q: Categorical, settings: Any, *shape: Any) -> Fraction:
        return total_variation(first_token_law(p, q, settings, *shape), p)

    for form in (node_law, first_token_law, expected_accepted_drafts, distance):
        form.__module__ = law.__module__  # a traceback names the rule's module
        form.__doc__ = f"{form.__name__} of ``{law.__module__}.law`` (see ``core.rule_law.node_law_forms``)."
    return NodeLawForms(node_law, first_token_law, expected_accepted_drafts, distance)
