"""Hypothesis strategies over verification rule names, valid (in every spelling the reader accepts, with the
canonical name each must read to) and hostile (what a careless or hostile user types into a link, a file, a
lecture script or the command line). Imported by tests (tests/ is on sys.path through its conftest.py).
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

from specviz.core.verification import MAX_EXPONENT, MAX_WIDTH, number_name

FIXED = ["token", "block", "exact-match", "greedy-draft"]
PLAYABLE_FAMILIES = ["multi", "multi-distinct"]


@st.composite
def _width_name(draw) -> tuple[str, str]:
    """multi:K / multi-distinct:K, K in range, with leading zeros: (spelling, canonical)."""
    family = draw(st.sampled_from(PLAYABLE_FAMILIES))
    k = draw(st.integers(1, MAX_WIDTH))
    zeros = "0" * draw(st.integers(0, 3))
    return f"{family}:{zeros}{k}", f"{family}:{k}"


@st.composite
def _typical_name(draw) -> tuple[str, str]:
    """typical:EPS with EPS in (0, 1) as a fraction (reduced or not) or a decimal spelling: (spelling, canonical)."""
    den = draw(st.integers(2, 10_000))
    num = draw(st.integers(1, den - 1))
    scale = draw(st.integers(1, 5))
    value = Fraction(num, den)
    canonical = f"typical:{number_name(value)}"
    form = draw(st.sampled_from(["fraction", "scaled", "decimal", "canonical"]))
    if form == "fraction":
        return f"typical:{value.numerator}/{value.denominator}", canonical
    if form == "scaled":
        return f"typical:{num * scale}/{den * scale}", canonical
    if form == "decimal":
        places = draw(st.integers(1, 12))
        rounded = Fraction(round(value * 10**places), 10**places)
        if not 0 < rounded < 1:
            return canonical, canonical
        text = f"{rounded.numerator * 10**places // rounded.denominator:0{places + 1}d}"
        spelled = f"{text[:-places]}.{text[-places:]}{'0' * draw(st.integers(0, 2))}"
        if draw(st.booleans()):
            spelled = spelled.lstrip("0") or spelled  # ".5"
        return f"typical:{spelled}", f"typical:{number_name(rounded)}"
    return canonical, canonical


@st.composite
def _scientific_name(draw) -> tuple[str, str]:
    """typical:Me-N, a small ε in scientific notation (M a whole number): (spelling, canonical)."""
    mantissa = draw(st.integers(1, 999))
    exponent = draw(st.integers(len(str(mantissa)), MAX_EXPONENT // 2))
    value = Fraction(mantissa, 10**exponent)
    return f"typical:{mantissa}e-{exponent}", f"typical:{number_name(value)}"


def valid_names() -> st.SearchStrategy[tuple[str, str]]:
    """(a spelling the reader accepts, the canonical name of its rule)."""
    fixed = st.sampled_from(FIXED).map(lambda name: (name, name))
    return st.one_of(fixed, _width_name(), _typical_name(), _scientific_name())


# what the reader must refuse as a VerificationError naming the name, fast, whatever its length
HOSTILE_TEXT = [
    "", ":", "token ", " token", "Token", "BLOCK", "tokenwise", "multi", "multi:", "multi:0", "multi:-1", "multi:+2",
    f"multi:{MAX_WIDTH + 1}", "multi:2.0", "multi:2 ", "multi: 2", "multi:1_0", "multi:２", "multi:٣", "multi:²",
    "multi:0x2", "multi:2e0", "multi-distinct:9", "typical:", "typical:0", "typical:1", "typical:2", "typical:1/0",
    "typical:0/0", "typical:-0.5", "typical:+0.5", "typical: 0.5", "typical:0.5 ", "typical:1_0/3_0", "typical:0_5",
    "typical:nan", "typical:inf", "typical:1e-99999999", "typical:1e99999999", "typical:1e-65", "typical:0.5e",
    "typical:e-5", "typical:.", "typical:..5", "typical:0.5.1", "typical:1/2/3", "typical:１/２", "typical:٠٫٥",
    "typical:0,5", "typical:½", "typical:0x1p-1", "typical:1e-5000", "typical:5e+0", "tree", "tree:2", "typical",
    "block:2", "token:", "multi:2:3", "\x00", "token\n", "🙂", "multi:" + "7" * 5000, "typical:0." + "1" * 5000,
    "typical:" + "1" * 70 + "/" + "3" * 70, "x" * 1_000_000,
]


@st.composite
def _mutated(draw) -> str:
    """A valid spelling with one character inserted, replaced or removed (most such names are invalid)."""
    spelling, _ = draw(valid_names())
    where = draw(st.integers(0, len(spelling)))
    char = draw(st.sampled_from([" ", "_", "-", "+", ".", "/", "e", "E", "０", "٣", ":", "\t", "x", "0", "9"]))
    how = draw(st.sampled_from(["insert", "replace", "delete"]))
    if how == "insert":
        return spelling[:where] + char + spelling[where:]
    if how == "replace":
        return spelling[:where] + char + spelling[where + 1:]
    return spelling[:where] + spelling[where + 1:]


def hostile_names() -> st.SearchStrategy[object]:
    """Names (and non-names) a user may type or a file may hold: refused, or (a mutation) perhaps valid."""
    long_digits = st.integers(65, 6_000).map(lambda n: "multi:" + "9" * n)
    huge_exponent = st.integers(MAX_EXPONENT + 1, 10**9).map(lambda e: f"typical:1e-{e}")
    others = st.one_of(st.none(), st.integers(), st.floats(), st.binary(max_size=8), st.lists(st.just("token")))
    return st.one_of(st.sampled_from(HOSTILE_TEXT), long_digits, huge_exponent, _mutated(), others,
                     st.text(max_size=80))
