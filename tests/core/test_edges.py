"""Core edges: bad inputs answered with the core's own errors, numpy extensions kept exact, reference parity."""

import random
from fractions import Fraction

import numpy as np
import pytest

from specviz.core import Categorical, fp32_weights
from specviz.core.errors import (
    MaskError,
    ProcessorError,
    SupportError,
    TokenError,
    WeightTypeError,
    WeightValueError,
)
from specviz.core.processors import Temperature


def test_huge_and_non_finite_temperatures_are_refused_with_the_range():
    for bad in (2**2000, float("inf"), float("nan"), 0, -0.5):
        with pytest.raises(ProcessorError, match=r"temperature must be in \(0, 1.79769e\+308\]"):
            Temperature(bad)
    with pytest.raises(ProcessorError, match="an int of 603 digits"):
        Temperature(2**2000)


def test_tiny_temperature_is_near_greedy_exactly():
    p = Categorical.dense([1, 2, 3, 3])
    assert Temperature(1e-320)((), p).probabilities == (0, 0, Fraction(1, 2), Fraction(1, 2))
    assert Temperature(1e-300)((), Categorical.dense([5, 1])).probabilities == (1, 0)
    # an ordinary temperature is unchanged by the fallback
    assert Temperature(0.5)((), p).probabilities[0] < Temperature(1.0)((), p).probabilities[0]


def test_none_instead_of_a_sequence():
    with pytest.raises(MaskError, match="mask must be a sequence") as caught:
        Categorical.dense([1, 2]).masked(None)
    assert isinstance(caught.value, TypeError)  # the reference raises TypeError (len(None))
    with pytest.raises(WeightTypeError, match="weights must be a sequence"):
        Categorical(2, [0, 1], None)
    with pytest.raises(TypeError, match="token ids must be a sequence"):
        Categorical(2, None, [1, 2])
    with pytest.raises(WeightTypeError, match="weights must be a sequence"):
        fp32_weights(2, [0, 1], None)


def test_token_ids_at_or_above_two_to_the_63_are_accepted():
    c = Categorical(2**64, [2**63, 5], [1, 2])
    assert c.ids == (5, 2**63)
    assert c.prob(2**63) == Fraction(1, 3) and c.prob(2**64 - 1) == 0
    assert c.token_at_draw(2) == 2**63
    assert c.sparse_topk(1).ids == (5,)
    assert c.sample(random.Random(0)) in (5, 2**63)
    with pytest.raises(TokenError, match=str(2**64)):
        Categorical(2**64, [2**64, 5], [1, 2])
    with pytest.raises(SupportError, match="duplicate"):
        Categorical(2**64, [2**63, 2**63], [1, 2])


def test_fp32_checks_run_in_the_reference_order():
    with pytest.raises(WeightValueError, match="finite FP32: 1e\\+39 at position 0"):
        fp32_weights(2, [0, 1], [1e39, None])
    with pytest.raises(WeightTypeError, match="position 1"):
        fp32_weights(2, [0, 1], [1.0, None])
    with pytest.raises(WeightValueError, match="finite FP32"):
        fp32_weights(3, [0, 1, 2], [0.5, 2**200, "x"])
    with pytest.raises(WeightValueError, match="finite FP32: 1e\\+39 at position 1"):
        fp32_weights(3, [0, 1, 2], np.array([1.0, 1e39, np.nan]))
    with pytest.raises(WeightValueError, match="non-finite"):
        fp32_weights(3, [0, 1, 2], np.array([1.0, np.nan, 1e39]))
    # the largest double that still rounds to a finite FP32 value is accepted
    edge = float(np.nextafter(2.0**128 - 2.0**103, 0))
    assert fp32_weights(2, [0, 1], [edge, 1.0]).prob(0) > Fraction(99, 100)


def test_longdouble_weights_stay_exact():
    third = np.array([1, 3], dtype=np.longdouble) / 3
    exact = [Fraction(*v.as_integer_ratio()) for v in third]
    c = Categorical(2, [0, 1], third)
    assert c.probabilities == tuple(w / sum(exact) for w in exact)
    wide = np.full(400, np.longdouble(1) / 3)
    wide[0] = np.longdouble(1) / 7
    d = Categorical(400, range(400), wide)
    weights = [Fraction(*v.as_integer_ratio()) for v in wide]
    assert d.prob(0) == weights[0] / sum(weights)


def test_large_int64_weights_stay_exact():
    weights = np.full(300, 1, dtype=np.int64)
    weights[0] = 2**53 + 1
    c = Categorical(300, range(300), weights)
    assert c.prob(0) == Fraction(2**53 + 1, 2**53 + 300)


def test_two_dimensional_id_and_weight_arrays_are_refused():
    with pytest.raises(SupportError, match="1-D"):
        Categorical(4, np.array([[0, 1], [2, 3]]), [1, 2, 3, 4])
    with pytest.raises(WeightTypeError, match="1-D"):
        Categorical(4, [0, 1], np.ones((2, 2)))
    with pytest.raises(WeightTypeError, match="1-D"):
        fp32_weights(4, [0, 1], np.ones((2, 2), dtype=np.float32))


def test_uint64_ids_are_reported_with_their_real_value():
    with pytest.raises(TokenError, match="18446744073709551615"):
        Categorical(4, np.array([0, 2**64 - 1], dtype=np.uint64), [1, 2])
    ok = Categorical(4, np.array([3, 1], dtype=np.uint64), [1, 2])
    assert ok.ids == (1, 3)


def test_lists_are_checked_element_by_element_in_order():
    weights = [0.5] * 300
    weights[7], weights[9] = True, "x"
    with pytest.raises(WeightTypeError, match="position 7"):
        Categorical(300, range(300), weights)
    weights[7] = -1.0
    with pytest.raises(WeightValueError, match="negative weight -1.0 at position 7"):
        Categorical(300, range(300), weights)
    ids = list(range(300))
    ids[5], ids[8] = 5.0, 999
    with pytest.raises(TokenError, match="5.0"):
        Categorical(300, ids, [0.5] * 300)
    ids[5] = True
    with pytest.raises(TokenError, match="True"):
        fp32_weights(300, tuple(ids), [0.5] * 300)


def test_a_reused_tuple_of_ids_is_still_checked_once_and_kept():
    ids = tuple(range(500))
    a = fp32_weights(500, ids, [1.0] * 500)
    b = fp32_weights(500, ids, [2.0] * 500)
    assert a == b and a.ids == ids
    with pytest.raises(TokenError):
        fp32_weights(400, ids, [1.0] * 500)  # same tuple, smaller vocabulary: checked again


def test_a_categorical_does_not_share_the_callers_id_array():
    for ids in (np.array([0, 2, 5]), np.array([5, 0, 2]), np.arange(3)):
        c = Categorical(6, ids, [1, 2, 3])
        before = c.ids
        ids[0] = 4
        assert c.ids == before
