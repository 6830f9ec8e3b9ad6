"""propose and Verifier: session rules, the trace, and that recording a trace changes no draw."""

import json
from dataclasses import replace
from fractions import Fraction

import pytest

from specviz.core import (
    Block,
    Categorical,
    Owner,
    Proposal,
    RandomStreams,
    Trace,
    Verifier,
    propose,
)
from specviz.core.errors import BlockError, ProposalError, SessionError, TokenError, VocabularyMismatchError
from specviz.core.streams import stream_seed

OWNER = Owner("req", 0)


def target(prefix):
    return Categorical.dense([1, 2, 3, 0])


def draft(prefix):
    return Categorical.dense([3, 1, 1, 1])


def session(**kw):
    return Verifier(OWNER, (), "ctx", target, **kw)


def block_for(round_id=0, depth=3, prefix=(), stop_ids=frozenset(), seed=7):
    streams = RandomStreams(seed, OWNER, round_id)
    return propose(draft, prefix, streams, depth=depth, context_id="ctx", stop_ids=stop_ids), streams


def test_streams_are_domain_separated_and_reproducible():
    a, b = RandomStreams(1, OWNER, 0), RandomStreams(1, OWNER, 0)
    assert a.proposal.random() == b.proposal.random()
    assert stream_seed(1, OWNER, 0, "proposal") != stream_seed(1, OWNER, 0, "acceptance")
    assert stream_seed(1, OWNER, 0, "proposal") != stream_seed(1, OWNER, 1, "proposal")


@pytest.mark.parametrize("owner", [("", 0), ("r", -1), (1, 0), ("r", 1.0)])
def test_owner_validation(owner):
    with pytest.raises(SessionError, match="invalid request/generation owner"):
        Owner(*owner)


def test_round_id_validation():
    with pytest.raises(SessionError, match="round ID must be nonnegative"):
        RandomStreams(0, OWNER, -1)


@pytest.mark.parametrize("depth", [0, 6, 2.0, True])
def test_depth_outside_range(depth):
    with pytest.raises(BlockError, match="fixed depth must be in 1..5"):
        propose(draft, (), RandomStreams(0, OWNER, 0), depth=depth, context_id="ctx")


def test_context_required_and_prefix_checked():
    with pytest.raises(BlockError, match="context identity is required"):
        propose(draft, (), RandomStreams(0, OWNER, 0), depth=1, context_id="")
    with pytest.raises(TokenError):
        propose(draft, (9,), RandomStreams(0, OWNER, 0), depth=1, context_id="ctx")


def test_trace_changes_no_draw():
    for seed in range(30):
        plain, traced = session(), session()
        b1, s1 = block_for(seed=seed)
        b2, s2 = block_for(seed=seed)
        trace = Trace()
        assert plain.verify(b1, s1) == traced.verify(b2, s2, trace=trace)


def test_trace_records_every_step():
    kinds = set()
    for seed in range(40):
        v = session()
        trace = Trace()
        streams = RandomStreams(seed, OWNER, 0)
        block = propose(draft, (), streams, depth=3, context_id="ctx", trace=trace)
        result = v.verify(block, streams, trace=trace)
        kinds |= {e.kind for e in trace}
        drafts = trace.of_kind("draft")
        assert [d.token for d in drafts] == [p.token for p in block.proposals]
        checks = trace.of_kind("check")
        for check in checks:
            assert check.acceptance == min(Fraction(1), check.p_token / check.q_token)
            assert check.accepted == (check.draw < check.acceptance.numerator)
            assert 0 <= check.draw < check.draw_range == check.acceptance.denominator
        assert trace.events[-1].kind == "result" and trace.events[-1].tokens == result.tokens
        if result.rejected:
            correction = trace.of_kind("correction")[0]
            assert correction.residual_mass == sum(max(a - b, 0) for a, b in zip(
                correction.p.probabilities, correction.q.probabilities))
            assert correction.token == result.tokens[-1]
        else:
            assert trace.of_kind("bonus")[0].token == result.tokens[-1]
        json.loads(trace.to_json(top_n=2))
        json.loads(trace.to_json(top_n=None))
    assert kinds >= {"draft", "check", "correction", "bonus", "result"}


def test_stop_token_shortens_the_block_and_ends_the_request():
    stops = frozenset({0})
    for seed in range(50):
        v = session(stop_ids=stops)
        trace = Trace()
        streams = RandomStreams(seed, OWNER, 0)
        block = propose(draft, (), streams, depth=5, context_id="ctx", stop_ids=stops, trace=trace)
        result = v.verify(block, streams, trace=trace)
        if result.stopped:
            assert result.tokens[-1] == 0 and not trace.of_kind("bonus")
            assert trace.of_kind("stop")[-1].stage == "commit"
            with pytest.raises(SessionError, match="already stopped"):
                v.verify(*block_for(round_id=1, stop_ids=stops, prefix=v.prefix))
            v.reset()
            return
    pytest.fail("no seed stopped")


def test_session_refusals():
    v = session()
    block, streams = block_for(round_id=2)
    v.verify(block, streams)
    with pytest.raises(SessionError, match="stale/reused round"):
        v.verify(*block_for(round_id=2, prefix=v.prefix))
    with pytest.raises(SessionError, match="stale prefix"):
        v.verify(*block_for(round_id=3, prefix=()))
    other = Owner("other", 0)
    b, s = block_for(round_id=4, prefix=v.prefix)
    with pytest.raises(SessionError, match="ownership mismatch"):
        v.verify(b, RandomStreams(7, other, 4))
    with pytest.raises(SessionError, match="wrong RNG round"):
        v.verify(b, RandomStreams(7, OWNER, 5))
    with pytest.raises(SessionError, match="stop policy mismatch"):
        v.verify(*block_for(round_id=6, prefix=v.prefix, stop_ids=frozenset({1})))
    with pytest.raises(SessionError, match="changed model/processor context"):
        v.verify(replace(b, context_id="other"), s)


def test_block_refusals_and_failed_session():
    v = session()
    b, s = block_for(round_id=0, depth=3)
    with pytest.raises(BlockError, match="depth may shorten only on a terminal token"):
        v.verify(replace(b, proposals=b.proposals[:2]), s)
    with pytest.raises(BlockError, match="invalid fixed-depth block"):
        v.verify(replace(b, fixed_depth=7), s)
    zero_q = Proposal(3, Categorical.dense([1, 1, 1, 0]))
    with pytest.raises(ProposalError, match="invalid proposal distribution/token"):
        v.verify(replace(b, proposals=(zero_q,), fixed_depth=1), s)
    mixed = Proposal(0, Categorical.dense([1, 1, 1, 1, 1]))
    with pytest.raises(ProposalError):
        v.verify(replace(b, proposals=(b.proposals[0], mixed), fixed_depth=2), s)


def test_failed_verification_needs_reset():
    calls = {"n": 0}

    def flaky_target(prefix):
        calls["n"] += 1
        if calls["n"] == 1:
            return Categorical.dense([1, 1, 1])  # wrong vocabulary: verification fails mid-way
        return target(prefix)

    v = Verifier(OWNER, (), "ctx", flaky_target)
    b, s = block_for(round_id=0)
    with pytest.raises(VocabularyMismatchError):
        v.verify(b, s)
    with pytest.raises(SessionError, match="requires explicit session reset"):
        v.verify(*block_for(round_id=1))
    v.reset()
    assert v.verify(*block_for(round_id=1)).tokens


def test_block_is_plain_data():
    b, _ = block_for()
    assert isinstance(b, Block) and b.owner == OWNER and b.fixed_depth == 3
