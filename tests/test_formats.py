"""specviz.formats: one rule for long integers, exact fractions and decimals, also beyond the float range."""

from __future__ import annotations

import re
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from specviz import formats

big_ints = st.integers(min_value=-(10**80), max_value=10**80)
fractions = st.builds(Fraction, big_ints, st.integers(min_value=1, max_value=10**80))


@given(big_ints)
def test_the_one_rule_writes_short_integers_in_full_and_long_ones_by_both_ends(n):
    text = formats.abbreviate(n)
    digits = str(abs(n))
    if len(digits) <= formats.FULL_DIGITS:
        assert text == str(n)
    else:
        sign = "-" if n < 0 else ""
        assert text == f"{sign}{digits[:formats.KEEP]}…{digits[-formats.KEEP:]} ({len(digits)} digits)"


@given(st.integers(min_value=0, max_value=10**4000))
def test_digit_count_is_the_length_of_the_decimal_text(n):
    assert formats.digit_count(n) == len(str(n)) and formats.digit_count(-n) == len(str(n))


@given(fractions)
def test_exact_is_every_digit(value):
    assert Fraction(formats.exact(value)) == value


@given(fractions)
def test_exact_short_is_exact_unless_long(value):
    assert (formats.exact_short(value) == formats.exact(value)) == (not formats.is_long(value))


@given(fractions, st.integers(min_value=4, max_value=40))
def test_fit_is_exact_within_its_width_else_a_decimal(value, width):
    text = formats.fit(value, width)
    if len(formats.exact(value)) <= width:
        assert text == formats.exact(value)
    else:
        assert text.startswith("≈ ") and float(text[2:]) == float(f"{float(value):.4g}")


@given(fractions)
def test_significant_agrees_with_float_where_float_holds_it(value):
    if value and 1e-300 <= abs(float(value)) < 1e300:
        assert formats.significant(value) == f"{float(value):.4g}"


def test_values_beyond_the_float_range_keep_their_digits():
    assert formats.significant(Fraction(1, 2**2000)) == "8.710e-603"
    assert formats.significant(Fraction(10**400, 3)) == "3.333e399"
    assert formats.fraction_abbreviated(Fraction(1, 2**2000)) == "1/114813…029376 (603 digits) ≈ 8.710e-603"


def test_the_profiles_formats():
    assert formats.fraction(Fraction(3, 10)) == "3/10 ≈ 0.3000" and formats.fraction(2) == "2"
    assert formats.draw(3, 7) == "draw 3 of 0..6 (u = 3/7 ≈ 0.4286)"
    assert formats.draw(3, 7, point=False) == "draw 3 of 0..6"
    long = Fraction(3**80, 2**140)
    assert formats.fraction_folded(long) == "≈ 0.000106 (exact: 43-digit fraction)"  # not ≈ 0.0001: two digits
    assert formats.formula_operand(long) == "≈ 0.000106" and formats.formula_operand(Fraction(1, 3)) == "1/3"
    huge = Fraction(1, 10**40 + 5)  # p(.) with weights of 10^40: the page said "p(.) = ≈ 0.0000"
    assert formats.fraction_folded(huge).startswith("≈ 1e-40 (exact:") and formats.formula_operand(huge) == "≈ 1e-40"


@settings(max_examples=300, deadline=None)
@given(st.fractions(min_value=-10**6, max_value=10**6).filter(lambda v: v != 0) | st.builds(
    lambda n, e: Fraction(n, 10**e), st.integers(1, 999), st.integers(0, 500)))
def test_a_decimal_never_reads_as_zero_and_keeps_two_significant_digits(value):
    text = formats.decimal(value)
    assert text.strip("-0.") != "", text  # never 0.0000 for a value that is not 0
    if abs(value) >= Fraction(1, 1000):
        assert text == f"{float(value):.4f}"  # the page's four places where they show two digits or more
    elif abs(value) > Fraction(1, 10**300):
        assert abs(float(text) - float(value)) <= abs(float(value)) * 0.006  # three significant digits
    shown = formats.fraction(value) if value.denominator < 10**9 else formats.fraction_folded(value)
    assert not re.search(r"≈ -?0\.0+(?![0-9])", shown), shown  # a nonzero value never reads as ≈ 0.0000
    assert formats.thousands(12345) == "12,345" and formats.thousands(10**20) == "100000…000000 (21 digits)"


def test_digit_count_past_the_integer_to_text_limit():
    assert formats.digit_count(10**6000) == 6001 and formats.digit_count(10**6000 - 1) == 6000
