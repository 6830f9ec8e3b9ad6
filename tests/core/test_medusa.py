"""Medusa's typical acceptance as Medusa runs it (typical:EPS[,DELTA], typical-sample:...): the exact law given the
float64 threshold, the issue's numbers, and Medusa's own evaluate_posterior."""

import math
from fractions import Fraction as F

import numpy as np
import pytest
from engine_medusa import evaluate_posterior_fast, inverse_cdf, medusa_round
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rule_play import OWNER, accepted_law, chi_square_pvalue, first_token, mean_accepted, monte_carlo, pairs, played_law
from rule_play import probs as probs_of

from specviz.core import Categorical, RandomStreams, Trace, propose, propose_tree
from specviz.core import medusa as M
from specviz.core.errors import BlockError, RuleParameterError, SupportError

P, Q = Categorical.dense([1, 2]), Categorical.dense([2, 1])  # Sun et al.'s example: p = (1/3, 2/3), q = (2/3, 1/3)
ISSUE_P = Categorical.dense([90, 4, 3, 2, 1])  # the issue's p = (.90, .04, .03, .02, .01)
UNIFORM = Categorical.dense([1] * 5)
NAMES = st.sampled_from(["typical:0.09", "typical:0.09,0.3", "typical:0.2,0.1", "typical:0.3",
                         "typical-sample:0.09", "typical-sample:0.2,0.5", "typical-sample:0.05,0.9"])


def old_rule_law(p, q, eps):
    """The project's earlier typical:EPS, written out: keep x ~ q when p(x) > min(ε, √ε·exp(−H)) (exact H, no 1e-5);
    after a rejection a sample of the full p."""
    pp, qq = probs_of(p), probs_of(q)
    h = -sum(float(v) * math.log(float(v)) for v in pp if v)
    threshold = min(float(eps), math.sqrt(float(eps)) * math.exp(-h))
    kept = [b if float(a) > threshold else F(0) for a, b in zip(pp, qq)]
    miss = 1 - sum(kept)
    return tuple(k + miss * a for k, a in zip(kept, pp))


def tv(a, b):
    return sum(abs(x - y) for x, y in zip(a, b)) / 2


# --- the exact values -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["typical:0.09", "typical:0.09,0.3", "typical-sample:0.09"])
def test_the_issue_numbers(name):
    """p = (.90, .04, .03, .02, .01), ε = 0.09, q uniform: Medusa's rule commits token 0 always (TV 0.10), where the
    project's old rule gave TV 0.02."""
    s = M.parse_typical(name)
    assert M.typical_threshold(ISSUE_P, s).value == F(9, 100)  # min(ε, δ·e^−H) = ε: δ·e^−H ≈ 0.19
    assert M.first_token_law(ISSUE_P, UNIFORM, s) == (1, 0, 0, 0, 0)
    assert M.distance(ISSUE_P, UNIFORM, s) == F(1, 10)
    assert M.node_law(ISSUE_P, UNIFORM, s).acceptance == F(1, 5)  # only token 0 passes
    assert tv(old_rule_law(ISSUE_P, UNIFORM, F(9, 100)), probs_of(ISSUE_P)) == F(1, 50)
    # with q = p the old rule gives 0.09 and Medusa's still 0.10
    assert tv(old_rule_law(ISSUE_P, ISSUE_P, F(9, 100)), probs_of(ISSUE_P)) == F(9, 100)
    assert M.distance(ISSUE_P, ISSUE_P, s) == F(1, 10)


def test_sun_example():
    fast = M.parse_typical("typical:0.09")  # both tokens are above the threshold: every draft passes
    assert M.node_law(P, Q, fast).acceptance == 1
    assert M.first_token_law(P, Q, fast) == (F(2, 3), F(1, 3))  # q itself
    assert M.distance(P, Q, fast) == F(1, 3)
    assert M.expected_accepted_drafts(P, Q, 2, fast) == 2
    sample = M.parse_typical("typical-sample:0.09")  # kept when Medusa's sample of t = p matches: sum q·p = 4/9
    assert M.node_law(P, Q, sample).acceptance == F(4, 9)
    assert M.first_token_law(P, Q, sample) == (F(11, 27), F(16, 27))  # q·p + (5/9)·p
    assert M.distance(P, Q, sample) == F(2, 27)


def test_delta_is_its_own_setting():
    p, q = Categorical.dense([60, 20, 10, 10]), Categorical.dense([1, 1, 1, 1])
    root = M.parse_typical("typical:0.15,sqrt")  # δ = √0.15 ≈ 0.387: T ≈ 0.130, so the 0.1 tokens fail
    low = M.parse_typical("typical:0.15,0.2")  # δ = 0.2: T ≈ 0.067, every token passes
    default = M.parse_typical("typical:0.15")  # δ = 0.3, medusa_generate's posterior_alpha: T ≈ 0.101 > 0.1
    assert root.delta_float == math.sqrt(0.15) and low.delta_float == 0.2 and default.delta_float == 0.3
    assert float(M.typical_threshold(p, root).value) == pytest.approx(0.1303, abs=1e-4)
    assert M.node_law(p, q, root).acceptance == F(1, 2)
    assert M.node_law(p, q, low).acceptance == 1
    assert float(M.typical_threshold(p, default).value) == pytest.approx(0.1010, abs=1e-4)
    assert M.node_law(p, q, default).acceptance == F(1, 2)
    assert M.typical_threshold(p, M.parse_typical("typical:0.09,sqrt")) == M.typical_threshold(
        p, M.parse_typical("typical:0.09"))  # math.sqrt(0.09) is the float 0.3


def test_the_default_delta_is_medusa_generates_and_old_names_say_it_changed():
    """medusa_generate(posterior_threshold=0.09, posterior_alpha=0.3, ...): δ = 0.3 whatever ε, √ε only a comment."""
    assert M.parse_typical("typical:0.05").delta == F(3, 10) == M.parse_typical("typical:0.05,0.3").delta
    assert M.parse_typical("typical:0.05,sqrt").delta is None
    assert M.delta_note("typical:0.05") == ("‘typical:0.05’ now uses Medusa's default δ = 0.3, as medusa_generate "
                                            "does (it was √ε ≈ 0.2236); ‘typical:0.05,sqrt’ keeps δ = √ε")
    assert "the same number here" in M.delta_note("typical:0.09")
    assert M.delta_note("typical:0.05,0.3") is None and M.delta_note("typical:0.05,sqrt") is None
    assert M.delta_note("token") is None and M.delta_note("typical:zero") is None and M.delta_note(None) is None


@settings(max_examples=60, deadline=None)
@given(pairs(2, 5), NAMES)
def test_threshold_is_medusas_formula_in_float64(pq, name):
    p, _ = pq
    s = M.parse_typical(name)
    found = M.typical_threshold(p, s)
    pf = np.array([float(v) for v in probs_of(p)])
    entropy = -float(np.sum(pf * np.log(pf + 1e-5)))
    assert found.entropy == pytest.approx(entropy, rel=1e-12, abs=1e-15)
    assert found.entropy_term == pytest.approx(s.delta_float * math.exp(-entropy), rel=1e-12)
    assert found.value == min(s.eps, F(found.entropy_term))


@settings(max_examples=60, deadline=None)
@given(pairs(2, 5), NAMES)
def test_node_law_is_a_distribution(pq, name):
    p, q = pq
    s = M.parse_typical(name)
    try:
        law = M.node_law(p, q, s)
    except M.TypicalSupportError:
        assume(False)
    committed = law.committed(p.vocab_size)
    assert sum(committed) == 1 and all(v >= 0 for v in committed)
    if s.fast:  # after a rejection only argmax p is ever committed
        top = max(range(p.vocab_size), key=lambda x: (p.prob(x), -x))
        assert set(law.instead) <= {top}


# --- the verifier -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["typical:0.09", "typical:0.4,0.5", "typical-sample:0.09", "typical-sample:0.4,1"])
@pytest.mark.parametrize("pq", [([1, 2], [2, 1]), ([1, 1, 2], [2, 1, 1]), ([4, 1, 1], [1, 1, 2])])
def test_the_code_commits_the_exact_law(name, pq):
    p, q = Categorical.dense(pq[0]), Categorical.dense(pq[1])
    s = M.parse_typical(name)
    law = played_law(M.MedusaVerifier, p, q, 2, settings=s)
    assert first_token(law, p.vocab_size) == M.first_token_law(p, q, s)
    assert mean_accepted(law) == M.expected_accepted_drafts(p, q, 2, s)


@pytest.mark.parametrize("name", ["typical:0.2", "typical-sample:0.2,0.5"])
def test_monte_carlo_matches_the_law(name):
    p, q = Categorical.dense([5, 2, 2, 1]), Categorical.dense([2, 2, 1, 1])
    s = M.parse_typical(name)
    first, kept = monte_carlo(M.MedusaVerifier.bound(s), p, q, 2, 2500, seed=9)
    assert chi_square_pvalue(first, M.first_token_law(p, q, s)) > 1e-4
    assert chi_square_pvalue(kept, accepted_law(M.node_law(p, q, s).acceptance, 2)) > 1e-4


def test_trace_records_the_threshold():
    s = M.parse_typical("typical:0.3,0.5")
    p, q = Categorical.dense([5, 2, 2, 1]), Categorical.dense([2, 2, 1, 1])
    kinds = set()
    for seed in range(30):
        streams = RandomStreams(seed, OWNER, 0)
        block = propose(lambda c: q, (), streams, depth=2, context_id="c")
        trace = Trace()
        M.MedusaVerifier(OWNER, (), "c", lambda c: p, settings=s).verify(block, streams, trace=trace)
        threshold = M.typical_threshold(p, s)
        for e in trace:
            kinds.add(e.kind)
            if e.kind == "check":
                assert isinstance(e, M.MedusaCheckEvent) and e.threshold == threshold.value
                assert e.acceptance == (1 if e.p_token > e.threshold else 0) and e.draw_range == 1
            if e.kind == "correction":
                assert isinstance(e, M.MedusaCorrectionEvent) and e.residual.ids == (0,) and e.token == 0
            if e.kind == "bonus":
                assert isinstance(e, M.MedusaBonusEvent) and e.token == 0 and e.drawn_from.ids == (0,)
        assert trace.to_json()
    assert {"check", "correction", "bonus"} <= kinds


def test_an_empty_truncation_is_refused_in_words():
    flat = Categorical.dense([1] * 1000)  # e^−H with Medusa's 1e-5 is 0.00101 > every p(x) = 0.001 when δ = 1
    with pytest.raises(M.TypicalSupportError, match="removes every token") as info:
        M.node_law(flat, flat, M.parse_typical("typical-sample:0.5,1"))
    assert isinstance(info.value, SupportError)
    assert M.node_law(flat, flat, M.parse_typical("typical:0.5,1")).acceptance == 0  # fast: argmax, no truncation


def test_trees_are_refused():
    streams = RandomStreams(1, OWNER, 0)
    tree = propose_tree(lambda c: Q, (), streams, depth=1, width=2, context_id="c")
    with pytest.raises(BlockError, match="verifies a chain .* Medusa keeps the longest accepted path"):
        M.MedusaVerifier(OWNER, (), "c", lambda c: P).verify(tree, streams)


# --- the engine's own code --------------------------------------------------------------------------------


def _rows(p, g):
    return np.array([[float(v) for v in probs_of(p)]] * (g + 1))


@settings(max_examples=100, deadline=None)
@given(pairs(2, 5), st.sampled_from(["typical:0.09", "typical:0.09,0.3", "typical:0.2,0.1", "typical:0.3",
                                     "typical:0.5,0.9"]), st.integers(0, 10**6), st.integers(1, 4))
def test_medusa_code_makes_the_same_decisions(pq, name, seed, depth):
    """fast=True is deterministic: Medusa's evaluate_posterior and argmax commit exactly what the verifier does
    (away from float ties: every p(x) farther than 1e-5 from the threshold, no tie for the argmax)."""
    p, q = pq
    s = M.parse_typical(name)
    threshold = float(M.typical_threshold(p, s).value)
    pp = [float(v) for v in probs_of(p)]
    assume(all(abs(v - threshold) > 1e-5 for v in pp))
    assume(sorted(pp)[-1] - sorted(pp)[-2] > 1e-6)
    streams = RandomStreams(seed, OWNER, 0)
    block = propose(lambda c: q, (), streams, depth=depth, context_id="c")
    result = M.MedusaVerifier(OWNER, (), "c", lambda c: p, settings=s).verify(block, streams)
    drafts = [x.token for x in block.proposals]
    with np.errstate(divide="ignore"):
        tokens, accept_length = medusa_round(_rows(p, depth), drafts, float(s.eps), s.delta_float, True, None)
    assert (tokens, accept_length) == (result.tokens, result.accepted_drafts)


def test_medusa_threshold_in_float32_is_close():
    p = ISSUE_P
    pf = np.array([float(v) for v in probs_of(p)], dtype=np.float32)
    entropy = -np.sum(pf * np.log(pf + np.float32(1e-5)))
    assert float(entropy) == pytest.approx(M.typical_threshold(p, M.parse_typical("typical:0.09")).entropy, rel=1e-6)
    with np.errstate(divide="ignore"):
        best, length = evaluate_posterior_fast(np.log(pf)[None, None].repeat(2, axis=1), np.array([[0, 0]]), 1.0,
                                               0.09, 0.3)
    assert (best, length) == (0, 1)  # token 0 passes (0.9 > 0.09)


@pytest.mark.parametrize("name", ["typical-sample:0.2,0.5", "typical-sample:0.09"])
def test_medusa_code_simulated_matches_the_law(name):
    """fast=False (get_typical_posterior_mask and get_typical_one_token, with the mask's call fixed): Medusa's code on
    numpy's generator commits the first token by the exact law."""
    p, q = Categorical.dense([5, 2, 2, 1]), Categorical.dense([2, 2, 1, 1])
    s = M.parse_typical(name)
    rng = np.random.default_rng(23)
    qf = np.array([float(v) for v in probs_of(q)])
    first, kept = [0] * 4, [0, 0, 0]
    with np.errstate(divide="ignore"):
        for _ in range(4000):
            drafts = [int(rng.choice(4, p=qf)) for _ in range(2)]
            tokens, n = medusa_round(_rows(p, 2), drafts, float(s.eps), s.delta_float, False,
                                     lambda probs_: inverse_cdf(probs_, rng.random()))
            first[tokens[0]] += 1
            kept[n] += 1
    assert chi_square_pvalue(first, M.first_token_law(p, q, s)) > 1e-4
    assert chi_square_pvalue(kept, accepted_law(M.node_law(p, q, s).acceptance, 2)) > 1e-4


# --- names ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, canonical, fast", [
    ("typical:0.09", "typical:0.09", True), ("typical:0.090,0.30", "typical:0.09", True),
    ("typical-sample:9e-2", "typical-sample:0.09", False), ("typical:0.5,1", "typical:0.5,1", True),
    ("typical:0.5,sqrt", "typical:0.5,sqrt", True)])
def test_one_canonical_spelling(text, canonical, fast):
    s = M.parse_typical(text)
    assert s.name == canonical and s.fast is fast and M.parse_typical(canonical) == s
    assert (s.delta is None) == text.endswith(",sqrt")


@pytest.mark.parametrize("text, says", [
    ("typical:1", "EPS (ε, Medusa's posterior_threshold) must be a number in (0, 1)"),
    ("typical:0", "(0, 1)"), ("typical:0.1,0", "DELTA (δ, Medusa's posterior_alpha, 0.3 when omitted; or sqrt for √ε)"),
    ("typical:0.1,1.5", "(0, 1]"), ("typical:0.1,0.2,0.3", "1 to 2 numbers"), ("medusa:0.1", "typical:EPS"),
    ("typical-sample:", "got ''")])
def test_bad_names_are_refused_in_words(text, says):
    with pytest.raises(RuleParameterError) as info:
        M.parse_typical(text)
    assert says in str(info.value)
