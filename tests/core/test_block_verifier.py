"""BlockVerifier: the paper's rule step by step, its draws, its session rules, and its scaled residual."""

import json
import random
from dataclasses import replace
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specviz.core import (
    BlockVerifier,
    Categorical,
    Owner,
    Proposal,
    RandomStreams,
    Trace,
    VerificationError,
    Verifier,
    block_numbers,
    check_verification,
    fp32_weights,
    propose,
    residual_with_mass,
    scaled_residual_mass,
    scaled_residual_with_mass,
    verifier_class,
)
from specviz.core.block_verifier import stop_probability, tau_distribution
from specviz.core.errors import BlockError, ProposalError, SessionError, VocabularyMismatchError

OWNER = Owner("req", 0)
P = Categorical.dense([1, 2])  # the paper's example: p = (1/3, 2/3), q = (2/3, 1/3)
Q = Categorical.dense([2, 1])


def target(prefix):
    return Categorical.dense([1, 2, 3, 0])


def draft(prefix):
    return Categorical.dense([3, 1, 1, 1])


def block_for(round_id=0, depth=3, prefix=(), stop_ids=frozenset(), seed=7, model=draft):
    streams = RandomStreams(seed, OWNER, round_id)
    return propose(model, prefix, streams, depth=depth, context_id="ctx", stop_ids=stop_ids), streams


def brute_residual(p, q, scale):
    """(scale p - q)+ and its mass, one Fraction per token (the slow definition)."""
    values = [max(scale * a - b, F(0)) for a, b in zip(p.probabilities, q.probabilities, strict=True)]
    mass = sum(values, F(0))
    return [v / mass for v in values] if mass else None, mass


# --- the rule on the paper's example ---------------------------------------------------------------


def test_block_numbers_on_the_paper_example():
    # drafts (a, a): w_1 = 1/2, rho_1 = sum (p/2 - q)+ = 0, so h_1 = 0; w_2 = h_2 = 1/4
    numbers = block_numbers([P, P], [Q, Q], [0, 0])
    assert numbers.weights == (1, F(1, 2), F(1, 4))
    assert numbers.masses == (F(1, 3), 0)
    assert numbers.stops == (1, 0, F(1, 4))
    assert numbers.taus == [F(3, 4), 0, F(1, 4)]
    # drafts (b, a): w_1 = 1, rho_1 = 1/3, h_1 = 1; w_2 = 1/2: tau is 2 or 1, never 0
    numbers = block_numbers([P, P], [Q, Q], [1, 0])
    assert numbers.stops == (1, 1, F(1, 2)) and numbers.taus == [0, F(1, 2), F(1, 2)]


def test_tau_distribution_and_stop_probability():
    assert tau_distribution([F(1), F(1, 2), F(1, 3)]) == [F(1, 3), F(1, 3), F(1, 3)]
    assert stop_probability(F(0), F(1)) == 0  # nothing to resample: never chosen
    assert stop_probability(F(1, 4), F(1, 2)) == F(1, 3)


def test_monte_carlo_of_the_core_block_verifier_reaches_the_exact_mean():
    """Rounds of the core's BlockVerifier on the paper's example: mean accepted drafts within error bars of 11/9."""
    n, accepted, squares = 3000, 0, 0
    counts = [0, 0, 0]
    for seed in range(n):
        verifier = BlockVerifier(OWNER, (), "ctx", lambda prefix: P)
        streams = RandomStreams(seed, OWNER, 0)
        block = propose(lambda prefix: Q, (), streams, depth=2, context_id="ctx")
        result = verifier.verify(block, streams)
        accepted += result.accepted_drafts
        squares += result.accepted_drafts**2
        counts[result.accepted_drafts] += 1
    mean = accepted / n
    sd = (squares / n - mean**2) ** 0.5
    assert abs(mean - 11 / 9) < 4 * sd / n**0.5
    assert abs(mean - 10 / 9) > 4 * sd / n**0.5  # and it is not tokenwise verification's mean
    # P(tau = 0, 1, 2) = 1/3, 1/9, 5/9 exactly (enumerated in the theory tests)
    for observed, exact in zip(counts, (1 / 3, 1 / 9, 5 / 9), strict=True):
        assert abs(observed / n - exact) < 4 * (exact * (1 - exact) / n) ** 0.5


# --- draws and trace -----------------------------------------------------------------------------


def test_depth_one_is_tokenwise_verification_draw_for_draw():
    for seed in range(60):
        a, sa = block_for(depth=1, seed=seed)
        b, sb = block_for(depth=1, seed=seed)
        assert Verifier(OWNER, (), "ctx", target).verify(a, sa) == BlockVerifier(OWNER, (), "ctx", target).verify(b, sb)


def test_trace_changes_no_draw():
    for seed in range(30):
        b1, s1 = block_for(seed=seed)
        b2, s2 = block_for(seed=seed)
        plain = BlockVerifier(OWNER, (), "ctx", target).verify(b1, s1)
        assert plain == BlockVerifier(OWNER, (), "ctx", target).verify(b2, s2, trace=Trace())


def test_trace_records_every_number_of_the_decision():
    endings = set()
    for seed in range(60):
        verifier = BlockVerifier(OWNER, (), "ctx", target)
        trace = Trace()
        streams = RandomStreams(seed, OWNER, 0)
        block = propose(draft, (), streams, depth=3, context_id="ctx", trace=trace)
        result = verifier.verify(block, streams, trace=trace)
        checks = trace.of_kind("block_check")
        (decision,) = trace.of_kind("block_decision")
        assert [c.token for c in checks] == [p.token for p in block.proposals] == list(decision.drafts)
        weight = F(1)
        for i, check in enumerate(checks, start=1):
            assert check.previous_weight == weight
            weight = min(F(1), weight * check.p_token / check.q_token)
            assert check.weight == weight == decision.weights[i]
            if check.last:
                assert check.residual_mass is None and check.stop_probability == weight
            else:
                after = target(block.prefix + tuple(decision.drafts[:i]))
                assert check.residual_mass == brute_residual(after, block.proposals[i].q, weight)[1]
                assert check.stop_probability == stop_probability(check.residual_mass, weight)
            assert check.hit == (check.draw < check.stop_probability.numerator)
            assert 0 <= check.draw < check.draw_range == check.stop_probability.denominator
        tau = max((i for i, c in enumerate(checks, start=1) if c.hit), default=0)
        assert decision.accepted_drafts == decision.position == tau == result.accepted_drafts
        assert result.tokens[:tau] == decision.drafts[:tau]
        endings.add(decision.ending)
        if decision.ending == "correction":
            (correction,) = trace.of_kind("correction")
            assert correction.scale == decision.weights[tau] and correction.position == tau
            expected, mass = brute_residual(correction.p, correction.q, correction.scale)
            assert correction.residual_mass == mass == decision.residual_masses[tau]
            assert [correction.residual.prob(x) for x in range(4)] == expected
            assert correction.token == result.tokens[-1] and result.rejected
        else:
            assert trace.of_kind("bonus")[0].token == result.tokens[-1] and not result.rejected
        assert trace.events[-1].kind == "result" and trace.events[-1].tokens == result.tokens
        data = json.loads(trace.to_json(top_n=None))
        assert {e["kind"] for e in data["events"]} >= {"draft", "block_check", "block_decision", "result"}
        json.loads(trace.to_json(top_n=1))
    assert endings == {"correction", "bonus"}


def test_no_bonus_after_an_accepted_stop_and_the_request_stops():
    stops = frozenset({0})
    seen = set()
    for seed in range(80):
        verifier = BlockVerifier(OWNER, (), "ctx", target, stop_ids=stops)
        trace = Trace()
        block, streams = block_for(depth=5, stop_ids=stops, seed=seed)
        result = verifier.verify(block, streams, trace=trace)
        decision = trace.of_kind("block_decision")[0]
        seen.add(decision.ending)
        if decision.ending == "stop":
            assert result.tokens == tuple(p.token for p in block.proposals) and result.tokens[-1] == 0
            assert result.stopped and verifier.stopped and not trace.of_kind("bonus")
            assert trace.of_kind("stop")[-1].stage == "commit"
            with pytest.raises(SessionError, match="already stopped"):
                verifier.verify(*block_for(round_id=1, stop_ids=stops, prefix=verifier.prefix))
    assert "stop" in seen


def test_a_block_ends_at_its_first_stop_token_as_tokenwise_verification_does():
    b, s = block_for(depth=3, seed=3)
    stop = b.proposals[0].token
    verifier = BlockVerifier(OWNER, (), "ctx", target, stop_ids=frozenset({stop}))
    result = verifier.verify(replace(b, stop_ids=frozenset({stop})), s, trace=(trace := Trace()))
    assert len(trace.of_kind("block_check")) == 1 and result.accepted_drafts <= 1


def test_equal_models_accept_every_draft():
    for seed in range(20):
        verifier = BlockVerifier(OWNER, (), "ctx", draft)
        result = verifier.verify(*block_for(seed=seed, depth=4))
        assert result.accepted_drafts == 4 and len(result.tokens) == 5 and not result.rejected


# --- session rules (the same checks as Verifier's) -------------------------------------------------


@pytest.mark.parametrize("cls", [Verifier, BlockVerifier])
def test_session_refusals(cls):
    v = cls(OWNER, (), "ctx", target)
    block, streams = block_for(round_id=2)
    v.verify(block, streams)
    with pytest.raises(SessionError, match="stale/reused round"):
        v.verify(*block_for(round_id=2, prefix=v.prefix))
    with pytest.raises(SessionError, match="stale prefix"):
        v.verify(*block_for(round_id=3, prefix=()))
    b, s = block_for(round_id=4, prefix=v.prefix)
    with pytest.raises(SessionError, match="ownership mismatch"):
        v.verify(b, RandomStreams(7, Owner("other", 0), 4))
    with pytest.raises(SessionError, match="stop policy mismatch"):
        v.verify(*block_for(round_id=6, prefix=v.prefix, stop_ids=frozenset({1})))
    with pytest.raises(BlockError, match="depth may shorten only on a terminal token"):
        v.verify(replace(b, proposals=b.proposals[:2]), s)
    with pytest.raises(ProposalError, match="invalid proposal distribution/token"):
        v.verify(replace(b, proposals=(Proposal(3, Categorical.dense([1, 1, 1, 0])),), fixed_depth=1), s)


@pytest.mark.parametrize("cls", [Verifier, BlockVerifier])
def test_failed_verification_needs_reset(cls):
    calls = {"n": 0}

    def flaky_target(prefix):
        calls["n"] += 1
        return Categorical.dense([1, 1, 1]) if calls["n"] == 1 else target(prefix)

    v = cls(OWNER, (), "ctx", flaky_target)
    with pytest.raises(VocabularyMismatchError):
        v.verify(*block_for(round_id=0))
    with pytest.raises(SessionError, match="requires explicit session reset"):
        v.verify(*block_for(round_id=1))
    v.reset()
    assert v.verify(*block_for(round_id=1)).tokens


def test_verification_names():
    assert verifier_class("token") is Verifier and verifier_class("block") is BlockVerifier
    assert check_verification("block") == "block"
    for bad in ("tokenwise", "", None, 1):
        with pytest.raises(VerificationError, match="verification must be one of 'token', 'block'"):
            verifier_class(bad)
    assert issubclass(VerificationError, ValueError)


# --- the scaled residual (p_i p - q)+ --------------------------------------------------------------


def test_scaled_residual_matches_the_definition_and_the_plain_residual():
    p, q = Categorical.dense([1, 2, 3, 0]), Categorical.dense([3, 1, 1, 1])
    for scale in (F(1), F(1, 2), F(1, 3), F(2, 9), F(1, 100)):
        residual, mass = scaled_residual_with_mass(p, q, scale)
        expected, expected_mass = brute_residual(p, q, scale)
        assert mass == expected_mass == scaled_residual_mass(p, q, scale)
        assert (residual is None) == (expected is None)
        if residual is not None:
            assert [residual.prob(x) for x in range(4)] == expected
    assert scaled_residual_with_mass(p, q, F(1))[0] == residual_with_mass(p, q)[0]
    assert scaled_residual_with_mass(p, q, F(0)) == (None, 0)
    with pytest.raises(VocabularyMismatchError):
        scaled_residual_mass(p, Categorical.dense([1, 1]), F(1, 2))


@settings(max_examples=25, deadline=None)
@given(st.integers(300, 1500), st.integers(0, 2**32), st.sampled_from(["fp32", "tie", "fraction"]))
def test_scaled_residual_at_large_vocabularies_is_exact(vocab, seed, kind):
    """The numpy path (V > 256), with exact ties s p(x) = q(x) planted, against one Fraction per token."""
    rng = np.random.default_rng(seed)
    scale = F(int(rng.integers(1, 50)), int(rng.integers(50, 100)))
    base = rng.integers(0, 1000, vocab)
    base[0] = 1
    if kind == "fp32":
        p = fp32_weights(vocab, range(vocab), rng.random(vocab).astype(np.float32) * 1e-3)
        q = fp32_weights(vocab, range(vocab), rng.random(vocab).astype(np.float32))
    elif kind == "tie":  # scale * p(x) = q(x) exactly on half the tokens
        total = int(base.sum())
        p = Categorical(vocab, range(vocab), [int(b) for b in base])
        tied = [x for x in range(vocab) if x % 2 == 0]
        rest = 1 - scale * F(sum(int(base[x]) for x in tied), total)
        others = [int(r) + 1 for r in rng.integers(0, 10, vocab)]
        spread = sum(others[x] for x in range(vocab) if x % 2)
        q = Categorical(vocab, range(vocab), [scale * F(int(base[x]), total) if x % 2 == 0
                                              else rest * F(others[x], spread) for x in range(vocab)])
    else:
        p = Categorical(vocab, range(vocab), [F(int(b), 7) for b in base])
        q = Categorical(vocab, range(vocab), [F(int(b) + 1, 9) for b in base])
    residual, mass = scaled_residual_with_mass(p, q, scale)
    expected, expected_mass = brute_residual(p, q, scale)
    assert mass == expected_mass
    if expected is None:
        assert residual is None
    else:
        assert [residual.prob(x) for x in range(vocab)] == expected


def test_large_vocabulary_block_verification_runs_and_replays():
    vocab = 49152
    rng = np.random.default_rng(5)
    rows = [rng.random(vocab).astype(np.float32) ** 8 for _ in range(8)]

    def big_target(prefix):
        return fp32_weights(vocab, range(vocab), rows[len(prefix)])

    def big_draft(prefix):
        return fp32_weights(vocab, range(vocab), rows[4 + len(prefix) % 4])

    results = []
    for _ in range(2):
        streams = RandomStreams(1, OWNER, 0)
        block = propose(big_draft, (), streams, depth=3, context_id="ctx")
        results.append(BlockVerifier(OWNER, (), "ctx", big_target).verify(block, streams, trace=Trace()))
    assert results[0] == results[1] and 1 <= len(results[0].tokens) <= 4


def test_random_streams_only_are_used():
    """Creating and verifying blocks consumes no process-global randomness."""
    state = random.getstate()
    BlockVerifier(OWNER, (), "ctx", target).verify(*block_for())
    assert random.getstate() == state
