"""Core edges: bad inputs answered with the core's own errors, numpy extensions kept exact, reference parity."""

from fractions import Fraction

import numpy as np
import pytest

from specviz.core import (
    Categorical,
    ModelOutputError,
    Owner,
    ProcessorOutputError,
    RandomStreams,
    Verifier,
    fp32_weights,
    propose,
    residual,
    residual_mass,
)
from specviz.core.categorical import MAX_VOCAB
from specviz.core.errors import (
    DistributionTypeError,
    MaskError,
    ProcessorError,
    SupportError,
    TokenError,
    WeightTypeError,
    WeightValueError,
)
from specviz.core.processors import Temperature, compose, top_k


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


def test_vocabularies_beyond_what_the_core_can_hold_are_refused_when_built():
    # issue 19: a Categorical of 2**64 (or 10**12) tokens used to be accepted, and its residual then ran out of
    # memory; the limit is MAX_VOCAB = 2**22 (documented in categorical.py)
    for size in (2**64, 10**12, MAX_VOCAB + 1):
        with pytest.raises(SupportError, match=f"vocabulary size {size:,} is more than the core can hold: at most "
                                               "4,194,304 tokens"):
            Categorical(size, [5], [1])
        with pytest.raises(SupportError, match="more than the core can hold"):
            fp32_weights(size, [5], [1.0])
    c = Categorical(MAX_VOCAB, [MAX_VOCAB - 1, 5], [1, 2])
    assert c.ids == (5, MAX_VOCAB - 1) and c.prob(MAX_VOCAB - 1) == Fraction(1, 3)
    assert c.token_at_draw(2) == MAX_VOCAB - 1 and c.sparse_topk(1).ids == (5,)
    with pytest.raises(TokenError, match=str(2**63)):  # an id at or above 2**63 is still named as itself
        Categorical(MAX_VOCAB, [2**63, 5], [1, 2])
    with pytest.raises(SupportError, match="duplicate"):
        Categorical(MAX_VOCAB, [7, 7], [1, 2])


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


# --- issue 19: a model, target or processor that returns something else is named in words ---------------------


def _round(target, processor=None, draft=lambda prefix: Categorical.dense([1, 1])):
    owner = Owner("edge", 0)
    streams = RandomStreams(0, owner, 0)
    kw = {} if processor is None else {"processor": processor}
    verifier = Verifier(owner, (), "ctx", target, **kw)
    return verifier.verify(propose(draft, (), streams, depth=2, context_id="ctx"), streams)


def test_a_processor_returning_none_is_named():
    with pytest.raises(ProcessorOutputError, match="processor <lambda> returned None of type NoneType; a processor "
                                                    "must return a Categorical") as caught:
        _round(lambda prefix: Categorical.dense([1, 2]), processor=lambda prefix, dist: None)
    assert isinstance(caught.value, ProcessorError) and isinstance(caught.value, TypeError)


def test_a_composed_step_returning_the_wrong_thing_is_named():

    def broken(prefix, dist):
        return dist.to_numpy()

    with pytest.raises(ProcessorOutputError, match=r"processor broken returned array\(\[.*of type ndarray"):
        compose(top_k(1), broken)((), Categorical.dense([1, 2]))
    with pytest.raises(TypeError, match="the distribution a processor is given must be a Categorical, got None"):
        Temperature(0.5)((), None)


@pytest.mark.parametrize("role, kw", [
    ("target model", {"target": lambda prefix: [0.5, 0.5]}),
    ("draft model", {"target": lambda prefix: Categorical.dense([1, 2]), "draft": lambda prefix: None}),
])
def test_a_model_returning_something_else_is_named(role, kw):
    with pytest.raises(ModelOutputError, match=f"the {role} returned .* of type (list|NoneType); a model must return "
                                               "a Categorical"):
        _round(**kw)


def test_a_model_that_is_not_callable_is_named():
    with pytest.raises(ModelOutputError, match="the target model must be callable"):
        Verifier(Owner("edge", 0), (), "ctx", None)
    with pytest.raises(ModelOutputError, match="the draft model must be callable"):
        propose(Categorical.dense([1, 1]), (), RandomStreams(0, Owner("edge", 0), 0), depth=1, context_id="ctx")
    with pytest.raises(TypeError, match="the processor must be callable"):
        Verifier(Owner("edge", 0), (), "ctx", lambda prefix: Categorical.dense([1]), processor=3)


def test_arithmetic_names_an_argument_that_is_not_a_distribution():

    with pytest.raises(DistributionTypeError, match=r"q \(the draft distribution\) must be a Categorical, got "
                                                    r"\[1, 2\] of type list"):
        residual(Categorical.dense([1, 2]), [1, 2])
    with pytest.raises(DistributionTypeError, match=r"p \(the target distribution\) must be a Categorical"):
        residual_mass(None, Categorical.dense([1, 2]))
