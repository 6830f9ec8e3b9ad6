"""What one verification round depends on (``RoundModels``), and the exact per-context numbers theory reads.

``round_models`` builds RoundModels from a Scenario, a RoundModels or a bare target model; ``NodeCache``
computes, once per context key, the node a round reaches there: p, q, each draft's acceptance and the
residual. ``support`` and ``law_of`` give a Categorical's nonzero probabilities as exact Fractions.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from ..core import (
    Categorical,
    Model,
    Prefix,
    Processor,
    Rule,
    acceptance,
    identity_processor,
    residual_mass,
    residual_with_mass,
    scaled_residual_mass,
    scaled_residual_with_mass,
)
from ..core.verification import rule as verification_rule
from ..scenario import Scenario
from .theory_limits import TheoryError, TheoryTypeError, check_pair, check_vocabulary

Sequence_ = tuple[int, ...]
Law = dict[int, Fraction]  # a distribution over token ids, zeros left out


@dataclass(frozen=True)
class RoundModels:
    """What one verification round depends on: models, processor, depth and stop tokens.

    ``state`` maps a context (prefix) to a hashable key such that p and q depend only on the
    key; it defaults to the whole prefix. Scenario models depend only on the last token.
    """

    target: Model
    draft: Model
    depth: int
    processor: Processor = identity_processor
    stop_ids: frozenset[int] = frozenset()
    state: Callable[[Prefix], Hashable] = field(default=lambda prefix: prefix)
    vocab_size: int | None = None
    verification: str = "token"  # a rule name of specviz.core.verification ("token", "block", "multi:2", ...)


def scenario_state(prefix: Prefix) -> Hashable:
    """The key of a Scenario context: its models read only the last token (or the empty prefix)."""
    return prefix[-1] if prefix else None


Source = Scenario | RoundModels | Model


def round_models(source: Source, *, draft: Model | None = None,
                 depth: int | None = None, processor: Processor | None = None,
                 stop_ids: Iterable[int] | None = None, verification: str | None = None) -> RoundModels:
    """RoundModels from a Scenario, a RoundModels, or a target model plus keyword settings.

    ``verification`` (any rule name of ``specviz.core.verification``, playable or evaluated by theory
    only) overrides the source's own (a Scenario's field; "token" for a bare target model).
    """
    changes: dict[str, Any] = {}
    if isinstance(source, RoundModels):
        models = source
    elif isinstance(source, Scenario):
        models = RoundModels(source.target_model(), source.draft_model(), source.depth,
                             source.processor(), frozenset(source.stop_ids), scenario_state,
                             source.vocab_size, source.verification)
    elif callable(source):
        if draft is None or depth is None:
            raise TheoryError("pass a Scenario, a RoundModels, or a target model with draft= and depth=")
        models = RoundModels(source, draft, depth)
    else:
        raise TheoryTypeError(f"expected a Scenario, RoundModels or target model, got {type(source).__name__}")
    for name, value in (("draft", draft), ("depth", depth), ("processor", processor)):
        if value is not None:
            changes[name] = value
    if stop_ids is not None:
        changes["stop_ids"] = frozenset(stop_ids)
    if verification is not None:
        changes["verification"] = verification_rule(verification).name
    if changes:
        models = replace(models, **changes)
    if type(models.depth) is not int or models.depth < 1:
        raise TheoryError(f"depth must be an int >= 1, got {models.depth!r}")
    verification_rule(models.verification)
    if models.vocab_size is not None:
        check_vocabulary(models.vocab_size)
    return models


def constant_models(p: Categorical, q: Categorical, depth: int, verification: str | Rule) -> RoundModels:
    """RoundModels of a context-independent target p and draft q (no stop tokens)."""
    check_pair(p, q)
    if type(depth) is not int or depth < 1:
        raise TheoryError(f"depth (the number of drafted tokens g) must be an int >= 1, got {depth!r}")
    return RoundModels(lambda prefix: p, lambda prefix: q, depth, state=lambda prefix: None,
                       vocab_size=p.vocab_size, verification=verification_rule(verification).name)


def support(c: Categorical) -> list[tuple[int, Fraction]]:
    """(token, probability) for every token of positive probability, in id order, exactly."""
    total = c.total
    return [(x, Fraction(t, total)) for x, t in enumerate(c.ticket_ints()) if t]


def law_of(c: Categorical) -> Law:
    """A Categorical as a Law: its nonzero probabilities by token id."""
    return dict(support(c))


def add_mass(table: dict, key: Any, value: Fraction) -> None:
    """table[key] += value, starting from an exact 0."""
    table[key] = table.get(key, Fraction(0)) + value


@dataclass
class Node:
    """Everything verification needs at one context: p, q, per-token acceptance, the residual."""

    p: Categorical
    q: Categorical
    accepts: list[tuple[int, Fraction, Fraction]]  # (token, q(token), acceptance(token)) for q > 0
    mass: Fraction  # residual mass sum (p - q)+ = total rejection probability
    residual: list[tuple[int, Fraction]]  # normalized residual support (empty when mass is 0)
    p_support: list[tuple[int, Fraction]]

    @property
    def p_law(self) -> Law:
        return dict(self.p_support)

    @property
    def q_law(self) -> Law:
        return {x: qx for x, qx, _ in self.accepts}


class NodeCache:
    """The node at each context key, computed once (a vocabulary beyond MAX_VOCABULARY is refused first)."""

    def __init__(self, models: RoundModels):
        self.models = models
        self.nodes: dict[Hashable, Node] = {}
        self.targets: dict[Hashable, list[tuple[int, Fraction]]] = {}
        self.residuals: dict[tuple[Hashable, Fraction], tuple[Fraction, list[tuple[int, Fraction]]]] = {}

    def _target(self, context: Prefix) -> Categorical:
        p = self.models.processor(context, self.models.target(context))
        check_vocabulary(p.vocab_size)
        return p

    def target(self, context: Prefix) -> list[tuple[int, Fraction]]:
        key = self.models.state(context)
        if key not in self.targets:
            self.targets[key] = support(self._target(context))
        return self.targets[key]

    def node(self, context: Prefix) -> Node:
        key = self.models.state(context)
        node = self.nodes.get(key)
        if node is None:
            p = self._target(context)
            q = self.models.draft(context)
            accepts = [(x, qx, acceptance(p, q, x)) for x, qx in support(q)]
            mass = residual_mass(p, q)
            res = support(residual_with_mass(p, q)[0]) if mass else []
            node = Node(p, q, accepts, mass, res, support(p))
            self.nodes[key] = node
            self.targets.setdefault(key, node.p_support)
        return node

    def scaled(self, context: Prefix, weight: Fraction) -> tuple[Fraction, list[tuple[int, Fraction]]]:
        """Block verification after context with weight w: the mass of (w p - q)+ and its normalized support."""
        key = (self.models.state(context), weight)
        found = self.residuals.get(key)
        if found is None:
            node = self.node(context)
            residual, mass = scaled_residual_with_mass(node.p, node.q, weight)
            found = (mass, support(residual) if residual is not None else [])
            self.residuals[key] = found
        return found

    def scaled_mass(self, context: Prefix, weight: Fraction) -> Fraction:
        key = (self.models.state(context), weight)
        found = self.residuals.get(key)
        if found is not None:
            return found[0]
        node = self.node(context)
        return scaled_residual_mass(node.p, node.q, weight)
