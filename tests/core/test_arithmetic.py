"""acceptance and residual: exact values, the fast path against plain Fractions, the exact marginal."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from specviz.core import Categorical, acceptance, fp32_weights, residual, residual_mass
from specviz.core.errors import ProposalError, SupportError, VocabularyMismatchError


def plain_residual(p: Categorical, q: Categorical) -> list[Fraction]:
    diffs = [max(p.prob(i) - q.prob(i), Fraction()) for i in range(p.vocab_size)]
    mass = sum(diffs)
    return [d / mass for d in diffs]


def test_acceptance_values():
    p = Categorical.dense([1, 3])
    q = Categorical.dense([1, 1])
    assert acceptance(p, q, 0) == Fraction(1, 2)
    assert acceptance(p, q, 1) == 1


def test_acceptance_errors():
    p = Categorical.dense([1, 1])
    with pytest.raises(ProposalError, match="zero q mass"):
        acceptance(p, Categorical.dense([1, 0]), 1)
    with pytest.raises(VocabularyMismatchError, match="vocabulary mismatch"):
        acceptance(p, Categorical.dense([1, 1, 1]), 0)
    with pytest.raises(VocabularyMismatchError):
        residual(p, Categorical.dense([1, 1, 1]))


def test_residual_of_equal_distributions_is_refused():
    p = Categorical.dense([1, 2])
    with pytest.raises(SupportError, match="empty effective support"):
        residual(p, Categorical.dense([2, 4]))
    assert residual_mass(p, p) == 0


def test_residual_covers_the_full_vocabulary():
    p = Categorical(4, [3], [1])
    q = Categorical(4, [0], [1])
    r = residual(p, q)
    assert r.ids == (0, 1, 2, 3) and r.prob(3) == 1


weights = st.lists(st.one_of(st.just(0.0), st.floats(0, 100), st.floats(0, 1e-35)), min_size=2, max_size=8)


@settings(max_examples=80, deadline=None)
@given(weights, weights, st.booleans())
def test_residual_fast_path_equals_fractions(wp, wq, fp32):
    n = min(len(wp), len(wq))
    wp, wq = wp[:n], wq[:n]
    assume(any(wp) and any(wq))
    make = (lambda w: fp32_weights(n, range(n), w)) if fp32 else Categorical.dense
    try:
        p, q = make(wp), make(wq)
    except SupportError:
        assume(False)  # every weight rounded to zero in FP32
    exact_p = Categorical.dense(list(p.probabilities))
    exact_q = Categorical.dense(list(q.probabilities))
    if p == q:
        assert residual_mass(p, q) == 0
    assume(p != q)
    expected = plain_residual(exact_p, exact_q)
    got = residual(p, q)
    assert list(got.probabilities) == expected
    assert got == residual(exact_p, exact_q)
    assert residual_mass(p, q) == sum(max(a - b, 0) for a, b in zip(p.probabilities, q.probabilities))


def test_residual_at_large_vocabulary_matches_python_integers():
    rng = np.random.default_rng(0)
    vocab = 5000
    p = fp32_weights(vocab, range(vocab), np.exp(rng.normal(0, 8, vocab)))
    q = fp32_weights(vocab, range(vocab), np.exp(rng.normal(0, 8, vocab)))
    big_t, big_u = p.total, q.total
    values = [max(a * big_u - b * big_t, 0) for a, b in zip(p.tickets, q.tickets)]
    r = residual(p, q)
    expected = Categorical.dense(values)
    assert r == expected


fractions = st.lists(st.fractions(min_value=0, max_value=10, max_denominator=12), min_size=2, max_size=6)


@settings(max_examples=100, deadline=None)
@given(fractions, fractions)
def test_exact_marginal_of_the_first_committed_token(wp, wq):
    """P(first token = x) = q(x) a(x) + P(reject) r(x) equals p(x), exactly."""
    n = min(len(wp), len(wq))
    wp, wq = wp[:n], wq[:n]
    assume(any(wp) and any(wq))
    p, q = Categorical.dense(wp), Categorical.dense(wq)
    accepted = {x: q.prob(x) * acceptance(p, q, x) for x in range(n) if q.prob(x) > 0}
    reject = 1 - sum(accepted.values())
    assert reject == residual_mass(p, q)
    r = residual(p, q) if reject > 0 else None
    for x in range(n):
        total = accepted.get(x, Fraction(0)) + (reject * r.prob(x) if r else 0)
        assert total == p.prob(x)


small_dyadic = st.lists(st.sampled_from([0, 2, 4, 6, 8, 12, 24, 0.5, 3 * 2.0**-20]), min_size=2, max_size=60)


@settings(max_examples=80, deadline=None)
@given(small_dyadic, small_dyadic, st.sampled_from([1, 4, 16]), st.randoms(use_true_random=False))
def test_difference_tickets_divisor_and_walk(wp, wq, head, rng):
    """The residual's gcd (every branch) and its sampling walk agree with plain Python integers."""
    from specviz.core.tickets import DifferenceTickets

    n = min(len(wp), len(wq))
    wp, wq = wp[:n], wq[:n]
    assume(any(wp) and any(wq))
    p, q = Categorical.dense(wp), Categorical.dense(wq)
    exact_p, exact_q = Categorical.dense(list(p.probabilities)), Categorical.dense(list(q.probabilities))
    assume(p != q and residual_mass(p, q) != 0)
    original = DifferenceTickets._EXACT_HEAD
    DifferenceTickets._EXACT_HEAD = head
    try:
        fast = residual(p, q)
    finally:
        DifferenceTickets._EXACT_HEAD = original
    slow = residual(exact_p, exact_q)
    assert fast.tickets == slow.tickets and fast.total == slow.total
    for _ in range(10):
        draw = rng.randrange(fast.total)
        assert fast.token_at_draw(draw) == slow.token_at_draw(draw)


def test_residual_walk_on_a_wide_exponent_range():
    rng = np.random.default_rng(5)
    vocab = 3000
    p = Categorical.dense(np.exp(rng.normal(0, 30, vocab)))
    q = Categorical.dense(np.exp(rng.normal(0, 30, vocab)))
    fast = residual(p, q)
    slow = residual(Categorical.dense(list(p.probabilities)), Categorical.dense(list(q.probabilities)))
    assert fast == slow
    cumulative, draws = 0, []
    for ticket in slow.tickets:
        if ticket:
            cumulative += ticket
            draws += [cumulative - 1, min(cumulative, slow.total - 1)]
    for draw in draws[:400] + draws[-50:]:
        assert fast.token_at_draw(draw) == slow.token_at_draw(draw)


def test_residual_top_and_topk_rank_exactly():
    rng = np.random.default_rng(9)
    for vocab, scale in ((40, 1), (3000, 8)):
        p = Categorical.dense(np.exp(rng.normal(0, scale, vocab)))
        q = Categorical.dense(np.exp(rng.normal(0, scale, vocab)))
        r = residual(p, q)
        exact = sorted(((-t, i) for i, t in enumerate(r.tickets) if t), key=lambda x: x)
        want = [(i, Fraction(-t, r.total)) for t, i in exact[:25]]
        assert r.top(25) == want
        k = min(30, vocab)
        chosen = sorted(i for _, i in sorted((-t, i) for i, t in enumerate(r.tickets))[:k])
        assert r.sparse_topk(k).ids == tuple(chosen)
    tied = residual(Categorical.dense([3, 3, 3, 1]), Categorical.dense([1, 1, 1, 7]))
    assert [t for t, _ in tied.top(3)] == [0, 1, 2]
