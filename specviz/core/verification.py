"""Verification rules, each named once: its name, its labels, how a round drafts and which verifier checks it.

Every layer (Playground, Real models, the lab, theory, the command line, the benchmarks) asks this
registry instead of comparing strings: ``rule("block").label``, ``rule(name).verifier_class``,
``rule(name).kept_verb``. A rule is named by a short spec: "token", "block", and (built on the
same registry) parameterised families such as "multi:2" (a tree of i.i.d. drafts) whose parser
lives in ``_FAMILIES``. ``rule(name)`` is the one bounded reader of every name a user types (links,
files, lecture scripts, the command line, theory): at most MAX_NAME_LENGTH ASCII characters, numbers
bounded before any Fraction is built, and one canonical name per rule (``Rule.name``).

What a layer does differently for a family of rules lives in that layer's ``FamilyTable``: one table
keyed by family name, a module-level constant named ``<WHAT>_BY_FAMILY`` whose ``layer`` is its own
address (``theory.rules.THEORY_BY_FAMILY``), looked up with the rule (``THEORY_BY_FAMILY[rule]``), never
a comparison of ``rule.family`` with a string. A layer that does not handle a family says why with an
``Unsupported`` entry. Every table registers itself in ``TABLES``; the completeness test
(tests/core/test_family_tables.py) names any table that misses a family of ``FAMILIES``, so a new rule
is one entry here and one entry per layer table (docs/design.md, "Adding a verification rule").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Generic, Literal, TypeVar

from .block_verifier import BlockVerifier
from .errors import VerificationError
from .streams import RandomStreams
from .trace import Trace
from .tree import Tree, TreeVerifier, propose_tree
from .verifier import MAX_WIDTH, Block, Model, Prefix, Verifier, propose


@dataclass(frozen=True)
class Rule:
    """One verification rule as every layer sees it."""

    name: str  # canonical spec, as links, files and the command line write it: "token", "block", "multi:2"
    family: str  # "token", "block", "tree", or a lossy family only theory evaluates
    label: str  # for people: "tokenwise", "block verification"
    short: str  # for tight places (table headers, chart legends): "tokenwise", "block"
    kept_verb: str  # what the rule does to a draft it commits: "accepted" or "kept"
    source: str = ""  # the paper or engine it comes from
    citation: str = ""  # the short reference a table prints beside ``short`` ("" for the textbook rule)
    width: int = 1  # drafts per node (a chain has 1)
    distinct: bool = False  # children drawn without replacement
    exact: bool = True  # commits tokens distributed exactly as the target p
    verifier_class: type[Verifier] | None = None  # None: a rule only theory evaluates (no core verifier)
    parameter: Fraction | None = None  # a lossy rule's threshold (typical's ε)

    @property
    def playable(self) -> bool:
        """True when the core has a verifier for it (the Playground, CLI and models can run it)."""
        return self.verifier_class is not None


TOKEN = Rule("token", "token", "tokenwise", "tokenwise", "accepted",
             source="Leviathan, Kalman & Matias 2023; Chen et al. 2023", verifier_class=Verifier)
BLOCK = Rule("block", "block", "block verification", "block", "kept",
             source="Sun et al. 2025 (Block Verification Accelerates Speculative Decoding)",
             citation="Sun et al. 2025", verifier_class=BlockVerifier)

# rules engines run that theory evaluates (no core verifier yet)
EXACT_MATCH = Rule("exact-match", "exact-match", "exact match of the target's sample", "exact match", "accepted",
                   source="mlx-lm's default: draft from q, the target samples its own token, kept when equal",
                   citation="mlx-lm")
GREEDY_DRAFT = Rule("greedy-draft", "greedy-draft", "greedy draft, target's sample", "greedy draft", "accepted",
                    source="the draft proposes argmax q, kept when the target's own sample equals it")

# fixed rules by name; parameterised families ("multi:K", ...) register a parser in _FAMILIES
_FIXED: dict[str, Rule] = {r.name: r for r in (TOKEN, BLOCK, EXACT_MATCH, GREEDY_DRAFT)}

# --- reading a name: bounded before any work ---------------------------------------------------------------
MAX_NAME_LENGTH = 64  # characters of a rule name, checked before anything is parsed (a link can carry megabytes)
MAX_EXPONENT = 64  # |e| of a number's exponent (typical:1e-5), checked before 10^e is built
MAX_DECIMAL_PLACES = 12  # a typical ε that terminates within this many places is named as a decimal
# a parameter's number: ASCII digits only (re.ASCII), a decimal with an optional exponent, or a fraction a/b
_NUMBER = re.compile(r"(?:(?P<num>\d+)/(?P<den>\d+)|(?P<int>\d*)(?:\.(?P<frac>\d*))?(?:[eE](?P<exp>[+-]?\d+))?)",
                     re.ASCII)


def _shown(value: object) -> str:
    """A value's repr for a message, its middle elided when long (a link can carry megabytes)."""
    if isinstance(value, str) and len(value) > 40:  # never the repr of a megabyte string
        return f"{value[:18]!r}…{value[-18:]!r} ({len(value):,} characters)"
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:18]}…{text[-18:]} ({len(text):,} characters)"


def _width(name: str, text: str) -> int:
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_WIDTH:
        raise VerificationError(
            f"verification {_shown(name)}: K must be a whole number in 1..{MAX_WIDTH} (ASCII digits), "
            f"got {_shown(text)}")
    return int(text)


def _multi(name: str, text: str) -> Rule:
    k = _width(name, text)
    return Rule(f"multi:{k}", "tree", f"tree, {k} i.i.d. drafts per node", f"tree ×{k}", "accepted",
                source="recursive rejection sampling (SpecInfer; llama.cpp)", citation="SpecInfer", width=k,
                verifier_class=TreeVerifier)


def _multi_distinct(name: str, text: str) -> Rule:
    k = _width(name, text)
    return Rule(f"multi-distinct:{k}", "tree", f"tree, {k} distinct drafts per node", f"tree ×{k} distinct",
                "accepted", source="drafting without replacement (Recursive Speculative Decoding)",
                citation="Recursive Speculative Decoding", width=k, distinct=True, verifier_class=TreeVerifier)


def read_number(text: str) -> Fraction | None:
    """An exact number from ASCII text ("0.09", "9/100", "9e-2", ".5"), or None when it is not one.

    Bounded: no sign, no spaces, no underscores, no other digits than 0-9, an exponent of at most
    MAX_EXPONENT in size (checked on its digits before 10^e is built), a nonzero denominator.
    """
    match = _NUMBER.fullmatch(text) if len(text) <= MAX_NAME_LENGTH else None
    if match is None or not (match["num"] or match["int"] or match["frac"]):
        return None
    if match["num"] is not None:
        den = int(match["den"])
        return Fraction(int(match["num"]), den) if den else None
    exponent = match["exp"] or "0"
    if abs(int(exponent)) > MAX_EXPONENT:  # int() of at most MAX_NAME_LENGTH digits; 10^e is built only below
        return None
    places = match["frac"] or ""
    return Fraction(int((match["int"] or "") + places or "0")) * Fraction(10) ** (int(exponent) - len(places))


def number_name(value: Fraction) -> str:
    """The one spelling of an exact number in (0, 1) in a rule name: its decimal when it terminates within
    MAX_DECIMAL_PLACES places ("0.09"), else the shorter of its reduced fraction ("1/3") and, when it
    terminates, its scientific form ("1e-40", "1.25e-13"; the fraction on a tie)."""
    den, twos, fives = value.denominator, 0, 0
    while den % 2 == 0:
        den, twos = den // 2, twos + 1
    while den % 5 == 0:
        den, fives = den // 5, fives + 1
    fraction = f"{value.numerator}/{value.denominator}"
    places = max(twos, fives)
    if den != 1:
        return fraction
    digits = str(value.numerator * 10**places // value.denominator)
    if places <= MAX_DECIMAL_PLACES:
        digits = digits.rjust(places + 1, "0")
        return f"{digits[:-places]}.{digits[-places:]}" if places else digits
    significand = digits.rstrip("0")
    exponent = len(digits) - 1 - places
    head = significand[0] + (f".{significand[1:]}" if len(significand) > 1 else "")
    scientific = f"{head}e{exponent}"
    return scientific if len(scientific) < len(fraction) else fraction


def _typical(name: str, text: str) -> Rule:
    eps = read_number(text)
    if eps is None or not 0 < eps < 1:
        raise VerificationError(
            f"verification {_shown(name)}: EPS must be a number strictly between 0 and 1 (ASCII digits: 0.09, "
            f"9/100 or 9e-2, exponent at most {MAX_EXPONENT}), got {_shown(text)}")
    spelled = number_name(eps)
    if len(f"typical:{spelled}") > MAX_NAME_LENGTH or read_number(spelled) != eps:  # its name must read back
        raise VerificationError(f"verification {_shown(name)}: EPS {_shown(text)} cannot be named within the "
                                f"limits (at most {MAX_NAME_LENGTH} characters, exponents of at most {MAX_EXPONENT})")
    return Rule(f"typical:{spelled}", "typical", f"typical acceptance, ε = {spelled}", f"typical {spelled}",
                "accepted", source="Medusa (Cai et al. 2024): keep x when p(x) > min(ε, √ε·exp(−H(p)))",
                citation="Medusa", exact=False, parameter=eps)


# a parameterised family's parser: (the whole name, the text after the colon) -> its Rule, or VerificationError
_FAMILIES: dict[str, Callable[[str, str], Rule]] = {"multi": _multi, "multi-distinct": _multi_distinct,
                                                     "typical": _typical}
_FORMS = {"multi": "K", "multi-distinct": "K", "typical": "EPS"}  # the parameter each family's name takes


# every family a rule can belong to, and whether the core has a verifier for it (the Playground, the command
# line and the models can run it); a layer table of scope "playable" covers exactly the playable ones
FAMILIES: dict[str, bool] = {"token": True, "block": True, "tree": True,
                             "exact-match": False, "greedy-draft": False, "typical": False}

Scope = Literal["all", "playable"]
T = TypeVar("T")


def families(scope: Scope = "all") -> tuple[str, ...]:
    """The registered families a layer table of this scope must name, in registry order."""
    return tuple(name for name, playable in FAMILIES.items() if scope == "all" or playable)


@dataclass(frozen=True)
class Unsupported:
    """A layer table's entry for a family that layer does not handle: looking it up raises
    VerificationError with ``why`` (what the layer covers, and where to go instead)."""

    why: str

    def error(self, found: Rule) -> VerificationError:
        """The refusal of ``found`` by the layer that holds this entry."""
        return VerificationError(f"verification {found.name!r} ({found.label}): {self.why}")


class FamilyTable(Generic[T]):
    """One layer's behaviour for each family of rules: ``table[rule]`` is the entry of the rule's family.

    ``layer`` is the table's address, "<module under specviz>.<CONSTANT>" ("theory.rules.THEORY_BY_FAMILY"),
    so a message or a failing completeness test says where to add an entry; ``scope`` says which families
    it must name: "all", or "playable" for a layer that only runs rules the core verifies. An
    ``Unsupported(why)`` entry says that the layer does not handle that family, and why.
    """

    def __init__(self, layer: str, entries: Mapping[str, T | Unsupported], *, scope: Scope = "all") -> None:
        unknown = sorted(set(entries) - set(FAMILIES))
        if unknown:  # a typo in a layer would otherwise hide as a missing family
            raise VerificationError(f"{layer}: {unknown} are not registered families ({', '.join(FAMILIES)})")
        self.layer = layer
        self.scope: Scope = scope
        self._entries = dict(entries)
        TABLES.append(self)

    def __getitem__(self, key: str | Rule) -> T:
        found = rule(key)
        entry = self._entries.get(found.family)
        if entry is None and found.family not in self._entries:
            raise VerificationError(
                f"verification {found.name!r} ({found.label}) has no entry in {self.layer}; "
                f"it holds {', '.join(self._entries)}")
        if isinstance(entry, Unsupported):
            raise entry.error(found)
        return entry  # type: ignore[return-value]

    def supports(self, key: str | Rule) -> bool:
        """True when the table has an entry for the rule's family that is not ``Unsupported``."""
        entry = self._entries.get(rule(key).family, Unsupported(""))
        return not isinstance(entry, Unsupported)

    def missing(self) -> tuple[str, ...]:
        """The families of this table's scope that it does not name (the completeness test reads it)."""
        return tuple(name for name in families(self.scope) if name not in self._entries)

    def __repr__(self) -> str:
        return f"FamilyTable({self.layer!r}, {sorted(self._entries)}, scope={self.scope!r})"


TABLES: list[FamilyTable] = []  # every layer table, in import order


def playable_names() -> tuple[str, ...]:
    """The fixed rules with a core verifier, in menu order (parameterised ones are added by their UI)."""
    return tuple(name for name, r in _FIXED.items() if r.playable)


def _allowed() -> str:
    return ", ".join([repr(n) for n in _FIXED] + [f"'{family}:{form}'" for family, form in _FORMS.items()])


def rule(name: object) -> Rule:
    """The Rule named by name (its one canonical spelling is ``Rule.name``), or VerificationError saying why.

    Bounded: a name longer than MAX_NAME_LENGTH or not ASCII is refused before it is parsed.
    """
    if isinstance(name, Rule):
        return name
    if isinstance(name, str):
        if name in _FIXED:
            return _FIXED[name]
        if len(name) > MAX_NAME_LENGTH:
            raise VerificationError(f"verification names are at most {MAX_NAME_LENGTH} characters, got "
                                    f"{_shown(name)}")
        family, sep, text = name.partition(":")
        if sep and family in _FAMILIES:
            return _FAMILIES[family](name, text)
    raise VerificationError(f"verification must be one of {_allowed()}, got {_shown(name)}")


def check_verification(verification: object) -> str:
    """Return the canonical name of a rule the core can run, else raise VerificationError."""
    found = rule(verification)
    if not found.playable:
        raise VerificationError(
            f"verification {found.name!r} ({found.label}) is evaluated by theory only; the verifier runs "
            f"{', '.join(repr(n) for n in playable_names())}, 'multi:K' and 'multi-distinct:K' (trees)"
        )
    return found.name


def verifier_class(verification: str | Rule) -> type[Verifier]:
    """The core verifier class for a playable rule."""
    return rule(check_verification(verification)).verifier_class  # type: ignore[return-value]


def _draft_chain(found: Rule, model: Model, prefix: Prefix, streams: RandomStreams, *, depth: int,
                 context_id: str, stop_ids: frozenset[int], trace: Trace | None) -> Block:
    return propose(model, prefix, streams, depth=depth, context_id=context_id, stop_ids=stop_ids, trace=trace)


def _draft_tree(found: Rule, model: Model, prefix: Prefix, streams: RandomStreams, *, depth: int,
                context_id: str, stop_ids: frozenset[int], trace: Trace | None) -> Tree:
    return propose_tree(model, prefix, streams, depth=depth, width=found.width, context_id=context_id,
                        distinct=found.distinct, stop_ids=stop_ids, trace=trace)


# how a round of each playable family drafts: a chain (Block) or a tree of ``rule.width`` children per node
DRAFTS_BY_FAMILY: FamilyTable[Callable[..., Block | Tree]] = FamilyTable(
    "core.verification.DRAFTS_BY_FAMILY", {"token": _draft_chain, "block": _draft_chain, "tree": _draft_tree},
    scope="playable")


def draft_round(verification: str | Rule, model: Model, prefix: Prefix, streams: RandomStreams, *, depth: int,
                context_id: str, stop_ids: frozenset[int] = frozenset(), trace: Trace | None = None) -> Block | Tree:
    """Draft one round as the rule's verifier expects it: a Block (chain) or a Tree (width and distinct from the rule).

    Callers pass the result to ``verifier_class(verification)``'s ``verify`` and never branch on the family.
    """
    found = rule(check_verification(verification))
    return DRAFTS_BY_FAMILY[found](found, model, prefix, streams, depth=depth, context_id=context_id,
                                   stop_ids=stop_ids, trace=trace)
