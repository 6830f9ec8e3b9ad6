"""specviz.formats: one rule for long integers, exact fractions and decimals, also beyond the float range."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
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
    assert formats.fraction_folded(long) == f"≈ {float(long):.4f} (exact: 43-digit fraction)"
    assert formats.formula_operand(long) == f"≈ {float(long):.4f}" and formats.formula_operand(Fraction(1, 3)) == "1/3"
    assert formats.thousands(12345) == "12,345" and formats.thousands(10**20) == "100000…000000 (21 digits)"


def test_digit_count_past_the_integer_to_text_limit():
    assert formats.digit_count(10**6000) == 6001 and formats.digit_count(10**6000 - 1) == 6000
