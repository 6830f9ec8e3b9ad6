"""Fast paths against eager arithmetic: one-pass float lists, lazy FP32 totals, two-bracket draws, kept residuals."""

import random
from bisect import bisect_right
from fractions import Fraction
from itertools import accumulate

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from specviz.core import Categorical, acceptance, fp32_weights, residual_mass, residual_with_mass
from specviz.core.categorical import _check_fp32_element
from specviz.core.errors import SupportError, WeightValueError
from specviz.core.tickets import float_brackets
from specviz.core.validation import FLOAT_SLICE, check_weight, plain_float_values

# elements a caller may put in a weight list: only exact Python floats may take the one-pass route
element = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1.0, 2.0**-149, 2.0**-1074, 3.5e38]),
    st.integers(-3, 10**40), st.booleans(), st.just(None), st.just("0.5"),
    st.just(np.float64(0.25)), st.just(np.float32(0.25)), st.just(Fraction(1, 3)), st.just([0.5]),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(element, max_size=30), st.booleans())
def test_plain_float_values_accepts_exactly_lists_of_python_floats(values, as_tuple):
    seq = tuple(values) if as_tuple else values
    got = plain_float_values(seq)
    if values and all(type(v) is float for v in values):
        assert got is not None and got.dtype == np.float64 and got.flags.c_contiguous
        assert [v.hex() for v in got.tolist()] == [v.hex() for v in values]  # bit for bit, -0.0 and NaN too
    else:
        assert got is None


def test_plain_float_values_refuses_other_containers():
    assert plain_float_values(range(3)) is None
    assert plain_float_values(np.array([0.5, 1.0])) is None
    assert plain_float_values(iter([0.5])) is None


def _first_error(weights: list, check) -> tuple[type, str] | None:
    """The exception the element-wise walk raises first (type and message), or None."""
    for index, value in enumerate(weights):
        try:
            check(value, index)
        except Exception as error:  # noqa: BLE001 - the walk's own error is what is compared
            return type(error), str(error)
    return None


bad_item = st.sampled_from([float("nan"), float("inf"), -1.0, -1e-50, True, "x", None, 1e39, np.float32(1.0)])


@settings(max_examples=150, deadline=None)
@given(st.integers(300, 600), st.lists(st.tuples(st.integers(0, 599), bad_item), max_size=3), st.booleans())
def test_float_lists_report_the_first_bad_element_as_the_walk_does(n, bad, fp32):
    weights = [0.25] * n
    for index, value in bad:
        if index < n:
            weights[index] = value
    build = fp32_weights if fp32 else Categorical
    check = _check_fp32_element if fp32 else check_weight
    expected = _first_error(weights, check)
    if expected is None:
        exact = [Fraction(float(np.float32(w))) if fp32 else Fraction(w) for w in weights]
        total = sum(exact)
        assert build(n, range(n), weights).probabilities == tuple(w / total for w in exact)
        return
    with pytest.raises(expected[0]) as caught:
        build(n, range(n), weights)
    assert str(caught.value) == expected[1]


fp32_rows = st.lists(st.one_of(st.just(0.0), st.floats(0, 2.0**100, width=32), st.sampled_from([2.0**-149, 1.0])),
                     min_size=2, max_size=30)


@settings(max_examples=150, deadline=None)
@given(fp32_rows, fp32_rows)
def test_acceptance_with_a_lazy_total_equals_fractions(row_p, row_q):
    n = min(len(row_p), len(row_q))
    assume(any(row_p[:n]) and any(row_q[:n]))
    exact_p = [Fraction(w) for w in row_p[:n]]
    exact_q = [Fraction(w) for w in row_q[:n]]
    for token in range(n):
        if not exact_q[token]:
            continue
        p = fp32_weights(n, range(n), np.array(row_p[:n], dtype=np.float32))  # fresh: no total computed yet
        q = fp32_weights(n, range(n), np.array(row_q[:n], dtype=np.float32))
        want = min(Fraction(1), exact_p[token] / sum(exact_p) / (exact_q[token] / sum(exact_q)))
        assert acceptance(p, q, token) == want
        if want < 1:
            assert p._tickets.raw_total == sum(exact_p) * 2**149  # computed, and exact
        assert p._tickets.raw_total_upper >= p._tickets.raw_total


def test_a_clear_acceptance_leaves_the_exact_total_uncomputed():
    p = fp32_weights(4, range(4), np.array([4, 1, 1, 1], dtype=np.float32))
    q = fp32_weights(4, range(4), np.array([1, 1, 1, 1], dtype=np.float32))
    assert acceptance(p, q, 0) == 1
    assert "raw_total" not in p._tickets.__dict__
    assert p.prob(0) == Fraction(4, 7)  # and it is exact once asked for


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([5000, 9000]))
def test_draws_settled_by_two_brackets_equal_the_exact_walk(seed, vocab):
    """Above the chunk threshold, at random draws and at every kind of boundary, against Python integers."""
    rng = np.random.default_rng(seed)
    logits = rng.normal(0, 8, vocab)
    row = np.exp(logits - logits.max()).astype(np.float32)
    row[rng.integers(0, vocab, 50)] = 0
    c = fp32_weights(vocab, range(vocab), row)
    tickets = [Fraction(float(w)) * 2**149 for w in row]
    divisor = c._tickets.divisor
    cumulative = list(accumulate(int(t) // divisor for t in tickets))
    assert cumulative[-1] == c.total
    draws = [int(x) for x in rng.integers(0, c.total, 40, dtype=np.uint64)] if c.total < 2**63 else []
    draws += [random.Random(seed).randrange(c.total) for _ in range(40)]
    for i in rng.integers(0, vocab, 40).tolist():
        draws += [max(cumulative[i] - 1, 0), min(cumulative[i], c.total - 1)]
    for draw in draws:
        assert c.token_at_draw(draw) == bisect_right(cumulative, draw)


def test_float_brackets_are_ordered_and_agree_with_a_single_bracket():
    rng = np.random.default_rng(5)
    values = rng.random(10_000) * 2.0 ** rng.integers(-30, 5, 10_000)
    total = float(values.sum())
    for x in np.linspace(-1, total * 1.01, 200).tolist():
        low, high = float_brackets(values, x - 1e-9 * total, x + 1e-9 * total)
        assert low <= high
        assert (low, low) == float_brackets(values, x - 1e-9 * total, x - 1e-9 * total)


@settings(max_examples=60, deadline=None)
@given(fp32_rows, fp32_rows, st.sampled_from([Fraction(1), Fraction(2, 3), Fraction(1, 7), Fraction(0)]),
       st.sampled_from([Fraction(1), Fraction(1, 2)]))
def test_a_kept_mass_then_the_residual_equal_fractions(row_p, row_q, c, other):
    """residual_mass keeps its parts on p: the residual that follows (and another scale) must not mix them up."""
    n = min(len(row_p), len(row_q))
    assume(any(row_p[:n]) and any(row_q[:n]))
    p = fp32_weights(n, range(n), np.array(row_p[:n], dtype=np.float32))
    q = fp32_weights(n, range(n), np.array(row_q[:n], dtype=np.float32))
    q2 = fp32_weights(n, range(n), np.array(row_q[:n][::-1], dtype=np.float32))
    probs_p, probs_q, probs_q2 = p.probabilities, q.probabilities, q2.probabilities
    for scale, qq, probs in ((c, q, probs_q), (other, q, probs_q), (c, q2, probs_q2), (c, q, probs_q)):
        diffs = [max(scale * a - b, Fraction()) for a, b in zip(probs_p, probs)]
        mass = sum(diffs, Fraction())
        assert residual_mass(p, qq, scale) == mass
        if not mass:
            with pytest.raises(SupportError):
                residual_with_mass(p, qq, scale)
            continue
        got, got_mass = residual_with_mass(p, qq, scale)
        assert got_mass == mass
        assert got.probabilities == tuple(d / mass for d in diffs)


S = FLOAT_SLICE
LONG = 2 * S + 100  # three slices


@pytest.mark.parametrize("fp32", [True, False])
@pytest.mark.parametrize("bad", [
    [(S - 1, -1.0)], [(S, float("nan"))], [(S + 1, "x")], [(LONG - 1, 1e39)],
    [(100, float("inf")), (S + 50, "x")], [(S + 50, float("nan")), (100, True)], [(S, np.float32(2.0))],
    [(2 * S, -0.5), (S + 3, None)],
])
def test_long_float_lists_are_read_in_slices_and_report_in_order(bad, fp32):
    """Across the marshalled slices: the first bad element in the walk's order, whatever comes later."""
    n = LONG
    weights = [0.25] * n
    for index, value in bad:
        weights[index] = value
    expected = _first_error(weights, _check_fp32_element if fp32 else check_weight)
    build = fp32_weights if fp32 else Categorical
    if expected is None:
        with pytest.raises(WeightValueError):  # 1e39 is a fine float64 weight but no FP32 one
            fp32_weights(n, range(n), weights)
        assert Categorical(n, range(n), weights).prob(n - 1) == Fraction(1e39) / (Fraction(1e39) + Fraction(n - 1, 4))
        return
    with pytest.raises(expected[0]) as caught:
        build(n, range(n), weights)
    assert str(caught.value) == expected[1]


def test_long_float_lists_equal_their_arrays():
    rng = np.random.default_rng(8)
    row = (rng.random(LONG) * 2.0 ** rng.integers(-140, 100, LONG)).astype(np.float32)
    row[[0, S - 1, S, LONG - 1]] = 0
    assert fp32_weights(LONG, range(LONG), row.tolist()).tickets == fp32_weights(LONG, range(LONG), row).tickets
    doubles = rng.random(LONG).tolist()
    assert plain_float_values(doubles).tolist() == doubles
