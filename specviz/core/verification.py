"""Verification rules, each named once: its name, its labels, how a round drafts and which verifier checks it.

Every layer (Playground, Real models, the lab, theory, the command line, the benchmarks) asks this
registry instead of comparing strings: ``rule("block").label``, ``rule(name).verifier_class``,
``rule(name).kept_verb``. A rule is named by a short spec: "token", "block", and (built on the
same registry) parameterised families such as "multi:2" (a tree of i.i.d. drafts) and the engine
rules "ensemble:W", "threshold:S,A[,K]" and "typical:EPS[,DELTA]" (modules ``ensemble``,
``threshold``, ``medusa``), whose parsers live in ``_FAMILIES``. ``rule(name)`` is the one entry for
every name a user types (links, files, lecture scripts, the command line, theory), and every number
in a name is read by the one bounded reader, ``rule_params``: at most MAX_NAME_LENGTH ASCII
characters, numbers bounded before any Fraction is built, and one canonical name per rule
(``Rule.name``).

What a layer does differently for a family of rules lives in that layer's ``FamilyTable``: one table
keyed by family name, a module-level constant named ``<WHAT>_BY_FAMILY`` whose ``layer`` is its own
address (``theory.rule_theory.THEORY_BY_FAMILY``), looked up with the rule (``THEORY_BY_FAMILY[rule]``), never
a comparison of ``rule.family`` with a string. A layer that does not handle a family says why with an
``Unsupported`` entry (or, covering only a few families, ``otherwise=Unsupported(...)`` for all the
others). Every table registers itself in ``TABLES``; the completeness test
(tests/core/test_family_tables.py) names any table that misses a family of ``FAMILIES``, so a new rule
is one entry here and one entry per layer table (docs/design.md, "Adding a rule, in order").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from . import ensemble, exact_match, medusa, threshold, traversal, tree
from .block_verifier import BlockVerifier
from .errors import VerificationError
from .rule_params import (  # noqa: F401 - the one reader's names, read here by the registry's users
    MAX_DECIMAL_PLACES,
    MAX_EXPONENT,
    MAX_NAME_LENGTH,
    NO_PARAMETERS,
    RuleParams,
    number_name,
    read_number,
    shown,
)
from .streams import RandomStreams
from .trace import Trace
from .tree import Tree, TreeVerifier, propose_tree
from .verifier import MAX_WIDTH, Block, Model, Prefix, Verifier, propose  # noqa: F401 - MAX_WIDTH re-exported


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
    settings: Any = None  # an engine rule's parameters (frozen, hashable: EnsembleSettings, ...), read by its module
    engine_setting: str = ""  # the engine setting that runs this rule, as the switch's help and --help say it

    @property
    def playable(self) -> bool:
        """True when the core has a verifier for it (the Playground, CLI and models can run it)."""
        return self.verifier_class is not None

    def __reduce__(self) -> tuple:
        """A rule pickles as its name (caches, processes): an engine rule's verifier class is made per setting."""
        return rule, (self.name,)


# vLLM's Model Runner V2 names its verifiers SpeculativeConfig.rejection_sample_method: "strict" (the draft kept
# when it equals the target's own sample; the default), "probabilistic" (min(1, p/q) and the residual; PR #35461)
# and "block" (Sun et al.; PR #46781). Later vLLM reads "standard", "synthetic" or "block", with draft_sample_method
# "greedy" or "probabilistic" (vllm/config/speculative.py): "standard" is tokenwise on sampled drafts and a greedy
# draft's rule on argmax ones, so it is not one rule and no alias reads it.
VLLM = "vLLM MRv2 rejection_sample_method"
TOKEN = Rule("token", "token", "tokenwise", "tokenwise", "accepted",
             source="Leviathan, Kalman & Matias 2023; Chen et al. 2023", verifier_class=Verifier,
             engine_setting=f'{VLLM}="probabilistic"')
BLOCK = Rule("block", "block", "block verification", "block", "kept",
             source="Sun et al. 2025 (Block Verification Accelerates Speculative Decoding)",
             citation="Sun et al. 2025", verifier_class=BlockVerifier, engine_setting=f'{VLLM}="block"')

EXACT_MATCH = Rule("exact-match", "exact-match", "exact match of the target's sample", "exact match", "accepted",
                   source=exact_match.SOURCE, citation="mlx-lm",
                   engine_setting=f'{VLLM}="strict" (its default); mlx-lm',
                   verifier_class=exact_match.ExactMatchVerifier, settings=exact_match.ExactMatchSettings(1))
# a rule engines run that theory evaluates (no core verifier yet)
GREEDY_DRAFT = Rule("greedy-draft", "greedy-draft", "greedy draft, target's sample", "greedy draft", "accepted",
                    source="the draft proposes argmax q, kept when the target's own sample equals it")

# fixed rules by name; parameterised families ("multi:K", ...) register a parser in _FAMILIES
_FIXED: dict[str, Rule] = {r.name: r for r in (TOKEN, BLOCK, EXACT_MATCH, GREEDY_DRAFT)}
# names an engine gives a rule, read as the rule's canonical name (rule("strict").name == "exact-match")
ALIASES: dict[str, str] = {"strict": EXACT_MATCH.name, "probabilistic": TOKEN.name}

def _multi(name: str, text: str) -> Rule:
    settings = tree.PARAMS.read(name)
    if settings.distinct:
        return _multi_distinct(settings)
    k = settings.width
    return Rule(settings.name, "tree", f"tree, {k} i.i.d. drafts per node", f"tree ×{k}", "accepted",
                source="recursive rejection sampling (SpecInfer; llama.cpp)", citation="SpecInfer", width=k,
                verifier_class=TreeVerifier, engine_setting="SpecInfer's and llama.cpp's stochastic tree verification",
                settings=settings)


def _multi_distinct(settings: tree.TreeSettings) -> Rule:
    k = settings.width
    return Rule(settings.name, "tree", f"tree, {k} distinct drafts per node", f"tree ×{k} distinct",
                "accepted", source="drafting without replacement (Recursive Speculative Decoding)",
                citation="Recursive Speculative Decoding", width=k, distinct=True, verifier_class=TreeVerifier,
                engine_setting="Recursive Speculative Decoding (drafts without replacement)", settings=settings)


def _exact_match(name: str, text: str) -> Rule:
    """exact-match:K: K distinct children per node, each compared with the target's own sample (K = 1: the chain)."""
    settings = exact_match.parse_exact_match(name)
    k = settings.width
    if k == 1:
        return EXACT_MATCH
    return Rule(settings.name, "exact-match", f"tree, {k} distinct drafts per node, exact match of the target's sample",
                f"tree ×{k}, exact match", "accepted", source=exact_match.SOURCE, citation="mlx-lm", width=k,
                distinct=True, engine_setting=f'{VLLM}="strict" on a tree of {k} distinct drafts per node',
                verifier_class=exact_match.ExactMatchVerifier, settings=settings)


# --- the engine rules: each module reads its own name with the one reader (core/rule_params.py) -------------
def _ensemble(name: str, text: str) -> Rule:
    settings = ensemble.parse_ensemble(name)
    w = number_name(settings.weight)
    return Rule(settings.name, "ensemble", f"ensemble verification, W = {w}", f"ensemble {w}", "accepted",
                source=ensemble.SOURCE, citation="transformers", exact=settings.exact,
                engine_setting=f"transformers assistant_ensemble_weight={w}",
                verifier_class=ensemble.EnsembleVerifier.bound(settings), settings=settings)


def _threshold(name: str, text: str) -> Rule:
    settings = threshold.parse_threshold(name)
    s, a, k = number_name(settings.single), number_name(settings.acc), settings.width
    if settings.top_k:  # SGLang as it runs: EAGLE's top-K tree
        drafts = "argmax q drafts" if k == 1 else f"a tree of q's top {k} per node"
        return Rule(settings.name, "threshold", f"SGLang as it runs ({drafts}), thresholds S = {s}, A = {a}",
                    f"sglang {s},{a}" + (f" ×{k}" if k > 1 else ""), "accepted", source=threshold.TOP_K_SOURCE,
                    engine_setting=(f"SGLang EAGLE --speculative-eagle-topk {k}, --speculative-accept-threshold-single "
                                    f"{s} --speculative-accept-threshold-acc {a}"),
                    citation="SGLang", width=k, distinct=True, exact=settings.exact,
                    verifier_class=threshold.ThresholdVerifier.bound(settings), settings=settings)
    tree = f", a tree of {k} distinct drafts per node" if k > 1 else ""
    return Rule(settings.name, "threshold", f"SGLang's thresholds S = {s}, A = {a}{tree}",
                f"threshold {s},{a}" + (f" ×{k}" if k > 1 else ""), "accepted", source=threshold.SOURCE,
                engine_setting=(f"SGLang --speculative-accept-threshold-single {s} "
                                f"--speculative-accept-threshold-acc {a}"),
                citation="SGLang", width=k, distinct=k > 1, exact=settings.exact,
                verifier_class=threshold.ThresholdVerifier.bound(settings), settings=settings)


def _typical(name: str, text: str) -> Rule:
    settings = medusa.parse_typical(name)
    eps = number_name(settings.eps)
    delta = medusa.SQRT_STOP if settings.delta is None else number_name(settings.delta)
    sampled = "" if settings.fast else ", sampled (fast=False)"
    shown_delta = "" if settings.delta == medusa.DEFAULT_DELTA else f",{delta}"
    short = f"typical {eps}{shown_delta}" + ("" if settings.fast else " sampled")
    return Rule(settings.name, "typical", f"Medusa's typical acceptance, ε = {eps}, δ = {delta}{sampled}", short,
                "accepted", source=medusa.SOURCE, citation="Medusa", exact=False,
                engine_setting=f"Medusa posterior_threshold={eps}, posterior_alpha={delta}, fast={settings.fast}",
                verifier_class=medusa.MedusaVerifier.bound(settings), settings=settings)


def _traversal(name: str, text: str) -> Rule:
    settings = traversal.parse_traversal(name)
    k, distinct = settings.width, settings.distinct
    drafts = "distinct" if distinct else "i.i.d."
    return Rule(settings.name, "traversal", f"traversal verification, a tree of {k} {drafts} drafts per node",
                f"traversal ×{k}" + (" distinct" if distinct else ""), "kept", source=traversal.SOURCE,
                engine_setting="no engine ships it (Weng et al. 2025)",
                citation="Weng et al. 2025", width=k, distinct=distinct, verifier_class=traversal.TraversalVerifier,
                settings=settings)


# a parameterised family's parser: (the whole name, the text after the colon) -> its Rule, or VerificationError;
# every family part a name may start with, each family's declaration's heads (tests/core/test_family_tables.py)
_FAMILIES: dict[str, Callable[[str, str], Rule]] = {
    "multi": _multi, "multi-distinct": _multi, "ensemble": _ensemble, "threshold": _threshold, "sglang": _threshold,
    "typical": _typical, "typical-sample": _typical, "traversal": _traversal, "traversal-distinct": _traversal,
    "exact-match": _exact_match}


# every family a rule can belong to, and whether the core has a verifier for it (the Playground, the command
# line and the models can run it); a layer table of scope "playable" covers exactly the playable ones
FAMILIES: dict[str, bool] = {"token": True, "block": True, "tree": True, "ensemble": True, "threshold": True,
                             "typical": True, "traversal": True, "exact-match": True, "greedy-draft": False}

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

    ``layer`` is the table's address, "<module under specviz>.<CONSTANT>" ("theory.rule_theory.THEORY_BY_FAMILY"),
    so a message or a failing completeness test says where to add an entry; ``scope`` says which families
    it must name: "all", or "playable" for a layer that only runs rules the core verifies. An
    ``Unsupported(why)`` entry says that the layer does not handle that family, and why; ``otherwise`` is the entry
    (usually an ``Unsupported``) of every family a layer does not name: a layer that covers a few families and
    treats all others alike says so once.
    """

    def __init__(self, layer: str, entries: Mapping[str, T | Unsupported], *, scope: Scope = "all",
                 otherwise: T | Unsupported | None = None) -> None:
        unknown = sorted(set(entries) - set(FAMILIES))
        if unknown:  # a typo in a layer would otherwise hide as a missing family
            raise VerificationError(f"{layer}: {unknown} are not registered families ({', '.join(FAMILIES)})")
        self.layer = layer
        self.scope: Scope = scope
        self._entries = dict(entries)
        # a layer that covers a few families and refuses every other one for the same reason (the exact Monte
        # Carlo: tokenwise and block) says so once; a new rule then needs no entry there
        self.otherwise = otherwise
        TABLES.append(self)

    def __getitem__(self, key: str | Rule) -> T:
        found = rule(key)
        entry = self._entries.get(found.family, self.otherwise)
        if entry is None and found.family not in self._entries:
            raise VerificationError(
                f"verification {found.name!r} ({found.label}) has no entry in {self.layer}; "
                f"it holds {', '.join(self._entries)}")
        if isinstance(entry, Unsupported):
            raise entry.error(found)
        return entry  # type: ignore[return-value]

    def entry(self, family: str) -> T:
        """The entry of a family by its name (a layer that iterates the families rather than looking up a rule)."""
        if family not in FAMILIES:
            raise VerificationError(f"{self.layer}: {family!r} is not a registered family ({', '.join(FAMILIES)})")
        entry = self._entries.get(family, self.otherwise)
        if entry is None or isinstance(entry, Unsupported):
            raise VerificationError(f"{self.layer} has no entry for the family {family!r}")
        return entry  # type: ignore[return-value]

    def why_not(self, key: str | Rule) -> str | None:
        """The layer's reason for not handling the rule (its ``Unsupported`` entry's words), or None when it does."""
        found = rule(key).family
        entry = self._entries[found] if found in self._entries else self.otherwise
        return entry.why if isinstance(entry, Unsupported) else None

    def supports(self, key: str | Rule) -> bool:
        """True when the table has an entry for the rule's family that is not ``Unsupported``."""
        found = rule(key).family
        entry = self._entries[found] if found in self._entries else (
            Unsupported("") if self.otherwise is None else self.otherwise)
        return not isinstance(entry, Unsupported)

    def missing(self) -> tuple[str, ...]:
        """The families of this table's scope that it does not name (the completeness test reads it; none when
        the table refuses every other family with ``otherwise``)."""
        if self.otherwise is not None:
            return ()
        return tuple(name for name in families(self.scope) if name not in self._entries)

    def __repr__(self) -> str:
        return f"FamilyTable({self.layer!r}, {sorted(self._entries)}, scope={self.scope!r})"


TABLES: list[FamilyTable] = []  # every layer table, in import order


# every family's parameters, declared once beside its settings (core.rule_params.RuleParams): the name's reader, the
# Playground's switch and its session slots, the lab's controls and --help are built from them
PARAMS_BY_FAMILY: FamilyTable[RuleParams] = FamilyTable("core.verification.PARAMS_BY_FAMILY", {
    "token": NO_PARAMETERS, "block": NO_PARAMETERS, "tree": tree.PARAMS, "ensemble": ensemble.PARAMS,
    "threshold": threshold.PARAMS, "typical": medusa.PARAMS, "traversal": traversal.PARAMS,
    "exact-match": exact_match.PARAMS, "greedy-draft": NO_PARAMETERS})


def declared(family: str) -> RuleParams:
    """A family's declared parameters (``PARAMS_BY_FAMILY``'s entry, by the family's own name)."""
    return PARAMS_BY_FAMILY.entry(family)


def _forms() -> dict[str, str]:
    """The parameters each family part of a name takes, as messages and --help write them: {"threshold": "S,A[,K]"}
    (read from the declarations on each call)."""
    return {head: declared(family).form for family in FAMILIES for head in declared(family).heads}


def playable_names() -> tuple[str, ...]:
    """The fixed rules with a core verifier, in menu order (parameterised ones are added by their UI)."""
    return tuple(name for name, r in _FIXED.items() if r.playable)


def _allowed() -> str:
    return ", ".join([repr(n) for n in _FIXED] + [f"'{family}:{form}'" for family, form in _forms().items()]
                     + [f"{alias!r} ({ALIASES[alias]})" for alias in ALIASES])


# the engine setting each parameterised family's name runs, as --help and the switch's help say it
_FORM_SETTINGS = {
    "multi": "SpecInfer's and llama.cpp's recursive rejection sampling over K i.i.d. drafts per node",
    "multi-distinct": "Recursive Speculative Decoding: K drafts per node without replacement",
    "ensemble": "transformers assistant_ensemble_weight=W",
    "threshold": "SGLang --speculative-accept-threshold-single S --speculative-accept-threshold-acc A on K sampled "
                 "distinct drafts per node",
    "typical": "Medusa posterior_threshold=EPS, posterior_alpha=DELTA (sqrt: √ε), fast=True",
    "typical-sample": "Medusa's fast=False",
    "traversal": "traversal verification (Weng et al. 2025) over K i.i.d. drafts per node; no engine ships it",
    "traversal-distinct": "traversal verification over K distinct drafts per node",
    "exact-match": f'{VLLM}="strict" and mlx-lm on a tree: K distinct drafts per node, the child equal to the '
                   "target's own sample kept",
    "sglang": "SGLang as it runs: EAGLE's top-K tree (--speculative-eagle-topk K; argmax q when K = 1) and its "
              "thresholds S and A"}


def playable_help() -> str:
    """Every playable name with what runs it in an engine, then the engines' own names (--help prints it)."""
    fixed = [f"{name} ({rule(name).label}; {rule(name).engine_setting})" for name in playable_names()]
    forms = [f"{head}:{form} ({_FORM_SETTINGS[head]}; {_family_of(head).settings_help()})"
             for head, form in _forms().items()]
    named = ", ".join(f"{alias} = {canonical}" for alias, canonical in ALIASES.items())
    return "; ".join(fixed + forms) + f"; vLLM's rejection_sample_method names read as rules: {named}"


def _family_of(head: str) -> RuleParams:
    return next(declared(family) for family in FAMILIES if head in declared(family).heads)


def aliases() -> dict[str, str]:
    """Every engine's name for a rule (``ALIASES``) and the canonical name it reads as."""
    return dict(ALIASES)


def playable_forms() -> tuple[str, ...]:
    """Every name a core verifier runs, as --help and messages list them: the fixed ones, then 'multi:K', ..."""
    return (*playable_names(), *(f"{family}:{form}" for family, form in _forms().items()))


def rule(name: object) -> Rule:
    """The Rule named by name (its one canonical spelling is ``Rule.name``), or VerificationError saying why.

    Bounded: a name longer than MAX_NAME_LENGTH or not ASCII is refused before it is parsed.
    """
    if isinstance(name, Rule):
        return name
    if isinstance(name, str):
        if name in _FIXED:
            return _FIXED[name]
        if name in ALIASES:
            return _FIXED[ALIASES[name]]
        if len(name) > MAX_NAME_LENGTH:
            raise VerificationError(f"verification names are at most {MAX_NAME_LENGTH} characters, got "
                                    f"{shown(name)}")
        family, sep, text = name.partition(":")
        if sep and family in _FAMILIES:
            return _FAMILIES[family](name, text)
    raise VerificationError(f"verification must be one of {_allowed()}, got {shown(name)}")


def check_verification(verification: object) -> str:
    """Return the canonical name of a rule the core can run, else raise VerificationError."""
    found = rule(verification)
    if not found.playable:
        raise VerificationError(
            f"verification {found.name!r} ({found.label}) is evaluated by theory only; the verifier runs "
            f"{', '.join(repr(n) for n in playable_forms())}")
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


def _draft_by_width(found: Rule, model: Model, prefix: Prefix, streams: RandomStreams, **settings: Any) -> Block | Tree:
    """A chain for one draft per node, else a tree (SGLang's thresholds and exact match verify both)."""
    return (_draft_chain if found.width == 1 else _draft_tree)(found, model, prefix, streams, **settings)


def _draft_threshold(found: Rule, model: Model, prefix: Prefix, streams: RandomStreams, *, depth: int,
                     context_id: str, stop_ids: frozenset[int], trace: Trace | None) -> Block | Tree:
    """SGLang as it runs drafts EAGLE's top-K tree; threshold:S,A[,K] drafts by its width (sampled)."""
    if found.settings.top_k:
        return threshold.propose_top_k_tree(model, prefix, streams, depth=depth, width=found.width,
                                            context_id=context_id, stop_ids=stop_ids, trace=trace)
    return _draft_by_width(found, model, prefix, streams, depth=depth, context_id=context_id, stop_ids=stop_ids,
                           trace=trace)


# how a round of each playable family drafts: a chain (Block) or a tree of ``rule.width`` children per node
DRAFTS_BY_FAMILY: FamilyTable[Callable[..., Block | Tree]] = FamilyTable(
    "core.verification.DRAFTS_BY_FAMILY", {"token": _draft_chain, "block": _draft_chain, "tree": _draft_tree,
                                           "ensemble": _draft_chain, "threshold": _draft_threshold,
                                           "typical": _draft_chain, "traversal": _draft_tree,
                                           "exact-match": _draft_by_width}, scope="playable")


def draft_round(verification: str | Rule, model: Model, prefix: Prefix, streams: RandomStreams, *, depth: int,
                context_id: str, stop_ids: frozenset[int] = frozenset(), trace: Trace | None = None) -> Block | Tree:
    """Draft one round as the rule's verifier expects it: a Block (chain) or a Tree (width and distinct from the rule).

    Callers pass the result to ``verifier_class(verification)``'s ``verify`` and never branch on the family.
    """
    found = rule(check_verification(verification))
    return DRAFTS_BY_FAMILY[found](found, model, prefix, streams, depth=depth, context_id=context_id,
                                   stop_ids=stop_ids, trace=trace)
