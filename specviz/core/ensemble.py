"""transformers' ensemble verification (``ensemble:W``), exactly: a draft is judged against the mixture
v = W·p + (1 − W)·q instead of p, so more drafts pass and the committed tokens follow v, not p.

The engine: transformers 5.24.0, ``src/transformers/generation/utils.py``, ``_speculative_sampling(...,
assistant_ensemble_weight=W)`` (static ensemble verification of DIVERSE, arXiv 2604.07622), called from
``GenerationMixin._assisted_decoding`` when ``do_sample=True`` and the assistant returns logits. Read there:

* acceptance: ``probability_ratio = 1 - W + W * (p_i / q_i)``, kept iff ``torch.rand <= probability_ratio``,
  i.e. with probability min(1, 1 − W + W·p(x)/q(x)) = min(1, v(x)/q(x));
* correction: ``clamp(p - q, min=0)`` normalized, i.e. (p − q)+, not p: the code notes that
  (v − q)+ = W·(p − q)+ normalizes to the same distribution;
* bonus (every draft kept): ``p_prime = p_n_plus_1``, the target p itself, not v;
* W must lie in the open interval (0, 1) there (``GenerationConfig.validate``); None is standard speculative
  sampling. Here W = 1 is allowed and is tokenwise verification, draw for draw.

So each position commits v exactly: kept min(q, v) plus W·(p − q)+ corrected = v, and the round's bonus follows
p. The acceptance is 1 − W·TV(p, q) and the committed law sits at TV (1 − W)·TV(p, q) from p.

Where this differs from the engine: the decisions are exact (integer draws against Fractions) where
transformers rounds in float32; its ensemble-only fallback to p when the float residual sums to at most
``finfo.tiny`` never arises exactly (a rejection needs p(x) < q(x), so (p − q)+ has mass); the greedy branch
(``do_sample=False``, which compares drafts with argmax v) is not this rule; a stop token ends the round as in
every verifier here (transformers crops the valid tokens at the first EOS, the same).

Draws, so a trace can be replayed: the acceptance stream makes one draw per checked draft,
``randrange(a.denominator) < a.numerator`` with a = min(1, 1 − W + W·p(x)/q(x)); the correction-or-bonus
stream one draw, of the correction from the normalized (p − q)+ (the core's residual, as tokenwise) or of the
bonus from p. With W = 1, a is tokenwise's acceptance Fraction and every draw is tokenwise's.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .arithmetic import acceptance, residual_with_mass
from .categorical import Categorical
from .chain_rules import ChainRuleVerifier
from .rule_law import Law, NodeLaw, add, node_law_forms
from .rule_params import Param, RuleParams, number_name
from .streams import RandomStreams
from .trace import CorrectionEvent, EnsembleCheckEvent, Trace
from .verifier import Prefix, Proposal

_ONE, _ZERO = Fraction(1), Fraction(0)
SOURCE = ("transformers 5.x _speculative_sampling(assistant_ensemble_weight=W) (DIVERSE static ensemble): "
          "accept with min(1, 1 − W + W·p/q), correct from (p − q)+, bonus from p")


@dataclass(frozen=True)
class EnsembleSettings:
    """The ensemble weight W in (0, 1]: the share of the target in the mixture the drafts are judged against."""

    weight: Fraction

    @property
    def name(self) -> str:
        return f"ensemble:{number_name(self.weight)}"

    @property
    def exact(self) -> bool:
        """W = 1 is tokenwise verification (commits p); below 1 the committed law is v, not p."""
        return self.weight == 1


# the name's one parameter, declared once: the name's reader, the Playground's switch, the lab and --help read it
PARAMS = RuleParams(EnsembleSettings, (
    Param("weight", "W", "Ensemble weight W", "the ensemble weight", short="W",
          help="v = W·p + (1 − W)·q is what the drafts are judged against and what the text follows; W = 1 is "
               "tokenwise (transformers takes W in (0, 1))",
          stops=("0.1", "0.25", "0.5", "0.75", "0.9", "1"), default="0.5"),
), head="ensemble")


def parse_ensemble(name: object) -> EnsembleSettings:
    """The settings named by ``ensemble:W``, W a number in (0, 1]; RuleParameterError otherwise."""
    return PARAMS.read(name)


def ensemble_acceptance(p: Categorical, q: Categorical, token: int, weight: Fraction) -> Fraction:
    """min(1, 1 − W + W·p(x)/q(x)) exactly; for W = 1 the very Fraction ``acceptance`` returns."""
    a = acceptance(p, q, token)  # min(1, p/q): when it is 1, so is the mixture's (1 - W + W * (>= 1))
    return a if weight == 1 or a == 1 else 1 - weight + weight * a


class EnsembleVerifier(ChainRuleVerifier):
    """A session verifying chains by transformers' ensemble rule (see the module docstring)."""

    settings = EnsembleSettings(_ONE)
    chains_only = "transformers' assisted decoding verifies one drafted chain per round"

    def _keeps(self, position: int, context: Prefix, p: Categorical, proposal: Proposal, streams: RandomStreams,
               trace: Trace | None) -> bool:
        w, x, q = self.settings.weight, proposal.token, proposal.q
        a = ensemble_acceptance(p, q, x, w)
        draw = streams.acceptance.randrange(a.denominator)
        ok = draw < a.numerator
        if trace is not None:
            p_x, q_x = p.prob(x), q.prob(x)
            trace.append(EnsembleCheckEvent(streams.round_id, position, context, p, q, x, p_x, q_x, a, draw,
                                            a.denominator, ok, w, w * p_x + (1 - w) * q_x))
        return ok

    def _instead(self, position: int, context: Prefix, p: Categorical, proposal: Proposal,
                 streams: RandomStreams, trace: Trace | None) -> int:
        corrected, mass = residual_with_mass(p, proposal.q)  # (p - q)+, as transformers computes it
        token, draw = corrected.draw(streams.correction)
        if trace is not None:
            trace.append(CorrectionEvent(streams.round_id, position, context, p, proposal.q, corrected, mass, draw,
                                         corrected.total, token))
        return token


# ---------------------------------------------------------------------------------------------
# exact theory
# ---------------------------------------------------------------------------------------------


def law(p: Law, q: Law, settings: EnsembleSettings) -> NodeLaw:
    """One position over Laws: kept[x] = q(x)·min(1, v(x)/q(x)) = min(q(x), v(x)); instead[y] = W·(p(y) − q(y))+."""
    w = settings.weight
    kept: dict[int, Fraction] = {}
    instead: dict[int, Fraction] = {}
    for x, qx in q.items():
        add(kept, x, min(qx, w * p.get(x, _ZERO) + (1 - w) * qx))
    for y, py in p.items():
        add(instead, y, w * max(py - q.get(y, _ZERO), _ZERO))
    return NodeLaw(kept, instead)


# the Categorical forms of ``law`` (the same for every rule whose rounds repeat one node: core.rule_law)
node_law, first_token_law, expected_accepted_drafts, distance = node_law_forms(law)
