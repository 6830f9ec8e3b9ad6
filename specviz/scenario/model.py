"""The Scenario: a toy vocabulary whose p and q are tables of weights, fixed or Markov, and its played rounds.

A Scenario is the plain-data description the Playground, the exactness lab, the edge-case gallery
and the golden replay share. It builds the target and draft models (pure functions of the prefix),
the target processor and the streams, and plays rounds with a trace.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace

from ..core import (
    Block,
    Categorical,
    Model,
    Owner,
    Prefix,
    Processor,
    RandomStreams,
    Result,
    Trace,
    Verifier,
    draft_round,
    fp32_weights,
    identity_processor,
    verifier_class,
)
from ..core.processors import Mask, Temperature, TopK, TopP, compose
from ..core.validation import Weight, check_token

Row = tuple[Weight, ...]


@dataclass(frozen=True)
class Table:
    """Weights of one model: ``start`` after the empty prefix, ``rows[t]`` after token t.

    With ``rows=None`` the same ``start`` weights apply at every position.
    """

    start: Row
    rows: tuple[Row, ...] | None = None

    def weights_after(self, prefix: Prefix) -> Row:
        if not prefix or self.rows is None:
            return self.start
        check_token(prefix[-1], len(self.rows))  # a TokenError, not an IndexError (or a row from the end)
        return self.rows[prefix[-1]]


@dataclass(frozen=True)
class Scenario:
    """Everything one toy speculative-sampling run depends on."""

    vocab: tuple[str, ...]
    target: Table
    draft: Table
    depth: int = 3
    draft_topk: int | None = None
    target_mask: tuple[bool, ...] | None = None
    target_temperature: float = 1.0
    target_top_k: int | None = None
    target_top_p: float | None = None
    stop_ids: frozenset[int] = field(default_factory=frozenset)
    fp32: bool = False
    seed: int = 0
    request_id: str = "demo"
    generation: int = 0
    context_id: str = ""
    verification: str = "token"  # "token" (tokenwise) or "block" (Sun et al. 2025)

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def _distribution(self, weights: Row) -> Categorical:
        ids = range(len(weights))
        if self.fp32:
            return fp32_weights(self.vocab_size, ids, weights)
        return Categorical(self.vocab_size, ids, weights)

    def target_model(self) -> Model:
        def target(prefix: Prefix) -> Categorical:
            return self._distribution(self.target.weights_after(prefix))

        return target

    def draft_model(self) -> Model:
        k = self.draft_topk

        def draft(prefix: Prefix) -> Categorical:
            q = self._distribution(self.draft.weights_after(prefix))
            return q if k is None else q.sparse_topk(k)

        return draft

    def processor(self) -> Processor:
        steps: list[Processor] = []
        if self.target_temperature != 1:
            steps.append(Temperature(self.target_temperature))
        if self.target_top_k is not None:
            steps.append(TopK(self.target_top_k))
        if self.target_top_p is not None and self.target_top_p != 1:
            steps.append(TopP(self.target_top_p))
        if self.target_mask is not None:
            steps.append(Mask(tuple(self.target_mask)))
        if not steps:
            return identity_processor
        return steps[0] if len(steps) == 1 else compose(*steps)

    @property
    def owner(self) -> Owner:
        return Owner(self.request_id, self.generation)

    @property
    def context(self) -> str:
        """The context id: given, or a digest of everything the models and processor depend on."""
        if self.context_id:
            return self.context_id
        settings = (self.vocab_size, self.target, self.draft, self.draft_topk, self.target_mask,
                    self.target_temperature, self.target_top_k, self.target_top_p, self.fp32)
        return "toy-" + hashlib.sha256(repr(settings).encode()).hexdigest()[:12]

    def streams(self, round_id: int) -> RandomStreams:
        return RandomStreams(self.seed, self.owner, round_id)

    def verifier(self, prefix: Prefix = ()) -> Verifier:
        """The session of this scenario's verification scheme (a BlockVerifier for "block")."""
        session = verifier_class(self.verification)
        return session(self.owner, prefix, self.context, self.target_model(), processor=self.processor(),
                       stop_ids=frozenset(self.stop_ids))

    def with_changes(self, **changes: object) -> Scenario:
        return replace(self, **changes)


@dataclass(frozen=True)
class Round:
    """One played round: the drafted block, the verifier's result and the event trace."""

    round_id: int
    prefix: Prefix
    block: Block  # a Tree (specviz.core.tree) for the tree rules
    result: Result
    trace: Trace


def play_round(scenario: Scenario, verifier: Verifier, round_id: int) -> Round:
    """Draft from the verifier's committed prefix and verify, recording one trace for both."""
    streams = scenario.streams(round_id)
    trace = Trace()
    prefix = verifier.prefix
    # a chain for tokenwise and block, a tree for "multi:K" / "multi-distinct:K" (the registry decides)
    block = draft_round(scenario.verification, scenario.draft_model(), prefix, streams, depth=scenario.depth,
                        context_id=scenario.context, stop_ids=frozenset(scenario.stop_ids), trace=trace)
    result = verifier.verify(block, streams, trace=trace)
    return Round(round_id, prefix, block, result, trace)


def play(scenario: Scenario, rounds: int, prefix: Prefix = ()) -> list[Round]:
    """Play up to rounds rounds from prefix, stopping early when the request stops."""
    verifier = scenario.verifier(prefix)
    played: list[Round] = []
    for round_id in range(rounds):
        played.append(play_round(scenario, verifier, round_id))
        if verifier.stopped:
            break
    return played
