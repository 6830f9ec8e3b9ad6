"""Hypothesis strategies over verification rule names, valid (in every spelling the reader accepts, with the
canonical name each must read to) and hostile (what a careless or hostile user types into a link, a file, a
lecture script or the command line). Imported by tests (tests/ is on sys.path through its conftest.py).

One reader reads every parameterised name (``specviz/core/rule_params.py``): the same number spellings are
generated for typical's ε and δ, ensemble's W and SGLang's S and A, and the same hostile numbers are tried in
each of them.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

from specviz.core.verification import MAX_EXPONENT, MAX_WIDTH, number_name

FIXED = ["token", "block", "exact-match", "greedy-draft"]
PLAYABLE_FAMILIES = ["multi", "multi-distinct"]
ENGINE_FAMILIES = ["ensemble", "threshold", "typical", "typical-sample"]


@st.composite
def _width_name(draw) -> tuple[str, str]:
    """multi:K / multi-distinct:K, K in range, with leading zeros: (spelling, canonical)."""
    family = draw(st.sampled_from(PLAYABLE_FAMILIES))
    k = draw(st.integers(1, MAX_WIDTH))
    zeros = "0" * draw(st.integers(0, 3))
    return f"{family}:{zeros}{k}", f"{family}:{k}"


@st.composite
def _number(draw, *, one: bool = False) -> tuple[str, Fraction]:
    """A number in (0, 1) (or (0, 1] when ``one``) in one of the spellings the reader accepts: (spelling, value)."""
    den = draw(st.integers(2, 10_000))
    num = draw(st.integers(1, den if one else den - 1))
    scale = draw(st.integers(1, 5))
    value = Fraction(num, den)
    form = draw(st.sampled_from(["fraction", "scaled", "decimal", "canonical"]))
    if form == "fraction":
        return f"{value.numerator}/{value.denominator}", value
    if form == "scaled":
        return f"{num * scale}/{den * scale}", value
    if form == "decimal":
        places = draw(st.integers(1, 12))
        rounded = Fraction(round(value * 10**places), 10**places)
        if not 0 < rounded < 1 or (one and rounded == 1):
            return number_name(value), value
        text = f"{rounded.numerator * 10**places // rounded.denominator:0{places + 1}d}"
        spelled = f"{text[:-places]}.{text[-places:]}{'0' * draw(st.integers(0, 2))}"
        if draw(st.booleans()):
            spelled = spelled.lstrip("0") or spelled  # ".5"
        return spelled, rounded
    return number_name(value), value


@st.composite
def _typical_name(draw) -> tuple[str, str]:
    """typical:EPS with EPS in (0, 1) as a fraction (reduced or not) or a decimal spelling: (spelling, canonical)."""
    spelled, value = draw(_number())
    return f"typical:{spelled}", f"typical:{number_name(value)}"


@st.composite
def _engine_name(draw) -> tuple[str, str]:
    """ensemble:W, threshold:S,A[,K], typical:EPS,DELTA and typical-sample:EPS[,DELTA], each number in any spelling:
    (spelling, canonical). A trailing K of 1 (a chain) and an omitted δ (√ε) are named without them."""
    family = draw(st.sampled_from(ENGINE_FAMILIES))
    if family == "ensemble":
        (w, value) = draw(_number(one=True))
        return f"ensemble:{w}", f"ensemble:{number_name(value)}"
    if family == "threshold":
        (s, sv), (a, av) = draw(_number(one=True)), draw(_number(one=True))
        k = draw(st.integers(1, MAX_WIDTH))
        tail = draw(st.sampled_from(["", f",{k}", f",0{k}"]))
        canonical = f"threshold:{number_name(sv)},{number_name(av)}" + (f",{k}" if tail and k > 1 else "")
        return f"threshold:{s},{a}{tail}", canonical
    (eps, ev) = draw(_number())
    if draw(st.booleans()):
        return f"{family}:{eps}", f"{family}:{number_name(ev)}"
    (delta, dv) = draw(_number(one=True))
    return f"{family}:{eps},{delta}", f"{family}:{number_name(ev)},{number_name(dv)}"


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
    return st.one_of(fixed, _width_name(), _typical_name(), _scientific_name(), _engine_name())


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
    # the engine rules, through the same reader: out of range, malformed, too many or too few numbers
    "ensemble:", "ensemble:0", "ensemble:1.5", "ensemble:-0.5", "ensemble:+0.5", "ensemble: 0.5", "ensemble:0.5,1",
    "ensemble:1e-65", "ensemble:٠.5", "ensemble:nan", "ensemble:1/0", "Ensemble:0.5", "ensemble",
    "threshold:", "threshold:1", "threshold:1,", "threshold:,1", "threshold:0,1", "threshold:1,0", "threshold:1,2",
    "threshold:1, 1", "threshold:1,1,0", "threshold:1,1,9", "threshold:1,1,2.0", "threshold:1,1,1,1",
    "threshold:1;1", "threshold:S,A", "threshold:1,1,٣", "typical:0.1,0", "typical:0.1,1.5", "typical:0.1,",
    "typical:0.1,0.2,0.3", "typical-sample:", "typical-sample:1", "typical-sample:0.1,-1", "medusa:0.09",
    "typical:0.09,1e-99999999",
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
    huge_exponent = st.integers(MAX_EXPONENT + 1, 10**9).map(
        lambda e: f"typical:1e-{e}") | st.integers(MAX_EXPONENT + 1, 10**9).map(lambda e: f"threshold:1,1e-{e}")
    others = st.one_of(st.none(), st.integers(), st.floats(), st.binary(max_size=8), st.lists(st.just("token")))
    return st.one_of(st.sampled_from(HOSTILE_TEXT), long_digits, huge_exponent, _mutated(), others,
                     st.text(max_size=80))
