"""A plain-data record of what propose and verify did, draw by draw.

The animation, the command line and the tests all read this one record. Events
hold exact values (Fractions, Python ints, Categoricals); ``to_dict`` turns them
into JSON with large distributions cut to their top N plus the rest mass.

Each class says by ``origin`` how the token it carries enters the text ("accepted" when its check kept it,
"correction", "bonus"; None: it commits nothing by itself); a rule's subclass inherits its parent's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from fractions import Fraction
from typing import Any, ClassVar

from .categorical import Categorical


@dataclass(frozen=True)
class Placed:
    """What every event shares: its round (from 0) and its position in the round's block (the draft's index, from 0).

    No ``kind`` here: only the classes below with a kind are events (the registries and their tests read them)."""

    round_id: int
    position: int


@dataclass(frozen=True)
class InContext(Placed):
    """An event at a context: ``prefix`` is the committed tokens the position's distributions are read after."""

    prefix: tuple[int, ...]


@dataclass(frozen=True)
class DraftEvent(InContext):
    """The draft sampled token from q at this position of the block."""

    kind: ClassVar[str] = "draft"
    origin: ClassVar[str | None] = None
    q: Categorical
    draw: int
    draw_range: int
    token: int


@dataclass(frozen=True)
class CheckEvent(InContext):
    """The verifier tested the drafted token: accept iff draw < numerator of min(1, p/q)."""

    kind: ClassVar[str] = "check"
    origin: ClassVar[str | None] = "accepted"
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
class CorrectionEvent(InContext):
    """After a rejection, a token drawn from the normalized residual (p - q)+."""

    kind: ClassVar[str] = "correction"
    origin: ClassVar[str | None] = "correction"
    sample_committed: ClassVar[bool] = False  # True: the token is the target's own sample, no second draw
    p: Categorical
    q: Categorical
    residual: Categorical
    residual_mass: Fraction
    draw: int
    draw_range: int
    token: int


@dataclass(frozen=True)
class BonusEvent(InContext):
    """Every draft was accepted: one more token drawn from p after the last draft."""

    kind: ClassVar[str] = "bonus"
    origin: ClassVar[str | None] = "bonus"
    p: Categorical
    draw: int
    draw_range: int
    token: int


@dataclass(frozen=True)
class StopEvent(Placed):
    """A stop token ended the block (in the draft, or committed by the verifier)."""

    kind: ClassVar[str] = "stop"
    origin: ClassVar[str | None] = None
    token: int
    stage: str  # "draft": the draft stopped early; "commit": the request stopped


@dataclass(frozen=True)
class ResultEvent(InContext):
    """What the round committed."""

    kind: ClassVar[str] = "result"
    origin: ClassVar[str | None] = None
    tokens: tuple[int, ...]
    accepted_drafts: int
    rejected: bool
    stopped: bool


@dataclass(frozen=True)
class BlockCheckEvent(InContext):
    """Block verification at one draft: the running weight w_i, the stop probability h_i and its draw.

    ``position`` is the draft's index (0-based), so this is w_i and h_i for i = position + 1 kept
    drafts; ``residual_mass`` is rho_i = sum (w_i p(.|X^i) - q(.|X^i))+ after this draft (None at
    the block's last draft, where h_i = w_i). The draw hits iff draw < numerator of h_i.
    """

    kind: ClassVar[str] = "block_check"
    origin: ClassVar[str | None] = None
    p: Categorical
    q: Categorical
    token: int
    p_token: Fraction
    q_token: Fraction
    previous_weight: Fraction  # w_{i-1}
    weight: Fraction  # w_i = min(1, w_{i-1} p(x)/q(x))
    residual_mass: Fraction | None  # rho_i (None at the last draft)
    stop_probability: Fraction  # h_i = rho_i / (rho_i + 1 - w_i), or w_i at the last draft
    draw: int
    draw_range: int
    hit: bool
    last: bool


@dataclass(frozen=True)
class BlockDecisionEvent(InContext):
    """Block verification's decision: keep the first tau drafts (the last position whose draw hit, or 0).

    Its ``position`` is tau, and its ``prefix`` the committed prefix the block was drafted from."""

    kind: ClassVar[str] = "block_decision"
    origin: ClassVar[str | None] = None
    drafts: tuple[int, ...]
    weights: tuple[Fraction, ...]  # w_0..w_g
    residual_masses: tuple[Fraction, ...]  # rho_0..rho_{g-1}
    stop_probabilities: tuple[Fraction, ...]  # h_0..h_g
    hits: tuple[bool, ...]  # the draws of positions 1..g
    accepted_drafts: int  # tau
    ending: str  # "correction" (tau < g), "bonus" (tau = g), "stop" (tau = g and the last draft is a stop)


@dataclass(frozen=True)
class ScaledCorrectionEvent(CorrectionEvent):
    """Block verification's correction: a token drawn from the normalized (scale * p - q)+, scale = w_tau."""

    scale: Fraction


@dataclass(frozen=True)
class TreeDraftEvent(Placed):
    """propose_tree drew one child: the node's path, its sibling index, the q' it was drawn from and the draw.

    ``path`` names the new node by sibling indices from the root ((1,) is the root's second
    child, (1, 0) that child's first); ``position`` is its depth index len(path) - 1. ``q`` is
    the draft at ``prefix``; ``drawn_from`` is q' (q itself for i.i.d. children, q renormalized
    over the tokens not drawn yet for distinct ones): the draw is ``randrange(draw_range)``
    with draw_range = q'.total.
    """

    kind: ClassVar[str] = "tree_draft"
    origin: ClassVar[str | None] = None
    path: tuple[int, ...]
    sibling: int
    prefix: tuple[int, ...]
    q: Categorical
    drawn_from: Categorical
    q_token: Fraction  # q'(token)
    draw: int
    draw_range: int
    token: int


@dataclass(frozen=True)
class TreeCheckEvent(Placed):
    """TreeVerifier tested one child against the current residual r: accept iff draw < numerator of min(1, r(x)/q'(x)).

    ``path`` and ``sibling`` name the child, ``siblings`` how many its node has. The first
    sibling is tested against r = p (``r_token`` = ``p_token``). After a rejection, ``residual``
    is the new r = (r - q')+ normalized, ``residual_mass`` the mass of (r - q')+ before
    normalizing, and ``scale`` the s with r = normalized (s p - q)+ (the core's scaled residual);
    all three are None after an acceptance.
    """

    kind: ClassVar[str] = "tree_check"
    origin: ClassVar[str | None] = "accepted"
    path: tuple[int, ...]
    sibling: int
    siblings: int
    prefix: tuple[int, ...]
    p: Categorical
    q: Categorical
    token: int
    p_token: Fraction
    r_token: Fraction  # r(x): the current residual at the drafted token
    q_token: Fraction  # q'(x): the draft's probability renormalized as the child was drawn
    acceptance: Fraction
    draw: int
    draw_range: int
    accepted: bool
    residual: Categorical | None
    residual_mass: Fraction | None
    scale: Fraction | None


@dataclass(frozen=True)
class TreeCorrectionEvent(CorrectionEvent):
    """Every child of the node at ``path`` was rejected: a token drawn from the last residual r.

    ``residual`` is r = normalized (scale * p - q)+, ``residual_mass`` the mass of the last
    (r - q')+ (with one child: (p - q)+, as tokenwise).
    """

    path: tuple[int, ...]
    scale: Fraction


# --- the engine rules' events (specviz/core/ensemble.py, threshold.py, medusa.py) ---------------------------
# Each is a subclass of the event it refines, so that what reads a check, a correction or a bonus reads these
# too; the narration and the figures tell them apart by type to say the rule's own acceptance.


@dataclass(frozen=True)
class EnsembleCheckEvent(CheckEvent):
    """A ``check`` by transformers' ensemble rule: ``acceptance`` = min(1, v(x)/q(x)) = min(1, 1 − W + W·p(x)/q(x)),
    v = W·p + (1 − W)·q; accept iff draw < its numerator (draw_range its denominator)."""

    weight: Fraction  # W
    mixture_token: Fraction  # v(x) = W·p(x) + (1 − W)·q(x)


@dataclass(frozen=True)
class ThresholdCheckEvent(CheckEvent):
    """A chain's ``check`` under SGLang's thresholds: ``acceptance`` = 1 if p(x) >= S else min(1, p(x)/A); accept
    iff draw < its numerator (draw_range its denominator). q is the proposal's, unused by the rule."""

    threshold_single: Fraction  # S
    threshold_acc: Fraction  # A
    single: bool  # p(x) >= S: kept whatever the coin


@dataclass(frozen=True)
class ThresholdTreeCheckEvent(TreeCheckEvent):
    """SGLang's test of one sibling of a tree node (kind ``threshold_check``): the node's one coin ``draw`` in
    0..draw_range-1 keeps it iff ``single`` (p(x) >= S) or draw < ``bound`` = ``acceptance``·draw_range, with
    ``acceptance`` = min(1, mass/A) and ``mass`` the target mass of this sibling and the ones before it (every
    sibling of a node shows the same draw). ``r_token`` is r(x) for r = p without the earlier rejected siblings'
    tokens, renormalized (what the final token would be drawn from); after a rejection ``residual`` is that r
    without this token too, ``residual_mass`` the share of the previous r it keeps, ``scale`` None (SGLang removes
    tokens, it does not scale p). ``q_token`` is q'(x), the draft's probability as the child was drawn (unused)."""

    kind: ClassVar[str] = "threshold_check"
    mass: Fraction  # C_k
    single: bool
    bound: int
    threshold_single: Fraction  # S
    threshold_acc: Fraction  # A


@dataclass(frozen=True)
class TopKDraftEvent(TreeDraftEvent):
    """SGLang's EAGLE top-K drafting chose one child (kind ``tree_draft``, like a sampled child): the ``rank``-th most
    likely token of ``q`` (from 0; ties to the lower token id), no draw (``draw`` 0 of ``draw_range`` 1, ``drawn_from``
    the point mass at the token); ``q_token`` is q(x)."""

    rank: int


@dataclass(frozen=True)
class ThresholdCorrectionEvent(CorrectionEvent):
    """A chain's draft rejected by the thresholds: the final token drawn from ``residual`` = p without the rejected
    token, renormalized; ``residual_mass`` = p's mass off it."""

    removed: tuple[int, ...]


@dataclass(frozen=True)
class ThresholdTreeCorrectionEvent(TreeCorrectionEvent):
    """Every child of the tree node at ``path`` rejected by the thresholds: the final token drawn from ``residual`` =
    p without the rejected children's tokens, renormalized; ``residual_mass`` = p's mass off them; ``scale`` None
    (SGLang removes tokens, it does not scale p)."""

    removed: tuple[int, ...]


@dataclass(frozen=True)
class MedusaCheckEvent(CheckEvent):
    """A ``check`` by Medusa's rule: acceptance = [p(x) > threshold] (fast; draw_range 1, the threshold decides)
    or t(x), the chance that Medusa's sample of the truncated p equals x (not fast); accept iff draw < numerator."""

    threshold: Fraction  # T = min(ε, δ·exp(−H))
    entropy: float  # H = −Σ p log(p + 1e-5)
    eps: Fraction
    delta: float  # δ as used (√ε when not given)
    fast: bool


@dataclass(frozen=True)
class MedusaCorrectionEvent(CorrectionEvent):
    """After a rejection, Medusa's next token: ``residual`` is what it is drawn from (the point mass at argmax p
    when fast, else p above the threshold renormalized); ``residual_mass`` is p's mass on that support."""

    threshold: Fraction
    entropy: float
    fast: bool


@dataclass(frozen=True)
class MedusaBonusEvent(BonusEvent):
    """Every draft kept: Medusa's next token, drawn by ``draw`` from ``drawn_from`` (not from ``p``, the target):
    the point mass at argmax p (fast) or p above the threshold renormalized."""

    drawn_from: Categorical
    threshold: Fraction
    entropy: float
    fast: bool


# --- traversal verification's events (specviz/core/traversal.py) ---------------------------------------------
@dataclass(frozen=True)
class TraversalCheckEvent(TreeCheckEvent):
    """Traversal verification tested one node of the tree (kind ``traversal_check``): accept iff draw < numerator of
    ``acceptance``, the node's current weight (draw_range its denominator).

    The walk is post-order, so a node's children (its whole subtree) were tested and rejected before it. ``path``,
    ``sibling`` and ``siblings`` name the node; ``prefix``, ``p`` and ``q`` are its parent's context, target and
    draft; ``r_token`` is the parent's current target r at the token when the node was entered and ``q_token`` the
    probability q′ it was drafted with. ``entry_weight`` = min(1, ``parent_weight``·r(x)/q′(x)) is the weight it
    entered with (the paper's p_α); after its ``children_rejected`` children were rejected its weight became
    ``acceptance`` (a leaf's stays its entry weight). A node entered with weight 0 is tested without its subtree:
    ``pruned`` drafted nodes under it were never tested. Accepted: ``kept`` is the committed path's tokens and
    ``ending`` says what follows ("bonus" from p at a leaf, "correction" from its r after rejected children, "stop"
    for a drafted stop token). Rejected: the parent's r became ``residual`` (normalized (``scale``·p − q)+; None
    when nothing is left), ``residual_mass`` is ρ = Σ (w·r − q′)+ and ``parent_weight_after`` the parent's new
    weight ρ / (ρ + 1 − w).
    """

    kind: ClassVar[str] = "traversal_check"
    entry_weight: Fraction
    parent_weight: Fraction
    parent_weight_after: Fraction | None
    children_rejected: int
    pruned: int
    kept: tuple[int, ...]
    ending: str


@dataclass(frozen=True)
class TraversalCorrectionEvent(TreeCorrectionEvent):
    """Traversal verification kept the node at ``path`` after rejecting its ``children`` children (the root when
    nothing was kept): the next token drawn from the node's current r = ``residual`` = normalized (``scale``·p − q)+
    (``residual_mass`` its normalizer Σ (scale·p − q)+); ``weight`` is the weight the node was kept with (the
    root's: 1, untested)."""

    weight: Fraction
    children: int


# --- exact match's events (specviz/core/exact_match.py): the target's own sample y decides ---------------------


@dataclass(frozen=True)
class ExactMatchCheckEvent(CheckEvent):
    """A chain's draft compared with the target's own sample: ``sample`` is y, drawn by ``draw`` from p's tickets
    (``draw_range`` = p's ticket total); kept iff y equals the draft. ``acceptance`` is p(x), the chance of that."""

    sample: int


@dataclass(frozen=True)
class ExactMatchTreeCheckEvent(TreeCheckEvent):
    """One child compared with the node's sample y (``sample``; one ``draw`` of p's tickets for every sibling of the
    node): kept iff y equals it. ``r_token`` = ``acceptance`` = r(x), r = p without the earlier siblings'
    tokens, renormalized (the chance y is x, given it is none of them); after a mismatch ``residual`` is r
    without this token too, ``residual_mass`` the share of r it keeps, ``scale`` None."""

    sample: int


@dataclass(frozen=True)
class ExactMatchCorrectionEvent(TreeCorrectionEvent):
    """No child (or the chain's draft) equals the node's sample y: y is committed, with no second draw (``draw`` is
    the sample's own draw of p's tickets, ``draw_range`` p's total). ``residual`` is p without the drafted tokens,
    renormalized (the law of y given that it matched none), ``residual_mass`` p's mass off them; ``scale`` None."""

    sample_committed: ClassVar[bool] = True


Event = (DraftEvent | CheckEvent | CorrectionEvent | BonusEvent | StopEvent | ResultEvent | BlockCheckEvent
         | BlockDecisionEvent | TreeDraftEvent | TreeCheckEvent)  # subclasses (the rules' own events) included
# the kinds of a check, whatever the rule (a rule's subclass of a check keeps its base's kind, or names its own here)
CHECK_KINDS = ("check", "block_check", "tree_check", "threshold_check", "traversal_check")


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
