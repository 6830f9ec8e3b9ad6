"""ensemble:W (transformers' static ensemble verification): exact law, tokenwise at W = 1, and the engine's code."""

from fractions import Fraction as F

import numpy as np
import pytest
from engine_transformers import inverse_cdf, log_probs, speculative_sampling
from hypothesis import given, settings
from hypothesis import strategies as st
from rule_play import (
    OWNER,
    accepted_law,
    chi_square_pvalue,
    first_token,
    mean_accepted,
    monte_carlo,
    pairs,
    played_law,
    probs,
)

from specviz.core import Categorical, RandomStreams, Trace, Verifier, propose, propose_tree
from specviz.core import ensemble as E
from specviz.core.errors import BlockError, RuleParameterError, SessionError, VerificationError

P, Q = Categorical.dense([1, 2]), Categorical.dense([2, 1])  # Sun et al.'s example: p = (1/3, 2/3), q = (2/3, 1/3)
WEIGHTS = st.sampled_from(["1", "0.5", "0.25", "0.9", "0.1", "0.75"]).map(lambda w: E.parse_ensemble(f"ensemble:{w}"))


def tv(a, b):
    return sum(abs(x - y) for x, y in zip(a, b)) / 2


# --- the exact values -------------------------------------------------------------------------------------


def test_sun_example():
    half = E.parse_ensemble("ensemble:0.5")
    assert E.first_token_law(P, Q, half) == (F(1, 2), F(1, 2))  # v = p/2 + q/2
    assert E.node_law(P, Q, half).acceptance == F(5, 6)  # 1 - W·TV = 1 - 1/6
    assert E.expected_accepted_drafts(P, Q, 2, half) == F(55, 36)  # 5/6 + 25/36
    assert E.distance(P, Q, half) == F(1, 6)  # (1 - W)·TV(p, q)
    one = E.parse_ensemble("ensemble:1")
    assert E.first_token_law(P, Q, one) == (F(1, 3), F(2, 3))
    assert E.expected_accepted_drafts(P, Q, 2, one) == F(10, 9)  # tokenwise's
    assert E.distance(P, Q, one) == 0


@settings(max_examples=60, deadline=None)
@given(pairs(), WEIGHTS)
def test_commits_the_mixture(pq, s):
    p, q = pq
    w = s.weight
    law = E.first_token_law(p, q, s)
    assert law == tuple(w * a + (1 - w) * b for a, b in zip(probs(p), probs(q)))
    assert E.node_law(p, q, s).acceptance == 1 - w * tv(probs(p), probs(q))
    assert E.distance(p, q, s) == (1 - w) * tv(probs(p), probs(q))
    assert (E.distance(p, q, s) == 0) == (s.exact or p == q)


# --- the verifier -----------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(pairs(), st.integers(0, 10**6), st.integers(1, 4), st.sampled_from([frozenset(), frozenset({0})]))
def test_weight_one_is_tokenwise_draw_for_draw(pq, seed, depth, stops):
    p, q = pq
    out = []
    for cls in (Verifier, E.EnsembleVerifier):  # EnsembleVerifier's default settings: W = 1
        streams = RandomStreams(seed, OWNER, 3)
        block = propose(lambda c: q, (), streams, depth=depth, context_id="c", stop_ids=stops)
        trace = Trace()
        result = cls(OWNER, (), "c", lambda c: p, stop_ids=stops).verify(block, streams, trace=trace)
        out.append((result, [(e.kind, getattr(e, "draw", None), getattr(e, "draw_range", None),
                              getattr(e, "acceptance", None), getattr(e, "token", None)) for e in trace]))
    assert out[0] == out[1]


@pytest.mark.parametrize("w", ["0.5", "0.25", "1"])
@pytest.mark.parametrize("pq", [([1, 2], [2, 1]), ([1, 1, 2], [2, 1, 1]), ([0, 1, 1], [1, 1, 0])])
def test_the_code_commits_the_exact_law(w, pq):
    """Every draw sequence of the real propose + EnsembleVerifier: the first token follows v, the accepted
    drafts are the closed form."""
    p, q = Categorical.dense(pq[0]), Categorical.dense(pq[1])
    s = E.parse_ensemble(f"ensemble:{w}")
    law = played_law(E.EnsembleVerifier, p, q, 2, settings=s)
    assert sum(law.values()) == 1
    assert first_token(law, p.vocab_size) == E.first_token_law(p, q, s)
    assert mean_accepted(law) == E.expected_accepted_drafts(p, q, 2, s)


def test_monte_carlo_matches_the_law():
    p, q = Categorical.dense([1, 2, 3, 0]), Categorical.dense([3, 1, 1, 2])
    s = E.parse_ensemble("ensemble:0.5")
    first, kept = monte_carlo(E.EnsembleVerifier.bound(s), p, q, 2, 3000, seed=5)
    assert chi_square_pvalue(first, E.first_token_law(p, q, s)) > 1e-4
    assert chi_square_pvalue(kept, accepted_law(E.node_law(p, q, s).acceptance, 2)) > 1e-4


def test_trace_records_the_rule():
    s = E.parse_ensemble("ensemble:0.25")
    streams = RandomStreams(7, OWNER, 0)
    block = propose(lambda c: Q, (), streams, depth=3, context_id="c")
    trace = Trace()
    E.EnsembleVerifier(OWNER, (), "c", lambda c: P, settings=s).verify(block, streams, trace=trace)
    checks = trace.of_kind("check")
    assert checks and all(isinstance(e, E.EnsembleCheckEvent) for e in checks)
    for e in checks:
        assert e.weight == F(1, 4)
        assert e.mixture_token == F(1, 4) * e.p_token + F(3, 4) * e.q_token
        assert e.acceptance == min(F(1), e.mixture_token / e.q_token)
        assert e.draw_range == e.acceptance.denominator and e.accepted == (e.draw < e.acceptance.numerator)
    assert trace.to_json()  # the extra fields serialize like the rest


# --- the engine's own code --------------------------------------------------------------------------------


def _engine_replay(p, q, block, trace, w):
    """transformers' _speculative_sampling fed the uniforms that the recorded integer draws stand for."""
    checks = [e for e in trace if e.kind == "check"]
    end = next(e for e in trace if e.kind in ("correction", "bonus"))
    g = len(block.proposals)
    r = [(e.draw + 0.5) / e.draw_range for e in checks] + [0.5] * (g - len(checks))
    u = (end.draw + 0.5) / end.draw_range
    p_rows = log_probs(np.array([[float(v) for v in probs(p)]] * (g + 1)))
    q_rows = log_probs(np.array([[float(v) for v in probs(q)]] * g))
    return speculative_sampling([x.token for x in block.proposals], q_rows, p_rows,
                                None if w == 1 else float(w), lambda n: np.array(r),
                                lambda probs_: inverse_cdf(probs_, u))


@settings(max_examples=80, deadline=None)
@given(pairs(), WEIGHTS, st.integers(0, 10**6), st.integers(1, 4))
def test_engine_code_makes_the_same_decisions(pq, s, seed, depth):
    """The same uniforms (u = (draw + 1/2)/range) drive transformers' code and the verifier to the same tokens."""
    p, q = pq
    streams = RandomStreams(seed, OWNER, 0)
    block = propose(lambda c: q, (), streams, depth=depth, context_id="c")
    trace = Trace()
    result = E.EnsembleVerifier(OWNER, (), "c", lambda c: p, settings=s).verify(block, streams, trace=trace)
    with np.errstate(divide="ignore", invalid="ignore"):
        tokens, n_matches = _engine_replay(p, q, block, trace, s.weight)
    assert tuple(tokens) == result.tokens and n_matches == result.accepted_drafts


@pytest.mark.parametrize("w", ["0.5", "0.2"])
def test_engine_code_simulated_matches_the_law(w):
    """transformers' code run on numpy's generator: its first committed token follows the exact law v."""
    p, q = Categorical.dense([1, 2, 3, 0]), Categorical.dense([3, 1, 1, 2])
    s = E.parse_ensemble(f"ensemble:{w}")
    rng = np.random.default_rng(11)
    pf, qf = np.array([float(v) for v in probs(p)]), np.array([float(v) for v in probs(q)])
    first, kept = [0] * 4, [0, 0, 0]
    with np.errstate(divide="ignore"):
        p_rows, q_rows = log_probs(np.array([pf] * 3)), log_probs(np.array([qf] * 2))
    for _ in range(6000):
        drafts = [int(rng.choice(4, p=qf)) for _ in range(2)]
        tokens, n = speculative_sampling(drafts, q_rows, p_rows, float(s.weight), rng.random,
                                         lambda probs_: inverse_cdf(probs_, rng.random()))
        first[tokens[0]] += 1
        kept[n] += 1
    assert chi_square_pvalue(first, E.first_token_law(p, q, s)) > 1e-4
    assert chi_square_pvalue(kept, accepted_law(E.node_law(p, q, s).acceptance, 2)) > 1e-4


# --- names, settings, sessions ----------------------------------------------------------------------------


@pytest.mark.parametrize("text, canonical", [("ensemble:0.5", "ensemble:0.5"), ("ensemble:0.50", "ensemble:0.5"),
                                             ("ensemble:5e-1", "ensemble:0.5"), ("ensemble:1.0", "ensemble:1"),
                                             ("ensemble:0.125", "ensemble:0.125"), ("ensemble:1e-3", "ensemble:0.001"),
                                             ("ensemble:.5", "ensemble:0.5"), ("ensemble:2/4", "ensemble:0.5"),
                                             ("ensemble:10/30", "ensemble:1/3"), ("ensemble:1e-31", "ensemble:1e-31"),
                                             ("ensemble:1/1", "ensemble:1")])
def test_one_canonical_spelling(text, canonical):
    s = E.parse_ensemble(text)
    assert s.name == canonical and E.parse_ensemble(canonical) == s
    assert E.EnsembleVerifier.bound(s) is E.EnsembleVerifier.bound(E.parse_ensemble(canonical))


@pytest.mark.parametrize("text, says", [
    ("ensemble:0", "(0, 1]"), ("ensemble:1.5", "(0, 1]"), ("ensemble:-0.5", "got '-0.5'"), ("ensemble:. 5", "ASCII"),
    ("ensemble:0.5,1", "one number"), ("ensemble:", "got ''"), ("ensemble:٠.5", "ASCII digits"),
    ("ensemble:1e-65", "exponent at most 64"), ("ensemble:1/0", "W (the ensemble weight) must be a number"),
    ("ensemble:" + "9" * 80, "at most 64 characters"), ("ensemble:nan", "W (the ensemble weight)"),
    ("token", "not of the form 'ensemble:W'"), (None, "must be a string")])
def test_bad_names_are_refused_in_words(text, says):
    with pytest.raises(RuleParameterError, match=None) as info:
        E.parse_ensemble(text)
    assert says in str(info.value)
    assert isinstance(info.value, VerificationError)


def test_session_rules_hold():
    streams = RandomStreams(1, OWNER, 0)
    block = propose(lambda c: Q, (), streams, depth=2, context_id="c")
    verifier = E.EnsembleVerifier(OWNER, (), "c", lambda c: P, settings=E.parse_ensemble("ensemble:0.5"))
    verifier.verify(block, streams)
    with pytest.raises(SessionError, match="stale"):
        verifier.verify(block, streams)
    tree = propose_tree(lambda c: Q, (), RandomStreams(1, OWNER, 5), depth=1, width=2, context_id="c")
    with pytest.raises(BlockError, match=r"verifies a chain \(a Block from propose\), got Tree: transformers'"):
        E.EnsembleVerifier(OWNER, (), "c", lambda c: P).verify(tree, RandomStreams(1, OWNER, 5))
    with pytest.raises(RuleParameterError, match="EnsembleSettings"):
        E.EnsembleVerifier(OWNER, (), "c", lambda c: P, settings=0.5)
