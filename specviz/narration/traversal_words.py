"""Narration of traversal verification's events (Weng et al. 2025), with exact numbers.

``narrate_event`` turns a ``TraversalCheckEvent`` (one node tested against its weight, from the leaves up) or a
``TraversalCorrectionEvent`` (the token after a kept node whose children were all rejected) into a headline and
lines; other events return None. It says which node is visited (its path and sibling index), the weight it
entered with and the weight it is tested with, the draw against it, what is kept (the whole path to it), and,
after a rejection, the parent's new residual and weight. ``values`` lists the numbers the page folds under the
narration. Pure: events in, text out; the caller's ``narration.block.Formats`` writes the numbers (page or
terminal profile).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from ..core.trace import Event, TraversalCheckEvent, TraversalCorrectionEvent
from .block import Formats, Narration
from .counting import node, nth
from .tellers import Values, draws, narrate_own, own, tells, values_own


def _tok(vocab: Sequence[str], token: int) -> str:
    return f"‘{vocab[token]}’"


def _node(path: Sequence[int]) -> str:
    return node(path)  # 'node [1, 2]': paths count from 1, as every count a person reads


def _scaled(scale: Fraction, f: Formats) -> str:
    return "(p − q)+" if scale == 1 else f"({f.exact(scale)}·p − q)+"


def _op(value: Fraction, f: Formats) -> str:
    """A value as an operand of a product or quotient: '(1/7)'; whole numbers bare."""
    text = f.exact(value)
    return f"({text})" if "/" in text or " " in text else text


def _path(vocab: Sequence[str], tokens: Sequence[int]) -> str:
    return " ".join(_tok(vocab, t) for t in tokens)


def _entered(event: TraversalCheckEvent, vocab: Sequence[str], f: Formats) -> str:
    name = vocab[event.token]
    parent = "the root" if len(event.path) == 1 else _node(event.path[:-1])
    if not event.parent_weight:
        return f"{_tok(vocab, event.token)} enters with weight 0: its parent ({parent}) has weight 0 left."
    return (f"It entered with weight min(1, w·r({name})/q′({name})) = min(1, {_op(event.parent_weight, f)}·"
            f"{_op(event.r_token, f)}/{_op(event.q_token, f)}) = {f.fraction(event.entry_weight)} (w: its parent's "
            f"weight, {parent}; r: the parent's current target; q′: the law it was drafted from).")


def _tested(event: TraversalCheckEvent, vocab: Sequence[str], f: Formats) -> str:
    if event.pruned:
        return (f"Weight 0: the {event.pruned} drafted node{'s' if event.pruned > 1 else ''} under it cannot be kept "
                "either (every weight there is 0), so they are not visited; it is tested alone.")
    if event.children_rejected:
        count = event.children_rejected
        return (f"Its {count} child{'ren' if count > 1 else ''} (with everything under them) "
                f"{'were' if count > 1 else 'was'} rejected first, which left it weight "
                f"{f.fraction(event.acceptance)}: the chance its path is kept now.")
    return "A leaf: it is tested with that weight."


def _check_values(event: TraversalCheckEvent, vocab: Sequence[str]) -> Values:
    x = vocab[event.token]
    out = draws(event) + [(f"p({x})", event.p_token), (f"r({x})", event.r_token), (f"q′({x})", event.q_token),
                          ("parent's weight", event.parent_weight), ("entry weight", event.entry_weight),
                          ("weight tested", event.acceptance)]
    if event.residual_mass is not None:
        out.append(("ρ", event.residual_mass))
    if event.parent_weight_after is not None:
        out.append(("parent's new weight", event.parent_weight_after))
    return out


def _kept_path(event: TraversalCheckEvent) -> list[tuple[int, str]]:
    """A kept node commits its whole path at once (nothing when rejected)."""
    return [(t, "accepted") for t in event.kept]


@tells(TraversalCheckEvent, values=_check_values, committed=_kept_path)
def _check(event: TraversalCheckEvent, vocab: Sequence[str], f: Formats) -> Narration:
    x = _tok(vocab, event.token)
    verdict = "kept" if event.accepted else "rejected"
    head = (f"Round {nth(event.round_id)}, traversal at {_node(event.path)} (position {nth(event.position)}, "
            f"sibling {nth(event.sibling)} of {event.siblings}): {x} is {verdict}")
    compare = "<" if event.accepted else "≥"
    drawn = (f"{x} is **rejected**, no draw needed (no u falls below a weight of 0)." if not event.acceptance else
             f"The acceptance {f.draw(event.draw, event.draw_range)}: u {compare} {f.exact(event.acceptance)}, so "
             f"{x} is **{verdict}**.")
    # a leaf's test is said on its entry's line (one bullet less: the step fits a projector at width 3, depth 3)
    leaf = not (event.pruned or event.children_rejected)
    lines = ([_entered(event, vocab, f) + " " + _tested(event, vocab, f)] if leaf else
             [_entered(event, vocab, f), _tested(event, vocab, f)]) + [drawn]
    if event.accepted:
        after = {"bonus": "the bonus comes from p after it", "stop": "it is a stop token: the request ends",
                 "correction": "the next token comes from its own residual r (its children were rejected)"}
        lines.append(f"The whole path {_path(vocab, event.kept)} is kept ({len(event.kept)} draft"
                     f"{'s' if len(event.kept) > 1 else ''}); {after[event.ending]}.")
    elif event.residual is None:
        lines.append("Nothing of the parent's target is left ((w·r − q′)+ is empty): its weight is 0, so no later "
                     "sibling can be kept.")
    else:
        lines.append(
            f"The parent's target becomes normalized (w·r − q′)+ = normalized {_scaled(event.scale, f)} "  # type: ignore[arg-type]
            f"(ρ = {f.fraction(event.residual_mass)}) and its weight ρ/(ρ + 1 − w) = "  # type: ignore[arg-type]
            f"{f.fraction(event.parent_weight_after)}: "  # type: ignore[arg-type]
            + ("the next sibling enters against them." if event.sibling + 1 < event.siblings else
               "no sibling is left, so the parent is tested next."))
    return head, lines


def _correction_values(event: TraversalCorrectionEvent, vocab: Sequence[str]) -> Values:
    return draws(event) + [("weight", event.weight), ("scale", event.scale), ("residual mass", event.residual_mass),
                           (f"r({vocab[event.token]})", event.residual.prob(event.token))]


@tells(TraversalCorrectionEvent, values=_correction_values)
def _correction(event: TraversalCorrectionEvent, vocab: Sequence[str], f: Formats) -> Narration:
    y = _tok(vocab, event.token)
    where = _node(event.path)
    count = event.children
    if event.path:
        head = f"Round {nth(event.round_id)}: {where} kept after its children, next token {y} from its residual"
        why = (f"Every one of its {count} child{'ren' if count > 1 else ''} (and their subtrees) was rejected and the "
               f"node was kept with weight {f.fraction(event.weight)}.")
    else:
        head = f"Round {nth(event.round_id)}: no draft kept, correction {y} from the root's residual"
        why = f"Every child of the root ({count}, with their subtrees) was rejected; the root is never rejected."
    return head, [
        why,
        f"Its residual r = normalized {_scaled(event.scale, f)}, of mass {f.fraction(event.residual_mass)} before "
        "normalizing; the token after a kept node comes from it, which is what keeps the text exactly p.",
        f"The {f.draw(event.draw, event.draw_range)} picks {y} with r({vocab[event.token]}) = "
        f"{f.fraction(event.residual.prob(event.token))}; the round ends here.",
    ]


def narrate_event(event: Event, vocab: Sequence[str], formats: Formats) -> Narration | None:
    """(headline, lines) for a traversal event; None for any other event."""
    return narrate_own(event, vocab, formats, __name__)


def values(event: Event, vocab: Sequence[str]) -> Values | None:
    """The exact numbers of a traversal event, named as its narration names them; None for other events."""
    return values_own(event, vocab, __name__)


def committed(event: Event) -> list[int] | None:
    """The drafts a kept traversal node commits at once (its whole path); None for any other event."""
    words = own(event, __name__)
    return None if words is None or words.committed is None else [t for t, _ in words.committed(event)]
