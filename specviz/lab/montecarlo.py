"""Vectorized exact Monte Carlo of verification rounds, and the statistics to judge it.

Every round starts from the same prefix and is an independent copy of one ``propose`` +
``Verifier.verify`` round of a Scenario. The draws are exact: every choice is an integer
ticket draw ``integers(0, total)`` with numpy's unbiased bounded-integer sampler, vectorized
over rounds, and an acceptance is ``integers(0, den) < num`` for the exact Fraction
num/den = min(1, p(x)/q(x)). No float ever decides an outcome. Where some ticket total or
acceptance denominator does not fit in 63 bits, rounds fall back to Python integers
(``random.Random.randrange``), one at a time, still exact.

The draws are not the core's draws (its streams are SHA-256-seeded ``random.Random``s): the
lab checks distributions, not the replay of a particular seed.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from scipy import stats

from .. import theory
from ..core import Categorical, acceptance, residual_with_mass
from ..core.verification import FamilyTable, Unsupported, playable_names
from ..scenario import Prefix, Scenario, play_round
from .block_montecarlo import BlockSimulator, block_marginals
from .draws import INT64_LIMIT as _INT64_LIMIT
from .draws import numpy_draw as _draw
from .draws import python_draw as _python_draw


def _tickets(c: Categorical) -> list[int]:
    return c.ticket_ints()


@dataclass
class StateTables:
    """Per-state integer tables; state x < V means "the last committed token is x", V the empty prefix."""

    vocab_size: int
    depth: int
    stop: np.ndarray  # (V,) bool
    q: list[list[int]]  # (S, V) tickets of the (top-k) draft
    p: list[list[int]]  # (S, V) tickets of the processed target
    residual: list[list[int]]  # (S, V) tickets of the normalized residual (all zero when none)
    acc_num: list[list[int]]  # (S, V) acceptance numerators
    acc_den: list[list[int]]  # (S, V) acceptance denominators (1 where q = 0)
    fits_int64: bool

    @property
    def start(self) -> int:
        return self.vocab_size


def state_of(prefix: Prefix, vocab_size: int) -> int:
    return prefix[-1] if prefix else vocab_size


def _core_round(scenario: Scenario, prefix: Prefix) -> None:
    """Play one core round from prefix: refuses a bad depth, stop id, prefix token or owner with its own message."""
    play_round(scenario, scenario.verifier(prefix), 0)


def _reached_states(scenario: Scenario, prefix: Prefix) -> tuple[dict[int, Categorical], dict[int, Categorical]]:
    """q and p (processed) of every state a round from prefix uses with positive probability.

    The core evaluates q where the draft stands (positions 0..depth-1, until a stop token) and p
    where verification stands (the start, then after each draft it can accept, and the bonus), so
    exactly these must be valid; a refused one raises the core's own error. States a round cannot
    reach are not built at all.
    """
    v, depth, stops = scenario.vocab_size, scenario.depth, frozenset(scenario.stop_ids)
    target, draft, processor = scenario.target_model(), scenario.draft_model(), scenario.processor()
    start = state_of(prefix, v)
    qs: dict[int, Categorical] = {}
    ps: dict[int, Categorical] = {}

    def context(state: int) -> Prefix:
        return prefix if state == start else (state,)

    def q_at(state: int) -> Categorical:
        if state not in qs:
            qs[state] = draft(context(state))
        return qs[state]

    def p_at(state: int) -> Categorical:
        if state not in ps:
            ps[state] = processor(context(state), target(context(state)))
        return ps[state]

    def walk(first: tuple[int, int], successors) -> None:
        pending, seen = [first], {first}
        while pending:
            for step in successors(*pending.pop()):
                if step not in seen:
                    seen.add(step)
                    pending.append(step)

    def drafted_next(state: int, k: int) -> list[tuple[int, int]]:
        q = q_at(state)
        return [(x, k + 1) for x in range(v) if q.ticket(x) and k + 1 < depth and x not in stops]

    def checked_next(state: int, k: int) -> list[tuple[int, int]]:
        p = p_at(state)
        if k == depth:
            return []  # the bonus reads p only
        q = q_at(state)
        return [(x, k + 1) for x in range(v) if q.ticket(x) and x not in stops and acceptance(p, q, x)]

    walk((start, 0), drafted_next)
    walk((start, 0), checked_next)
    return qs, ps


def build_tables(scenario: Scenario, prefix: Prefix = ()) -> StateTables:
    """Exact tables for every state a round from prefix can reach (the models read only the last token).

    A state the core refuses raises the core's error before anything runs; states no round can
    reach get all-zero rows, which the simulation never reads.
    """
    prefix = tuple(prefix)
    _core_round(scenario, prefix)
    qs_at, ps_at = _reached_states(scenario, prefix)
    v = scenario.vocab_size
    zeros = [0] * v
    qs, ps, rs, nums, dens = [], [], [], [], []
    for state in range(v + 1):
        q, p = qs_at.get(state), ps_at.get(state)
        qs.append(_tickets(q) if q is not None else zeros)
        ps.append(_tickets(p) if p is not None else zeros)
        num_row, den_row = [], []
        for x in range(v):
            if q is not None and p is not None and q.ticket(x):
                a = acceptance(p, q, x)
                num_row.append(a.numerator)
                den_row.append(a.denominator)
            else:
                num_row.append(0)
                den_row.append(1)
        nums.append(num_row)
        dens.append(den_row)
        has_residual = p is not None and any(n < d for n, d, t in zip(num_row, den_row, qs[-1], strict=True) if t)
        rs.append(_tickets(residual_with_mass(p, q)[0]) if has_residual else zeros)
    totals = [sum(row) for table in (qs, ps, rs) for row in table]
    fits = max(totals + [d for row in dens for d in row]) <= _INT64_LIMIT
    stop = np.zeros(v, dtype=bool)
    stop[list(scenario.stop_ids)] = True
    return StateTables(v, scenario.depth, stop, qs, ps, rs, nums, dens, fits)


@dataclass
class Counts:
    """Running histograms of the first committed token, the committed length and the blocks."""

    vocab_size: int
    depth: int
    rounds: int = 0
    first: np.ndarray = field(default=None)  # type: ignore[assignment]
    length: np.ndarray = field(default=None)  # type: ignore[assignment]
    blocks: dict[tuple[int, ...], int] = field(default_factory=dict)
    seconds: float = 0.0

    def __post_init__(self) -> None:
        if self.first is None:
            self.first = np.zeros(self.vocab_size, dtype=np.int64)
        if self.length is None:
            self.length = np.zeros(self.depth + 2, dtype=np.int64)

    @property
    def rounds_per_second(self) -> float:
        return self.rounds / self.seconds if self.seconds > 0 else float("nan")

    def merge(self, other: Counts) -> Counts:
        blocks = dict(self.blocks)
        for key, value in other.blocks.items():
            blocks[key] = blocks.get(key, 0) + value
        return Counts(self.vocab_size, self.depth, self.rounds + other.rounds, self.first + other.first,
                      self.length + other.length, blocks, self.seconds + other.seconds)


def _encode(tokens: np.ndarray, base: int) -> np.ndarray:
    """One int64 code per row of token ids (-1 = empty slot), for counting whole blocks."""
    code = np.zeros(tokens.shape[0], dtype=np.int64)
    for k in range(tokens.shape[1] - 1, -1, -1):
        code = code * base + (tokens[:, k].astype(np.int64) + 1)
    return code


def _decode(code: int, base: int, width: int) -> tuple[int, ...]:
    out = []
    for _ in range(width):
        code, digit = divmod(code, base)
        if digit == 0:
            break
        out.append(digit - 1)
    return tuple(out)


class NumpyTables:
    """A StateTables' cumulative tickets and acceptance numbers as int64 arrays, for simulate_numpy."""

    def __init__(self, t: StateTables):
        self.q_cum = np.cumsum(np.array(t.q, dtype=np.int64), axis=1)
        self.p_cum = np.cumsum(np.array(t.p, dtype=np.int64), axis=1)
        self.r_cum = np.cumsum(np.array(t.residual, dtype=np.int64), axis=1)
        self.q_total = self.q_cum[:, -1]
        self.p_total = self.p_cum[:, -1]
        self.r_total = np.maximum(self.r_cum[:, -1], 1)  # states without a residual never reject
        self.num = np.array(t.acc_num, dtype=np.int64)
        self.den = np.array(t.acc_den, dtype=np.int64)


def simulate_numpy(t: StateTables, nt: NumpyTables, n: int, start: int, rng: np.random.Generator) -> np.ndarray:
    """n independent rounds from state start; returns an (n, depth+1) int array of tokens (-1 = none)."""
    depth = t.depth
    tokens = np.full((n, depth + 1), -1, dtype=np.int64)
    state = np.full(n, start, dtype=np.int64)
    live = np.arange(n)
    for k in range(depth):
        if live.size == 0:
            break
        s = state[live]
        x = _draw(rng, nt.q_cum, nt.q_total, s)
        ok = rng.integers(0, nt.den[s, x]) < nt.num[s, x]
        out = x.copy()
        rejected = np.flatnonzero(~ok)
        if rejected.size:
            out[rejected] = _draw(rng, nt.r_cum, nt.r_total, s[rejected])
        tokens[live, k] = out
        go_on = ok & ~t.stop[x]
        state[live] = np.where(ok, x, s)
        live = live[go_on]
    if live.size:
        tokens[live, depth] = _draw(rng, nt.p_cum, nt.p_total, state[live])
    return tokens


def simulate_python(t: StateTables, n: int, start: int, rng: random.Random) -> np.ndarray:
    """The same rounds with Python integers, one at a time (any ticket size)."""
    tokens = np.full((n, t.depth + 1), -1, dtype=np.int64)
    stop = t.stop.tolist()
    for i in range(n):
        state = start
        for k in range(t.depth):
            x = _python_draw(rng, t.q[state])
            if rng.randrange(t.acc_den[state][x]) < t.acc_num[state][x]:
                tokens[i, k] = x
                state = x
                if stop[x]:
                    break
            else:
                tokens[i, k] = _python_draw(rng, t.residual[state])
                break
        else:
            tokens[i, t.depth] = _python_draw(rng, t.p[state])
    return tokens


class MonteCarlo:
    """Independent exact rounds of a Scenario from a fixed prefix, in chunks (for progress bars).

    A scenario the core refuses on some round it can play is refused here, with the core's error,
    before any round runs.
    """

    def __init__(self, scenario: Scenario, prefix: Prefix = (), seed: int = 0, force_python: bool = False):
        self.scenario = scenario
        self.prefix = tuple(prefix)
        self.tables = build_tables(scenario, self.prefix)
        self.start = state_of(self.prefix, scenario.vocab_size)
        self.vectorized = self.tables.fits_int64 and not force_python
        self._numpy = NumpyTables(self.tables) if self.vectorized else None
        self._rng = np.random.default_rng(seed)
        self._py = random.Random(seed)
        self._block = None
        simulator = SIMULATIONS_BY_FAMILY[scenario.verification].simulator
        if simulator is not None:  # rounds of another shape (block verification: specviz.lab.block_montecarlo)
            self._block = simulator(scenario, self.prefix, seed, force_python)
            self.vectorized = self._block.vectorized

    @property
    def method(self) -> str:
        if self._block is not None:
            return self._block.method
        return "numpy int64 (vectorized)" if self.vectorized else "Python integers (one round at a time)"

    def tokens(self, n: int) -> np.ndarray:
        """Committed tokens of n fresh rounds, one row each (-1 pads short blocks)."""
        if self._block is not None:
            return self._block.tokens(n)
        if self._numpy is not None:
            return simulate_numpy(self.tables, self._numpy, n, self.start, self._rng)
        return simulate_python(self.tables, n, self.start, self._py)

    def run(self, n: int) -> Counts:
        began = time.perf_counter()
        tokens = self.tokens(n)
        v, depth = self.tables.vocab_size, self.tables.depth
        first = np.bincount(tokens[:, 0], minlength=v)
        length = np.bincount((tokens >= 0).sum(axis=1), minlength=depth + 2)
        codes, counts = np.unique(_encode(tokens, v + 1), return_counts=True)
        blocks = {_decode(int(c), v + 1, depth + 1): int(k) for c, k in zip(codes, counts, strict=True)}
        return Counts(v, depth, n, first, length, blocks, time.perf_counter() - began)

    def run_chunked(self, n: int, chunk: int = 100_000, on_chunk: Callable[[Counts], object] | None = None) -> Counts:
        """n rounds in chunks; on_chunk(total so far) after each; a True return stops early."""
        total = Counts(self.tables.vocab_size, self.tables.depth)
        done = 0
        while done < n:
            size = min(chunk, n - done)
            total = total.merge(self.run(size))
            done += size
            if on_chunk is not None and on_chunk(total) is True:
                break
        return total


def reference_counts(scenario: Scenario, n: int, prefix: Prefix = (), seed: int = 0) -> Counts:
    """The reference-style loop: n rounds through ``play_round``, one at a time (for the benchmark)."""
    began = time.perf_counter()
    v, depth = scenario.vocab_size, scenario.depth
    counts = Counts(v, depth)
    scenario = scenario.with_changes(seed=seed)
    verifier = scenario.verifier(tuple(prefix))
    for round_id in range(n):
        verifier.reset(tuple(prefix))
        tokens = play_round(scenario, verifier, round_id).result.tokens
        counts.first[tokens[0]] += 1
        counts.length[len(tokens)] += 1
        counts.blocks[tokens] = counts.blocks.get(tokens, 0) + 1
    counts.rounds = n
    counts.seconds = time.perf_counter() - began
    return counts


# ------------------------------------------------------------------------------------------------
# statistics
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fit:
    """Empirical frequencies against exact probabilities."""

    labels: list[str]
    counts: np.ndarray
    exact: list[Fraction]
    rounds: int
    total_variation: float
    chi2: float
    dof: int
    p_value: float
    impossible: int  # observations in bins of exact probability zero (an exactness violation)
    merged: tuple[str, ...] = ()  # bins below the float range, pooled with another bin for the chi-square
    note: str = ""

    @property
    def frequencies(self) -> np.ndarray:
        return self.counts / max(self.rounds, 1)

    def error_bars(self, z: float = 1.96) -> np.ndarray:
        """Binomial half-widths z * sqrt(p (1 - p) / N) around the exact probabilities."""
        probs = np.array([float(p) for p in self.exact])
        return z * np.sqrt(probs * (1 - probs) / max(self.rounds, 1))


FLOAT_MIN = Fraction(sys.float_info.min)  # the smallest normal float: below it a probability loses its digits


def _pool_tiny(counts: np.ndarray, exact: list[Fraction], positive: np.ndarray) -> tuple[
        list[int], list[Fraction], list[int]]:
    """Observed counts and exact probabilities of the positive bins, each bin below the float range pooled
    with the least probable regular bin (exactly, in Fractions); also the pooled bins' indices."""
    indices = [i for i in range(len(exact)) if positive[i]]
    tiny = [i for i in indices if exact[i] < FLOAT_MIN]
    regular = [i for i in indices if exact[i] >= FLOAT_MIN]
    host = min(regular, key=lambda i: exact[i])  # a distribution sums to 1: some bin is at least 1/len
    observed = [int(counts[i]) for i in regular]
    probs = [exact[i] for i in regular]
    at = regular.index(host)
    observed[at] += sum(int(counts[i]) for i in tiny)
    probs[at] += sum((exact[i] for i in tiny), Fraction(0))
    return observed, probs, tiny


def goodness_of_fit(counts: np.ndarray | list[int], exact: list[Fraction], labels: list[str] | None = None) -> Fit:
    """Total variation distance and Pearson's chi-square (scipy) of counts against exact probabilities.

    Bins of exact probability zero are left out of the chi-square; any count there is reported
    as ``impossible`` (and makes the statistic infinite with p-value 0). Bins whose exact
    probability is positive but below the float range (under 2.2e-308, where an expected count
    would be 0 in floats and the statistic NaN) are pooled with the least probable other bin,
    exactly, and named in ``merged`` and ``note``.
    """
    counts = np.asarray(counts, dtype=np.int64)
    labels = labels or [str(i) for i in range(len(exact))]
    n = int(counts.sum())
    probs = np.array([float(p) for p in exact])
    tv = 0.5 * float(np.abs(counts / max(n, 1) - probs).sum()) if n else float("nan")
    positive = np.array([p > 0 for p in exact])
    impossible = int(counts[~positive].sum())
    observed, pooled, tiny = _pool_tiny(counts, list(exact), positive) if positive.any() else ([], [], [])
    merged = tuple(labels[i] for i in tiny)
    note = (f"{len(tiny)} bin(s) ({', '.join(merged)}) have exact probability below the float range; the "
            "chi-square pools them with the least probable other bin" if tiny else "")
    dof = len(observed) - 1
    if impossible:
        chi2, p_value = float("inf"), 0.0
    elif n == 0 or dof < 1:
        chi2, p_value = 0.0, 1.0
    else:
        total = sum(pooled, Fraction(0))
        expected = np.array([float(p / total * n) for p in pooled])
        result = stats.chisquare(np.array(observed), expected)
        chi2, p_value = float(result.statistic), float(result.pvalue)
    return Fit(labels, counts, list(exact), n, tv, chi2, dof, p_value, impossible, merged, note)


@dataclass(frozen=True)
class ExactLaw:
    """The exact probabilities the Monte Carlo histograms are judged against."""

    first: list[Fraction]  # P(first committed token = x)
    length: list[Fraction]  # P(committed length = n), n = 0..depth+1
    blocks: dict[tuple[int, ...], Fraction] | None  # the whole block law, when small enough to enumerate


def exact_law(scenario: Scenario, prefix: Prefix = (), max_blocks: int = 50_000) -> ExactLaw:
    """First-token and length laws by a state recursion; the block law by enumeration when small."""
    v, depth = scenario.vocab_size, scenario.depth
    simulation = SIMULATIONS_BY_FAMILY[scenario.verification]  # a rule it does not simulate is refused first
    if v ** (depth + 1) <= max_blocks:
        blocks = theory.block_distribution(scenario, tuple(prefix))
        return ExactLaw(theory.first_token_marginal(blocks, v), theory.length_distribution(blocks, depth), blocks)
    return ExactLaw(*simulation.marginals(scenario, tuple(prefix)), None)


def _marginals(scenario: Scenario, prefix: Prefix) -> tuple[list[Fraction], list[Fraction]]:
    """P(first token), P(length) by recursion over (state, position): O(depth * V^2) exact steps."""
    t = build_tables(scenario, prefix)
    v, depth = t.vocab_size, t.depth

    def dist(tickets: list[int]) -> list[Fraction]:
        total = sum(tickets)
        return [Fraction(x, total) for x in tickets]

    memo: dict[tuple[int, int], list[Fraction]] = {}

    def remaining(state: int, k: int) -> list[Fraction]:
        """Law of the number of tokens still to commit when verification is at draft position k."""
        key = (state, k)
        if key in memo:
            return memo[key]
        out = [Fraction(0)] * (depth + 2)
        q = dist(t.q[state])
        reject = Fraction(0)
        for x in range(v):
            if not q[x]:
                continue
            a = Fraction(t.acc_num[state][x], t.acc_den[state][x])
            reject += q[x] * (1 - a)
            w = q[x] * a
            if not w:
                continue
            if t.stop[x]:
                out[1] += w
            elif k + 1 == depth:
                out[2] += w
            else:
                for n, pn in enumerate(remaining(x, k + 1)):
                    if pn:
                        out[n + 1] += w * pn
        out[1] += reject
        memo[key] = out
        return out

    start = state_of(prefix, v)
    q, r = dist(t.q[start]), t.residual[start]
    accept = [q[x] * Fraction(t.acc_num[start][x], t.acc_den[start][x]) for x in range(v)]
    reject = 1 - sum(accept, Fraction(0))
    first = [accept[x] + (reject * Fraction(r[x], sum(r)) if reject else 0) for x in range(v)]
    return first, remaining(start, 0)


@dataclass(frozen=True)
class Simulation:
    """How the exact Monte Carlo runs one family's rounds, and the exact laws that judge them."""

    simulator: Callable[..., BlockSimulator] | None  # None: this module's chain tables (tokenwise rounds)
    marginals: Callable[[Scenario, Prefix], tuple[list[Fraction], list[Fraction]]]  # P(first token), P(length)


SIMULATIONS_BY_FAMILY: FamilyTable[Simulation] = FamilyTable("lab.montecarlo.SIMULATIONS_BY_FAMILY", {
    "token": Simulation(None, _marginals),
    "block": Simulation(BlockSimulator, block_marginals),
}, scope="playable", otherwise=Unsupported("the exact Monte Carlo simulates tokenwise and block rounds; the "
                                          "Exactness lab's rules view samples this rule's first token by its own "
                                          "mechanism (specviz.lab.all_rules)"))


def checked_rules() -> tuple[str, ...]:
    """The fixed playable rules the Exactness lab checks both ways: enumerated by theory, simulated here."""
    return tuple(name for name in playable_names()
                 if theory.can_enumerate(name) and SIMULATIONS_BY_FAMILY.supports(name))
