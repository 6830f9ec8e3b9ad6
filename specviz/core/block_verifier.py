"""Block verification (Sun, Mendlovic, Leviathan, Aharoni, Ro, Beirami and Suresh, ICLR 2025), exactly.

Tokenwise verification accepts each draft on its own; block verification decides how many
drafts to keep from the whole block at once. For a block x_1..x_g drafted from q, with
p(.|X^i) and q(.|X^i) the target and draft after the first i drafts:

* the running weights: w_0 = 1 and w_i = min(1, w_{i-1} * p(x_i | X^{i-1}) / q(x_i | X^{i-1}));
* for i < g the scaled residual mass rho_i = sum_y (w_i p(y|X^i) - q(y|X^i))+ and the stop
  probability h_i = rho_i / (rho_i + 1 - w_i); at the end of the block h_g = w_g;
* tau = the last i in 1..g whose draw hits (accepts with probability h_i), or 0 when none does;
* the round commits x_1..x_tau and then one token Y: from the normalized scaled residual
  (w_tau p(.|X^tau) - q(.|X^tau))+ when tau < g, from p(.|X^g) (the bonus) when tau = g, and
  nothing when x_g is a stop token and tau = g (a stop ends the request: no bonus after it).

The committed tokens are distributed exactly as the target's own samples, and the expected
number of accepted drafts is never below tokenwise verification's. With g = 1 it is tokenwise
verification, draw for draw.

Draws (documented, so a trace can be replayed): the acceptance stream makes one draw per draft
position i = 1..g in order, ``randrange(h_i.denominator) < h_i.numerator``, whether or not an
earlier one hit; the correction-or-bonus stream makes the single draw of Y. Every decision is an
integer draw against an exact Fraction; no float decides anything.

Corner cases: when rho_i + 1 - w_i = 0 (w_i = 1 and p = q after X^i) there is nothing to
resample from after X^i, and h_i is taken as 0; a later position then has h = 1, so this choice
never changes an outcome. When a stop token ends the block early at position g' < depth, g' plays
the role of g.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .arithmetic import residual_mass, residual_with_mass
from .categorical import Categorical
from .errors import VocabularyMismatchError
from .streams import RandomStreams
from .trace import (
    BlockCheckEvent,
    BlockDecisionEvent,
    BonusEvent,
    ScaledCorrectionEvent,
    Trace,
)
from .verifier import Block, Prefix, Result, Verifier

_ONE, _ZERO = Fraction(1), Fraction(0)


# ---------------------------------------------------------------------------------------------
# the numbers block verification decides with
# ---------------------------------------------------------------------------------------------


def _check_vocab(p: Categorical, q: Categorical) -> None:
    if p.vocab_size != q.vocab_size:
        raise VocabularyMismatchError(
            f"target/proposal vocabulary mismatch: p has {p.vocab_size} tokens, q has {q.vocab_size}; "
            "draft and target must share one vocabulary"
        )


def scaled_residual_mass(p: Categorical, q: Categorical, scale: Fraction) -> Fraction:
    """sum_y (scale * p(y) - q(y))+ exactly, for 0 <= scale <= 1."""
    _check_vocab(p, q)
    return residual_mass(p, q, Fraction(scale))


def scaled_residual_with_mass(p: Categorical, q: Categorical, scale: Fraction) -> tuple[Categorical | None, Fraction]:
    """The normalized (scale * p - q)+ over the full vocabulary and its mass; None when the mass is 0.

    The core's residual with a scale (integer tickets, no Fraction per token); with scale = 1
    it is ``residual_with_mass``, the same Categorical, so the same draws.
    """
    mass = scaled_residual_mass(p, q, scale)  # kept on p: the residual below reuses its sums
    return (residual_with_mass(p, q, Fraction(scale))[0] if mass else None), mass


def next_weight(weight: Fraction, p_token: Fraction, q_token: Fraction) -> Fraction:
    """w_i = min(1, w_{i-1} * p(x_i) / q(x_i)) (q(x_i) > 0)."""
    return min(_ONE, weight * p_token / q_token)


def stop_probability(mass: Fraction, weight: Fraction) -> Fraction:
    """h_i = rho_i / (rho_i + 1 - w_i) at an inner position (0 where the denominator is 0)."""
    denominator = mass + 1 - weight
    return mass / denominator if denominator else _ZERO


def tau_distribution(stops: list[Fraction] | tuple[Fraction, ...]) -> list[Fraction]:
    """P(tau = i) for i = 0..g from h_0..h_g: h_i * prod_{j > i} (1 - h_j), with tau = 0 when nothing hits."""
    g = len(stops) - 1
    out = [_ZERO] * (g + 1)
    none_later = _ONE  # P(no position after i hits)
    for i in range(g, 0, -1):
        out[i] = stops[i] * none_later
        none_later *= 1 - stops[i]
    out[0] = none_later
    return out


@dataclass(frozen=True)
class BlockNumbers:
    """Everything block verification decides with, for one drafted block (index i = drafts kept)."""

    weights: tuple[Fraction, ...]  # w_0..w_g
    masses: tuple[Fraction, ...]  # rho_0..rho_{g-1}
    stops: tuple[Fraction, ...]  # h_0..h_g (h_0 by the same formula; 1 whenever rho_0 > 0)

    @property
    def taus(self) -> list[Fraction]:
        """P(tau = i) for i = 0..g."""
        return tau_distribution(self.stops)


def block_numbers(ps: list[Categorical], qs: list[Categorical], tokens: list[int] | tuple[int, ...]) -> BlockNumbers:
    """Weights, scaled residual masses and stop probabilities of a drafted block.

    ps[i] and qs[i] are the target and draft after the first i drafts (i = 0..g-1); tokens the g drafts.
    """
    weights = [_ONE]
    for p, q, x in zip(ps, qs, tokens, strict=True):
        _check_vocab(p, q)
        weights.append(next_weight(weights[-1], p.prob(x), q.prob(x)))
    masses = [scaled_residual_mass(p, q, w) for p, q, w in zip(ps, qs, weights)]
    stops = [stop_probability(m, w) for m, w in zip(masses, weights)] + [weights[-1]]
    return BlockNumbers(tuple(weights), tuple(masses), tuple(stops))


# ---------------------------------------------------------------------------------------------
# the verifier
# ---------------------------------------------------------------------------------------------


class BlockVerifier(Verifier):
    """One request's session, verifying each drafted block jointly (Sun et al. 2025).

    Same constructor, session rules, validations and exceptions as ``Verifier``; only the
    decision differs (see the module docstring for the rule and the draws).
    """

    def verify(self, block: Block, streams: RandomStreams, *, trace: Trace | None = None) -> Result:
        """Verify block jointly with the acceptance and correction streams; record events into trace if given."""
        vocab = self._begin(block, streams)
        round_id = block.round_id
        start = self.prefix
        proposals = block.proposals
        tokens = [proposal.token for proposal in proposals]
        # the block ends at its first stop token, as in tokenwise verification (propose never drafts past one)
        g = next((i + 1 for i, x in enumerate(tokens) if x in self.stop_ids), len(tokens))
        tokens = tokens[:g]
        contexts = [start + tuple(tokens[:i]) for i in range(g + 1)]
        ps = [self._target_at(contexts[i], vocab) for i in range(g)]
        qs = [proposal.q for proposal in proposals[:g]]
        numbers = block_numbers(ps, qs, tokens)
        hits = []
        for i in range(1, g + 1):
            h = numbers.stops[i]
            draw = streams.acceptance.randrange(h.denominator)
            hits.append(draw < h.numerator)
            if trace is not None:
                x = tokens[i - 1]
                trace.append(BlockCheckEvent(
                    round_id, i - 1, contexts[i - 1], ps[i - 1], qs[i - 1], x, ps[i - 1].prob(x), qs[i - 1].prob(x),
                    numbers.weights[i - 1], numbers.weights[i], numbers.masses[i] if i < g else None, h, draw,
                    h.denominator, hits[-1], i == g))
        tau = max((i for i in range(1, g + 1) if hits[i - 1]), default=0)
        ending = ("stop" if tokens[-1] in self.stop_ids else "bonus") if tau == g else "correction"
        if trace is not None:
            trace.append(BlockDecisionEvent(round_id, tau, start, tuple(tokens), numbers.weights, numbers.masses,
                                            numbers.stops, tuple(hits), tau, ending))
        output = tokens[:tau]
        current = contexts[tau]
        if ending == "correction":
            output.append(self._correct(ps[tau], qs[tau], numbers.weights[tau], tau, current, streams, trace))
        elif ending == "bonus":
            p = self._target_at(current, vocab, bonus=True)
            token, draw = p.draw(streams.correction)
            if trace is not None:
                trace.append(BonusEvent(round_id, g, current, p, draw, p.total, token))
            output.append(token)
        return self._commit(round_id, output, tau, tau < g, trace)

    def _correct(self, p: Categorical, q: Categorical, scale: Fraction, tau: int, context: Prefix,
                 streams: RandomStreams, trace: Trace | None) -> int:
        """Draw Y from the normalized (w_tau p - q)+ after the tau kept drafts."""
        residual, mass = scaled_residual_with_mass(p, q, scale)
        if residual is None:  # h_tau > 0 implies rho_tau > 0: reaching this is a bug, never a fallback
            raise AssertionError(f"block verification chose tau = {tau} with an empty scaled residual")
        token, draw = residual.draw(streams.correction)
        if trace is not None:
            trace.append(ScaledCorrectionEvent(streams.round_id, tau, context, p, q, residual, mass, draw,
                                               residual.total, token, scale))
        return token
