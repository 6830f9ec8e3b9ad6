"""Many rounds at once: N independent exact rounds from the empty text, the first committed token counted.

The rounds run through the vectorized exact Monte Carlo (``specviz.lab.montecarlo``) on the
scenario's integer tables, optionally with one engine bug injected into those tables
(``specviz.lab.buggy_tables``). The distance shown is exact: the total variation between
the bug's exact first-token law and p, not an estimate from the samples.

A scenario with block verification runs the block Monte Carlo (``specviz.lab.block_montecarlo``)
and is judged by its exact first-token and length laws; the injected bugs are tokenwise engines,
so they are refused with block verification (``BlockBugError``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .. import theory
from ..core import SpecvizError
from ..core.verification import FamilyTable, Unsupported
from ..lab import buggy_tables as bt
from ..lab import montecarlo as mc
from ..scenario import Scenario

ROUND_CHOICES = (100, 1_000, 10_000, 100_000)
BUG_NAMES = {
    "none": "no bug (the exact verifier)",
    "greedy": "greedy acceptance",
    "residual_from_p": "residual from p",
    "unprocessed_q": "unprocessed q",
    "skip_bonus": "skipped bonus",
}


class ManyRoundsError(SpecvizError, ValueError):
    """A Many rounds request out of range (the bug's name, the number of rounds), named in words."""


class BlockBugError(ManyRoundsError):
    """An engine bug was asked for with block verification: the injected bugs are tokenwise engines."""


BLOCK_BUG_NOTE = ("The injected engine bugs are bugs of a tokenwise engine, so they are off with block "
                  "verification: the rounds run the exact block verifier. Switch to tokenwise to inject one.")


@dataclass(frozen=True)
class ManyRounds:
    """Counts of the first committed token over ``rounds`` rounds, with the exact laws they are judged by."""

    labels: tuple[str, ...]
    bug: str
    rounds: int
    counts: np.ndarray  # (V,) first committed token
    tokens: int  # committed tokens in all rounds
    p: tuple[Fraction, ...]  # the target's law of the first token (after its processors)
    law: tuple[Fraction, ...]  # the exact law of the first committed token with this bug
    exact_tokens_per_round: Fraction | None  # expected committed tokens per round with this bug (None: too big)
    method: str

    @property
    def distance(self) -> Fraction:
        """Exact TV(first committed token with this bug, p): 0 without a bug."""
        return sum((abs(a - b) for a, b in zip(self.law, self.p, strict=True)), Fraction(0)) / 2

    @property
    def measured_distance(self) -> float:
        freq = self.counts / max(self.rounds, 1)
        return 0.5 * float(np.abs(freq - np.array([float(x) for x in self.p])).sum())

    @property
    def tokens_per_round(self) -> float:
        return self.tokens / max(self.rounds, 1)

    def error_bars(self, z: float = 1.96) -> np.ndarray:
        """Binomial half-widths z·sqrt(p(1 − p)/N) around p: where an exact sampler's bars fall 95% of the time."""
        probs = np.array([float(x) for x in self.p])
        return z * np.sqrt(probs * (1 - probs) / max(self.rounds, 1))


def _tokens_per_round(scenario: Scenario, bug: str) -> Fraction:
    law = mc.exact_law(scenario, (), max_blocks=0).length  # the recursion over states, exact
    mean = sum((n * f for n, f in enumerate(law)), Fraction(0))
    if bug == "skip_bonus":
        return mean - law[scenario.depth + 1]  # a full block loses its bonus token
    return mean


def run(scenario: Scenario, rounds: int, bug: str = "none", seed: int = 0, chunks: int = 1,
        on_chunk: Callable[[ManyRounds], object] | None = None) -> ManyRounds:
    """``rounds`` exact rounds (in ``chunks`` parts, calling on_chunk with the result so far)."""
    if bug not in BUG_NAMES:
        raise ManyRoundsError(f"unknown bug {bug!r}; choose one of {sorted(BUG_NAMES)}")
    if type(rounds) is not int or rounds < 1:
        raise ManyRoundsError(f"rounds must be a positive int, got {rounds!r}")
    return RUNS_BY_FAMILY[scenario.verification](scenario, rounds, bug, seed, chunks, on_chunk)


def _run_chain(scenario: Scenario, rounds: int, bug: str, seed: int, chunks: int,
               on_chunk: Callable[[ManyRounds], object] | None) -> ManyRounds:
    """Tokenwise rounds through the vectorized exact Monte Carlo, with the bug injected into its tables."""
    tables = bt.tables_with_bug(scenario, bug)
    start = tables.start
    p_tickets = bt.tables_with_bug(scenario, "none").p[start]
    total = sum(p_tickets)
    p = tuple(Fraction(t, total) for t in p_tickets)
    law = tuple(bt.first_token_law(tables, start))
    if bug in ("none", "skip_bonus"):
        expected: Fraction | None = _tokens_per_round(scenario, bug)
    else:
        expected = _buggy_tokens_per_round(scenario, bug)
    vectorized = tables.fits_int64
    numpy_tables = mc.NumpyTables(tables) if vectorized else None
    rng, py_rng = np.random.default_rng(seed), random.Random(seed)
    counts = np.zeros(scenario.vocab_size, dtype=np.int64)
    committed, done = 0, 0
    result = None
    sizes = [rounds // chunks + (1 if i < rounds % chunks else 0) for i in range(max(chunks, 1))]
    for size in (s for s in sizes if s):
        if numpy_tables is not None:
            tokens = mc.simulate_numpy(tables, numpy_tables, size, start, rng)
        else:
            tokens = mc.simulate_python(tables, size, start, py_rng)
        if bug == "skip_bonus":
            tokens = bt.drop_bonus(tokens, tables.depth)
        counts += np.bincount(tokens[:, 0], minlength=scenario.vocab_size)
        committed += int((tokens >= 0).sum())
        done += size
        result = ManyRounds(tuple(scenario.vocab), bug, done, counts.copy(), committed, p, law, expected,
                            "numpy int64 (vectorized)" if vectorized else "Python integers")
        if on_chunk is not None:
            on_chunk(result)
    assert result is not None
    return result


def _run_block(scenario: Scenario, rounds: int, bug: str, seed: int, chunks: int,
               on_chunk: Callable[[ManyRounds], object] | None) -> ManyRounds:
    """Block verification rounds through the vectorized block Monte Carlo, judged by its exact laws."""
    if bug != "none":
        raise BlockBugError(f"bug {bug!r} is a tokenwise engine bug; block verification runs without one")
    from ..lab.block_montecarlo import BlockSimulator, block_marginals

    p_tickets = bt.tables_with_bug(scenario, "none")
    p_row = p_tickets.p[p_tickets.start]
    p = tuple(Fraction(t, sum(p_row)) for t in p_row)
    first, length = block_marginals(scenario)
    expected = sum((n * f for n, f in enumerate(length)), Fraction(0))
    simulator = BlockSimulator(scenario, (), seed)
    counts = np.zeros(scenario.vocab_size, dtype=np.int64)
    committed, done, result = 0, 0, None
    sizes = [rounds // chunks + (1 if i < rounds % chunks else 0) for i in range(max(chunks, 1))]
    for size in (s for s in sizes if s):
        tokens = simulator.tokens(size)
        counts += np.bincount(tokens[:, 0], minlength=scenario.vocab_size)
        committed += int((tokens >= 0).sum())
        done += size
        result = ManyRounds(tuple(scenario.vocab), "none", done, counts.copy(), committed, p, tuple(first), expected,
                            simulator.method)
        if on_chunk is not None:
            on_chunk(result)
    assert result is not None
    return result


# how Many rounds runs each playable family's rounds
RUNS_BY_FAMILY: FamilyTable[Callable[..., ManyRounds]] = FamilyTable("playground.many_rounds.RUNS_BY_FAMILY", {
    "token": _run_chain,
    "block": _run_block,
}, scope="playable", otherwise=Unsupported(
    "Many rounds simulates tokenwise and block verification only; the Exactness lab's rules view runs this rule's "
    "own mechanism against its exact law and p"))


def _buggy_tokens_per_round(scenario: Scenario, bug: str) -> Fraction | None:
    """Expected committed tokens per round under a bug that changes acceptance, from the exact engine law."""
    if scenario.vocab_size ** (scenario.depth + 1) > 50_000:
        return None  # too many blocks to enumerate: the page shows the measured value only
    from ..lab import float_verifier as fv

    blocks, _ = fv.engine_block_distribution(scenario, (), fv.EngineSettings(float32=False, bug=bug))
    return theory.mean_length(blocks)


def hint(bug: str, distance: Fraction, draft_topk: int | None) -> str:
    """Why a bug may leave the histogram on p (so that a zero distance is never a puzzle)."""
    if bug == "unprocessed_q" and draft_topk is None:
        return "Unprocessed q only matters after a draft top-k: set Draft top-k below the vocabulary size."
    if bug == "skip_bonus":
        return ("Skipping the bonus never changes the first token (nor the law of the text); it only commits "
                "fewer tokens per round.")
    if bug != "none" and distance == 0:
        return "On this scenario the bug happens not to change the first token's law."
    return ""


def bug_choice(block: bool, bug: str, kept: str | None) -> tuple[str, str | None]:
    """(the bug to run, the bug set aside): block sets a chosen bug aside; back to tokenwise it returns."""
    if block and bug != "none":
        return "none", bug
    if not block and kept is not None:
        return kept, None
    return bug, kept
