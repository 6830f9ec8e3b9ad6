"""Verification rules side by side on the same round: one round each, their exact expectations, many seeds.

``compare(scenario, prefix, round_id)`` plays one round from ``prefix`` under each rule of ``rules_for``
(tokenwise and block, and the scenario's own rule when it is another: a tree), each from a fresh copy of
the same streams (seed, request and round). The chain rules draft the same block from the proposal
stream, so tokenwise and block verify the very same drafts; a tree drafts a tree of its own from that
stream (its first child is the chain's first draft, the rest differ), which ``Comparison.same_drafts``
says. ``expectations`` gives each rule's exact expected drafts kept and tokens per round from that prefix
(``theory.round_expectation``), and ``over_seeds`` the same round under many seeds: how often the rules
keep the same number of drafts, and how often each keeps more. Pure: results depend only on arguments.

Why the draws differ at one position although the streams are the same (``WHY_DRAWS_DIFFER``): every
rule draws ``randrange(d)`` from the same acceptance stream, with ``d`` the denominator of its own
probability (min(1, p/q) for tokenwise, h_k for block, min(1, r/q′) for a tree), so the same stream gives
each its own integer; and tokenwise stops drawing at its first rejection, block draws at every position.

Trees two ways (``tree_rules(name)``, ``compare_trees``): a tree of K children per node verified by
token-level recursive rejection sampling (``multi:K``, top-down) and by traversal verification (``traversal:K``,
Weng et al. 2025, from the leaves up) on the very same drafted tree (the same drafting from the same proposal
stream, ``Comparison.same_tree``) and the same acceptance and correction streams, with their exact expectations
(``trees_rows``, ``trees_sentence``: each count with its denominator).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from .. import narration
from ..core import Block, Result, Trace
from ..core.errors import SpecvizError, VerificationError
from ..core.trace import CHECK_KINDS, Event
from ..core.tree import Tree
from ..core.verification import FamilyTable, Rule, Unsupported, rule
from ..scenario import Prefix, Scenario, play_round

RULES = ("token", "block")  # the chain rules: the same drafted block, verified two ways
SEEDS = (10, 40, 200)  # the seed counts the Compare tab offers
WHY_DRAWS_DIFFER = ("Same streams, different draws: each rule draws randrange(d) from the same acceptance stream, "
                    "with d the denominator of its own probability (min(1, p/q) for tokenwise, h_k for block"
                    "{tree}), so the same stream gives each rule its own integer and its own u; and tokenwise stops "
                    "drawing at its first rejection while block draws at every position.")


WHY_TREE_DRAWS_DIFFER = ("Same tree and streams, different draws: recursive rejection sampling walks down from the "
                         "root, drawing randrange(d) against min(1, r/q′) for each child in turn until one is "
                         "accepted; traversal walks up from the first leaf, drawing against each tested node's current "
                         "weight until a node is kept (a node of weight 0 is rejected whatever the draw). Each draws "
                         "its own integers from the same acceptance stream, so the two can keep different paths of "
                         "the very same tree.")


def rules_for(scenario: Scenario) -> tuple[str, ...]:
    """Tokenwise and block, then the scenario's own rule when it is neither (a tree drafts its own tree)."""
    own = rule(scenario.verification).name
    return RULES if own in RULES else (*RULES, own)


def _as_traversal(found: Rule) -> tuple[str, str]:
    return found.name, f"traversal{'-distinct' if found.distinct else ''}:{found.width}"


def _as_recursive(found: Rule) -> tuple[str, str]:
    return f"multi{'-distinct' if found.distinct else ''}:{found.width}", found.name


# a tree rule and its partner on the same tree: (token-level recursive rejection sampling, traversal verification)
TREE_PAIRS_BY_FAMILY: FamilyTable = FamilyTable(
    "playground.compare.TREE_PAIRS_BY_FAMILY", {"tree": _as_traversal, "traversal": _as_recursive}, scope="playable",
    otherwise=Unsupported("Compare pairs the two verifications of one drafted tree: recursive rejection sampling "
                          "(multi:K) and traversal verification (traversal:K); this rule has no partner there"))


def tree_rules(name: str | Rule) -> tuple[str, str] | None:
    """(the recursive rejection sampling rule, the traversal rule) of the tree a tree rule drafts (the same width and
    children), or None for a rule that drafts no tree of either kind."""
    found = rule(name)
    return TREE_PAIRS_BY_FAMILY[found](found) if TREE_PAIRS_BY_FAMILY.supports(found) else None


def is_traversal(name: str | Rule) -> bool:
    """Whether the rule is the traversal side of a tree pair (its Compare verifies its tree two ways)."""
    pair = tree_rules(name)
    return pair is not None and rule(name).name == pair[1]


def why_draws_differ(rules: tuple[str, ...]) -> str:
    shown = []
    for name in rules:
        if name in RULES:
            continue
        pair = tree_rules(name)
        shown.append(", the node's current weight for traversal" if pair and rule(name).name == pair[1] else
                     ", min(1, r/q′) for the tree")
    return WHY_DRAWS_DIFFER.format(tree="".join(dict.fromkeys(shown)))


def tokens_text(vocab: tuple[str, ...], tokens: tuple[int, ...] | list[int]) -> str:
    """Tokens as the Playground prints them: each quoted (‘.’ stays visible), or 'nothing' when none."""
    return " ".join(narration.label(vocab, t) for t in tokens) if tokens else "nothing"


def prefix_text(vocab: tuple[str, ...], prefix: Prefix) -> str:
    return f"after {tokens_text(vocab, prefix)}" if prefix else "from the start of the text"


@dataclass(frozen=True)
class Side:
    """One rule's round: what it drafted (a chain or a tree), its trace and its result."""

    rule: Rule
    trace: Trace  # the round's drafting events, then this rule's checks, correction or bonus, stop, result
    block: Block | Tree
    result: Result

    @property
    def kept(self) -> int:
        """Drafts the rule committed (accepted by tokenwise or a tree, kept by block)."""
        return self.result.accepted_drafts

    @property
    def drafted(self) -> int:
        """Drafts the round proposed: the chain's positions, or the tree's nodes."""
        proposals = getattr(self.block, "proposals", None)
        return len(proposals) if proposals is not None else len(self.block.nodes())

    @property
    def chain(self) -> tuple[int, ...] | None:
        """The drafted tokens of a chain (None for a tree)."""
        proposals = getattr(self.block, "proposals", None)
        return None if proposals is None else tuple(p.token for p in proposals)

    @property
    def checks(self) -> list[Event]:
        return [e for e in self.trace.events if e.kind in CHECK_KINDS]

    def summary(self) -> str:
        """'2 of 3 drafts accepted, 3 tokens committed' (out of every draft of the round, checked or not)."""
        tokens = len(self.result.tokens)
        what = "draft" if self.chain is not None else "drafted node"
        return (f"{self.kept} of {self.drafted} {what}{'s' if self.drafted != 1 else ''} {self.rule.kept_verb}, "
                f"{tokens} token{'s' if tokens != 1 else ''} committed")


@dataclass(frozen=True)
class Comparison:
    prefix: Prefix
    round_id: int
    sides: tuple[Side, ...]  # in rules_for order

    @property
    def drafts(self) -> tuple[int, ...]:
        """The chain rules' shared drafted block."""
        return next(s.chain for s in self.sides if s.chain is not None)

    def side(self, name: str) -> Side:
        return next(s for s in self.sides if s.rule.name == rule(name).name)

    @property
    def same_drafts(self) -> bool:
        """Whether every rule verified the same drafted block (false once a tree is compared)."""
        chains = {s.chain for s in self.sides}
        return len(chains) == 1 and None not in chains

    @property
    def same_tree(self) -> bool:
        """Whether every side verified one drafted tree: the same nodes (paths and tokens) in the same order."""
        shapes = {tuple((node.path, node.token) for node in s.block.nodes()) if isinstance(s.block, Tree) else None
                  for s in self.sides}
        return len(shapes) == 1 and None not in shapes


def compare(scenario: Scenario, prefix: Prefix = (), round_id: int = 0, rules: tuple[str, ...] | None = None
            ) -> Comparison:
    """One round from ``prefix`` under each rule, each with a fresh copy of the same streams."""
    sides = []
    for name in rules or rules_for(scenario):
        own = scenario.with_changes(verification=name)
        played = play_round(own, own.verifier(tuple(prefix)), round_id)
        sides.append(Side(rule(name), played.trace, played.block, played.result))
    return Comparison(tuple(prefix), round_id, tuple(sides))


def compare_trees(scenario: Scenario, prefix: Prefix = (), round_id: int = 0) -> Comparison:
    """The scenario's tree verified top-down (recursive rejection sampling) and from the leaves up (traversal), on the
    same drafted tree and streams; VerificationError when the scenario's rule drafts no such tree."""
    pair = tree_rules(scenario.verification)
    if pair is None:
        raise VerificationError(f"verification {scenario.verification!r} drafts no tree of K children per node to "
                                "verify two ways: choose multi:K, multi-distinct:K, traversal:K or "
                                "traversal-distinct:K")
    return compare(scenario, prefix, round_id, pair)


def trees_at(scenario: Scenario, round_id: int) -> Comparison:
    """The animation's round ``round_id`` (its committed prefix) verified two ways on one drafted tree."""
    return compare_trees(scenario, *round_at(scenario, round_id))


def round_at(scenario: Scenario, round_id: int) -> tuple[Prefix, int]:
    """(prefix, round id) of the animation's round ``round_id`` (the last played one if it is past the end)."""
    from .state import timeline_for

    timeline = timeline_for(scenario)
    timeline.ensure_rounds(round_id + 1)
    if not timeline.rounds:
        return (), 0
    played = timeline.rounds[min(round_id, len(timeline.rounds) - 1)]
    return played.prefix, played.round_id


def compare_at(scenario: Scenario, round_id: int) -> Comparison:
    """The comparison on the animation's round ``round_id``: drafted from that round's committed prefix."""
    return compare(scenario, *round_at(scenario, round_id))


# --- exact expectations ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Expected:
    """A rule's exact expectation per round from a prefix (None with the reason when theory refuses)."""

    kept: Fraction | None
    tokens: Fraction | None
    why_not: str = ""


@lru_cache(maxsize=64)
def expectations(scenario: Scenario, prefix: Prefix = (), rules: tuple[str, ...] | None = None
                 ) -> dict[str, Expected]:
    """Each rule's exact E[drafts kept] and E[tokens committed] for one round from ``prefix``."""
    from .. import theory

    out = {}
    for name in rules or rules_for(scenario):
        try:
            found = theory.round_expectation(scenario.with_changes(verification=name), tuple(prefix))
        except SpecvizError as error:  # theory's limits: said beside the round, never a guess
            out[rule(name).name] = Expected(None, None, str(error))
            continue
        out[rule(name).name] = Expected(found.accepted_drafts, found.tokens)
    return out


KEPT_DENOMINATOR = ("per round: the mean over every tree drafted from this prefix and every draw of the acceptance "
                    "and correction streams, exactly")


def tree_name(found: Rule) -> str:
    """A tree verification as the comparison names it: 'recursive rejection sampling (multi:3)', 'traversal
    (traversal:3)'."""
    pair = tree_rules(found)
    how = "traversal" if pair is not None and found.name == pair[1] else "recursive rejection sampling"
    return f"{how} ({found.name})"


def trees_rows(comparison: Comparison, expected: dict[str, Expected], vocab: tuple[str, ...]) -> list[dict[str, str]]:
    """A tree's two verifications side by side, each count with its denominator: the exact expectations per round
    (over every drafted tree and draw), then this round's drafted nodes kept (of the tree's drafted nodes)."""
    out = []
    for side in comparison.sides:
        found = expected[side.rule.name]
        out.append({"verification": tree_name(side.rule),
                    "E[drafts kept] per round (exact)": _exact(found.kept),
                    "E[tokens] per round (exact)": _exact(found.tokens),
                    "this round: drafted nodes kept": f"{side.kept} of {side.drafted}",
                    "this round: committed": tokens_text(vocab, side.result.tokens)})
    return out


def _exact(value: Fraction | None) -> str:
    from .. import formats

    return "not computed" if value is None else formats.fraction_folded(value, 3)


def trees_sentence(comparison: Comparison, expected: dict[str, Expected]) -> str:
    """What the exact expectations say of the two verifications (traversal against recursive rejection sampling),
    from the numbers as they are, with their denominator; what one round can show besides."""
    rrs, walk = (side.rule for side in comparison.sides)
    a, b = expected[walk.name].kept, expected[rrs.name].kept
    if a is None or b is None:
        reason = expected[walk.name].why_not or expected[rrs.name].why_not
        return f"No exact comparison from this prefix: {reason}"
    gap = a - b
    how = "as many drafts as" if gap == 0 else f"{_exact(abs(gap))} {'more' if gap > 0 else 'fewer'} drafts than"
    return (f"Exactly, {tree_name(walk)} keeps {_exact(a)} drafts per round and {tree_name(rrs)} {_exact(b)}: "
            f"traversal keeps {how} recursive rejection sampling on average ({KEPT_DENOMINATOR}). On one drafted "
            "tree either can keep more: this round's counts are one draw of that average.")


# --- many seeds ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class OverSeeds:
    """The same round (prefix and round id) under seeds ``first`` .. ``first + count − 1``, rule by rule."""

    first: int
    count: int
    kept: dict[str, tuple[int, ...]]  # per rule name, the drafts kept at each seed
    tokens: dict[str, tuple[int, ...]]

    def mean(self, name: str) -> Fraction:
        return Fraction(sum(self.kept[name]), self.count)

    def standard_error(self, name: str) -> float:
        """The standard error of the mean drafts kept (0 for a single seed)."""
        values = self.kept[name]
        if len(values) < 2:
            return 0.0
        m = sum(values) / len(values)
        return math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1) / len(values))

    def mean_tokens(self, name: str) -> Fraction:
        return Fraction(sum(self.tokens[name]), self.count)

    def more(self, a: str, b: str) -> int:
        """Seeds at which rule ``a`` kept more drafts than rule ``b``."""
        return sum(x > y for x, y in zip(self.kept[a], self.kept[b], strict=True))

    def same(self, a: str, b: str) -> int:
        return sum(x == y for x, y in zip(self.kept[a], self.kept[b], strict=True))

    def differences(self, a: str, b: str) -> dict[int, int]:
        """How many seeds gave each difference (drafts kept by ``a`` minus by ``b``), in order."""
        counts: dict[int, int] = {}
        for x, y in zip(self.kept[a], self.kept[b], strict=True):
            counts[x - y] = counts.get(x - y, 0) + 1
        return dict(sorted(counts.items()))


@lru_cache(maxsize=32)
def over_seeds(scenario: Scenario, prefix: Prefix, round_id: int, count: int,
               rules: tuple[str, ...] | None = None) -> OverSeeds:
    """The round from ``prefix`` under ``count`` seeds from the scenario's own, each rule on each seed's streams."""
    names = tuple(rule(n).name for n in (rules or rules_for(scenario)))
    kept: dict[str, list[int]] = {n: [] for n in names}
    tokens: dict[str, list[int]] = {n: [] for n in names}
    for seed in range(scenario.seed, scenario.seed + count):
        result = compare(scenario.with_changes(seed=seed), prefix, round_id, names)
        for side in result.sides:
            kept[side.rule.name].append(side.kept)
            tokens[side.rule.name].append(len(side.result.tokens))
    return OverSeeds(scenario.seed, count, {n: tuple(v) for n, v in kept.items()},
                     {n: tuple(v) for n, v in tokens.items()})


def seeds_sentence(seeds: OverSeeds, a: str = "block", b: str = "token") -> str:
    """How often two rules (the chain rules by default; a tree's two verifications) kept the same number of drafts,
    and how often each kept more: measured."""
    more_a, more_b, same = seeds.more(a, b), seeds.more(b, a), seeds.same(a, b)
    la, lb = rule(a).label, rule(b).label
    last = seeds.first + seeds.count - 1
    head = (f"Over {seeds.count} seeds ({seeds.first} to {last}), the same prefix and round: {la} and {lb} kept "
            f"the same number of drafts at {same}")
    if same == seeds.count:
        return head + " (every seed)."
    return head + f"; {la} kept more at {more_a}, {lb} kept more at {more_b}."


# --- the rule's decisions, in short lines --------------------------------------------------------------------
def rows(comparison: Comparison, vocab: tuple[str, ...]) -> list[dict[str, str]]:
    """One table row per rule: drafted, committed, the count of drafts committed, tokens."""
    out = []
    for side in comparison.sides:
        drafted = tokens_text(vocab, side.chain) if side.chain is not None else f"a tree of {side.drafted} nodes"
        out.append({"rule": side.rule.label, "drafted": drafted, "committed": tokens_text(vocab, side.result.tokens),
                    "drafts committed": f"{side.kept} of {side.drafted} {side.rule.kept_verb}",
                    "tokens": str(len(side.result.tokens))})
    return out


def trace_lines(side: Side, vocab: tuple[str, ...]) -> list[str]:
    """The rule's decisions in its round, one short line each (numbers exact)."""
    from ..narration.block import fraction_text, names
    from ..narration.counting import node as node_name
    from ..narration.counting import nth

    lines = []
    for e in side.trace.events:
        x = f"‘{vocab[e.token]}’" if hasattr(e, "token") else ""
        if e.kind == "check":
            verdict = "accepted" if e.accepted else "rejected"
            lines.append(f"position {nth(e.position)}: {x} min(1, p/q) = {fraction_text(e.acceptance)}; draw "
                         f"{e.draw} {'<' if e.accepted else '≥'} {e.acceptance.numerator} → {verdict}")
        elif e.kind == "block_check":
            n = names(e.position)  # w_k and h_k: computed at position k, as the narration names them
            lines.append(f"position {nth(e.position)}: {x} {n.weight} = {fraction_text(e.weight)}, {n.stop} "
                         f"= {fraction_text(e.stop_probability)}; draw {e.draw} {'<' if e.hit else '≥'} "
                         f"{e.stop_probability.numerator} → {'hit' if e.hit else 'no hit'}")
        elif e.kind == "traversal_check":
            verdict = "kept (its whole path)" if e.accepted else "rejected"
            after = f" after {e.children_rejected} rejected children" if e.children_rejected else ""
            draw = (": rejected, no draw needed" if not e.acceptance else
                    f"; draw {e.draw} {'<' if e.accepted else '≥'} {e.acceptance.numerator} → {verdict}")
            lines.append(f"{node_name(e.path)}: {x} weight {fraction_text(e.acceptance)}{after}{draw}")
        elif e.kind in ("tree_check", "threshold_check"):
            verdict = "accepted" if e.accepted else "rejected"
            lines.append(f"position {nth(e.position)}, sibling {nth(e.sibling)} of {e.siblings}: {x} min(1, r/q′) = "
                         f"{fraction_text(e.acceptance)}; draw {e.draw} {'<' if e.accepted else '≥'} "
                         f"{e.acceptance.numerator} → {verdict}")
        elif e.kind == "block_decision":
            lines.append(f"decision: keep τ = {e.accepted_drafts} of {len(e.drafts)}")
        elif e.kind == "correction":
            lines.append(f"correction {x} (draw {e.draw} of 0..{e.draw_range - 1})")
        elif e.kind == "bonus":
            lines.append(f"bonus {x} from p (draw {e.draw} of 0..{e.draw_range - 1})")
    return lines


def drafted_events(side: Side) -> list[Event]:
    return [e for e in side.trace.events if e.kind == "draft"]
