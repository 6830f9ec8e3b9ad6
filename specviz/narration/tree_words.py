"""Narration of a draft tree's round (recursive rejection sampling) from its trace, with exact numbers.

``narrate_event`` turns one tree event (a child drafted, a sibling checked against the residual r, the
correction from the last r) into a headline and lines; other events return None. A node is named by its path
from the root, node [1, 2] the first child's second child, and rounds, positions and siblings count from 1, as
everywhere a person reads them (``counting``). Pure: events in, text out; the caller's
``narration.block.Formats`` writes the numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.trace import Event, TreeCheckEvent, TreeCorrectionEvent, TreeDraftEvent
from .block import EXACT, Formats, Narration
from .counting import node as _node
from .counting import nth
from .tellers import correction_values, draws, narrate_own, tells


def _tok(vocab: Sequence[str], token: int) -> str:
    return f"‘{vocab[token]}’"


def _scaled(scale, f: Formats) -> str:
    """'(p − q)+' at scale 1, else '(s·p − q)+'."""
    return "(p − q)+" if scale == 1 else f"({f.exact(scale)}·p − q)+"


@tells(TreeDraftEvent, values=lambda event, vocab: draws(event))
def _draft(event: Event, vocab: Sequence[str], f: Formats) -> Narration:
    x = _tok(vocab, event.token)
    head = f"Round {nth(event.round_id)}, drafting the tree: {_node(event.path)} is {x}"
    distinct = tuple(event.drawn_from.ticket_ints()) != tuple(event.q.ticket_ints())
    source = ("q′ = q renormalized over the tokens its earlier siblings did not draw (drafting without "
              "replacement)" if distinct else "q at this node's prefix")
    return head, [
        f"The draft samples {_tok(vocab, event.token)} ({_node(event.path)}) from {source}.",
        f"The proposal {f.draw(event.draw, event.draw_range)} lands on {x}, with q′({vocab[event.token]}) = "
        f"{f.fraction(event.q_token)}.",
    ]


@tells(TreeCheckEvent, values=lambda event, vocab: draws(event))
def _check(event: Event, vocab: Sequence[str], f: Formats) -> Narration:
    x, name = _tok(vocab, event.token), vocab[event.token]
    verdict = "accepted" if event.accepted else "rejected"
    head = (f"Round {nth(event.round_id)}, tree check of {_node(event.path)}: sibling {nth(event.sibling)} of "
            f"{event.siblings}, {x}, is {verdict}")
    against = ("r = p, since no sibling at this node was rejected yet" if event.sibling == 0 else
               f"r = the residual left by the {event.sibling} rejected sibling{'s' if event.sibling > 1 else ''} "
               "before it")
    compare = "<" if event.accepted else "≥"
    test = ("r(x) = 0: **rejected**, no draw needed" if event.acceptance == 0 else
            f"the acceptance {f.draw(event.draw, event.draw_range)}: u {compare} {f.exact(event.acceptance)}, so {x} "
            f"is **{verdict}**")
    lines = [
        f"{x} is tested against {against}: r({name}) = {f.fraction(event.r_token)}, q′({name}) = "
        f"{f.fraction(event.q_token)} (p({name}) = {f.fraction(event.p_token)}).",
        f"Acceptance min(1, r(x)/q′(x)) = {f.fraction(event.acceptance)}; {test}.",
    ]
    if event.accepted:
        lines.append(f"{x} is committed; the walk goes down to its children (or, at a leaf, to the bonus).")
    else:
        more = event.sibling + 1 < event.siblings
        lines.append(f"r becomes (r − q′)+ normalized: the mass of (r − q′)+ is {f.fraction(event.residual_mass)}, "
                     f"so r = normalized {_scaled(event.scale, f)}; "
                     + ("the next sibling is tested against it." if more else
                        "no sibling is left: the correction is drawn from it."))
    return head, lines


@tells(TreeCorrectionEvent, values=correction_values)
def _correction(event: Event, vocab: Sequence[str], f: Formats) -> Narration:
    x = _tok(vocab, event.token)
    head = f"Round {nth(event.round_id)}: every child of {_node(event.path)} rejected, correction {x} from the last r"
    return head, [
        f"r = normalized {_scaled(event.scale, f)} at {_node(event.path)}; "
        f"the mass of the last (r − q′)+ was {f.fraction(event.residual_mass)}.",
        f"The correction {f.draw(event.draw, event.draw_range)} picks {x} with r({vocab[event.token]}) = "
        f"{f.fraction(event.residual.prob(event.token))}; the round ends here.",
    ]


def narrate_event(event: Event, vocab: Sequence[str], formats: Formats = EXACT) -> Narration | None:
    """(headline, lines) for a tree event; None for any other event (a rule's own tree events included)."""
    return narrate_own(event, vocab, formats, __name__)
