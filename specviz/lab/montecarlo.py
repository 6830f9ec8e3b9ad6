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
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from scipy import stats

from ..core import Categorical, acceptance, residual_with_mass
from ..scenario import Prefix, Scenario, play_round

_INT64_LIMIT = (1 << 63) - 1


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


def build_tables(scenario: Scenario) -> StateTables:
    """Exact tables for every Scenario state (its models read only the last token)."""
    v = scenario.vocab_size
    target, draft, processor = scenario.target_model(), scenario.draft_model(), scenario.processor()
    qs, ps, rs, nums, dens = [], [], [], [], []
    for state in range(v + 1):
        context: Prefix = (state,) if state < v else ()
        try:
            p = processor(context, target(context))
            q = draft(context)
        except ValueError:
            if state == v:
                raise
            # a state no round from this prefix can reach may be refused (e.g. all masked); it is
            # only ever used if that token is committed, which then has probability zero
            p = q = Categorical.dense([1] * v)
        qs.append(_tickets(q))
        ps.append(_tickets(p))
        num_row, den_row = [], []
        for x in range(v):
            if q.ticket(x):
                a = acceptance(p, q, x)
                num_row.append(a.numerator)
                den_row.append(a.denominator)
            else:
                num_row.append(0)
                den_row.append(1)
        nums.append(num_row)
        dens.append(den_row)
        has_residual = any(n < d for n, d, t in zip(num_row, den_row, qs[-1], strict=True) if t)
        rs.append(_tickets(residual_with_mass(p, q)[0]) if has_residual else [0] * v)
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


class _NumpyTables:
    def __init__(self, t: StateTables):
        self.q_cum = np.cumsum(np.array(t.q, dtype=np.int64), axis=1)
        self.p_cum = np.cumsum(np.array(t.p, dtype=np.int64), axis=1)
        self.r_cum = np.cumsum(np.array(t.residual, dtype=np.int64), axis=1)
        self.q_total = self.q_cum[:, -1]
        self.p_total = self.p_cum[:, -1]
        self.r_total = np.maximum(self.r_cum[:, -1], 1)  # states without a residual never reject
        self.num = np.array(t.acc_num, dtype=np.int64)
        self.den = np.array(t.acc_den, dtype=np.int64)


def _draw(rng: np.random.Generator, cum: np.ndarray, total: np.ndarray, states: np.ndarray) -> np.ndarray:
    """Exact categorical draws: u = integers(0, T_s), token = #{i : cum_s[i] <= u} (the ticket walk)."""
    u = rng.integers(0, total[states])
    return (cum[states] <= u[:, None]).sum(axis=1)


def simulate_numpy(t: StateTables, nt: _NumpyTables, n: int, start: int, rng: np.random.Generator) -> np.ndarray:
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


def _python_draw(rng: random.Random, tickets: list[int]) -> int:
    draw = rng.randrange(sum(tickets))
    for token, count in enumerate(tickets):
        if draw < count:
            return token
        draw -= count
    raise AssertionError("ticket walk exhausted")


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
    """Independent exact rounds of a Scenario from a fixed prefix, in chunks (for progress bars)."""

    def __init__(self, scenario: Scenario, prefix: Prefix = (), seed: int = 0, force_python: bool = False):
        self.scenario = scenario
        self.prefix = tuple(prefix)
        self.tables = build_tables(scenario)
        self.start = state_of(self.prefix, scenario.vocab_size)
        self.vectorized = self.tables.fits_int64 and not force_python
        self._numpy = _NumpyTables(self.tables) if self.vectorized else None
        self._rng = np.random.default_rng(seed)
        self._py = random.Random(seed)
        self._block = None
        if scenario.verification == "block":  # block verification rounds (specviz.lab.block_montecarlo)
            from .block_montecarlo import BlockSimulator

            self._block = BlockSimulator(scenario, self.prefix, seed, force_python)
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

    @property
    def frequencies(self) -> np.ndarray:
        return self.counts / max(self.rounds, 1)

    def error_bars(self, z: float = 1.96) -> np.ndarray:
        """Binomial half-widths z * sqrt(p (1 - p) / N) around the exact probabilities."""
        probs = np.array([float(p) for p in self.exact])
        return z * np.sqrt(probs * (1 - probs) / max(self.rounds, 1))


def goodness_of_fit(counts: np.ndarray | list[int], exact: list[Fraction], labels: list[str] | None = None) -> Fit:
    """Total variation distance and Pearson's chi-square (scipy) of counts against exact probabilities.

    Bins of exact probability zero are left out of the chi-square; any count there is reported
    as ``impossible`` (and makes the statistic infinite with p-value 0).
    """
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    probs = np.array([float(p) for p in exact])
    tv = 0.5 * float(np.abs(counts / max(n, 1) - probs).sum()) if n else float("nan")
    positive = np.array([p > 0 for p in exact])
    impossible = int(counts[~positive].sum())
    dof = int(positive.sum()) - 1
    if impossible:
        chi2, p_value = float("inf"), 0.0
    elif n == 0 or dof < 1:
        chi2, p_value = 0.0, 1.0
    else:
        expected = probs[positive] / probs[positive].sum() * n
        result = stats.chisquare(counts[positive], expected)
        chi2, p_value = float(result.statistic), float(result.pvalue)
    return Fit(labels or [str(i) for i in range(len(exact))], counts, list(exact), n, tv, chi2, dof,
               p_value, impossible)


@dataclass(frozen=True)
class ExactLaw:
    """The exact probabilities the Monte Carlo histograms are judged against."""

    first: list[Fraction]  # P(first committed token = x)
    length: list[Fraction]  # P(committed length = n), n = 0..depth+1
    blocks: dict[tuple[int, ...], Fraction] | None  # the whole block law, when small enough to enumerate


def exact_law(scenario: Scenario, prefix: Prefix = (), max_blocks: int = 50_000) -> ExactLaw:
    """First-token and length laws by a state recursion; the block law by enumeration when small."""
    from .. import theory

    v, depth = scenario.vocab_size, scenario.depth
    if v ** (depth + 1) <= max_blocks:
        blocks = theory.block_distribution(scenario, tuple(prefix))
        return ExactLaw(theory.first_token_marginal(blocks, v), theory.length_distribution(blocks, depth), blocks)
    if scenario.verification == "block":
        from .block_montecarlo import block_marginals

        return ExactLaw(*block_marginals(scenario, tuple(prefix)), None)
    return ExactLaw(*_marginals(scenario, tuple(prefix)), None)


def _marginals(scenario: Scenario, prefix: Prefix) -> tuple[list[Fraction], list[Fraction]]:
    """P(first token), P(length) by recursion over (state, position): O(depth * V^2) exact steps."""
    t = build_tables(scenario)
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
