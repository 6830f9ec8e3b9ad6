"""Why the output is exactly p: the two ways a token is committed at one position, as exact data.

A token x is committed at a checked position either because the draft proposed it and it
was accepted, with probability q(x)·min(1, p(x)/q(x)) = min(p, q)(x), or because some draft
was rejected (total probability 1 − α = Σ (q − p)+) and the correction drew x from the
normalized residual r, with probability (1 − α)·r(x) = (p − q)+(x). The two add up to p(x)
for every token, and both rejection areas equal 1 − α = Σ (p − q)+ = Σ (q − p)+.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..core import Categorical
from ..core.trace import BlockCheckEvent, BonusEvent, CheckEvent, CorrectionEvent, DraftEvent, Event, ResultEvent
from ..core.verification import FamilyTable
from ..scenario import Prefix, Scenario

BLOCK_NOTE = ("Block verification is on. This picture is tokenwise verification's identity at one position: "
              "min(p, q) + (p − q)+ = p. Block verification keeps drafts by running weights over the whole "
              "block and corrects from the scaled residual (w·p − q)+, so no single position shows its proof; "
              "the **Exactness lab** proves block verification exact by enumerating every drafted block.")

TREE_NOTE = ("Tree verification is on. This picture is its first sibling's step: against r = p, a child is "
             "accepted with min(1, p/q), and min(p, q) + (p − q)+ = p. Each later sibling is checked the same way "
             "against the residual r left by the rejections before it (min(r, q) + (r − q)+ = r), so the identity "
             "holds at every sibling; the **Exactness lab**'s rules view gives the tree's exact law and "
             "acceptance.")


# what the one-position picture leaves out, per playable family ('' where it is the whole proof)
NOTES_BY_FAMILY: FamilyTable[str] = FamilyTable("playground.proof.NOTES_BY_FAMILY",
                                                {"token": "", "block": BLOCK_NOTE, "tree": TREE_NOTE},
                                                scope="playable")


def rule_note(verification: str) -> str:
    """What this one-position picture leaves out for a rule other than tokenwise ('' for tokenwise)."""
    return NOTES_BY_FAMILY[verification]


def exact_probs(c: Categorical) -> list[Fraction]:
    total = c.total
    return [Fraction(t, total) for t in c.ticket_ints()]


@dataclass(frozen=True)
class Proof:
    """Per token: p, q, the accepted mass min(p, q), the rejected draft mass (q − p)+ and the residual."""

    vocab: tuple[str, ...]
    prefix: Prefix
    p: tuple[Fraction, ...]
    q: tuple[Fraction, ...]
    accepted: tuple[Fraction, ...]  # min(p, q)(x): proposed x and accepted it
    rejected_draft: tuple[Fraction, ...]  # (q − p)+(x): proposed x and rejected it
    residual: tuple[Fraction, ...]  # r(x), the normalized residual (all 0 when p = q)

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
        """accepted + corrected: the law of the committed token, which is p exactly."""
        return tuple(a + c for a, c in zip(self.accepted, self.corrected, strict=True))


def proof(p: Categorical, q: Categorical, vocab: tuple[str, ...], prefix: Prefix = ()) -> Proof:
    """The proof's numbers for one target p (after its processors) and one draft q (after its top-k)."""
    ps, qs = exact_probs(p), exact_probs(q)
    accepted = tuple(min(a, b) for a, b in zip(ps, qs, strict=True))
    excess = [max(a - b, Fraction(0)) for a, b in zip(ps, qs, strict=True)]
    mass = sum(excess, Fraction(0))
    residual = tuple(e / mass for e in excess) if mass else (Fraction(0),) * len(ps)
    rejected_draft = tuple(max(b - a, Fraction(0)) for a, b in zip(ps, qs, strict=True))
    return Proof(tuple(vocab), tuple(prefix), tuple(ps), tuple(qs), accepted, rejected_draft, residual)


def event_prefix(event: Event, round_events: list[Event]) -> Prefix:
    """The text the current position is drafted after (the round's start for a stop or result event)."""
    if isinstance(event, (DraftEvent, CheckEvent, CorrectionEvent, BonusEvent, BlockCheckEvent)):
        return tuple(event.prefix)
    if isinstance(event, ResultEvent):
        return tuple(event.prefix)
    first = round_events[0] if round_events else None
    return tuple(getattr(first, "prefix", ()))


def proof_at(scenario: Scenario, prefix: Prefix) -> Proof:
    """The proof for the scenario's processed p and top-k q after this prefix (raises what the core raises)."""
    p = scenario.processor()(prefix, scenario.target_model()(prefix))
    q = scenario.draft_model()(prefix)
    return proof(p, q, scenario.vocab, prefix)
