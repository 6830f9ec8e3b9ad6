"""Why the output is exactly p: the two ways a token is committed at one position, as exact data.

A token x is committed at a checked position either because the draft proposed it and it
was accepted, with probability q(x)·min(1, p(x)/q(x)) = min(p, q)(x), or because some draft
was rejected (total probability 1 − α = Σ (q − p)+) and the correction drew x from the
normalized residual r, with probability (1 − α)·r(x) = (p − q)+(x). The two add up to p(x)
for every token, and both rejection areas equal 1 − α = Σ (p − q)+ = Σ (q − p)+.

An engine rule (ensemble, SGLang's thresholds, Medusa's typical acceptance) is pictured by its own exact
node law (``theory.node_law``): what it keeps and what it commits instead add up to the law it commits,
which for a lossy rule is not p; the picture says by how much (``Proof.distance``, exact).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction

from .. import theory
from ..core import Categorical, rule
from ..core.trace import Event
from ..core.verification import FamilyTable
from ..scenario import Prefix, Scenario

BLOCK_NOTE = ("Block verification is on. This picture is tokenwise verification's identity at one position: "
              "min(p, q) + (p − q)+ = p. Block verification keeps drafts by running weights over the whole "
              "block and corrects from the scaled residual (w·p − q)+, so no single position shows its proof; "
              "the **Exactness lab** proves block verification exact by enumerating every drafted block.")

ENSEMBLE_NOTE = ("Ensemble verification (transformers' assistant_ensemble_weight W) is on. A draft x is kept with "
                 "min(1, 1 − W + W·p(x)/q(x)) = min(1, v(x)/q(x)), v = W·p + (1 − W)·q, and a rejection corrects "
                 "from (p − q)+: kept min(q, v) plus W·(p − q)+ gives v, not p (unless W = 1). The picture is the "
                 "rule's exact law at this position.")
THRESHOLD_NOTE = ("SGLang's thresholds are on: the draft probabilities are never read; a child is kept when the "
                  "node's coin u ≤ (its siblings' summed target mass)/A or p(x) ≥ S, and every child rejected "
                  "leaves p without them. With S = A = 1 on chains and distinct children this is the target's own "
                  "sample (exact, with exact match's acceptance); below 1 it keeps more and is lossy. The picture "
                  "is the rule's exact law at this node (all its children).")
TYPICAL_NOTE = ("Medusa's typical acceptance is on: a draft is kept when p(x) > T = min(ε, δ·exp(−H)), H = −Σ p "
                "log(p + 1e-5), δ = √ε by default (Medusa's recommended default); after a rejection Medusa commits "
                "argmax p (fast=True, its default) or a sample of p above T (fast=False). The picture is the "
                "rule's exact law at this position (T computed in float64, as Medusa computes it).")
TRAVERSAL_NOTE = ("Traversal verification (Weng et al. 2025) is on. It tests the tree from the leaves up, each node "
                  "against the weight of its whole path, so no single position shows its proof; at the root, before "
                  "any rejection, a child is kept (with everything under it) with min(1, p/q), and this picture is "
                  "that step: min(p, q) + (p − q)+ = p. The **Exactness lab** gives the round's exact first-token law "
                  "and kept drafts, and the tests enumerate every drafted tree.")
EXACT_MATCH_NOTE = ("Exact match is on: the target samples its own token y at each node, a drafted token equal to y "
                    "is kept and otherwise y itself is committed, so every committed token is a sample of p "
                    "whatever q is: kept p(x)·P(x drafted) plus instead p(y)·(1 − P(y drafted)) gives p. The "
                    "picture is the rule's exact law at this node (all its children); it keeps Σ p·q of a chain's "
                    "drafts, below tokenwise's Σ min(p, q), which is why it suits drafts without a distribution "
                    "(prompt lookup) best.")
TREE_NOTE = ("Tree verification is on. This picture is its first sibling's step: against r = p, a child is "
             "accepted with min(1, p/q), and min(p, q) + (p − q)+ = p. Each later sibling is checked the same way "
             "against the residual r left by the rejections before it (min(r, q) + (r − q)+ = r), so the identity "
             "holds at every sibling; the **Exactness lab**'s rules view gives the tree's exact law and "
             "acceptance.")


@dataclass(frozen=True)
class RuleProof:
    """How *Why exactly p* pictures a family: its note, and whether the picture is the rule's own node law."""

    note: str = ""  # what the picture leaves out, or how the rule commits ('' for tokenwise: it is the proof)
    own_law: bool = False  # False: tokenwise's identity min(p, q) + (p − q)+ = p; True: the rule's node law


NOTES_BY_FAMILY: FamilyTable[RuleProof] = FamilyTable("playground.proof.NOTES_BY_FAMILY", {
    "token": RuleProof(), "block": RuleProof(BLOCK_NOTE), "tree": RuleProof(TREE_NOTE),
    "ensemble": RuleProof(ENSEMBLE_NOTE, own_law=True), "threshold": RuleProof(THRESHOLD_NOTE, own_law=True),
    "typical": RuleProof(TYPICAL_NOTE, own_law=True), "traversal": RuleProof(TRAVERSAL_NOTE),
    "exact-match": RuleProof(EXACT_MATCH_NOTE, own_law=True)}, scope="playable")


def rule_note(verification: str) -> str:
    """What this one-position picture leaves out for a rule other than tokenwise ('' for tokenwise)."""
    return NOTES_BY_FAMILY[verification].note


def exact_probs(c: Categorical) -> list[Fraction]:
    total = c.total
    return [Fraction(t, total) for t in c.ticket_ints()]


@dataclass(frozen=True)
class Names:
    """What the picture calls its parts: tokenwise's symbols, or an engine rule's own."""

    accepted: str = "min(p, q)"  # the kept mass
    rejected: str = "(q − p)+"  # the draft mass not kept
    corrected: str = "(1 − α)·r(x)"  # what is committed after a rejection
    corrected_is: str = "(p − q)+"  # the same, as the table's header says it
    legends: tuple[str, str, str] = ("accepted: min(p, q)", "rejected draft: (q − p)+", "correction: (1 − α)·r(x)")
    # the axis titles: the left one before its value, the right one before "= p exactly", and the part added
    axes: tuple[str, str, str] = ("draft q; rejected area 1 − α =", "committed: min(p, q) + (1 − α)·r", "corrections")
    rule: str = ""  # the rule's short label ('' for tokenwise's identity)


RULE_NAMES = Names("kept", "(q − kept)+", "instead", "instead",
                   ("kept by the rule", "draft not kept: (q − kept)+", "committed instead"),
                   ("draft q; not kept:", "committed: kept + instead", "instead"))


@dataclass(frozen=True)
class Proof:
    """Per token: p, q, the accepted mass min(p, q), the rejected draft mass (q − p)+ and the residual; for an
    engine rule its own kept mass, the draft mass it does not keep, and the law of what it commits instead."""

    vocab: tuple[str, ...]
    prefix: Prefix
    p: tuple[Fraction, ...]
    q: tuple[Fraction, ...]
    accepted: tuple[Fraction, ...]  # min(p, q)(x): proposed x and accepted it
    rejected_draft: tuple[Fraction, ...]  # (q − p)+(x): proposed x and rejected it
    residual: tuple[Fraction, ...]  # r(x), the normalized residual (all 0 when p = q)
    names: Names = Names()

    @property
    def alpha(self) -> Fraction:
        return sum(self.accepted, Fraction(0))

    @property
    def rejection(self) -> Fraction:
        """1 − α: the probability that the draft at this position is rejected."""
        return 1 - self.alpha

    @property
    def corrected(self) -> tuple[Fraction, ...]:
        """(1 − α)·r(x) = (p − q)+(x): rejected, then x drawn as the correction."""
        return tuple(self.rejection * r for r in self.residual)

    @property
    def rebuilt(self) -> tuple[Fraction, ...]:
        """accepted + corrected: the law of the committed token (p exactly for an exact rule)."""
        return tuple(a + c for a, c in zip(self.accepted, self.corrected, strict=True))

    @property
    def distance(self) -> Fraction:
        """The total variation between the committed law and p, exactly (0 for an exact rule)."""
        return sum((abs(a - b) for a, b in zip(self.rebuilt, self.p, strict=True)), Fraction(0)) / 2


def proof(p: Categorical, q: Categorical, vocab: tuple[str, ...], prefix: Prefix = ()) -> Proof:
    """The proof's numbers for one target p (after its processors) and one draft q (after its top-k)."""
    ps, qs = exact_probs(p), exact_probs(q)
    accepted = tuple(min(a, b) for a, b in zip(ps, qs, strict=True))
    excess = [max(a - b, Fraction(0)) for a, b in zip(ps, qs, strict=True)]
    mass = sum(excess, Fraction(0))
    residual = tuple(e / mass for e in excess) if mass else (Fraction(0),) * len(ps)
    rejected_draft = tuple(max(b - a, Fraction(0)) for a, b in zip(ps, qs, strict=True))
    return Proof(tuple(vocab), tuple(prefix), tuple(ps), tuple(qs), accepted, rejected_draft, residual)


# the kinds whose event holds the prefix it is drafted after (a rule's subclass shares its parent's kind); a tree's
# events and block verification's decision are read from the round's start
_AT_PREFIX = ("draft", "check", "correction", "bonus", "block_check", "result")


def event_prefix(event: Event, round_events: list[Event]) -> Prefix:
    """The text the current position is drafted after (the round's start for a stop or result event)."""
    if event.kind in _AT_PREFIX:
        return tuple(event.prefix)  # type: ignore[union-attr]
    first = round_events[0] if round_events else None
    return tuple(getattr(first, "prefix", ()))


def rule_proof(verification: str, p: Categorical, q: Categorical, vocab: tuple[str, ...],
               prefix: Prefix = ()) -> Proof:
    """An engine rule's picture from its exact node law: kept[x], the draft mass it does not keep (q − kept)+, and
    what it commits instead, whose sum is the law it commits (compared with p by ``Proof.distance``)."""
    found = rule(verification)
    law = theory.node_law(found, p, q)
    v = p.vocab_size
    zero = Fraction(0)
    kept = tuple(law.kept.get(x, zero) for x in range(v))
    instead = tuple(law.instead.get(x, zero) for x in range(v))
    ps, qs = exact_probs(p), exact_probs(q)
    rejection = 1 - sum(kept, zero)
    residual = tuple(i / rejection for i in instead) if rejection else (zero,) * v
    names = dataclasses.replace(RULE_NAMES, rule=found.short)
    return Proof(tuple(vocab), tuple(prefix), tuple(ps), tuple(qs), kept,
                 tuple(max(qx - kx, zero) for qx, kx in zip(qs, kept, strict=True)), residual, names)


def proof_at(scenario: Scenario, prefix: Prefix) -> Proof:
    """The proof for the scenario's processed p and top-k q after this prefix (raises what the core raises)."""
    p = scenario.processor()(prefix, scenario.target_model()(prefix))
    q = scenario.draft_model()(prefix)
    if NOTES_BY_FAMILY[scenario.verification].own_law:
        return rule_proof(scenario.verification, p, q, scenario.vocab, prefix)
    return proof(p, q, scenario.vocab, prefix)
