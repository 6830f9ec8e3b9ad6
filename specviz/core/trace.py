"""A plain-data record of what propose and verify did, draw by draw.

The animation, the command line and the tests all read this one record. Events
hold exact values (Fractions, Python ints, Categoricals); ``to_dict`` turns them
into JSON with large distributions cut to their top N plus the rest mass.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from fractions import Fraction
from typing import Any, ClassVar

from .categorical import Categorical


@dataclass(frozen=True)
class DraftEvent:
    """The draft sampled token from q at this position of the block."""

    kind: ClassVar[str] = "draft"
    round_id: int
    position: int
    prefix: tuple[int, ...]
    q: Categorical
    draw: int
    draw_range: int
    token: int


@dataclass(frozen=True)
class CheckEvent:
    """The verifier tested the drafted token: accept iff draw < numerator of min(1, p/q)."""

    kind: ClassVar[str] = "check"
    round_id: int
    position: int
    prefix: tuple[int, ...]
    p: Categorical
    q: Categorical
    token: int
    p_token: Fraction
    q_token: Fraction
    acceptance: Fraction
    draw: int
    draw_range: int
    accepted: bool


@dataclass(frozen=True)
class CorrectionEvent:
    """After a rejection, a token drawn from the normalized residual (p - q)+."""

    kind: ClassVar[str] = "correction"
    round_id: int
    position: int
    prefix: tuple[int, ...]
    p: Categorical
    q: Categorical
    residual: Categorical
    residual_mass: Fraction
    draw: int
    draw_range: int
    token: int


@dataclass(frozen=True)
class BonusEvent:
    """Every draft was accepted: one more token drawn from p after the last draft."""

    kind: ClassVar[str] = "bonus"
    round_id: int
    position: int
    prefix: tuple[int, ...]
    p: Categorical
    draw: int
    draw_range: int
    token: int


@dataclass(frozen=True)
class StopEvent:
    """A stop token ended the block (in the draft, or committed by the verifier)."""

    kind: ClassVar[str] = "stop"
    round_id: int
    position: int
    token: int
    stage: str  # "draft": the draft stopped early; "commit": the request stopped


@dataclass(frozen=True)
class ResultEvent:
    """What the round committed."""

    kind: ClassVar[str] = "result"
    round_id: int
    position: int
    prefix: tuple[int, ...]
    tokens: tuple[int, ...]
    accepted_drafts: int
    rejected: bool
    stopped: bool


Event = DraftEvent | CheckEvent | CorrectionEvent | BonusEvent | StopEvent | ResultEvent


def _jsonable(value: Any, top_n: int | None) -> Any:
    if isinstance(value, Categorical):
        return value.to_dict(top_n)
    if isinstance(value, Fraction):
        return {"exact": str(value), "float": float(value)}
    if isinstance(value, tuple):
        return [_jsonable(v, top_n) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2**53:
        return str(value)  # JSON readers lose integers past 2**53
    return value


def event_to_dict(event: Event, top_n: int | None = 10) -> dict[str, Any]:
    """One event as JSON-ready data (distributions cut to top_n entries; None keeps all)."""
    data: dict[str, Any] = {"kind": event.kind}
    for f in fields(event):
        data[f.name] = _jsonable(getattr(event, f.name), top_n)
    return data


@dataclass
class Trace:
    """An append-only list of events; pass one to propose and verify to record them."""

    events: list[Event] = field(default_factory=list)

    def append(self, event: Event) -> None:
        self.events.append(event)

    def extend(self, other: Trace) -> None:
        self.events.extend(other.events)

    def __len__(self) -> int:
        return len(self.events)

    def __iter__(self):
        return iter(self.events)

    def of_kind(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.kind == kind]

    def rounds(self) -> dict[int, list[Event]]:
        """Events grouped by round id, in order."""
        grouped: dict[int, list[Event]] = {}
        for event in self.events:
            grouped.setdefault(event.round_id, []).append(event)
        return grouped

    def to_dict(self, top_n: int | None = 10) -> dict[str, Any]:
        return {"events": [event_to_dict(e, top_n) for e in self.events]}

    def to_json(self, top_n: int | None = 10, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(top_n), **kwargs)
