"""The edge-case gallery as data: small scenarios, what happens, and the exact expected outcome.

Each card's ``expected`` maps a fact name to its exact value; ``observe(card)`` computes the same
facts from the library (``specviz.theory``, the core, ``specviz.lab.float_verifier``), and a test
asserts that they agree. Fact names:

``alpha``                 sum_x min(p, q) at the first position
``mean tokens``           expected committed tokens per round (exact enumeration)
``expected tokens (formula)``  (1 - alpha^(g+1)) / (1 - alpha)
``P(length = n)``         probability that the round commits n tokens
``P(first = t)``          probability that the first committed token is t
``P(t committed)``        probability that token t is in the committed block
``P(t accepted)``         probability that t is committed as an accepted draft
``P(t corrected)``        probability that t is committed as a correction (from the residual)
``P(bonus)``              probability that the round ends with a bonus token
``P(stop in draft)``      probability that an accepted stop token ends the block (no bonus)
``residual mass``         sum (p - q)+ at the first position: the rejection probability
``p(t)``                  the processed target's probability of t at the first position
``refused``               the name of the error the core raises for the scenario (or None)
``accept t exact`` / ``accept t engine <`` / ``accept t engine <=``  acceptance probability of a
                          drafted t by the exact verifier and by the float32 engine verifier
``accepted drafts (token|block)``  expected accepted drafts per round, tokenwise or block verification
``tokens per round (token|block)`` expected committed tokens per round under each verification
``ideal accepted drafts`` sum_k sum_{x^k} min(p(x^k), q(x^k)) for the start rows (context-free bound)
``P(block keeps n)``      probability that block verification keeps n drafts
``block exact``           block verification + target completion equals the target law exactly
``acceptance (rule)``     P(one node of the rule keeps a draft), e.g. ``acceptance (multi:2)``
``accepted drafts (rule)`` / ``tokens per round (rule)``  per round, for any rule of the registry
``optimum (K drafts)``    the best acceptance of any exact scheme with K i.i.d. drafts
``TV to p (rule)``        total variation between the rule's first committed token and p
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from . import theory
from .core import SpecvizError, acceptance
from .scenario import Scenario, Table

_WORDS = ("the", "cat", "sat", "on", "mat", ".")


class UnknownFactError(SpecvizError, KeyError):
    """A card asks for a fact the gallery does not compute (a typo in its expected keys)."""


@dataclass(frozen=True)
class Card:
    slug: str
    title: str
    text: str
    scenario: Scenario
    expected: dict[str, Any]
    opens: str = "playground"  # the page the card's button opens: "playground", or "rules" (the lab's rules view)


def _s(target: tuple, draft: tuple, vocab: tuple[str, ...] = ("a", "b", "c", "d"), **kw: Any) -> Scenario:
    return Scenario(vocab=vocab, target=Table(target), draft=Table(draft), **kw)


F = Fraction

CARDS: tuple[Card, ...] = (
    Card("p-equals-q", "p = q: always accepted",
         "The draft is the target. Every acceptance probability min(1, p/q) is 1, so every draft is accepted "
         "and every round commits depth + 1 tokens. The residual (p − q)+ has no mass and is never needed.",
         _s((4, 3, 2, 1), (4, 3, 2, 1), depth=3),
         {"alpha": F(1), "residual mass": F(0), "P(length = 4)": F(1), "P(bonus)": F(1), "mean tokens": F(4)}),
    Card("disjoint", "Disjoint supports: always rejected",
         "q only proposes c and d, which p forbids: min(1, p/q) = 0 for every draft. Each round rejects its first "
         "draft and commits one correction drawn from the residual, which here is p itself.",
         _s((1, 2, 0, 0), (0, 0, 1, 1), depth=3),
         {"alpha": F(0), "P(length = 1)": F(1), "P(first = a)": F(1, 3), "P(first = b)": F(2, 3),
          "P(c committed)": F(0), "P(d committed)": F(0)}),
    Card("q-zero", "q is zero where p is positive",
         "The draft never proposes c, yet the target gives it mass 1/4. Only the residual can produce c: after a "
         "rejection, (p − q)+ puts its mass where q falls short of p. The first token is still distributed as p.",
         _s((1, 1, 2, 0), (1, 1, 0, 0), depth=2),
         {"P(c accepted)": F(0), "P(first = c)": F(1, 2), "P(first = a)": F(1, 4), "alpha": F(1, 2)}),
    Card("p-zero", "p is zero where q is positive: a mask",
         "A grammar mask forbids d in the target, so p(d) = 0 while the draft still likes d. Drafting d gives "
         "acceptance min(1, 0/q) = 0: d is always rejected and never emitted.",
         _s((1, 1, 1, 1), (1, 1, 1, 3), depth=3, target_mask=(True, True, True, False)),
         {"p(d)": F(0), "P(d committed)": F(0), "P(first = a)": F(1, 3), "alpha": F(1, 2)}),
    Card("topk-excludes-mode", "A top-k draft that excludes the target's mode",
         "The target's favourite is b, but the draft keeps only its top 2 tokens, a and c. b is never drafted; "
         "it appears exactly as often as p says, all of it through corrections.",
         _s((1, 4, 2, 1), (4, 1, 3, 2), depth=2, draft_topk=2),
         {"P(b accepted)": F(0), "P(first = b)": F(1, 2), "alpha": F(3, 8),
          # corrections at position 0 (5/8 * 4/5) and 1 (3/8 * 5/8 * 4/5); the rest of b is bonus tokens
          "P(b corrected)": F(11, 16), "P(b committed)": F(11, 16) + F(3, 8) ** 2 * F(1, 2)}),
    Card("one-hot", "A one-hot draft (prompt lookup)",
         "Prompt lookup proposes the continuation it found in the prompt with certainty: q is one-hot on b. The "
         "draft is accepted with probability p(b), so alpha = p(b); on rejection the residual is p without b.",
         _s((2, 5, 2, 1), (0, 1, 0, 0), depth=3),
         {"alpha": F(1, 2), "P(first = b)": F(1, 2), "P(length = 4)": F(1, 8), "residual mass": F(1, 2)}),
    Card("stop-in-draft", "A stop token inside the draft",
         "“.” is a stop token and the draft likes it. When the draft proposes it, drafting ends early; when "
         "the verifier accepts it the block ends there: no bonus token, and the request stops.",
         _s((3, 3, 2), (1, 1, 4), vocab=("cat", "sat", "."), depth=3, stop_ids=frozenset({2})),
         # each position: draft "." (2/3) accepted with 3/8, or cat/sat (1/3) always accepted
         {"P(stop in draft)": F(1, 4) * (1 + F(1, 3) + F(1, 9)), "alpha": F(7, 12)}),
    Card("fp32-tiny", "FP32 quantization of tiny weights",
         "With the FP32 switch on, weights are rounded to float32 before the exact stage. 1e-46 is below the "
         "smallest float32 (about 1.4e-45) and becomes 0: b can never be emitted. 1e-40 survives as a "
         "subnormal, with fewer significant bits, and keeps its (tiny) mass exactly.",
         _s((1.0, 1e-46, 1e-40, 1.0), (1.0, 1.0, 1.0, 1.0), depth=2, fp32=True),
         {"p(b)": F(0), "P(b committed)": F(0), "p(c) > 0": True}),
    Card("mask-all", "A mask that removes every token",
         "The target's mask allows nothing, so the target distribution would be empty. The core refuses the "
         "round with an explanation instead of quietly falling back to the draft or to target-only sampling.",
         _s((1, 1, 1, 1), (1, 1, 1, 1), depth=2, target_mask=(False, False, False, False)),
         {"refused": "SupportError"}),
    Card("boundary", "Equal draws on the acceptance boundary",
         "p(a)/q(a) = 1/2. The exact verifier draws an integer in {0, 1} and accepts when it is < 1: exactly 1/2. "
         "An engine's float32 u on the grid k/2^24 accepts with 1/2 under u < p/q but 1/2 + 2^-24 under "
         "u <= p/q: the draw u = 1/2 sits on the boundary.",
         _s((1, 1), (2, 0), vocab=("a", "b"), depth=1),
         {"accept a exact": F(1, 2), "accept a engine <": F(1, 2), "accept a engine <=": F(1, 2) + F(1, 2**24)}),
    Card("deep-bonus", "Depth 5 with alpha near 1: the bonus token",
         "q is almost p (alpha = 19/20), so most rounds accept all five drafts and then draw a sixth, bonus token "
         "from p. Expected tokens per round: (1 − α^6)/(1 − α) ≈ 5.30, matched exactly by the enumeration.",
         _s((5, 5, 5, 5), (6, 5, 5, 4), depth=5),
         {"alpha": F(19, 20), "P(bonus)": F(19, 20) ** 5, "mean tokens": theory.expected_tokens(F(19, 20), 5),
          "expected tokens (formula)": theory.expected_tokens(F(19, 20), 5)}),
    Card("block-verification", "Block verification: the paper's example",
         "p = (1/3, 2/3), q = (2/3, 1/3), two drafts per round (Sun et al., ICLR 2025). Tokenwise verification "
         "accepts each draft on its own with min(1, p/q): 10/9 drafts per round. Block verification judges the "
         "block jointly: after b (p/q = 2) a following a (p/q = 1/2) is still kept with probability 1/2, so it "
         "keeps 11/9, with the same exact target law. A verifier that knew the joint block probabilities "
         "could reach 12/9.",
         _s((1, 2), (2, 1), vocab=("a", "b"), depth=2, verification="block"),
         {"accepted drafts (token)": F(10, 9), "accepted drafts (block)": F(11, 9),
          "ideal accepted drafts": F(12, 9), "tokens per round (token)": F(19, 9),
          "tokens per round (block)": F(20, 9), "P(block keeps 0)": F(1, 3), "P(block keeps 2)": F(5, 9),
          "block exact": True}),
    Card("verification-rules", "Every verification rule on the paper's example",
         "The same p = (1/3, 2/3) and q = (2/3, 1/3) under the rules engines run. One draft is kept with 2/3; "
         "two i.i.d. drafts with recursive rejection (a tree, as in SpecInfer) 7/9, three 23/27, and no exact "
         "rule with two i.i.d. drafts can pass 8/9. Two distinct drafts always keep one. Exact match of the "
         "target's own sample keeps 4/9, a greedy draft 1/3: all of these commit exactly p. Medusa's typical "
         "acceptance with ε = 0.09 keeps every draft and commits q: total variation 1/3 from p.",
         _s((1, 2), (2, 1), vocab=("a", "b"), depth=2),
         {"acceptance (token)": F(2, 3), "acceptance (multi:2)": F(7, 9), "acceptance (multi:3)": F(23, 27),
          "optimum (2 drafts)": F(8, 9), "acceptance (multi-distinct:2)": F(1), "acceptance (exact-match)": F(4, 9),
          "acceptance (greedy-draft)": F(1, 3), "accepted drafts (multi:2)": F(112, 81),
          "TV to p (multi:2)": F(0), "TV to p (typical:0.09)": F(1, 3)},
         opens="rules"),
    Card("engine-rules", "Rules engines ship: ensemble and SGLang's thresholds",
         "The paper's p = (1/3, 2/3) and q = (2/3, 1/3) under two rules engines run. transformers' ensemble with "
         "W = 0.5 judges a draft against v = W·p + (1 − W)·q and corrects from (p − q)+: it keeps 5/6 of the "
         "drafts but commits v = (1/2, 1/2), at total variation 1/6 from p. SGLang's default thresholds "
         "(S = A = 1) never read q: a draft is kept when the target's own sample is that draft, so the rule is "
         "exact with exact match's acceptance 4/9; lowering them (S = 0.5, A = 0.8) keeps 11/18 and costs 1/18 "
         "of total variation. Opens in the Playground with the ensemble on: step to a rejection, then open "
         "*Why exactly p*.",
         _s((1, 2), (2, 1), vocab=("a", "b"), depth=2, verification="ensemble:0.5"),
         {"acceptance (ensemble:0.5)": F(5, 6), "P(first = a) under ensemble:0.5": F(1, 2),
          "TV to p (ensemble:0.5)": F(1, 6), "accepted drafts (ensemble:0.5)": F(55, 36),
          "acceptance (threshold:1,1)": F(4, 9), "acceptance (exact-match)": F(4, 9),
          "TV to p (threshold:1,1)": F(0), "acceptance (threshold:0.5,0.8)": F(11, 18),
          "TV to p (threshold:0.5,0.8)": F(1, 18)}),
    Card("lookup-tree-exact-match", "A lookup tree by exact match",
         "Prompt lookup has no draft distribution: after \"the cat\" three earlier lines went on with the, cat and "
         "sat, so q is uniform over those three (invented) and p = (.4, .3, .2, .1). A chain drawn from that q and "
         "checked by exact match keeps 3/10 (Σ p·q); a tree of three distinct drafts holds every candidate, and "
         "exact match keeps the child the target's own sample takes: 9/10, p's mass on the candidates. Recursive "
         "rejection sampling over the same tree also keeps 9/10, with the same law: what exact match adds is that "
         "on every draw it commits at least what its chain commits on the same draws. Both commit exactly p.",
         _s((4, 3, 2, 1), (1, 1, 1, 0), vocab=("the", "cat", "sat", "on"), depth=2, verification="exact-match:3"),
         {"acceptance (exact-match)": F(3, 10), "acceptance (exact-match:3)": F(9, 10),
          "acceptance (multi-distinct:3)": F(9, 10), "acceptance (token)": F(5, 6),
          "TV to p (exact-match:3)": F(0), "TV to p (exact-match)": F(0)}),
    Card("medusa-typical", "Medusa's typical acceptance as Medusa runs it",
         "p = (.90, .04, .03, .02, .01) and a uniform draft. Medusa keeps a draft x when p(x) > min(ε, δ·exp(−H)) "
         "with H = −Σ p log(p + 1e-5) and δ = 0.3 (medusa_generate's posterior_alpha; √0.09 is 0.3 too): at "
         "ε = 0.09 only a passes, and after a rejection Medusa commits argmax p (fast=True, its default). Every "
         "first token is a: total variation 1/10 from p. The project's earlier typical:0.09 sampled p after a "
         "rejection and was at 1/50; old typical:EPS links now open Medusa's rule.",
         _s((90, 4, 3, 2, 1), (1, 1, 1, 1, 1), vocab=("a", "b", "c", "d", "e"), depth=2, verification="typical:0.09"),
         {"acceptance (typical:0.09)": F(1, 5), "P(first = a) under typical:0.09": F(1),
          "TV to p (typical:0.09)": F(1, 10), "TV to p (typical-sample:0.09)": F(1, 10),
          "TV to p (typical:0.09,0.3)": F(1, 10), "accepted drafts (typical:0.09)": F(6, 25)}),
    Card("sglang-top-k", "SGLang's thresholds on its own top-K drafts",
         "p = (2, 1, 1, 0, 4)/8 and q = (1, 1, 1, 1, 4)/8 under SGLang's thresholds S = 1/4, A = 1/2 with two drafts "
         "per node. As SGLang runs (sglang:S,A,K), the drafts are q's two most likely tokens, e then a, and "
         "p(e) = 1/2 ≥ S keeps e whatever the coin: every first token is e, at total variation 1/2 from p. On two "
         "drafts sampled from q (threshold:S,A,K) the same thresholds are at 65/294. At SGLang's default S = A = 1 "
         "both are exact. Opens in the Playground with SGLang's top-K drafting on.",
         _s((2, 1, 1, 0, 4), (1, 1, 1, 1, 4), vocab=("a", "b", "c", "d", "e"), depth=2,
            verification="sglang:0.25,0.5,2"),
         {"TV to p (sglang:1/4,1/2,2)": F(1, 2), "P(first = e) under sglang:1/4,1/2,2": F(1),
          "TV to p (threshold:1/4,1/2,2)": F(65, 294), "TV to p (sglang:1,1,2)": F(0),
          "TV to p (threshold:1,1,2)": F(0), "acceptance (sglang:1/4,1/2,2)": F(1)}),
    Card("traversal", "Traversal verification: the leaves first",
         "The paper's p = (1/3, 2/3) and q = (2/3, 1/3), a tree of two i.i.d. drafts per node, two levels. Recursive "
         "rejection sampling checks it from the root and keeps 112/81 drafts per round; traversal verification "
         "(Weng et al. 2025) tests it from the leaves up, each node against the weight of its whole path, and keeps "
         "118/81 from the same trees, both exactly p. With one draft per node it keeps block verification's 11/9. "
         "Opens in the lab's rules view.",
         _s((1, 2), (2, 1), vocab=("a", "b"), depth=2, verification="multi:2"),
         {"accepted drafts (multi:2)": F(112, 81), "accepted drafts (traversal:2)": F(118, 81),
          "accepted drafts (traversal:1)": F(11, 9), "accepted drafts (block)": F(11, 9),
          "accepted drafts (traversal-distinct:2)": F(2), "TV to p (traversal:2)": F(0)},
         opens="rules"),
)

BY_SLUG: dict[str, Card] = {c.slug: c for c in CARDS}


def _token(scenario: Scenario, label: str) -> int:
    return scenario.vocab.index(label)


@dataclass(frozen=True)
class _Seen:
    """What every fact of one scenario is computed from."""

    scenario: Scenario
    analysis: theory.RoundAnalysis | None  # None: the scenario's rule is not enumerated (the engine rules)
    p: Any
    q: Any


def observe(card: Card | Scenario, keys: list[str] | None = None) -> dict[str, Any]:
    """The facts named in keys (default: the card's expected keys), computed from the library."""
    scenario = card.scenario if isinstance(card, Card) else card
    keys = list(card.expected) if keys is None and isinstance(card, Card) else list(keys or ())
    try:
        analysis = theory.analyze_round(scenario) if theory.can_enumerate(scenario.verification) else None
        p, q = scenario.processor()((), scenario.target_model()(())), scenario.draft_model()(())
    except SpecvizError as error:
        return {k: (type(error).__name__ if k == "refused" else None) for k in keys}
    seen = _Seen(scenario, analysis, p, q)
    out: dict[str, Any] = {}
    for key in keys:
        found, value = _round_fact(key, seen)
        if not found:
            found, value = _rule_fact(key, seen)
        if not found:
            raise UnknownFactError(f"unknown gallery fact {key!r}")
        out[key] = value
    return out


def _ending(seen: _Seen, ending: str) -> Fraction:
    return sum((pr for o, pr in seen.analysis.outcomes.items() if o.ending == ending), Fraction(0))


def _token_fact(seen: _Seen, label: str, how: str) -> Fraction:
    """P(t committed | accepted | corrected) over the round's outcomes."""
    t, total = _token(seen.scenario, label), Fraction(0)
    for o, pr in seen.analysis.outcomes.items():
        accepted, rest = o.tokens[: o.accepted], o.tokens[o.accepted:]
        corrected = rest[:1] if o.ending == "correction" else ()
        hit = {"committed": t in o.tokens, "accepted": t in accepted, "corrected": t in corrected}[how]
        total += pr if hit else 0
    return total


def _round_fact(key: str, seen: _Seen) -> tuple[bool, Any]:
    """Facts read off the enumerated round; (False, None) for a key this does not know (or, for a rule theory
    does not enumerate, for every key: its facts come from the rule's own laws)."""
    if key == "refused":
        return True, None
    if seen.analysis is None:
        return False, None
    blocks, scenario = seen.analysis.blocks, seen.scenario
    if key == "mean tokens":
        return True, theory.mean_length(blocks)
    if key in ("P(bonus)", "P(stop in draft)"):
        return True, _ending(seen, "bonus" if key == "P(bonus)" else "stop")
    if m := re.fullmatch(r"P\(length = (\d+)\)", key):
        lengths = theory.length_distribution(blocks, scenario.depth)
        n = int(m.group(1))
        return True, lengths[n] if n < len(lengths) else Fraction(0)
    if m := re.fullmatch(r"P\(first = (.+)\)", key):
        return True, theory.first_token_marginal(blocks, scenario.vocab_size)[_token(scenario, m.group(1))]
    if m := re.fullmatch(r"P\((.+) (committed|accepted|corrected)\)", key):
        return True, _token_fact(seen, m.group(1), m.group(2))
    if m := re.fullmatch(r"P\(block keeps (\d+)\)", key):
        block = theory.analyze_round(scenario, verification="block")
        return True, sum((pr for o, pr in block.outcomes.items() if o.accepted == int(m.group(1))), Fraction(0))
    return False, None


def _rule_fact(key: str, seen: _Seen) -> tuple[bool, Any]:
    """Facts from theory's closed forms and the rules; (False, None) for a key this does not know."""
    scenario, p, q = seen.scenario, seen.p, seen.q
    if key in ("alpha", "residual mass", "expected tokens (formula)"):
        a = theory.alpha(p, q)
        return True, {"alpha": a, "residual mass": 1 - a, "expected tokens (formula)":
                      theory.expected_tokens(a, scenario.depth)}[key]
    if m := re.fullmatch(r"p\((.+)\)( > 0)?", key):
        value = p.prob(_token(scenario, m.group(1)))
        return True, value > 0 if m.group(2) else value
    if m := re.fullmatch(r"(accepted drafts|tokens per round) \((.+)\)", key):
        expectation = theory.round_expectation(scenario, verification=m.group(2))
        return True, expectation.accepted_drafts if m.group(1) == "accepted drafts" else expectation.tokens
    if key == "ideal accepted drafts":
        return True, theory.ideal_accepted_drafts(p, q, scenario.depth)
    if key == "block exact":
        return True, theory.exactness_report(scenario, verification="block").exact
    if m := re.fullmatch(r"acceptance \((.+)\)", key):
        return True, theory.node_law(m.group(1), p, q).acceptance
    if m := re.fullmatch(r"optimum \((\d+) drafts\)", key):
        return True, theory.optimal_multi_draft_acceptance(p, q, int(m.group(1)))
    if m := re.fullmatch(r"P\(first = (.+?)\) under (.+)", key):
        return True, theory.first_token_law(p, q, m.group(2))[_token(scenario, m.group(1))]
    if m := re.fullmatch(r"TV to p \((.+)\)", key):
        return True, theory.law_distance(theory.first_token_law(p, q, m.group(1)), p)
    if m := re.fullmatch(r"accept (.+) (exact|engine <|engine <=)", key):
        from .lab import float_verifier as fv

        t = _token(scenario, m.group(1))
        if m.group(2) == "exact":
            return True, acceptance(p, q, t)
        ratio = fv.ratio32(fv.to_float32(p), fv.to_float32(q), t)
        return True, fv.acceptance_probability32(ratio, m.group(2).split()[1])
    return False, None


def check(card: Card) -> dict[str, tuple[Any, Any]]:
    """Facts that disagree: {key: (expected, observed)}; empty when the card's outcome holds."""
    seen = observe(card)
    return {k: (v, seen.get(k)) for k, v in card.expected.items() if seen.get(k) != v}


def format_fact(value: Any) -> str:
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return str(value.numerator)
        text = f"{value.numerator}/{value.denominator}"
        return text if len(text) <= 24 else f"≈ {float(value):.6g}"
    return str(value)


def _digits(text: str) -> int:
    """Significant digits of a decimal text such as '0.5000001' or '5.298' (7 and 4)."""
    mantissa = text.split("e")[0].replace("-", "").replace(".", "").lstrip("0")
    return len(mantissa)


def short_fact(value: Any, width: int = 12) -> str:
    """A fact for a narrow card: exact when it fits in ``width`` characters, else a decimal with at least
    4 significant digits and as many more as it takes not to look round (8388609/16777216 is ≈ 0.50000006,
    never ≈ 0.5)."""
    text = format_fact(value)
    if not isinstance(value, Fraction) or len(f"{value.numerator}/{value.denominator}") <= width:
        return text
    number = float(value)
    for digits in range(4, 13):
        decimal = f"{number:.{digits}g}"
        if _digits(decimal) >= digits:
            break
    return f"≈ {decimal}"


def fact_table(card: Card, seen: dict[str, Any], width: int = 12) -> tuple[list[dict[str, str]], list[str]]:
    """A card's table: the verdict first (so a narrow card never hides it), then the fact, expected and
    computed values (long fractions as decimals); and, for a caption, the exact text of every shortened value.

    The verdict compares the exact values, never the shortened text.
    """
    rows, exact = [], []
    for fact, value in card.expected.items():
        got = seen.get(fact)
        rows.append({"": "✓" if got == value else "✗", "fact": fact, "expected": short_fact(value, width),
                     "computed": short_fact(got, width)})
        for label, item in (("expected", value), ("computed", got)):
            if short_fact(item, width) != format_fact(item) and not (label == "computed" and got == value):
                exact.append(f"{fact}: {item}" if label == "expected" else f"{fact} (computed): {item}")
    return rows, exact
