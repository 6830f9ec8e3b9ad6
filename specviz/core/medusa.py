"""Medusa's typical acceptance as Medusa runs it (``typical:EPS[,DELTA]`` and ``typical-sample:EPS[,DELTA]``).

The engine: FasterDecoding/Medusa at commit e2a5d20c048a9b0a4092e6933c34313687422518, ``medusa/model/utils.py``:
``evaluate_posterior`` (the acceptance), ``generate_candidates`` (the token after the accepted prefix, which
becomes the next round's first candidate), ``get_typical_one_token`` and ``get_typical_posterior_mask``; the
defaults are ``MedusaModel.medusa_generate``'s in ``medusa/model/medusa_model.py``: ``posterior_threshold=0.09``
(ε), ``posterior_alpha=0.3`` (δ, "recommended to be sqrt(posterior_threshold)"), ``fast=True``. Read there:

* the threshold: ``entropy = -sum(p * log(p + 1e-5))`` (note the 1e-5), ``threshold = min(posterior_threshold,
  exp(-entropy) * posterior_alpha)``;
* ``fast=True`` (Medusa's default): a candidate x is kept iff ``p(x) > threshold`` (``candidates_prob >
  threshold``), the accepted length is the cumulative product of that mask; the token after it is
  ``argmax`` of the target's logits (``generate_candidates``: ``if temperature == 0 or fast``), both after a
  rejection and after a fully accepted chain (the bonus);
* ``fast=False``: the token after the accepted prefix is ``get_typical_one_token``, a sample of p with every
  token of ``p < threshold`` removed (renormalized); the acceptance is ``get_typical_posterior_mask``: a
  candidate is kept iff it equals a sample of that same truncated p. At this commit ``evaluate_posterior`` calls
  ``get_typical_posterior_mask`` with one positional argument too many (``..., posterior_alpha, fast)`` for a
  five-parameter function), so Medusa's own ``fast=False`` path raises TypeError; this module runs what that
  function computes. The rejected sample is discarded and the next token is a fresh sample, so a position
  keeps x with probability t(x) (t the truncated p) and otherwise commits a fresh draw from t.

Medusa runs typical acceptance only at temperature > 0: at ``temperature == 0`` (``medusa_generate``'s default)
``evaluate_posterior`` keeps a candidate iff it equals the target's argmax (greedy matching, not this rule). p
here is the processed target (a processor applies the temperature, as Medusa's ``logits / temperature``).

The names: ``typical:EPS`` is Medusa's default rule as ``medusa_generate`` runs it, δ = ``posterior_alpha`` = 0.3
(``DEFAULT_DELTA``; the same for every ε, as in the code: √ε is only its comment's recommendation);
``typical:EPS,DELTA`` sets δ (``typical:EPS,0.3`` is ``typical:EPS``), ``typical:EPS,sqrt`` takes δ = √ε (computed
in float64 as math.sqrt(float(ε))); ``typical-sample:...`` is ``fast=False``. Until this change ``typical:EPS`` meant
δ = √ε: an old link or file with it opens Medusa's default δ instead and says so (``delta_note``). The project's
first ``typical:EPS`` (exact entropy without the 1e-5, and a sample of the full p after a rejection and as the
bonus) is not what Medusa runs either: on p = (.90, .04, .03, .02, .01), q uniform and ε = 0.09 it commits a law
at TV 0.02 from p, where Medusa's rule (either mode) commits token 0 always, TV 0.10.

Where exactness ends: the threshold's entropy term is computed in float64 from the exact p, deterministically:
p_i = float(p(x_i)) (correctly rounded), H = -math.fsum(p_i * math.log(p_i + 1e-5)) over p's support (each
product rounded, the sum correctly rounded), e = δ_f * math.exp(-H) with δ_f = float(δ) or math.sqrt(float(ε));
the threshold is then the exact rational T = min(ε, Fraction(e)), ε kept exact. Everything after is exact:
p(x) > T and p(x) >= T are Fraction comparisons, the argmax is exact (ties to the lowest id, as torch.argmax
returns the first maximum), t is p masked exactly. math.log and math.exp are the platform's libm: a machine whose
libm rounds differently can move e by an ulp and so decide differently only for a p(x) within an ulp of e.
Medusa works in the model's float dtype (float32 or lower) and compares float probabilities.

Where this differs from the engine: Medusa proposes its heads' top-k tokens in a tree and keeps the longest
accepted candidate (ties by likelihood); here the drafts are a chain sampled from q (``propose``), so the
accepted length is the first rejection's position, as in Medusa's cumulative product; a stop token ends the
round (Medusa stops after the round in which EOS appears). Trees are not verified by this rule.

Draws, so a trace can be replayed: the acceptance stream makes one draw per checked draft,
``randrange(a.denominator) < a.numerator`` with a = 1 if p(x) > T else 0 (fast: randrange(1), decided by the
threshold) or a = t(x) (not fast: whether Medusa's sample of t equals x). The correction-or-bonus stream makes
one draw of the token after the accepted prefix, from the point mass at argmax p (fast: randrange(1)) or from t.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .categorical import Categorical
from .chain_rules import ChainRuleVerifier
from .errors import RuleParameterError, SupportError
from .rule_law import Law, NodeLaw, add, node_law_forms
from .rule_params import Flag, Param, RuleParams, number_name
from .streams import RandomStreams
from .trace import MedusaBonusEvent, MedusaCheckEvent, MedusaCorrectionEvent, Trace
from .verifier import Prefix, Proposal

_ONE, _ZERO = Fraction(1), Fraction(0)
LOG_OFFSET = 1e-5  # Medusa's entropy: log(p + 1e-5)
DEFAULT_DELTA = Fraction(3, 10)  # medusa_generate(..., posterior_alpha=0.3): δ when the name gives none
SQRT = "sqrt"  # typical:EPS,sqrt: δ = √ε, the code comment's recommendation
SQRT_STOP = "√ε"  # how a control shows it
SOURCE = ("Medusa (FasterDecoding/Medusa, medusa/model/utils.py evaluate_posterior): keep x when p(x) > min(ε, "
          "δ·exp(−H)), H with log(p + 1e-5); then argmax p (fast=True, the default) or a sample of p above the "
          "threshold (fast=False)")


class TypicalSupportError(SupportError):
    """Medusa's truncation removes every token (every p(x) is below the threshold): nothing to sample."""


@dataclass(frozen=True)
class MedusaSettings:
    """ε (``posterior_threshold``), δ (``posterior_alpha``: 0.3 by default, as ``medusa_generate``; None: √ε, the
    code comment's recommendation) and ``fast``."""

    eps: Fraction
    delta: Fraction | None = DEFAULT_DELTA
    fast: bool = True

    @property
    def name(self) -> str:
        family = "typical" if self.fast else "typical-sample"
        tail = (f",{SQRT}" if self.delta is None else
                "" if self.delta == DEFAULT_DELTA else f",{number_name(self.delta)}")
        return f"{family}:{number_name(self.eps)}{tail}"

    @property
    def delta_float(self) -> float:
        """δ as the float the threshold is computed with."""
        return math.sqrt(float(self.eps)) if self.delta is None else float(self.delta)

    @property
    def exact(self) -> bool:
        return False


# the name's parameters, declared once: the name's reader, the Playground's switch, the lab and --help read them
PARAMS = RuleParams(MedusaSettings, (
    Param("eps", "EPS", "ε", "ε, Medusa's posterior_threshold",
          help="posterior_threshold: a draft is kept when p(x) > min(ε, δ·exp(−H)), H = −Σ p log(p + 1e-5) (Medusa's "
               "entropy)",
          high_open=True, stops=("0.01", "0.03", "0.05", "0.09", "0.15", "0.2", "0.3", "0.5"), default="0.09"),
    Param("delta", "DELTA", "δ", "δ, Medusa's posterior_alpha",
          help="posterior_alpha: 0.3, medusa_generate's default; √ε is its code comment's recommendation",
          stops=(SQRT_STOP, "0.1", "0.2", "0.3", "0.5", "0.7", "1"), default=number_name(DEFAULT_DELTA),
          optional=True, words=((SQRT, None, SQRT_STOP),)),
), flag=Flag("fast", "fast (argmax after a rejection, Medusa's default)",
             "on: after a rejection (and as the bonus) Medusa commits argmax p; off (fast=False): a sample of p above "
             "the threshold, and a draft is kept when it equals such a sample", on="typical", off="typical-sample",
             default=MedusaSettings.fast, short="fast"))
NAMES = PARAMS.heads  # the name's family parts: "typical" (fast), "typical-sample"


def parse_typical(name: object) -> MedusaSettings:
    """The settings named by ``typical:EPS[,DELTA]`` (fast) or ``typical-sample:EPS[,DELTA]``; ε in (0, 1), δ in
    (0, 1] (0.3 when omitted, Medusa's code default) or the word ``sqrt`` for √ε; RuleParameterError otherwise."""
    return PARAMS.read(name)


def spelled_out(name: str) -> str:
    """The name as a link writes it: Medusa's default δ written out (``typical:0.09,0.3``), so that a link without δ is
    an old one (``delta_note``); every other name as it is."""
    if name.partition(":")[0] in NAMES and "," not in name:
        return f"{name},{number_name(DEFAULT_DELTA)}"
    return name


def delta_note(name: object) -> str | None:
    """One line for an old link or file naming ``typical:EPS`` (or ``typical-sample:EPS``) without δ: that name meant
    δ = √ε before it took Medusa's code default δ = 0.3; None for any other name (or one that does not read)."""
    if not isinstance(name, str) or name.partition(":")[0] not in NAMES or "," in name:
        return None
    try:
        settings = parse_typical(name)
    except RuleParameterError:
        return None
    root = math.sqrt(float(settings.eps))
    same = " (the same number here)" if root == float(DEFAULT_DELTA) else f" (it was √ε ≈ {root:.4g})"
    return (f"‘{settings.name}’ now uses Medusa's default δ = 0.3, as medusa_generate does{same}; "
            f"‘{settings.name},{SQRT}’ keeps δ = √ε")


@dataclass(frozen=True)
class TypicalThreshold:
    """Medusa's threshold at one context: T = min(ε, δ·exp(−H)) with H = −Σ p log(p + 1e-5)."""

    value: Fraction  # T, exact: min(ε, Fraction(entropy_term))
    entropy: float  # H as Medusa computes it (float64 here)
    entropy_term: float  # δ·exp(−H)


def _threshold(floats: list[float], settings: MedusaSettings) -> TypicalThreshold:
    entropy = -math.fsum(f * math.log(f + LOG_OFFSET) for f in floats)
    term = settings.delta_float * math.exp(-entropy)
    return TypicalThreshold(min(settings.eps, Fraction(term)), entropy, term)


def typical_threshold(p: Categorical, settings: MedusaSettings) -> TypicalThreshold:
    """The threshold, computed as the module docstring says (float64 entropy, then exact)."""
    total = p.total
    return _threshold([t / total for t in p.tickets if t], settings)  # int / int: correctly rounded


def law_threshold(p: Law, settings: MedusaSettings) -> TypicalThreshold:
    """The threshold of a Law (the same floats as ``typical_threshold``: float(Fraction) is correctly rounded)."""
    return _threshold([float(v) for v in p.values() if v], settings)


def _above(p: Categorical, threshold: Fraction, strict: bool) -> np.ndarray:
    """A mask over the vocabulary: p(x) > T (strict) or p(x) >= T, decided exactly in integers."""
    keep = np.zeros(p.vocab_size, dtype=bool)
    total, num, den = p.total, threshold.numerator, threshold.denominator
    for x, t in zip(p.ids, p.tickets):
        keep[x] = t * den > num * total if strict else t * den >= num * total
    return keep


def truncated(p: Categorical, threshold: TypicalThreshold) -> Categorical:
    """p without the tokens under the threshold (``probs < threshold`` removed), renormalized."""
    keep = _above(p, threshold.value, strict=False)
    if not keep.any():
        raise TypicalSupportError(
            f"Medusa's typical truncation removes every token: every p(x) is below the threshold "
            f"T = min(ε, δ·exp(−H)) ≈ {float(threshold.value):.6g} (H ≈ {threshold.entropy:.6g} nats); Medusa's "
            "torch.multinomial would fail here. Lower DELTA or EPS")
    return p.masked(keep)


def argmax(p: Categorical) -> int:
    """The most probable token, ties to the lowest id (torch.argmax returns the first maximum)."""
    return p.top(1)[0][0]


def next_token_distribution(p: Categorical, threshold: TypicalThreshold, settings: MedusaSettings) -> Categorical:
    """What the token after the accepted prefix is drawn from: the point mass at argmax p (fast) or the truncated p."""
    if settings.fast:
        return Categorical(p.vocab_size, [argmax(p)], [1])
    return truncated(p, threshold)


def typical_acceptance(p: Categorical, token: int, threshold: TypicalThreshold, settings: MedusaSettings) -> Fraction:
    """P(Medusa keeps the draft token): 1 or 0 by p(x) > T (fast), or t(x) (not fast)."""
    if settings.fast:
        return _ONE if p.prob(token) > threshold.value else _ZERO
    return truncated(p, threshold).prob(token)


class MedusaVerifier(ChainRuleVerifier):
    """A session verifying chains by Medusa's typical acceptance (see the module docstring)."""

    settings = PARAMS.settings()  # medusa_generate's defaults, as PARAMS declares them
    chains_only = ("Medusa keeps the longest accepted path of its heads' top-k tree; this rule is verified here on "
                   "drafted chains only")

    def _at(self, p: Categorical) -> tuple[TypicalThreshold, Categorical]:
        """The threshold at p and what the next token is drawn from, computed once per target distribution."""
        cached = self.__dict__.get("_last")
        if cached is None or cached[0] is not p:
            threshold = typical_threshold(p, self.settings)
            cached = (p, threshold, next_token_distribution(p, threshold, self.settings))
            self._last = cached
        return cached[1], cached[2]

    def _keeps(self, position: int, context: Prefix, p: Categorical, proposal: Proposal, streams: RandomStreams,
               trace: Trace | None) -> bool:
        s, x, q = self.settings, proposal.token, proposal.q
        threshold, chosen = self._at(p)
        a = (_ONE if p.prob(x) > threshold.value else _ZERO) if s.fast else chosen.prob(x)
        draw = streams.acceptance.randrange(a.denominator)
        ok = draw < a.numerator
        if trace is not None:
            trace.append(MedusaCheckEvent(streams.round_id, position, context, p, q, x, p.prob(x), q.prob(x), a, draw,
                                          a.denominator, ok, threshold.value, threshold.entropy, s.eps,
                                          s.delta_float, s.fast))
        return ok

    def _instead(self, position: int, context: Prefix, p: Categorical, proposal: Proposal,
                 streams: RandomStreams, trace: Trace | None) -> int:
        threshold, chosen = self._at(p)
        token, draw = chosen.draw(streams.correction)
        if trace is not None:
            mass = sum((p.prob(x) for x in chosen.ids), _ZERO)
            trace.append(MedusaCorrectionEvent(streams.round_id, position, context, p, proposal.q, chosen, mass, draw,
                                               chosen.total, token, threshold.value, threshold.entropy,
                                               self.settings.fast))
        return token

    def _bonus(self, position: int, context: Prefix, p: Categorical, streams: RandomStreams,
               trace: Trace | None) -> int:
        threshold, chosen = self._at(p)
        token, draw = chosen.draw(streams.correction)
        if trace is not None:
            trace.append(MedusaBonusEvent(streams.round_id, position, context, p, draw, chosen.total, token, chosen,
                                          threshold.value, threshold.entropy, self.settings.fast))
        return token


# ---------------------------------------------------------------------------------------------
# exact theory (exact given the float64 threshold)
# ---------------------------------------------------------------------------------------------


def law(p: Law, q: Law, settings: MedusaSettings) -> NodeLaw:
    """One position over Laws: kept[x] = q(x)·a(x), a the acceptance; instead = (1 − Σ kept)·(the next-token law)."""
    threshold = law_threshold(p, settings)
    if settings.fast:  # the point mass at argmax p, ties to the lowest id
        chosen = {max(p, key=lambda x: (p[x], -x)): _ONE}
        kept = {x: qx for x, qx in q.items() if p.get(x, _ZERO) > threshold.value}
    else:
        above = {x: px for x, px in p.items() if px >= threshold.value}
        mass = sum(above.values(), _ZERO)
        if not mass:
            raise TypicalSupportError(
                f"Medusa's typical truncation removes every token: every p(x) is below the threshold "
                f"T ≈ {float(threshold.value):.6g}; lower DELTA or EPS")
        chosen = {x: px / mass for x, px in above.items()}
        kept = {}
        for x, qx in q.items():
            add(kept, x, qx * chosen.get(x, _ZERO))
    miss = 1 - sum(kept.values(), _ZERO)
    instead: dict[int, Fraction] = {}
    for y, cy in chosen.items():
        add(instead, y, miss * cy)
    return NodeLaw(kept, instead)


# the Categorical forms of ``law`` (the same for every rule whose rounds repeat one node: core.rule_law)
node_law, first_token_law, expected_accepted_drafts, distance = node_law_forms(law)
