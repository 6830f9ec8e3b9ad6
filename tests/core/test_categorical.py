"""Categorical: the reference's contract, the exact fast paths, FP32 corner cases."""

import random
import struct
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from specviz.core import Categorical, fp32_weights
from specviz.core.errors import MaskError, SupportError, TokenError, TopKError, WeightTypeError, WeightValueError

FLT_MAX = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]
SUBNORMAL_MIN = 2.0**-149


def naive_token(c: Categorical, draw: int) -> int:
    for token, count in zip(c.ids, c.tickets):
        if draw < count:
            return token
        draw -= count
    raise AssertionError


def test_reference_attributes():
    c = Categorical(5, [3, 1], [Fraction(1, 3), 1])
    assert c.ids == (1, 3)
    assert c.probabilities == (Fraction(3, 4), Fraction(1, 4))
    assert c.tickets == (3, 1)
    assert c.total == 4
    assert c.prob(3) == Fraction(1, 4) and c.prob(0) == 0
    assert c.support_size == 2


def test_zero_weight_entries_stay_listed():
    c = Categorical.dense([0, 2, 0, 2])
    assert c.ids == (0, 1, 2, 3)
    assert c.tickets == (0, 1, 0, 1)
    assert c.probabilities[0] == 0


@pytest.mark.parametrize("weights", [[1, 2, 3], [0.5, 0.25, 0.25], [Fraction(1, 7), 3, 0.125]])
def test_float_and_fraction_paths_agree(weights):
    exact = Categorical(3, [0, 1, 2], [Fraction(w) for w in weights])
    fast = Categorical(3, [0, 1, 2], weights)
    arr = Categorical(3, np.arange(3), np.array([float(Fraction(w)) for w in weights])) \
        if all(Fraction(float(Fraction(w))) == Fraction(w) for w in weights) else fast
    assert exact == fast == arr
    assert exact.tickets == fast.tickets


def test_sampling_matches_the_reference_walk_on_a_wide_exponent_range():
    rng = np.random.default_rng(3)
    weights = np.exp(rng.normal(0, 40, 3000))  # tickets far beyond 64 bits
    c = Categorical.dense(weights)
    assert c.total.bit_length() > 64
    cumulative = 0
    checks = []
    for ticket in c.tickets[:200]:
        cumulative += ticket
        checks += [max(cumulative - 1, 0), cumulative]
    checks += [random.Random(1).randrange(c.total) for _ in range(300)] + [c.total - 1]
    for draw in checks:
        if draw < c.total:
            assert c.token_at_draw(draw) == naive_token(c, draw)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.just(0.0), st.floats(min_value=0, max_value=1e30, allow_subnormal=True),
                          st.floats(min_value=0, max_value=1e-30)), min_size=1, max_size=40),
       st.randoms(use_true_random=False))
def test_draws_match_the_naive_walk(weights, rng):
    if not any(weights):
        with pytest.raises(SupportError):
            Categorical.dense(weights)
        return
    c = Categorical.dense(weights)
    exact = Categorical.dense([Fraction(w) for w in weights])
    assert c == exact
    for _ in range(20):
        draw = rng.randrange(c.total)
        assert c.token_at_draw(draw) == naive_token(exact, draw)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.fractions(min_value=0, max_value=20, max_denominator=30), min_size=1, max_size=12),
       st.integers(1, 12))
def test_sparse_topk_matches_reference_order(weights, k):
    assume(any(weights))
    c = Categorical.dense(weights)
    k = min(k, c.vocab_size)
    chosen = sorted(zip(c.ids, c.probabilities), key=lambda item: (-item[1], item[0]))[:k]
    expected = Categorical(c.vocab_size, [i for i, _ in chosen], [p for _, p in chosen])
    assert c.sparse_topk(k) == expected
    floats = Categorical.dense([float(w) for w in weights])
    chosen_f = sorted(zip(floats.ids, floats.probabilities), key=lambda item: (-item[1], item[0]))[:k]
    assert floats.sparse_topk(k) == Categorical(c.vocab_size, [i for i, _ in chosen_f], [p for _, p in chosen_f])


def test_top_lists_positive_mass_only():
    c = Categorical.dense([0, 3, 1, 3])
    assert c.top(10) == [(1, Fraction(3, 7)), (3, Fraction(3, 7)), (2, Fraction(1, 7))]


def test_masked_renormalizes_and_keeps_ids():
    c = Categorical.dense([1, 1, 2]).masked([True, False, True])
    assert c.ids == (0, 1, 2) and c.probabilities == (Fraction(1, 3), 0, Fraction(2, 3))
    with pytest.raises(SupportError, match="empty effective support"):
        Categorical.dense([1, 0, 0]).masked([False, True, True])


def test_to_numpy_and_to_dict():
    c = Categorical(4, [2, 0], [1, 3])
    assert np.allclose(c.to_numpy(), [0.75, 0, 0.25, 0])
    d = c.to_dict(top_n=1)
    assert d["top"] == [{"token": 0, "p": "3/4", "p_float": 0.75}]
    assert d["rest"]["p"] == "1/4"


# --- FP32 corner cases -------------------------------------------------------------------------
def test_fp32_rounds_before_normalizing():
    c = fp32_weights(2, [0, 1], [0.1, 0.2])
    f01 = Fraction(struct.unpack("<f", struct.pack("<f", 0.1))[0])
    f02 = Fraction(struct.unpack("<f", struct.pack("<f", 0.2))[0])
    assert c.prob(0) == f01 / (f01 + f02)


def test_fp32_zero_subnormal_and_largest_finite():
    c = fp32_weights(4, range(4), [0.0, SUBNORMAL_MIN, FLT_MAX, 2.0**-150])
    assert c.prob(0) == 0
    assert c.prob(3) == 0  # 2**-150 rounds to zero in FP32 (ties to even)
    assert c.prob(1) == Fraction(2**-149) / (Fraction(2**-149) + Fraction(FLT_MAX))
    array = fp32_weights(4, np.arange(4), np.array([0.0, SUBNORMAL_MIN, FLT_MAX, 2.0**-150]))
    assert array == c


def test_fp32_tiny_weight_becomes_subnormal():
    c = fp32_weights(2, [0, 1], [1.0, 1e-40])
    assert 0 < c.prob(1) < Fraction(1, 10**39)


@pytest.mark.parametrize("value", [3.5e38, 1e300, 10**400, Fraction(10**39)])
def test_fp32_overflow_is_refused(value):
    with pytest.raises(WeightValueError, match="finite FP32"):
        fp32_weights(2, [0, 1], [1.0, value])


def test_fp32_value_that_rounds_down_to_max_is_accepted():
    just_above = float(np.nextafter(np.float64(FLT_MAX), np.inf))
    assert fp32_weights(1, [0], [just_above]).prob(0) == 1


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_non_finite_weights_are_refused(value):
    with pytest.raises(WeightValueError, match="non-finite"):
        fp32_weights(2, [0, 1], [1.0, value])
    with pytest.raises(WeightValueError, match="non-finite"):
        Categorical(2, [0, 1], np.array([1.0, value]))


# --- validation -----------------------------------------------------------------------------------
@pytest.mark.parametrize("weight", [True, "1", None, 1j, np.float32(1.0)])
def test_non_real_weights_raise_type_error(weight):
    with pytest.raises(WeightTypeError, match="real"):
        Categorical(2, [0, 1], [1, weight])
    with pytest.raises(TypeError):
        fp32_weights(2, [0, 1], [1, weight])


def test_boolean_weight_arrays_raise_type_error():
    with pytest.raises(WeightTypeError):
        Categorical(2, np.arange(2), np.array([True, False]))


@pytest.mark.parametrize("weights", [[-1, 2], [1, -0.5], [Fraction(-1, 3), 1]])
def test_negative_weights(weights):
    with pytest.raises(WeightValueError, match="negative weight"):
        Categorical(2, [0, 1], weights)


@pytest.mark.parametrize(
    ("vocab", "ids", "weights", "error", "match"),
    [
        (0, [0], [1], SupportError, "vocabulary size"),
        (True, [0], [1], SupportError, "vocabulary size"),
        (3, [], [], SupportError, "nonempty"),
        (3, [0, 1], [1], SupportError, "matching"),
        (3, [0, 0], [1, 1], SupportError, "duplicate global token ID 0"),
        (3, [0, 3], [1, 1], TokenError, "outside vocabulary 3"),
        (3, [0, -1], [1, 1], TokenError, "outside vocabulary"),
        (3, [0, 1.0], [1, 1], TokenError, "1.0 of type float is not an int"),
        (3, [0, 1], [0, 0.0], SupportError, "empty effective support"),
    ],
)
def test_support_validation(vocab, ids, weights, error, match):
    with pytest.raises(error, match=match):
        Categorical(vocab, ids, weights)


def test_mask_validation():
    c = Categorical.dense([1, 1])
    with pytest.raises(MaskError, match="one boolean per"):
        c.masked([True])
    with pytest.raises(MaskError, match="one boolean per"):
        c.masked([True, 1])
    with pytest.raises(MaskError):
        c.masked(np.array([1, 0]))


@pytest.mark.parametrize("k", [0, 3, -1, 1.0, True])
def test_topk_range(k):
    with pytest.raises(TopKError, match="top-k outside vocabulary"):
        Categorical.dense([1, 1]).sparse_topk(k)


def test_prob_checks_token():
    with pytest.raises(TokenError):
        Categorical.dense([1, 1]).prob(2)


def test_errors_subclass_the_reference_types():
    assert issubclass(WeightTypeError, TypeError)
    for error in (WeightValueError, SupportError, TokenError, MaskError, TopKError):
        assert issubclass(error, ValueError)


def test_unsorted_support_is_kept_in_id_order_and_validated_in_given_order():
    c = Categorical(5, [4, 0, 2], [1, 2, Fraction(1, 2)])
    assert c.ids == (0, 2, 4) and c.tickets == (4, 1, 2)
    big = Categorical(600, np.arange(599, -1, -1), np.arange(600, dtype=np.float64))
    assert big.ids == tuple(range(600)) and big.prob(599) == 0 and big.prob(0) == Fraction(599, 179700)
    with pytest.raises(WeightTypeError):  # the reference meets "x" (2nd given) before -1 (3rd given)
        Categorical(5, [4, 0, 2], [1, "x", -1])
    with pytest.raises(WeightValueError):
        Categorical(5, [4, 0, 2], [1, -1, "x"])
