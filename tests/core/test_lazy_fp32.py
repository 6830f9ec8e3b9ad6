"""The lazy FP32 paths (raw totals, gcd on demand, chunked brackets, scaled residuals) against eager Fractions."""

import random
from fractions import Fraction
from itertools import accumulate

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from specviz.core import Categorical, acceptance, fp32_weights, residual_mass, residual_with_mass
from specviz.core.errors import ScaleError, SupportError
from specviz.core.tickets import DifferenceTickets, Fp32Tickets, float_bracket

# FP32 values over the whole range: zeros, subnormals, tiny, ordinary, huge, and exact ties
fp32_value = st.one_of(
    st.just(0.0),
    st.sampled_from([2.0**-149, 3 * 2.0**-149, 2.0**-126, 1.0, 0.5, 3.0, 2.0**100]),
    st.floats(min_value=0, max_value=2.0**127, allow_nan=False, allow_infinity=False, width=32),
)
fp32_rows = st.lists(fp32_value, min_size=2, max_size=40)


def eager(weights: list[float], ids: list[int] | None = None, vocab: int | None = None) -> Categorical:
    """The same FP32 values as exact Fractions: the reference's own arithmetic, no fast path."""
    ids = list(range(len(weights))) if ids is None else ids
    return Categorical(vocab or len(weights), ids, [Fraction(w) for w in weights])


def eager_scaled_residual(p: Categorical, q: Categorical, c: Fraction) -> tuple[Categorical | None, Fraction]:
    diffs = [max(c * p.prob(i) - q.prob(i), Fraction()) for i in range(p.vocab_size)]
    mass = sum(diffs, Fraction())
    return (Categorical.dense(diffs) if mass else None), mass


def same(fast: Categorical, slow: Categorical, rng: random.Random) -> None:
    assert fast.ids == slow.ids
    assert fast.tickets == slow.tickets and fast.total == slow.total
    assert fast.probabilities == slow.probabilities
    for _ in range(12):
        draw = rng.randrange(slow.total)
        assert fast.token_at_draw(draw) == slow.token_at_draw(draw)


def nonzero(row: list[float]) -> bool:
    return any(np.float32(w) for w in row)


@settings(max_examples=150, deadline=None)
@given(fp32_rows, st.randoms(use_true_random=False))
def test_fp32_tickets_equal_eager_fractions(row, rng):
    if not nonzero(row):
        with pytest.raises(SupportError):
            fp32_weights(len(row), range(len(row)), np.array(row, dtype=np.float32))
        return
    slow = eager([float(np.float32(w)) for w in row])
    fast_array = fp32_weights(len(row), np.arange(len(row)), np.array(row, dtype=np.float32))
    fast_list = fp32_weights(len(row), tuple(range(len(row))), [float(w) for w in row])
    assert isinstance(fast_array._tickets, Fp32Tickets)
    same(fast_array, slow, rng)
    same(fast_list, slow, rng)
    for token in range(len(row)):
        assert fast_array.prob(token) == slow.prob(token) and fast_array.ticket(token) == slow.ticket(token)


@settings(max_examples=100, deadline=None)
@given(fp32_rows, st.randoms(use_true_random=False))
def test_sparse_unsorted_fp32_support(row, rng):
    assume(nonzero(row))
    vocab = 2 * len(row) + 3
    ids = rng.sample(range(vocab), len(row))
    singles = [float(np.float32(w)) for w in row]
    same(fp32_weights(vocab, ids, singles), eager(singles, ids, vocab), rng)


@settings(max_examples=120, deadline=None)
@given(fp32_rows, fp32_rows,
       st.sampled_from([Fraction(1), Fraction(1, 2), Fraction(3, 7), Fraction(0), Fraction(1, 10**9)]),
       st.sampled_from([1, 4, 48]), st.randoms(use_true_random=False))
def test_scaled_residual_and_acceptance_equal_eager(row_p, row_q, c, head, rng):
    n = min(len(row_p), len(row_q))
    row_p, row_q = row_p[:n], row_q[:n]
    assume(nonzero(row_p) and nonzero(row_q))
    p = fp32_weights(n, range(n), np.array(row_p, dtype=np.float32))
    q = fp32_weights(n, range(n), np.array(row_q, dtype=np.float32))
    slow_p = eager([float(np.float32(w)) for w in row_p])
    slow_q = eager([float(np.float32(w)) for w in row_q])
    for token in range(n):
        if slow_q.prob(token):
            assert acceptance(p, q, token) == min(Fraction(1), slow_p.prob(token) / slow_q.prob(token))
    want, mass = eager_scaled_residual(slow_p, slow_q, c)
    assert residual_mass(p, q, c) == mass
    original = DifferenceTickets._EXACT_HEAD
    DifferenceTickets._EXACT_HEAD = head  # small heads force the power-of-two and modular gcd branches
    try:
        if want is None:
            with pytest.raises(SupportError):
                residual_with_mass(p, q, c)
            return
        got, got_mass = residual_with_mass(p, q, c)
    finally:
        DifferenceTickets._EXACT_HEAD = original
    assert got_mass == mass
    same(got, want, rng)
    if c == 1:  # the scale-free call is the reference's residual, draw for draw
        assert residual_with_mass(slow_p, slow_q)[0] == got


def test_mixed_storages_meet_in_the_dyadic_residual():
    rng = np.random.default_rng(3)
    row = rng.random(300).astype(np.float32)
    p = fp32_weights(300, range(300), row)
    q = Categorical.dense(rng.random(300))  # float64 weights: the general dyadic storage
    slow_p, slow_q = Categorical.dense(list(p.probabilities)), Categorical.dense(list(q.probabilities))
    got, mass = residual_with_mass(p, q, Fraction(2, 3))
    want, want_mass = eager_scaled_residual(slow_p, slow_q, Fraction(2, 3))
    assert mass == want_mass
    same(got, want, random.Random(1))


def test_large_vocabulary_draws_walk_the_chunked_bracket_exactly():
    """V above the chunk threshold: every draw at a ticket boundary lands where the Fractions say."""
    rng = np.random.default_rng(11)
    vocab = 9000
    logits = rng.normal(0, 6, size=(2, vocab))
    rows = [np.exp(r - r.max()).astype(np.float32) for r in logits]
    p, q = (fp32_weights(vocab, range(vocab), r) for r in rows)
    slow_p = Categorical.dense([Fraction(float(w)) for w in rows[0]])
    assert p.tickets == slow_p.tickets and p.total == slow_p.total
    cumulative, draws = 0, []
    for ticket in slow_p.tickets[::37]:
        cumulative += ticket
        draws += [cumulative - 1, cumulative]
    cumulative = 0
    for index, ticket in enumerate(slow_p.tickets):
        cumulative += ticket
        if index % 97 == 0 and ticket:
            draws += [cumulative - 1, min(cumulative, slow_p.total - 1)]
    for draw in draws:
        if draw < slow_p.total:
            assert p.token_at_draw(draw) == slow_p.token_at_draw(draw)
    r, mass = residual_with_mass(p, q)
    slow_r = Categorical.dense([max(a - b, Fraction()) for a, b in zip(slow_p.probabilities, q.probabilities)])
    assert r.total == slow_r.total
    running = 0
    for index, ticket in enumerate(slow_r.tickets):
        running += ticket
        if ticket and index % 53 == 0:
            assert r.token_at_draw(running - 1) == index


def test_float_bracket_skips_only_entries_surely_before_the_bound():
    rng = np.random.default_rng(2)
    values = rng.random(10_000) * 2.0 ** rng.integers(-30, 5, 10_000)
    exact = list(accumulate(Fraction(float(v)) for v in values))
    tolerance = Fraction(len(values)) * Fraction(2) ** -50 * exact[-1]
    for bound in [-1.0, 0.0, *np.linspace(0, float(exact[-1]), 150).tolist(), float(exact[-1]) + 1]:
        low = float_bracket(values, bound)
        assert low == 0 or exact[low - 1] <= Fraction(bound) + tolerance  # nothing past the bound is skipped
        assert low == len(values) or exact[low] > Fraction(bound) - tolerance  # and the walk starts close by


def test_scale_is_validated():
    p, q = Categorical.dense([1, 2]), Categorical.dense([2, 1])
    for bad in (Fraction(3, 2), -1, 0.5, True, "1"):
        with pytest.raises(ScaleError):
            residual_with_mass(p, q, bad)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("c", [Fraction(1), Fraction(1, 3), Fraction(7, 8)])
def test_residuals_against_a_one_hot_or_an_identical_draft_equal_eager(seed, c):
    """The two draft shapes real models give: a one-hot q (prompt lookup: integer tickets beside FP32
    tickets) and q = p as a separate object (every token a near-tie), at a size with the numpy paths."""
    rng = random.Random(seed)
    vocab = 300 + seed
    weights = [0.0 if rng.random() < 0.2 else float(np.float32(rng.random() ** 6)) for _ in range(vocab)]
    weights[rng.randrange(vocab)] = 0.75
    p, slow_p = fp32_weights(vocab, range(vocab), weights), eager(weights)
    token = max(range(vocab), key=weights.__getitem__)
    # q = p moved by one ulp up at one token and down at another of the same binade: the same exact
    # total, so only those two tokens' signs differ from p's, and they are near-ties in floats
    nudged = list(weights)
    i, j = (0, 1) if token > 1 else (2, 3)
    nudged[i] = nudged[j] = float(np.float32(0.3))
    twin = list(nudged)
    twin[i] = float(np.nextafter(np.float32(0.3), np.float32(1)))
    twin[j] = float(np.float32(0.3) - (np.float32(twin[i]) - np.float32(0.3)))
    p_nudged = fp32_weights(vocab, range(vocab), nudged)
    drafts = [(Categorical(vocab, [token], [1]), Categorical(vocab, [token], [Fraction(1)])),
              (fp32_weights(vocab, range(vocab), list(weights)), eager(weights))]
    q_twin, slow_twin = fp32_weights(vocab, range(vocab), twin), eager(twin)
    for c_twin in (Fraction(1),):  # equal exact totals: the float32 weights decide the near-ties
        want, want_mass = eager_scaled_residual(eager(nudged), slow_twin, c_twin)
        assert p_nudged._tickets.raw_total == q_twin._tickets.raw_total and want_mass > 0
        got, mass = residual_with_mass(p_nudged, q_twin, c_twin)
        assert mass == want_mass and residual_mass(p_nudged, q_twin, c_twin) == want_mass
        same(got, want, rng)
    for q, slow_q in drafts:
        want, want_mass = eager_scaled_residual(slow_p, slow_q, c)
        assert residual_mass(p, q, c) == want_mass
        if want is None:
            with pytest.raises(SupportError):
                residual_with_mass(p, q, c)
            continue
        got, mass = residual_with_mass(p, q, c)
        assert mass == want_mass
        same(got, want, rng)


@settings(max_examples=80, deadline=None)
@given(fp32_rows, fp32_rows, st.integers(0, 39), st.sampled_from([1, 4, 48]), st.randoms(use_true_random=False))
def test_residual_of_a_residual_scales_equal_eager(row_p, row_q, dropped, head, rng):
    # a tree's residual after two rejections: scale s = Z / (Z + M), M = sum (p - q)+, Z = 1 - q(x); such
    # scales share large factors with both totals, which the gcd divides out before walking entries
    n = min(len(row_p), len(row_q))
    row_p, row_q = row_p[:n], row_q[:n]
    assume(nonzero(row_p) and nonzero(row_q))
    p = fp32_weights(n, range(n), np.array(row_p, dtype=np.float32))
    q = fp32_weights(n, range(n), np.array(row_q, dtype=np.float32))
    m, z = residual_mass(p, q), 1 - q.prob(dropped % n)
    assume(m and z)
    for c in (z / (z + m), (z / (z + m)) ** 2 / 2):
        want, mass = eager_scaled_residual(eager([float(np.float32(w)) for w in row_p]),
                                           eager([float(np.float32(w)) for w in row_q]), c)
        assert residual_mass(p, q, c) == mass
        if want is None:
            continue
        original = DifferenceTickets._EXACT_HEAD
        DifferenceTickets._EXACT_HEAD = head
        try:
            got, _ = residual_with_mass(p, q, c)
        finally:
            DifferenceTickets._EXACT_HEAD = original
        same(got, want, rng)


@settings(max_examples=100, deadline=None)
@given(fp32_rows, st.lists(st.booleans(), min_size=40, max_size=40), st.randoms(use_true_random=False))
def test_masked_fp32_stays_fp32_and_equals_eager(row, flags, rng):
    assume(nonzero(row))
    n = len(row)
    keep = flags[:n]
    singles = [float(np.float32(w)) for w in row]
    fast = fp32_weights(n, range(n), np.array(row, dtype=np.float32))
    if not any(w and k for w, k in zip(singles, keep)):
        with pytest.raises(SupportError):
            fast.masked(keep)
        return
    got = fast.masked(keep)
    assert isinstance(got._tickets, Fp32Tickets)
    same(got, eager(singles).masked(keep), rng)
    fast.total  # noqa: B018  (with the exact total known, a mask subtracts the removed tickets from it)
    again = fast.masked(keep)
    assert again._tickets.raw_total == got._tickets.raw_total
    same(again, eager(singles).masked(keep), rng)
