"""The exactness check: one round's law against the target's own, sequence by sequence and position by position.

``exactness_report`` completes every block a round can commit with target sampling and compares the
result with the target's autoregressive law (every difference an exact ``Fraction(0)`` for an exact rule).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..core import Prefix
from .enumeration import complete
from .round_models import NodeCache, Sequence_, Source, add_mass, round_models
from .rule_theory import analyze_round


@dataclass(frozen=True)
class SequenceRow:
    tokens: Sequence_
    speculative: Fraction  # P(the round's block, completed by the target, is this sequence)
    target: Fraction  # P(target sampling gives this sequence)

    @property
    def difference(self) -> Fraction:
        return self.speculative - self.target


@dataclass(frozen=True)
class PositionRow:
    position: int
    context: Sequence_  # committed tokens before this position in the round
    token: int
    conditional: Fraction  # P(y_k = token | y_<k = context, the round reached position k)
    target: Fraction  # p(token | prefix + context)

    @property
    def difference(self) -> Fraction:
        return self.conditional - self.target


@dataclass
class ExactnessReport:
    prefix: Prefix
    depth: int
    blocks: dict[Sequence_, Fraction]
    sequences: list[SequenceRow]
    positions: list[PositionRow]
    position_alphas: list[Fraction | None]

    @property
    def differences(self) -> list[Fraction]:
        return [r.difference for r in self.sequences] + [r.difference for r in self.positions]

    @property
    def max_abs_difference(self) -> Fraction:
        return max((abs(d) for d in self.differences), default=Fraction(0))

    @property
    def exact(self) -> bool:
        return all(d == 0 for d in self.differences)

    def lines(self, labels: Iterable[str] | None = None) -> list[str]:
        """Printable rows: every difference printed as an exact fraction (0 when it agrees)."""
        names = list(labels) if labels is not None else None

        def show(tokens: Iterable[int]) -> str:
            return " ".join(names[t] if names else str(t) for t in tokens) or "∅"

        out = [f"sequence [{show(r.tokens)}]: speculative {r.speculative} target {r.target} "
               f"difference {r.difference}" for r in self.sequences]
        out += [f"position {r.position} after [{show(r.context)}] token {show((r.token,))}: "
                f"{r.conditional} vs p = {r.target}, difference {r.difference}" for r in self.positions]
        return out


def exactness_report(source: Source, prefix: Prefix = (), **settings: Any) -> ExactnessReport:
    """Compare one round's exact block law with the target's own law, sequence and position wise."""
    models = round_models(source, **settings)
    cache = NodeCache(models)
    prefix = tuple(prefix)
    analysis = analyze_round(models, prefix)
    blocks = analysis.blocks
    length = models.depth + 1
    completed = complete(cache, models, prefix, blocks, length)
    target = complete(cache, models, prefix, {(): Fraction(1)}, length)
    sequences = [SequenceRow(s, completed.get(s, Fraction(0)), target.get(s, Fraction(0)))
                 for s in sorted(set(completed) | set(target))]
    # per position: P(y_k = x | y_<k, the round reached position k), i.e. len(block) > k
    reach: dict[Sequence_, Fraction] = {}
    hits: dict[tuple[Sequence_, int], Fraction] = {}
    for tokens, prob in blocks.items():
        for k in range(len(tokens)):
            add_mass(reach, tokens[:k], prob)
            add_mass(hits, (tokens[:k], tokens[k]), prob)
    positions = []
    for context in sorted(reach, key=lambda c: (len(c), c)):
        p = dict(cache.target(prefix + context))
        tokens = sorted(set(p) | {x for (c, x) in hits if c == context})
        for x in tokens:
            positions.append(PositionRow(len(context), context, x,
                                         hits.get((context, x), Fraction(0)) / reach[context],
                                         p.get(x, Fraction(0))))
    return ExactnessReport(prefix, models.depth, blocks, sequences, positions, analysis.position_alphas)
