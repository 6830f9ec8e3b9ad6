"""Toy scenarios: small vocabularies whose p and q are tables of weights, fixed or Markov.

A Scenario is the plain-data description the Playground, the exactness lab, the
edge-case gallery and the golden replay share. It builds the target and draft
models (pure functions of the prefix), the target processor and the streams, and
plays rounds with a trace.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction

from .core import (
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
    check_verification,
    fp32_weights,
    identity_processor,
    propose,
    verifier_class,
)
from .core.processors import Mask, Temperature, TopK, TopP, compose
from .core.validation import Weight

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
    block: Block
    result: Result
    trace: Trace


def play_round(scenario: Scenario, verifier: Verifier, round_id: int) -> Round:
    """Draft from the verifier's committed prefix and verify, recording one trace for both."""
    streams = scenario.streams(round_id)
    trace = Trace()
    prefix = verifier.prefix
    block = propose(scenario.draft_model(), prefix, streams, depth=scenario.depth,
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


def parse_weight(text: str | int | float, kind: str) -> Weight:
    """A weight from its text: 'fraction' -> Fraction, 'int' -> int, 'fp32'/'float' -> float."""
    if not isinstance(text, str):
        return text
    if kind == "fraction":
        return Fraction(text)
    if kind == "int":
        return int(text)
    return float(text)


def table_from_dict(data: dict, kind: str) -> Table:
    """A Table from the golden file's {'start': [...], 'rows': [[...], ...] | None}."""
    start = tuple(parse_weight(w, kind) for w in data["start"])
    rows = data.get("rows")
    parsed = None if rows is None else tuple(tuple(parse_weight(w, kind) for w in row) for row in rows)
    return Table(start, parsed)


def scenario_from_golden(case: dict, labels: Sequence[str] | None = None) -> Scenario:
    """A Scenario from one case of the golden verifier_scenarios.json."""
    size = case["vocab_size"]
    return Scenario(
        vocab=tuple(labels) if labels else tuple(str(i) for i in range(size)),
        target=table_from_dict(case["target"], case["weights"]),
        draft=table_from_dict(case["draft"], case["weights"]),
        depth=case["depth"],
        draft_topk=case["draft_topk"],
        target_mask=None if case["target_mask"] is None else tuple(case["target_mask"]),
        stop_ids=frozenset(case["stop_ids"]),
        fp32=case["weights"] == "fp32",
        seed=case["seed"],
        request_id=case["request_id"],
        generation=case["generation"],
        context_id="ctx",
    )


def weight_text(weight: Weight) -> str:
    """A weight as text that weight_from_text reads back exactly (floats by repr)."""
    return repr(weight) if isinstance(weight, float) else str(weight)


def weight_from_text(text: str | int | float) -> Weight:
    """A weight from text: '3/7' and '2' are exact, '0.25' or '1e-3' stay floats."""
    if not isinstance(text, str):
        return text
    text = text.strip()
    if "/" in text:
        return Fraction(text)
    try:
        return int(text)
    except ValueError:
        return float(text)


def _table_to_dict(table: Table) -> dict:
    rows = None if table.rows is None else [[weight_text(w) for w in row] for row in table.rows]
    return {"start": [weight_text(w) for w in table.start], "rows": rows}


def _table_from_any(data: dict) -> Table:
    start = tuple(weight_from_text(w) for w in data["start"])
    rows = data.get("rows")
    return Table(start, None if rows is None else tuple(tuple(weight_from_text(w) for w in r) for r in rows))


def scenario_to_dict(scenario: Scenario) -> dict:
    """Plain JSON data for a Scenario (weights as exact text); inverse of scenario_from_dict."""
    data = {
        "vocab": list(scenario.vocab),
        "target": _table_to_dict(scenario.target),
        "draft": _table_to_dict(scenario.draft),
        "depth": scenario.depth,
        "draft_topk": scenario.draft_topk,
        "target_mask": None if scenario.target_mask is None else list(scenario.target_mask),
        "target_temperature": scenario.target_temperature,
        "target_top_k": scenario.target_top_k,
        "target_top_p": scenario.target_top_p,
        "stop_ids": sorted(scenario.stop_ids),
        "fp32": scenario.fp32,
        "seed": scenario.seed,
        "request_id": scenario.request_id,
        "generation": scenario.generation,
        "context_id": scenario.context_id,
    }
    if scenario.verification != "token":  # absent means tokenwise: older links and files stay valid
        data["verification"] = scenario.verification
    return data


def scenario_from_dict(data: dict) -> Scenario:
    """A Scenario from scenario_to_dict's data (missing optional keys take their defaults)."""
    defaults = Scenario(vocab=("a",), target=Table((1,)), draft=Table((1,)))
    mask = data.get("target_mask")
    return Scenario(
        vocab=tuple(str(v) for v in data["vocab"]),
        target=_table_from_any(data["target"]),
        draft=_table_from_any(data["draft"]),
        depth=data.get("depth", defaults.depth),
        draft_topk=data.get("draft_topk"),
        target_mask=None if mask is None else tuple(mask),
        target_temperature=data.get("target_temperature", 1.0),
        target_top_k=data.get("target_top_k"),
        target_top_p=data.get("target_top_p"),
        stop_ids=frozenset(data.get("stop_ids", ())),
        fp32=bool(data.get("fp32", False)),
        seed=data.get("seed", 0),
        request_id=data.get("request_id", defaults.request_id),
        generation=data.get("generation", 0),
        context_id=data.get("context_id", ""),
        verification=check_verification(data.get("verification", "token")),
    )
