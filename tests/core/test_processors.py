"""Processors: exact top-k / top-p / masks, temperature quantized to FP32, composition."""

from fractions import Fraction

import numpy as np
import pytest

from specviz.core import Categorical
from specviz.core.errors import ProcessorError
from specviz.core.processors import compose, mask, temperature, top_k, top_p

P = Categorical.dense([4, 3, 2, 1])


def test_top_k_keeps_the_most_probable():
    out = top_k(2)((), P)
    assert out.top(4) == [(0, Fraction(4, 7)), (1, Fraction(3, 7))]


def test_top_p_uses_exact_mass():
    assert top_p(0.7)((), P).support_size == 2  # 0.4 + 0.3 reaches 0.7 (0.7 as a float is just below 7/10)
    assert top_p(0.71)((), P).support_size == 3
    assert top_p(1)((), P) is P


def test_mask_and_compose():
    allowed = [False, True, True, True]
    out = compose(mask(allowed), top_k(1))((), P)
    assert out.top(4) == [(1, Fraction(1))]


def test_temperature_one_is_identity_and_others_are_fp32():
    assert temperature(1)((), P) is P
    hot = temperature(2.0)((), P)
    expected = np.sqrt(np.array([4, 3, 2, 1.0]))
    assert np.allclose(hot.to_numpy(), expected / expected.sum(), rtol=1e-6)
    for t in hot.tickets:  # FP32 weights: every ticket ratio is a ratio of FP32 values
        assert t >= 0
    cold = temperature(0.25)((), P)
    assert cold.prob(0) > P.prob(0)
    assert temperature(3.0)((), Categorical.dense([1, 0, 1])).prob(1) == 0


@pytest.mark.parametrize("factory,value", [(temperature, 0), (temperature, float("nan")), (top_k, 0),
                                           (top_p, 0), (top_p, 1.5)])
def test_invalid_settings(factory, value):
    with pytest.raises(ProcessorError):
        factory(value)


def slow_nucleus(c: Categorical, mass: Fraction) -> int:
    held = Fraction(0)
    for k, (_, p) in enumerate(c.top(c.support_size), start=1):
        held += p
        if held >= mass:
            return k
    return c.support_size


def test_nucleus_size_matches_the_exact_walk():
    rng = np.random.default_rng(2)
    for vocab in (5, 50, 3000):
        c = Categorical.dense(np.exp(rng.normal(0, 4, vocab)))
        for top in (0.01, 0.3, 0.5, 0.9, 0.999, 1.0, 1):
            assert c.nucleus_size(Fraction(top)) == slow_nucleus(c, Fraction(top))
    ties = Categorical.dense([1, 1, 1, 1])
    assert [ties.nucleus_size(Fraction(k, 4)) for k in range(1, 5)] == [1, 2, 3, 4]
    assert top_p(0.5)((), ties).ids == (0, 1)
