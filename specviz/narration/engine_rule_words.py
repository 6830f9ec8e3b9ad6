"""Narration of the engine rules' events (ensemble, SGLang's thresholds, Medusa's typical acceptance), exactly.

``narrate_event`` turns one event of ``specviz.core.ensemble``, ``threshold`` or ``medusa`` into a headline and
lines that state the rule's own acceptance (never tokenwise's min(1, p/q)) with its exact fractions and draws;
other events return None. ``values`` lists the numbers the page folds under the narration. Pure: events in,
text out; the caller's ``narration.block.Formats`` writes the numbers (page or terminal profile).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from ..core.trace import (
    EnsembleCheckEvent,
    Event,
    MedusaBonusEvent,
    MedusaCheckEvent,
    MedusaCorrectionEvent,
    ThresholdCheckEvent,
    ThresholdCorrectionEvent,
    ThresholdTreeCheckEvent,
    ThresholdTreeCorrectionEvent,
    TopKDraftEvent,
)
from .block import Formats, Narration
from .counting import node, nth
from .tellers import Values, draws, narrate_own, tells, values_own


def _tok(vocab: Sequence[str], token: int) -> str:
    return f"‘{vocab[token]}’"


def _tokens(vocab: Sequence[str], tokens: Sequence[int]) -> str:
    return ", ".join(_tok(vocab, t) for t in tokens)


def _op(value: Fraction | int, f: Formats) -> str:
    """A value as an operand of a product or quotient: '(1/7)'; whole numbers bare."""
    text = f.exact(value)
    return f"({text})" if "/" in text or " " in text else text


def _verdict(accepted: bool) -> tuple[str, str]:
    return ("accepted", "<") if accepted else ("rejected", "≥")


def _head(event: Event, vocab: Sequence[str], rule: str) -> str:
    verdict, _ = _verdict(event.accepted)  # type: ignore[attr-defined]
    return (f"Round {nth(event.round_id)}, checking position {nth(event.position)} ({rule}): "
            f"{_tok(vocab, event.token)} is {verdict}")  # type: ignore[attr-defined]


# --- transformers' ensemble ------------------------------------------------------------------------------
def _ensemble_values(event: EnsembleCheckEvent, vocab: Sequence[str]) -> Values:
    x = vocab[event.token]
    return draws(event) + [(f"p({x})", event.p_token), (f"q({x})", event.q_token), ("W", event.weight),
                           (f"v({x})", event.mixture_token), ("min(1, 1 − W + W·p(x)/q(x))", event.acceptance)]


@tells(EnsembleCheckEvent, values=_ensemble_values)
def _ensemble_check(event: EnsembleCheckEvent, vocab: Sequence[str], f: Formats) -> Narration:
    x, name, w = _tok(vocab, event.token), vocab[event.token], event.weight
    verdict, compare = _verdict(event.accepted)
    after = (" and committed." if event.accepted else
             "; the correction comes from (p − q)+ next (v's residual too: (v − q)+ = W·(p − q)+).")
    return _head(event, vocab, f"ensemble, W = {f.exact(w)}"), [
        f"Proposed x = {x}: p({name}) = {f.fraction(event.p_token)}, q({name}) = {f.fraction(event.q_token)}, "
        f"judged against v = W·p + (1 − W)·q: v({name}) = {_op(w, f)}·{_op(event.p_token, f)} + "
        f"{_op(1 - w, f)}·{_op(event.q_token, f)} = {f.fraction(event.mixture_token)}.",
        f"Acceptance min(1, 1 − W + W·p(x)/q(x)) = min(1, v(x)/q(x)) = {f.fraction(event.acceptance)}.",
        f"The acceptance {f.draw(event.draw, event.draw_range)}: u {compare} {f.exact(event.acceptance)}, so x is "
        f"**{verdict}**{after}",
    ]


# --- SGLang's thresholds -------------------------------------------------------------------------------------
def _threshold_values(event: ThresholdCheckEvent, vocab: Sequence[str]) -> Values:
    return draws(event) + [(f"p({vocab[event.token]})", event.p_token), ("S", event.threshold_single),
                           ("A", event.threshold_acc), ("min(1, p(x)/A)", event.acceptance)]


@tells(ThresholdCheckEvent, values=_threshold_values)
def _threshold_check(event: ThresholdCheckEvent, vocab: Sequence[str], f: Formats) -> Narration:
    x, name = _tok(vocab, event.token), vocab[event.token]
    s, a = event.threshold_single, event.threshold_acc
    verdict, compare = _verdict(event.accepted)
    lines = [f"Proposed x = {x}: p({name}) = {f.fraction(event.p_token)} (q is never read: SGLang tests the "
             "target's mass)."]
    if event.single:
        lines.append(f"p({name}) ≥ S = {f.exact(s)}: kept whatever the coin, so x is **accepted** and committed.")
    else:
        lines += [
            f"p({name}) < S = {f.exact(s)}: the coin keeps x when u < min(1, p(x)/A) = min(1, "
            f"{_op(event.p_token, f)}/{_op(a, f)}) = {f.fraction(event.acceptance)}.",
            f"The coin's {f.draw(event.draw, event.draw_range)}: u {compare} {f.exact(event.acceptance)}, so x is "
            f"**{verdict}**" + (" and committed." if event.accepted else
                                "; the final token comes from p without x next."),
        ]
    return _head(event, vocab, f"SGLang, S = {f.exact(s)}, A = {f.exact(a)}"), lines


def _sibling_values(event: ThresholdTreeCheckEvent, vocab: Sequence[str]) -> Values:
    return draws(event) + [(f"p({vocab[event.token]})", event.p_token), ("C", event.mass),
                           ("S", event.threshold_single), ("A", event.threshold_acc),
                           ("min(1, C/A)", event.acceptance), ("bound", event.bound)]


@tells(ThresholdTreeCheckEvent, values=_sibling_values)
def _threshold_sibling(event: ThresholdTreeCheckEvent, vocab: Sequence[str], f: Formats) -> Narration:
    x, name = _tok(vocab, event.token), vocab[event.token]
    s, a = event.threshold_single, event.threshold_acc
    verdict, compare = _verdict(event.accepted)
    head = (f"Round {nth(event.round_id)}, SGLang tree check of {node(event.path)}: sibling {nth(event.sibling)} of "
            f"{event.siblings}, {x}, is {verdict}")
    earlier = "" if event.sibling == 0 else f" and the {event.sibling} sibling{'s' if event.sibling > 1 else ''} " \
                                            "before it"
    lines = [f"One coin for the node, shared by its siblings: {f.draw(event.draw, event.draw_range)}."]
    mass = f"Target mass of {x}{earlier}: C = {f.fraction(event.mass)} (q is never read); "
    if event.single:
        lines.append(mass + f"p({name}) = {f.exact(event.p_token)} ≥ S = {f.exact(s)}: kept whatever the coin, so "
                     f"{x} is **accepted**.")
    else:
        lines.append(mass + f"kept when u < min(1, C/A) = min(1, {_op(event.mass, f)}/{_op(a, f)}) = "
                     f"{f.fraction(event.acceptance)}: u {compare} {f.exact(event.acceptance)}, so {x} is "
                     f"**{verdict}**.")
    if event.accepted:
        lines.append(f"{x} is committed; the walk goes down to its children (or, at a leaf, to the bonus from p).")
    else:
        more = event.sibling + 1 < event.siblings
        lines.append(f"p({name}) leaves the final token's law (which keeps {f.fraction(event.residual_mass)} of "
                     "what was left); " + ("the next sibling adds its mass to C." if more else
                                          "no sibling is left: the final token comes from p without them."))
    return head, lines


def _final_values(event: ThresholdCorrectionEvent | ThresholdTreeCorrectionEvent, vocab: Sequence[str]) -> Values:
    return draws(event) + [("mass kept", event.residual_mass),
                           (f"r({vocab[event.token]})", event.residual.prob(event.token))]


@tells(ThresholdCorrectionEvent, values=_final_values)
def _threshold_final(event: ThresholdCorrectionEvent, vocab: Sequence[str], f: Formats) -> Narration:
    return _final(event, vocab, f, "the rejected draft")


@tells(ThresholdTreeCorrectionEvent, values=_final_values)
def _threshold_tree_final(event: ThresholdTreeCorrectionEvent, vocab: Sequence[str], f: Formats) -> Narration:
    return _final(event, vocab, f, "the rejected children")


def _final(event: ThresholdCorrectionEvent | ThresholdTreeCorrectionEvent, vocab: Sequence[str], f: Formats,
           what: str) -> Narration:
    y, whose = _tok(vocab, event.token), f"{what}'s"
    head = (f"Round {nth(event.round_id)}, rejection at position {nth(event.position)}: the final token {y} is drawn "
            f"from p without {what}")
    return head, [
        f"SGLang removes {whose} target mass ({_tokens(vocab, event.removed)}): p without it has mass "
        f"{f.fraction(event.residual_mass)}, renormalized (relu(p − draft_probs) / its sum).",
        f"The final {f.draw(event.draw, event.draw_range)} picks {y} with probability "
        f"{f.fraction(event.residual.prob(event.token))}; the round ends here.",
    ]


# --- Medusa's typical acceptance ---------------------------------------------------------------------------
def _threshold_line(threshold: Fraction, entropy: float, eps: Fraction, term: float, f: Formats) -> str:
    """'T = min(ε = 9/100, δ·exp(−H) ≈ 0.05691) = δ·exp(−H)', with H as Medusa computes it."""
    which = f"ε = {f.fraction(eps)}" if threshold == eps else f"δ·exp(−H) ≈ {float(threshold):.4g}"
    return (f"Medusa's threshold T = min(ε = {f.exact(eps)}, δ·exp(−H) ≈ {term:.4g}) = {which}, with "
            f"H = −Σ p log(p + 1e-5) ≈ {entropy:.4f} nats (in float64, as Medusa computes it).")


def _exp(entropy: float) -> float:
    return math.exp(-entropy)


def _medusa_check_values(event: MedusaCheckEvent, vocab: Sequence[str]) -> Values:
    return draws(event) + [(f"p({vocab[event.token]})", event.p_token), ("T", event.threshold),
                           ("acceptance", event.acceptance)]


def _medusa_next_values(event: MedusaCorrectionEvent | MedusaBonusEvent, vocab: Sequence[str]) -> Values:
    return draws(event) + [(f"p({vocab[event.token]})", event.p.prob(event.token)), ("T", event.threshold)]


@tells(MedusaCheckEvent, values=_medusa_check_values)
def _medusa_check(event: MedusaCheckEvent, vocab: Sequence[str], f: Formats) -> Narration:
    x, name = _tok(vocab, event.token), vocab[event.token]
    verdict, compare = _verdict(event.accepted)
    delta = f"{event.delta:.4g}" + (" (= √ε)" if abs(event.delta * event.delta - float(event.eps)) < 1e-15 else "")
    lines = [f"Proposed token x = {x}: p({name}) = {f.fraction(event.p_token)}, q({name}) = "
             f"{f.fraction(event.q_token)} (q is never read by the rule).",
             _threshold_line(event.threshold, event.entropy, event.eps, event.delta * _exp(event.entropy), f)
             + f" δ = {delta}."]
    if event.fast:
        above = ">" if event.accepted else "≤"
        lines.append(f"p({name}) {above} T, so x is **{verdict}**: the threshold decides, no coin is needed"
                     + (" and x is committed." if event.accepted else "; Medusa commits argmax p next."))
    else:
        lines.append(f"fast=False: x is kept when Medusa's sample of p above T equals it, with probability t(x) = "
                     f"{f.fraction(event.acceptance)}; the {f.draw(event.draw, event.draw_range)}: u {compare} "
                     f"{f.exact(event.acceptance)}, so x is **{verdict}**"
                     + ("." if event.accepted else "; the next token is a fresh sample of p above T."))
    return _head(event, vocab, "Medusa"), lines


@tells(MedusaCorrectionEvent, values=_medusa_next_values)
def _medusa_correction(event: MedusaCorrectionEvent, vocab: Sequence[str], f: Formats) -> Narration:
    return _medusa_next(event, vocab, f, event.residual, bonus=False)


@tells(MedusaBonusEvent, values=_medusa_next_values)
def _medusa_bonus(event: MedusaBonusEvent, vocab: Sequence[str], f: Formats) -> Narration:
    return _medusa_next(event, vocab, f, event.drawn_from, bonus=True)


def _medusa_next(event: MedusaCorrectionEvent | MedusaBonusEvent, vocab: Sequence[str], f: Formats, source,
                 bonus: bool) -> Narration:
    y, name = _tok(vocab, event.token), vocab[event.token]
    if bonus:
        head = f"Round {nth(event.round_id)}: every draft kept, Medusa's next token {y}"
        when = "Every draft passed the threshold"
    else:
        head = f"Round {nth(event.round_id)}, rejection at position {nth(event.position)}: Medusa commits {y} instead"
        when = "A draft failed the threshold"
    if event.fast:
        how = (f"{when}; with fast=True (Medusa's default) the next token is argmax p = {y} "
               f"(p({name}) = {f.fraction(event.p.prob(event.token))}), not a sample of p.")
    else:
        how = (f"{when}; with fast=False the next token is a sample of p with every token under T removed: "
               f"{y} has probability {f.fraction(source.prob(event.token))} there (p({name}) = "
               f"{f.fraction(event.p.prob(event.token))}).")
    return head, [how, f"(Medusa's threshold T ≈ {float(event.threshold):.4g}; H ≈ {event.entropy:.4f} nats.)",
                  f"The {f.draw(event.draw, event.draw_range)} picks {y}"
                  + ("." if bonus else "; the round ends here.")]


@tells(TopKDraftEvent, values=lambda event, vocab: [(f"q({vocab[event.token]})", event.q_token), ("rank", event.rank)])
def _top_k_draft(event: TopKDraftEvent, vocab: Sequence[str], f: Formats) -> Narration:
    x = _tok(vocab, event.token)
    rank = "most likely" if event.rank == 0 else f"{_ordinal(event.rank + 1)} most likely"
    head = (f"Round {nth(event.round_id)}, SGLang's top-K tree: child {nth(event.sibling)} at position "
            f"{nth(event.position)} is {x}, q's {rank} token")
    return head, [
        f"SGLang drafts EAGLE's top-K tree: each node's children are the K most likely tokens of q at its prefix, in "
        f"descending order (ties to the lower token id), not samples; {x} has q({vocab[event.token]}) = "
        f"{f.fraction(event.q_token)}.",
        "No draw is made: the drafted tree is the same every time for the same q.",
    ]


def _ordinal(n: int) -> str:
    return f"{n}{'nd' if n == 2 else 'rd' if n == 3 else 'th'}"


def narrate_event(event: Event, vocab: Sequence[str], formats: Formats) -> Narration | None:
    """(headline, lines) for an engine rule's event; None for any other event."""
    return narrate_own(event, vocab, formats, __name__)


def values(event: Event, vocab: Sequence[str]) -> Values | None:
    """The exact numbers of an engine rule's event, named as its narration names them; None for other events."""
    return values_own(event, vocab, __name__)
