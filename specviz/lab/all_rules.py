"""Every verification rule side by side on one scenario, exactly, and a Monte Carlo of each rule's first token.

For the scenario's first context (the empty prefix) and its depth: what each rule keeps per position, its
expected accepted drafts and tokens per round (``theory.round_expectation``), the exact law of the first
committed token and its total variation from p (0 for the exact rules), and the best acceptance any exact
scheme with K i.i.d. drafts can reach. ``sample_first_tokens`` runs each rule's own mechanism, vectorized
over rounds with integer-ticket draws (``lab.draws``): the drafts, the acceptance draws and the correction,
not a draw from the law theory computed.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .. import theory
from ..core import Categorical, Rule, SpecvizError, draft_round, medusa, rule, threshold
from ..core.ensemble import ensemble_acceptance
from ..core.verification import FamilyTable
from ..scenario import Scenario
from . import montecarlo, rule_rows
from .draws import INT64_LIMIT, cumulative, numpy_draw

# the engine rules' rows, with the settings the view starts from (the page's controls choose others; lab.rule_rows)
DEFAULT_ENGINE_RULES = rule_rows.default_rows()
OPTIMUM_DRAFTS = (2, 3)
MAX_MASKED_VOCABULARY = 12  # SGLang's tree Monte Carlo tabulates p and q without each token set (2^V rows)
MAX_PLAYED_ROUNDS = 10_000  # rounds of a rule sampled by its core verifier itself (traversal: not vectorized)


class RulesError(SpecvizError, ValueError):
    """A rule comparison or its Monte Carlo cannot run on this scenario (named, with the reason)."""


# the issues are public threads found and read, not guessed
ISSUES: tuple[tuple[str, str, str], ...] = (
    ("vllm-project/vllm-ascend#7807", "https://github.com/vllm-project/vllm-ascend/issues/7807",
     "block verification implemented with the tokenwise acceptance test and residual (fixed in #7808)"),
    ("vllm-project/vllm-ascend#2881", "https://github.com/vllm-project/vllm-ascend/pull/2881",
     "the n-gram path zeroed the draft token in target_probs in place before the correction draw"),
)


def rule_names(engine_rules: tuple[str, ...] = DEFAULT_ENGINE_RULES) -> tuple[str, ...]:
    """The rules the view compares, in table order (the engine rules as chosen), by their canonical names, once."""
    names = ("token", "block", "multi:2", "multi:3", "multi-distinct:2", "traversal:2", "traversal-distinct:2",
             "exact-match", "greedy-draft", *engine_rules)
    return tuple(dict.fromkeys(rule(name).name for name in names))


def engines(found: Rule) -> str:
    """Who runs the rule (the lab's engines column)."""
    return RULE_LAB_BY_FAMILY[found].engines(found)


@dataclass(frozen=True)
class RuleRow:
    """One rule on the scenario, exactly."""

    rule: Rule
    kept_by_position: tuple[Fraction, ...]  # P(the draft at position k is committed)
    accepted_drafts: Fraction
    tokens: Fraction
    first_law: tuple[Fraction, ...]  # law of the first committed token, vocabulary order
    distance: Fraction  # total variation of first_law from p


@dataclass(frozen=True)
class Optimum:
    """The best acceptance at one node for K i.i.d. drafts, and a token set S attaining the bound."""

    drafts: int
    value: Fraction
    chosen: frozenset[int]


@dataclass(frozen=True)
class RulesComparison:
    """Every rule of the view on one scenario: p and q at the first context, one row per rule, the bounds."""

    p: tuple[Fraction, ...]
    q: tuple[Fraction, ...]
    rows: tuple[RuleRow, ...]
    optima: tuple[Optimum, ...]
    refused: tuple[tuple[Rule, str], ...] = ()  # rules theory refuses on this scenario (past its stated limits)


def first_pair(scenario: Scenario) -> tuple[Categorical, Categorical]:
    """The processed target p and the draft q at the empty prefix."""
    return scenario.processor()((), scenario.target_model()(())), scenario.draft_model()(())


def first_law(scenario: Scenario, name: str | Rule) -> tuple[Fraction, ...]:
    """The exact law of the rule's first committed token on the scenario, in vocabulary order."""
    found = rule(name)
    p, q = first_pair(scenario)
    return RULE_LAB_BY_FAMILY[found].first_law(scenario, found, p, q)


def compare(scenario: Scenario, engine_rules: tuple[str, ...] = DEFAULT_ENGINE_RULES) -> RulesComparison:
    """Every rule of ``rule_names(engine_rules)`` on the scenario, exactly (raises the core's or theory's error)."""
    p, q = first_pair(scenario)
    rows, refused = [], []
    for name in rule_names(engine_rules):
        found = rule(name)
        try:
            expectation = theory.round_expectation(scenario, verification=found.name)
            law = RULE_LAB_BY_FAMILY[found].first_law(scenario, found, p, q)
        except theory.TheoryLimitError as error:  # one rule past theory's limits leaves the others on the page
            refused.append((found, str(error)))
            continue
        rows.append(RuleRow(found, expectation.kept_by_position, expectation.accepted_drafts, expectation.tokens,
                            law, theory.law_distance(law, p)))
    optima = tuple(Optimum(k, *theory.optimal_multi_draft(p, q, k)) for k in OPTIMUM_DRAFTS)
    v = p.vocab_size
    return RulesComparison(tuple(p.prob(x) for x in range(v)), tuple(q.prob(x) for x in range(v)), tuple(rows),
                           optima, tuple(refused))


# ------------------------------------------------------------------------------------------------
# Monte Carlo of each rule's first committed token: the rule's own mechanism, in integer tickets
# ------------------------------------------------------------------------------------------------


def _tickets(law: dict[int, Fraction], v: int) -> list[int]:
    """A law as integer tickets over 0..v-1 (all zero for an empty law)."""
    if not law:
        return [0] * v
    common = math.lcm(*(f.denominator for f in law.values()))
    return [int(law.get(x, Fraction(0)) * common) for x in range(v)]


@dataclass
class _Node:
    """One step of recursive rejection: draw from ``draw``, keep x with num[x]/den[x], else go to next[x]
    (-1: commit a draw from ``correction``)."""

    draw: list[int]
    num: list[int]
    den: list[int]
    next: list[int]
    correction: list[int]


def _step(r: dict[int, Fraction], proposal: dict[int, Fraction], v: int) -> tuple[list[int], list[int],
                                                                                   dict[int, Fraction]]:
    """Acceptance num/den per token against residual r, and the residual after a rejection."""
    num, den = [0] * v, [1] * v
    for x, qx in proposal.items():
        keep = min(Fraction(1), r.get(x, Fraction(0)) / qx)
        num[x], den[x] = keep.numerator, keep.denominator
    rest = {x: rx - proposal.get(x, Fraction(0)) for x, rx in r.items() if rx > proposal.get(x, Fraction(0))}
    mass = sum(rest.values(), Fraction(0))
    return num, den, {x: value / mass for x, value in rest.items()} if mass else {}


def _distinct_automaton(found: Rule, p: Categorical, q: Categorical) -> list[_Node]:
    """Children drawn without replacement: q renormalized over the tokens not yet drawn, so the steps branch
    on what was drawn (one node per ordered path of rejected drafts); node 0 first."""
    v = p.vocab_size
    pl, ql = theory.law_of(p), theory.law_of(q)
    nodes: list[_Node | None] = [None]
    pending: list[tuple[int, frozenset[int], dict[int, Fraction]]] = [(0, frozenset(), pl)]
    while pending:
        index, drawn, r = pending.pop()
        left = {x: qx for x, qx in ql.items() if x not in drawn}
        total = sum(left.values(), Fraction(0))
        proposal = {x: qx / total for x, qx in left.items()}
        num, den, after = _step(r, proposal, v)
        nxt = [-1] * v
        if len(drawn) + 1 < found.width and after and len(left) > 1:
            for x in proposal:
                if num[x] < den[x]:  # x can be rejected: its own next step
                    nxt[x] = len(nodes)
                    nodes.append(None)
                    pending.append((nxt[x], drawn | {x}, after))
        nodes[index] = _Node(_tickets(proposal, v), num, den, nxt, _tickets(after, v))
    return [node for node in nodes if node is not None]


def _iid_automaton(found: Rule, p: Categorical, q: Categorical) -> list[_Node]:
    """i.i.d. children: a chain of residuals, one node per child."""
    v = p.vocab_size
    r, ql = theory.law_of(p), theory.law_of(q)
    nodes = []
    for j in range(found.width):
        num, den, after = _step(r, ql, v)
        last = j + 1 == found.width or not after
        nodes.append(_Node(_tickets(ql, v), num, den, [-1 if last else j + 1] * v, _tickets(after, v)))
        if last:
            break
        r = after
    return nodes


def _run_automaton(nodes: list[_Node], n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """n rounds of one node: (committed token, whether a draft was kept) per round."""
    _check_int64([*(nd.draw for nd in nodes), *(nd.correction for nd in nodes)], [d for nd in nodes for d in nd.den])
    draw_cum, draw_total = cumulative([nd.draw for nd in nodes])
    corr_cum, corr_total = cumulative([nd.correction for nd in nodes])
    num = np.array([nd.num for nd in nodes], dtype=np.int64)
    den = np.array([nd.den for nd in nodes], dtype=np.int64)
    nxt = np.array([nd.next for nd in nodes], dtype=np.int64)
    out, kept = np.full(n, -1, dtype=np.int64), np.zeros(n, dtype=bool)
    live, at = np.arange(n), np.zeros(n, dtype=np.int64)
    while live.size:
        x = numpy_draw(rng, draw_cum, draw_total, at)
        ok = rng.integers(0, den[at, x]) < num[at, x]
        out[live[ok]], kept[live[ok]] = x[ok], True
        go = nxt[at, x]
        done = ~ok & (go < 0)
        if done.any():
            out[live[done]] = numpy_draw(rng, corr_cum, corr_total, at[done])
        more = ~ok & (go >= 0)
        live, at = live[more], go[more]
    return out, kept


def _check_int64(rows: list[list[int]], dens: list[int]) -> None:
    if max([sum(row) for row in rows] + dens) > INT64_LIMIT:
        raise RulesError("the rule's tickets exceed 63 bits at this scenario: the vectorized Monte Carlo is "
                         "skipped (the exact law above still holds)")


@dataclass(frozen=True)
class Sample:
    """Monte Carlo of a rule's first committed token."""

    counts: np.ndarray  # (V,) rounds per first token
    kept: int | None  # rounds whose first position kept a draft (None where the sampler does not expose it)
    rounds: int


def _rng(seed: int, name: str) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(name.encode())])  # one stream per rule, the same every run


def sample_first_tokens(scenario: Scenario, name: str, n: int, seed: int = 0) -> Sample:
    """n rounds of the rule from the empty prefix: the first committed token of each, by the rule's mechanism."""
    found = rule(name)
    if type(n) is not int or n < 1:
        raise RulesError(f"rounds n must be an int >= 1, got {n!r}")
    p, q = first_pair(scenario)
    return RULE_LAB_BY_FAMILY[found].sample(Draws(scenario, found, p, q, n, seed, _rng(seed, found.name)))


@dataclass(frozen=True)
class Draws:
    """What a rule's Monte Carlo of its first token draws from: the scenario, its first p and q, n, the stream."""

    scenario: Scenario
    rule: Rule
    p: Categorical
    q: Categorical
    n: int
    seed: int
    rng: np.random.Generator


def _sample_block(d: Draws) -> Sample:
    """Block rounds through the exact block Monte Carlo (the first token depends on the whole block)."""
    simulator = montecarlo.MonteCarlo(d.scenario.with_changes(verification=d.rule.name), seed=d.seed)
    return Sample(np.bincount(simulator.tokens(d.n)[:, 0], minlength=d.p.vocab_size), None, d.n)


def _sample_recursive_rejection(d: Draws) -> Sample:
    """Tokenwise and trees: the node's steps of recursive rejection, i.i.d. or without replacement."""
    nodes = (_distinct_automaton if d.rule.distinct else _iid_automaton)(d.rule, d.p, d.q)
    out, kept = _run_automaton(nodes, d.n, d.rng)
    return Sample(np.bincount(out, minlength=d.p.vocab_size), int(kept.sum()), d.n)


def _sample_with_target(d: Draws, *, greedy: bool = False) -> Sample:
    """A draft (x ~ q, or argmax q when greedy; exact-match:K: K distinct children drawn from q without
    replacement) and the target's own sample y ~ p: a draft kept when it equals y, and y committed either way
    (exact match and greedy drafts)."""
    v, n, rng = d.p.vocab_size, d.n, d.rng
    _check_int64([d.p.ticket_ints(), d.q.ticket_ints()], [])
    p_cum, p_total = cumulative([d.p.ticket_ints()])
    rows = np.zeros(n, dtype=np.int64)
    y = numpy_draw(rng, p_cum, p_total, rows)
    if greedy:
        x = np.full(n, theory.greedy_token(theory.law_of(d.q)))
        return Sample(np.bincount(y, minlength=v), int((x == y).sum()), n)
    kept = _drawn_children(d, rows)[np.arange(n), y]  # y is among the round's drafts
    return Sample(np.bincount(y, minlength=v), int(kept.sum()), n)


def _drawn_children(d: Draws, rows: np.ndarray) -> np.ndarray:
    """(n, V) booleans: the tokens among each round's d.rule.width children drawn from q without replacement (one
    child from q when the width is 1); a wider node needs q without each token set (at most
    MAX_MASKED_VOCABULARY tokens)."""
    v, n = d.q.vocab_size, len(rows)
    drawn = np.zeros((n, v), dtype=bool)
    if d.rule.width == 1:
        q_cum, q_total = cumulative([d.q.ticket_ints()])
        drawn[np.arange(n), numpy_draw(d.rng, q_cum, q_total, rows)] = True
        return drawn
    if v > MAX_MASKED_VOCABULARY:
        raise RulesError(f"exact match's tree Monte Carlo tabulates q without each set of tokens: at most "
                         f"{MAX_MASKED_VOCABULARY} tokens, this scenario has {v} (the exact law above still holds)")
    q_cum, q_total = _masked_tables(d.q.ticket_ints())
    masks = np.zeros(n, dtype=np.int64)
    live = np.arange(n)
    for _ in range(d.rule.width):
        live = live[q_cum[masks[live], -1] > 0]  # q has no token left: fewer children
        if not live.size:
            break
        x = numpy_draw(d.rng, q_cum, q_total, masks[live])
        drawn[live, x] = True
        masks[live] |= 1 << x
    return drawn


def _sample_ensemble(d: Draws) -> Sample:
    """transformers' ensemble rule: x ~ q kept with min(1, 1 − W + W·p(x)/q(x)), else a draw from (p − q)+."""
    v, w = d.p.vocab_size, d.rule.settings.weight
    num, den = [0] * v, [1] * v
    for x in theory.law_of(d.q):
        a = ensemble_acceptance(d.p, d.q, x, w)
        num[x], den[x] = a.numerator, a.denominator
    pl, ql = theory.law_of(d.p), theory.law_of(d.q)
    corrected = {x: px - ql.get(x, Fraction(0)) for x, px in pl.items() if px > ql.get(x, Fraction(0))}
    node = _Node(_tickets(ql, v), num, den, [-1] * v, _tickets(corrected, v))
    out, kept = _run_automaton([node], d.n, d.rng)
    return Sample(np.bincount(out, minlength=v), int(kept.sum()), d.n)


def _masked_tables(tickets: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative tickets of every token set removed (row m: the tokens of bit mask m left out)."""
    v = len(tickets)
    masks = np.arange(1 << v)[:, None]
    kept = ((masks >> np.arange(v)[None, :]) & 1) == 0
    return cumulative((np.array(tickets, dtype=np.int64)[None, :] * kept).tolist())


def _sample_top_k(d: Draws) -> Sample:
    """SGLang as it runs at the first node: the children are q's top K (no draw), one coin u = integers(0, T·A_num)
    per round keeps sibling k when p(x_k) >= S or u < min(T·A_num, C_k·A_den), else the final token from p without
    the children (T = p's ticket total)."""
    s, v, n, rng = d.rule.settings, d.p.vocab_size, d.n, d.rng
    tp = d.p.ticket_ints()
    total = sum(tp)
    coin_range = total * s.acc.numerator
    tokens = threshold.top_k_tokens(d.q, d.rule.width)
    removed = [0 if x in tokens else t for x, t in enumerate(tp)]
    _check_int64([tp, removed], [coin_range, total * s.acc.denominator])
    u = rng.integers(0, coin_range, size=n)
    out, kept = np.full(n, -1, dtype=np.int64), np.zeros(n, dtype=bool)
    held = 0
    for x in tokens:
        held += tp[x]
        single = tp[x] * s.single.denominator >= s.single.numerator * total
        ok = ~kept & (single | (u < min(coin_range, held * s.acc.denominator)))
        out[ok], kept[ok] = x, True
    rest = np.flatnonzero(~kept)
    if rest.size:
        rest_cum, rest_total = cumulative([removed])
        out[rest] = numpy_draw(rng, rest_cum, rest_total, np.zeros(rest.size, dtype=np.int64))
    return Sample(np.bincount(out, minlength=v), int(kept.sum()), n)


def _sample_threshold(d: Draws) -> Sample:
    """SGLang's kernel at the first node, exactly: K distinct children from q, one coin u = integers(0, T·A_num)
    per round, sibling k kept when p(x_k) >= S or u < min(T·A_num, C_k·A_den) (C_k the summed p tickets), else
    the final token from p without the rejected children (T = p's ticket total); SGLang as it runs (its top-K
    children): ``_sample_top_k``."""
    if d.rule.settings.top_k:
        return _sample_top_k(d)
    s, v, n, rng = d.rule.settings, d.p.vocab_size, d.n, d.rng
    if v > MAX_MASKED_VOCABULARY:
        raise RulesError(f"SGLang's Monte Carlo tabulates p and q without each set of tokens: at most "
                         f"{MAX_MASKED_VOCABULARY} tokens, this scenario has {v} (the exact law above still holds)")
    tp, tq = d.p.ticket_ints(), d.q.ticket_ints()
    total = sum(tp)
    coin_range = total * s.acc.numerator
    _check_int64([tp, tq], [coin_range, total * s.acc.denominator])
    q_cum, q_total = _masked_tables(tq)
    p_cum, p_total = _masked_tables(tp)
    single = np.array([t * s.single.denominator >= s.single.numerator * total for t in tp])
    p_tickets = np.array(tp, dtype=np.int64)
    u = rng.integers(0, coin_range, size=n)
    out, kept = np.full(n, -1, dtype=np.int64), np.zeros(n, dtype=bool)
    drawn, held = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    live = np.arange(n)
    for _ in range(d.rule.width):
        live = live[q_cum[drawn[live], -1] > 0]  # a node whose q has no token left has no more children
        if not live.size:
            break
        x = numpy_draw(rng, q_cum, q_total, drawn[live])
        held[live] += p_tickets[x]
        ok = single[x] | (u[live] < np.minimum(coin_range, held[live] * s.acc.denominator))
        out[live[ok]], kept[live[ok]] = x[ok], True
        drawn[live[~ok]] |= 1 << x[~ok]
        live = live[~ok]
    rest = np.flatnonzero(~kept)
    out[rest] = numpy_draw(rng, p_cum, p_total, drawn[rest])
    return Sample(np.bincount(out, minlength=v), int(kept.sum()), n)


def _sample_medusa(d: Draws) -> Sample:
    """Medusa's typical acceptance: x ~ q kept when p(x) > T, else argmax p (fast); or kept when a sample of the
    truncated p equals x, else a fresh sample of it (fast=False)."""
    s, v, n, rng = d.rule.settings, d.p.vocab_size, d.n, d.rng
    threshold = medusa.typical_threshold(d.p, s)
    _check_int64([d.q.ticket_ints()], [])
    q_cum, q_total = cumulative([d.q.ticket_ints()])
    rows = np.zeros(n, dtype=np.int64)
    x = numpy_draw(rng, q_cum, q_total, rows)
    if s.fast:
        above = np.array([d.p.prob(t) > threshold.value for t in range(v)])
        out = np.where(above[x], x, medusa.argmax(d.p))
        return Sample(np.bincount(out, minlength=v), int(above[x].sum()), n)
    truncated = medusa.truncated(d.p, threshold)
    _check_int64([truncated.ticket_ints()], [])
    t_cum, t_total = cumulative([truncated.ticket_ints()])
    y, fresh = numpy_draw(rng, t_cum, t_total, rows), numpy_draw(rng, t_cum, t_total, rows)
    out = np.where(x == y, x, fresh)  # a rejected draft: Medusa discards that sample and draws the next token anew
    return Sample(np.bincount(out, minlength=v), int((x == y).sum()), n)


def _sample_played(d: Draws) -> Sample:
    """A rule whose walk depends on the whole tree (traversal verification): its core verifier itself, round by round
    (integer tickets, the scenario's own streams at seed ``d.seed``), at most MAX_PLAYED_ROUNDS rounds."""
    scenario = d.scenario.with_changes(verification=d.rule.name, seed=d.seed)
    rounds = min(d.n, MAX_PLAYED_ROUNDS)
    counts, kept = np.zeros(d.p.vocab_size, dtype=np.int64), 0
    model = scenario.draft_model()
    for round_id in range(rounds):
        streams = scenario.streams(round_id)
        tree = draft_round(d.rule, model, (), streams, depth=scenario.depth, context_id=scenario.context,
                           stop_ids=frozenset(scenario.stop_ids))
        result = scenario.verifier(()).verify(tree, streams)
        counts[result.tokens[0]] += 1
        kept += result.accepted_drafts >= 1
    return Sample(counts, kept, rounds)


def _first_tree_law(scenario: Scenario, found: Rule, p: Categorical, q: Categorical) -> tuple[Fraction, ...]:
    """The first token of a traversal round depends on the whole tree: theory's exact pass over the scenario."""
    return theory.traversal_first_token(scenario.with_changes(verification=found.name))


def _first_node_law(scenario: Scenario, found: Rule, p: Categorical, q: Categorical) -> tuple[Fraction, ...]:
    return theory.first_token_law(p, q, found)


def _first_block_law(scenario: Scenario, found: Rule, p: Categorical, q: Categorical) -> tuple[Fraction, ...]:
    """The first token of a block depends on the whole block: the exact Monte Carlo's law (a state recursion)."""
    return tuple(montecarlo.exact_law(scenario.with_changes(verification=found.name)).first)


def _says(text: str) -> Callable[[Rule], str]:
    return lambda found: text


@dataclass(frozen=True)
class LabRule:
    """One family of rules in the lab's rules view."""

    engines: Callable[[Rule], str]  # who runs it
    first_law: Callable[[Scenario, Rule, Categorical, Categorical], tuple[Fraction, ...]]  # exact, vocabulary order
    sample: Callable[[Draws], Sample]  # its own mechanism, n rounds of the first token


RULE_LAB_BY_FAMILY: FamilyTable[LabRule] = FamilyTable("lab.all_rules.RULE_LAB_BY_FAMILY", {
    "token": LabRule(_says("the standard chain of drafts (Leviathan et al.; Chen et al.)"), _first_node_law,
                     _sample_recursive_rejection),
    "block": LabRule(_says("Sun et al. 2025; vLLM has it as an option"), _first_block_law, _sample_block),
    "tree": LabRule(lambda found: "Recursive Speculative Decoding: drafts without replacement" if found.distinct else
                    "vLLM and SGLang verify EAGLE draft trees; llama.cpp verifies several drafts stochastically",
                    _first_node_law, _sample_recursive_rejection),
    "exact-match": LabRule(_says("mlx-lm's exact match of the target's own sample"), _first_node_law,
                           _sample_with_target),
    "greedy-draft": LabRule(_says("an argmax draft checked against the target's sample"), _first_node_law,
                            lambda d: _sample_with_target(d, greedy=True)),
    "ensemble": LabRule(_says("transformers 5.x assisted decoding with assistant_ensemble_weight (DIVERSE's static "
                              "ensemble)"), _first_node_law, _sample_ensemble),
    "threshold": LabRule(lambda found: "SGLang as it runs: EAGLE's top-K drafts under its thresholds" if
                         found.settings.top_k else "SGLang's EAGLE tree verification (--speculative-accept-threshold-"
                         "single and -acc; 1 and 1, exact, by default) on drafts sampled from q", _first_node_law,
                         _sample_threshold),
    "typical": LabRule(_says("Medusa's typical acceptance (FasterDecoding/Medusa, temperature > 0)"),
                       _first_node_law, _sample_medusa),
    "traversal": LabRule(_says("Weng et al. 2025 (traversal verification, leaves to root); no engine ships it"),
                         _first_tree_law, _sample_played),
})


def fit(sample: Sample, p: tuple[Fraction, ...], labels: list[str]) -> montecarlo.Fit:
    """The sample's first-token counts against p (χ², total variation, binomial error bars around p)."""
    return montecarlo.goodness_of_fit(sample.counts, list(p), labels)
