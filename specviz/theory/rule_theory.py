"""What each family of verification rules is to theory: one entry per family in ``THEORY_BY_FAMILY``.

An entry (``RuleTheory``) names the family's node law, its round pass (node by node, or block
verification's pass over running weights), its expected accepted drafts for context-free p and q, the
law of its first committed token, and its sequence enumeration (or why there is none). The public
functions below read the entry of the rule they are given and never compare families:

* ``node_law(rule, p, q)``: what one node keeps and commits instead;
* ``first_token_law(p, q, rule, depth)``: the law of the first committed token (p for exact rules);
* ``round_expectation(source)`` and ``expected_accepted_drafts(p, q, depth, rule)``;
* ``analyze_round(source)`` and ``block_distribution(source)``: every outcome of a round, enumerated.

A rule that decides node by node needs only its law: ``node_by_node(law)`` fills in the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..core import Categorical, Prefix, Rule, ensemble, medusa, threshold, traversal
from ..core.errors import LawError
from ..core.verification import FamilyTable, Unsupported
from ..core.verification import rule as verification_rule
from .enumeration import (
    RoundAnalysis,
    check_enumeration_size,
    enumerate_block_round,
    enumerate_chain_round,
    first_token_marginal,
)
from .expectation import (
    RoundExpectation,
    block_expectation,
    chain_expectation,
    check_traversal,
    geometric,
    traversal_expectation,
    traversal_pass,
)
from .node_laws import (
    NodeLaw,
    exact_match_law,
    greedy_draft_law,
    tokenwise_law,
    tree_law,
)
from .round_models import Law, Node, NodeCache, RoundModels, Sequence_, Source, constant_models, law_of, round_models
from .theory_limits import (
    MAX_ENUMERATED_DEPTH,
    MAX_EXACT_DEPTH,
    TheoryError,
    TheoryLimitError,
    check_depth,
    check_pair,
    check_rejection_paths,
)

LawFunction = Callable[[Rule, Law, Law], NodeLaw]
Pass = Callable[[RoundModels, NodeCache, Prefix, Rule, Callable[[Rule, Node], NodeLaw]],
                tuple[list[Fraction], Fraction]]
Enumeration = Callable[[RoundModels, NodeCache, Prefix], RoundAnalysis]


def no_check(found: Rule, drafts: int) -> None:
    """A node law whose work is linear in the vocabulary needs no check beyond the vocabulary limit."""


def check_distinct_paths(found: Rule, drafts: int) -> None:
    """Drafts without replacement: the node's law sums over its ordered rejection paths (refused past the limit)."""
    if found.distinct:
        check_rejection_paths(found.name, drafts, found.width)


def first_node_token(found: Rule, p: Categorical, q: Categorical, depth: int) -> tuple[Fraction, ...]:
    """The first committed token of a rule that decides node by node: what its first node commits."""
    return node_law(found, p, q).committed(p.vocab_size)


def whole_block_token(found: Rule, p: Categorical, q: Categorical, depth: int) -> tuple[Fraction, ...]:
    """Block verification's first token depends on the whole block: enumerated at ``depth`` drafts."""
    if depth == 1:
        return first_node_token(found, p, q, depth)
    return tuple(first_token_marginal(block_distribution(constant_models(p, q, depth, found.name)), p.vocab_size))


def closed_form_drafts(found: Rule, p: Categorical, q: Categorical, depth: int) -> Fraction:
    """a + a^2 + ... + a^g: every node keeps a draft with its law's acceptance a (g up to MAX_EXACT_DEPTH)."""
    check_depth(depth, MAX_EXACT_DEPTH)
    return geometric(node_law(found, p, q).acceptance, depth)


def round_pass_drafts(found: Rule, p: Categorical, q: Categorical, depth: int) -> Fraction:
    """The rule's round pass run on constant models (block verification: MAX_BLOCK_WORK steps at most)."""
    return round_expectation(constant_models(p, q, depth, found.name)).accepted_drafts


def whole_tree_token(found: Rule, p: Categorical, q: Categorical, depth: int) -> tuple[Fraction, ...]:
    """Traversal verification's first token depends on the whole tree: the core's exact pass at ``depth`` levels."""
    check_pair(p, q)
    check_traversal(found, q.support_size)
    try:
        return traversal.first_token_law(p, q, found.settings, depth)
    except LawError as error:
        raise TheoryLimitError(str(error)) from error


NOT_ENUMERATED = Unsupported("the sequence enumeration covers 'token' and 'block'; use round_expectation, "
                             "node_law or first_token_law for it")
FirstToken = Callable[[Rule, Categorical, Categorical, int], tuple[Fraction, ...]]
AcceptedDrafts = Callable[[Rule, Categorical, Categorical, int], Fraction]


@dataclass(frozen=True)
class RuleTheory:
    """One family of rules to theory."""

    law: LawFunction  # what one node keeps and commits instead, over Laws
    round_pass: Pass = chain_expectation  # E[kept drafts] by position and P(an accepted stop ends the round)
    accepted_drafts: AcceptedDrafts = closed_form_drafts  # E[accepted drafts] for context-free p and q
    first_token: FirstToken = first_node_token  # the law of the first committed token
    enumeration: Enumeration | Unsupported = NOT_ENUMERATED  # every outcome of a round, or why not
    check: Callable[[Rule, int], None] = no_check  # refusals before the law's work, given q's support size


def node_by_node(law: LawFunction, *, enumeration: Enumeration | Unsupported = NOT_ENUMERATED,
                 check: Callable[[Rule, int], None] = no_check) -> RuleTheory:
    """The entry of a rule that decides node by node: every node keeps a draft with its law's acceptance."""
    return RuleTheory(law, enumeration=enumeration, check=check)


def core_law(law: Callable[[Law, Law, Any], NodeLaw]) -> LawFunction:
    """An engine rule's law as its core module holds it (``law(p, q, settings)``), read with the rule's settings;
    a law past its own stated limit is one of theory's refusals (TheoryLimitError)."""
    def of_rule(found: Rule, p: Law, q: Law) -> NodeLaw:
        try:
            return law(p, q, found.settings)
        except LawError as error:
            raise TheoryLimitError(str(error)) from error
    return of_rule


THEORY_BY_FAMILY: FamilyTable[RuleTheory] = FamilyTable("theory.rule_theory.THEORY_BY_FAMILY", {
    "token": node_by_node(tokenwise_law, enumeration=enumerate_chain_round),
    # block verification judges a whole chain: one node of it (one draft) is tokenwise
    "block": RuleTheory(tokenwise_law, block_expectation, round_pass_drafts, whole_block_token,
                        enumerate_block_round),
    "tree": node_by_node(tree_law, check=check_distinct_paths),
    "ensemble": node_by_node(core_law(ensemble.law)),
    "threshold": node_by_node(core_law(threshold.law)),
    "typical": node_by_node(core_law(medusa.law)),
    # traversal verification judges whole paths: one node alone (a depth-1 tree) is recursive rejection sampling
    "traversal": RuleTheory(core_law(traversal.law), traversal_expectation, round_pass_drafts, whole_tree_token,
                            check=check_traversal),
    "exact-match": node_by_node(exact_match_law, check=check_distinct_paths),
    "greedy-draft": node_by_node(greedy_draft_law),
})


def _law_at(found: Rule, node: Node) -> NodeLaw:
    entry = THEORY_BY_FAMILY[found]
    entry.check(found, len(node.accepts))
    return entry.law(found, node.p_law, node.q_law)


def node_law(verification: str | Rule, p: Categorical, q: Categorical) -> NodeLaw:
    """What one node of the rule keeps and commits, exactly, at a context with target p and draft q.

    Refused (TheoryLimitError) before any Fraction is built beyond MAX_VOCABULARY tokens, or for drafts
    without replacement beyond MAX_REJECTION_PATHS ordered rejection paths.
    """
    found = verification_rule(verification)
    check_pair(p, q)
    entry = THEORY_BY_FAMILY[found]
    entry.check(found, q.support_size)
    return entry.law(found, law_of(p), law_of(q))


def can_enumerate(verification: str | Rule) -> bool:
    """True when ``analyze_round`` can list every outcome of the rule's round ("token" and "block")."""
    return not isinstance(THEORY_BY_FAMILY[verification].enumeration, Unsupported)


def analyze_round(source: Source, prefix: Prefix = (), **settings: Any) -> RoundAnalysis:
    """Enumerate one propose + verify round from prefix exactly, as the core does it.

    ``verification="block"`` (or a Scenario whose verification is "block") enumerates block
    verification (``BlockVerifier``) instead: every drafted block, then tau and the last token. Other
    rules are refused (VerificationError): round_expectation, node_law and first_token_law cover them.
    Refused before any work beyond MAX_ENUMERATED_DEPTH, or when the first context alone implies more
    than MAX_ENUMERATED_OUTCOMES paths.
    """
    models = round_models(source, **settings)
    found = verification_rule(models.verification)
    enumeration = THEORY_BY_FAMILY[found].enumeration
    if isinstance(enumeration, Unsupported):
        raise enumeration.error(found)
    if models.depth > MAX_ENUMERATED_DEPTH:
        raise TheoryLimitError(f"depth {models.depth} is too deep to enumerate every sequence of a round: at most "
                               f"{MAX_ENUMERATED_DEPTH} (round_expectation gives the expectations without listing)")
    cache = NodeCache(models)
    check_enumeration_size(cache, tuple(prefix), models.depth)
    return enumeration(models, cache, tuple(prefix))


def block_distribution(source: Source, prefix: Prefix = (), **settings: Any) -> dict[Sequence_, Fraction]:
    """Exact distribution of the committed token tuple of one round from prefix.

    ``source`` is a Scenario, a RoundModels, or a target model with keyword settings
    ``draft=``, ``depth=``, ``processor=``, ``stop_ids=``.
    """
    return analyze_round(source, prefix, **settings).blocks


def first_token_law(p: Categorical, q: Categorical, verification: str | Rule = "token",
                    depth: int = 1) -> tuple[Fraction, ...]:
    """The exact law of the first committed token, in vocabulary order, for any rule (lossy ones too).

    It depends on the rule's first node only, except for block verification, whose first token depends on
    the whole block: there it is enumerated at ``depth`` drafts (V^depth blocks). Exact rules give p.
    """
    found = verification_rule(verification)
    return THEORY_BY_FAMILY[found].first_token(found, p, q, depth)


def round_expectation(source: Source, prefix: Prefix = (), **settings: Any) -> RoundExpectation:
    """E[accepted drafts] and E[committed tokens] of one round, level by level (no recursion).

    Unlike ``analyze_round`` it never lists token sequences: the rule's round pass (``RuleTheory.round_pass``)
    walks (position, context key) nodes, with block verification's running weight besides. Refused
    (TheoryLimitError) beyond MAX_ROUND_NODES nodes at one position, MAX_VOCABULARY tokens, or block
    verification's MAX_BLOCK_WORK steps.
    """
    models = round_models(source, **settings)
    cache = NodeCache(models)
    found = verification_rule(models.verification)
    entry = THEORY_BY_FAMILY[found]
    entry.check(found, models.draft(tuple(prefix)).support_size)  # before the first node's O(V) Fractions
    kept, stop_end = entry.round_pass(models, cache, tuple(prefix), found, _law_at)
    accepted = sum(kept, Fraction(0))
    return RoundExpectation(found.name, accepted, accepted + 1 - stop_end, stop_end, tuple(kept))


def traversal_first_token(source: Source, prefix: Prefix = (), **settings: Any) -> tuple[Fraction, ...]:
    """The law of a traversal round's first committed token from ``prefix``, exactly, for context-dependent models
    too (the tree below the root is drafted and tested at its own contexts); refused (TheoryLimitError) past the
    pass's steps. The source's rule must be traversal verification (``traversal:K``, ``traversal-distinct:K``)."""
    models = round_models(source, **settings)
    found = verification_rule(models.verification)
    if THEORY_BY_FAMILY[found].round_pass is not traversal_expectation:
        raise TheoryError(f"verification {found.name!r} is not traversal verification; first_token_law covers it")
    cache = NodeCache(models)
    check_traversal(found, models.draft(tuple(prefix)).support_size)
    try:
        _, first = traversal_pass(models, cache, found).root(tuple(prefix))
    except LawError as error:
        raise TheoryLimitError(str(error)) from error
    return first.committed(models.vocab_size or cache.node(tuple(prefix)).p.vocab_size)


def expected_accepted_drafts(p: Categorical, q: Categorical, depth: int, verification: str | Rule = "token"
                             ) -> Fraction:
    """Exact expected accepted drafts per round for context-independent p and q (no stop tokens).

    Every rule that decides node by node keeps a draft at each node with the same probability a (the
    node's acceptance), so the round keeps a + a^2 + ... + a^g drafts: a closed form, for g up to
    MAX_EXACT_DEPTH. Block verification (Sun et al. 2025) is never below tokenwise; its exact pass runs for
    g up to MAX_BLOCK_DEPTH within MAX_BLOCK_WORK steps. On p = (1/3, 2/3), q = (2/3, 1/3), g = 2: 10/9
    tokenwise, 11/9 block, 112/81 for a width-2 tree.
    """
    models = constant_models(p, q, depth, verification)
    found = verification_rule(models.verification)
    return THEORY_BY_FAMILY[found].accepted_drafts(found, p, q, depth)
