"""Verification rules, each named once: its name, its labels, how a round drafts and which verifier checks it.

Every layer (Playground, Real models, the lab, theory, the command line, the benchmarks) asks this
registry instead of comparing strings: ``rule("block").label``, ``rule(name).verifier_class``,
``rule(name).kept_verb``. A rule is named by a short spec: "token", "block", and (built on the
same registry) parameterised families such as "multi:2" (a tree of i.i.d. drafts) whose parser
lives in ``_FAMILIES``.

What a layer does differently for a family of rules lives in that layer's ``FamilyTable``: one table
keyed by family name, looked up with the rule (``NODE_LAWS[rule]``), never a comparison of
``rule.family`` with a string. Every table registers itself in ``TABLES``; the completeness test
(tests/core/test_family_tables.py) names any table that misses a family of ``FAMILIES``, so a new
rule is one entry here and one entry per layer table.
"""

from __future__ import annotations

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
             verifier_class=BlockVerifier)

# rules engines run that theory evaluates (no core verifier yet)
EXACT_MATCH = Rule("exact-match", "exact-match", "exact match of the target's sample", "exact match", "accepted",
                   source="mlx-lm's default: draft from q, the target samples its own token, kept when equal")
GREEDY_DRAFT = Rule("greedy-draft", "greedy-draft", "greedy draft, target's sample", "greedy draft", "accepted",
                    source="the draft proposes argmax q, kept when the target's own sample equals it")

# fixed rules by name; parameterised families ("multi:K", ...) register a parser in _FAMILIES
_FIXED: dict[str, Rule] = {r.name: r for r in (TOKEN, BLOCK, EXACT_MATCH, GREEDY_DRAFT)}


def _shown(value: object) -> str:
    """A value's repr for a message, its middle elided when long (a link can carry megabytes)."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:18]}…{text[-18:]} ({len(text)} characters)"


def _width(name: str) -> int:
    text = name.partition(":")[2]
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_WIDTH:
        raise VerificationError(
            f"verification {_shown(name)}: K must be a whole number in 1..{MAX_WIDTH}, got {_shown(text)}")
    return int(text)


def _multi(name: str) -> Rule:
    k = _width(name)
    return Rule(f"multi:{k}", "tree", f"tree, {k} i.i.d. drafts per node", f"tree ×{k}", "accepted",
                source="recursive rejection sampling (SpecInfer; llama.cpp)", width=k, verifier_class=TreeVerifier)


def _multi_distinct(name: str) -> Rule:
    k = _width(name)
    return Rule(f"multi-distinct:{k}", "tree", f"tree, {k} distinct drafts per node", f"tree ×{k} distinct",
                "accepted", source="drafting without replacement (Recursive Speculative Decoding)", width=k,
                distinct=True, verifier_class=TreeVerifier)


def _typical(name: str) -> Rule:
    text = name.partition(":")[2]
    try:
        eps = Fraction(text) if text.isascii() else None
    except (ValueError, ZeroDivisionError):
        eps = None
    if eps is None or not 0 < eps < 1:
        raise VerificationError(
            f"verification {_shown(name)}: EPS must be a number strictly between 0 and 1, got {_shown(text)}")
    return Rule(f"typical:{text}", "typical", f"typical acceptance, ε = {text}", f"typical {text}", "accepted",
                source="Medusa (Cai et al. 2024): keep x when p(x) > min(ε, √ε·exp(−H(p)))", exact=False,
                parameter=eps)


_FAMILIES: dict[str, Callable[[str], Rule]] = {"multi": _multi, "multi-distinct": _multi_distinct,
                                                "typical": _typical}


# every family a rule can belong to, and whether the core has a verifier for it (the Playground, the command
# line and the models can run it); a layer table of scope "playable" covers exactly the playable ones
FAMILIES: dict[str, bool] = {"token": True, "block": True, "tree": True,
                             "exact-match": False, "greedy-draft": False, "typical": False}

Scope = Literal["all", "playable"]
T = TypeVar("T")


def families(scope: Scope = "all") -> tuple[str, ...]:
    """The registered families a layer table of this scope must name, in registry order."""
    return tuple(name for name, playable in FAMILIES.items() if scope == "all" or playable)


class FamilyTable(Generic[T]):
    """One layer's behaviour for each family of rules: ``table[rule]`` is the entry of the rule's family.

    ``layer`` names the table in messages and in the completeness test ("theory.node_law"); ``scope`` says
    which families it must name: "all", or "playable" for a layer that only runs rules the core verifies.
    """

    def __init__(self, layer: str, entries: Mapping[str, T], *, scope: Scope = "all") -> None:
        unknown = sorted(set(entries) - set(FAMILIES))
        if unknown:  # a typo in a layer would otherwise hide as a missing family
            raise ValueError(f"{layer}: {unknown} are not registered families ({', '.join(FAMILIES)})")
        self.layer = layer
        self.scope: Scope = scope
        self._entries = dict(entries)
        TABLES.append(self)

    def __getitem__(self, key: str | Rule) -> T:
        found = rule(key)
        if found.family not in self._entries:
            raise VerificationError(
                f"verification {found.name!r} ({found.label}) has no entry in {self.layer}; "
                f"it holds {', '.join(self._entries)}")
        return self._entries[found.family]

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
    forms = [repr(n) for n in _FIXED] + [f"'{family}:{'EPS' if family == 'typical' else 'K'}'" for family in _FAMILIES]
    return ", ".join(forms)


def rule(name: object) -> Rule:
    """The Rule named by name, or VerificationError saying which names exist."""
    if isinstance(name, Rule):
        return name
    if isinstance(name, str):
        if name in _FIXED:
            return _FIXED[name]
        family, sep, _ = name.partition(":")
        if sep and family in _FAMILIES:
            return _FAMILIES[family](name)
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


def draft_round(verification: str | Rule, model: Model, prefix: Prefix, streams: RandomStreams, *, depth: int,
                context_id: str, stop_ids: frozenset[int] = frozenset(), trace: Trace | None = None) -> Block | Tree:
    """Draft one round as the rule's verifier expects it: a Block (chain) or a Tree (width and distinct from the rule).

    Callers pass the result to ``verifier_class(verification)``'s ``verify`` and never branch on the family.
    """
    found = rule(check_verification(verification))
    if found.family == "tree":
        return propose_tree(model, prefix, streams, depth=depth, width=found.width, context_id=context_id,
                            distinct=found.distinct, stop_ids=stop_ids, trace=trace)
    return propose(model, prefix, streams, depth=depth, context_id=context_id, stop_ids=stop_ids, trace=trace)
