"""Vectorized exact Monte Carlo of block verification rounds (Sun et al. 2025), and its exact marginals.

Block verification's decision depends on the running weight w_i = min(1, w_{i-1} p(x_i)/q(x_i)),
so a round is a walk over nodes (k drafts so far, the Scenario state, w_k). The reachable nodes
are few (weights are products of the scenario's ratios, clipped at 1), so they are tabulated once
in exact integers: the draft's tickets at each node, for each drafted token the child node and
the child's stop probability h = num/den, and the node's normalized scaled residual
(w p - q)+ as tickets. Every draw is then an integer ticket draw, vectorized over rounds: the
draft token, one ``integers(0, den) < num`` per draft position (the core's order), and the last
token from the residual of the kept node or the bonus from p. No float decides anything; where a
total or denominator exceeds 63 bits, rounds run one at a time in Python integers.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..core import Categorical, scaled_residual_mass, scaled_residual_with_mass
from ..core.block_verifier import next_weight, stop_probability
from ..scenario import Prefix, Scenario
from .draws import INT64_LIMIT as _INT64_LIMIT
from .draws import cumulative as _cumulative
from .draws import numpy_draw as _draw
from .draws import python_draw as _python_draw


@dataclass
class BlockTables:
    """Exact integer tables over the reachable nodes (k, state, w); node 0 is the round's start."""

    vocab_size: int
    depth: int
    stop: list[bool]  # (V,)
    states: list[int]  # node -> scenario state (the last token, or V for the empty prefix)
    draft: list[list[int]]  # node -> q tickets (V,)
    child: list[list[int]]  # node -> child node per drafted token (-1 where q = 0)
    h_num: list[list[int]]  # node -> numerator of the child's stop probability per drafted token
    h_den: list[list[int]]  # node -> its denominator (1 where q = 0)
    residual: list[list[int]]  # node -> tickets of the normalized (w p - q)+ (all zero when empty)
    target: list[list[int]]  # scenario state -> p tickets (for the bonus)

    @property
    def fits_int64(self) -> bool:
        rows = (*self.draft, *self.residual, *self.target)
        totals = [sum(row) for row in rows] + [d for row in self.h_den for d in row]
        return max(totals) <= _INT64_LIMIT


def _state(context: Prefix, vocab_size: int) -> int:
    return context[-1] if context else vocab_size


def build_block_tables(scenario: Scenario, prefix: Prefix = ()) -> BlockTables:
    """Tabulate every node a block verification round from prefix can reach."""
    v, depth = scenario.vocab_size, scenario.depth
    target, draft, processor = scenario.target_model(), scenario.draft_model(), scenario.processor()
    stops = frozenset(scenario.stop_ids)
    models: dict[int, tuple[Categorical, Categorical]] = {}

    def at(context: Prefix) -> tuple[Categorical, Categorical]:
        key = _state(context, v)
        if key not in models:
            models[key] = (processor(context, target(context)), draft(context))
        return models[key]

    tables = BlockTables(v, depth, [x in stops for x in range(v)], [], [], [], [], [], [], [])
    index: dict[tuple[int, Hashable, Fraction], int] = {}
    contexts: list[tuple[int, Prefix, Fraction]] = []

    def node(k: int, context: Prefix, w: Fraction) -> int:
        key = (k, _state(context, v), w)
        if key not in index:
            index[key] = len(contexts)
            contexts.append((k, context, w))
        return index[key]

    node(0, tuple(prefix), Fraction(1))
    done = 0
    while done < len(contexts):  # breadth first: children are appended as they are found
        k, context, w = contexts[done]
        done += 1
        terminal = k == depth or (k > 0 and context[-1] in stops)
        p, q = at(context) if not terminal or k < depth else (None, None)
        tables.states.append(_state(context, v))
        children, nums, dens = [-1] * v, [0] * v, [1] * v
        if not terminal:
            for x, qx in enumerate(q.ticket_ints()):
                if not qx:
                    continue
                w2 = next_weight(w, p.prob(x), q.prob(x))
                child = context[-1:] + (x,) if context else (x,)
                if x in stops or k + 1 == depth:
                    h = w2
                else:
                    p2, q2 = at(child)
                    h = stop_probability(scaled_residual_mass(p2, q2, w2), w2)
                children[x] = node(k + 1, child, w2)
                nums[x], dens[x] = h.numerator, h.denominator
        tables.draft.append(q.ticket_ints() if not terminal else [0] * v)
        tables.child.append(children)
        tables.h_num.append(nums)
        tables.h_den.append(dens)
        residual = scaled_residual_with_mass(p, q, w)[0] if p is not None and w else None
        tables.residual.append(residual.ticket_ints() if residual is not None else [0] * v)
    for state in range(v + 1):
        context = (state,) if state < v else ()
        try:
            tables.target.append(at(context)[0].ticket_ints())
        except ValueError:
            # a state no round reaches may be refused (e.g. all masked): a bonus never draws from it
            tables.target.append([0] * v)
    return tables


class _NumpyBlockTables:
    def __init__(self, t: BlockTables):
        self.q_cum, self.q_total = _cumulative(t.draft)
        self.r_cum, self.r_total = _cumulative(t.residual)
        self.p_cum, self.p_total = _cumulative(t.target)
        self.child = np.array(t.child, dtype=np.int64)
        self.num = np.array(t.h_num, dtype=np.int64)
        self.den = np.array(t.h_den, dtype=np.int64)
        self.states = np.array(t.states, dtype=np.int64)
        self.stop = np.array(t.stop, dtype=bool)


def simulate_block_numpy(t: BlockTables, nt: _NumpyBlockTables, n: int, rng: np.random.Generator) -> np.ndarray:
    """n independent block verification rounds; an (n, depth+1) int array of committed tokens (-1 = none)."""
    depth = t.depth
    drafts = np.full((n, depth), -1, dtype=np.int64)
    nodes = np.zeros((n, depth + 1), dtype=np.int64)  # nodes[r, i]: the node after i drafts
    hits = np.zeros((n, depth), dtype=bool)
    length = np.zeros(n, dtype=np.int64)  # g of each round's block
    live = np.arange(n)
    for k in range(depth):
        if live.size == 0:
            break
        at = nodes[live, k]
        x = _draw(rng, nt.q_cum, nt.q_total, at)
        drafts[live, k] = x
        nodes[live, k + 1] = nt.child[at, x]
        hits[live, k] = rng.integers(0, nt.den[at, x]) < nt.num[at, x]
        length[live] = k + 1
        live = live[~nt.stop[x]]
    # tau: the last hit position (1-based), 0 when none
    positions = np.arange(1, depth + 1)
    tau = np.where(hits, positions, 0).max(axis=1)
    tokens = np.full((n, depth + 1), -1, dtype=np.int64)
    keep = np.arange(depth)[None, :] < tau[:, None]
    tokens[:, :depth] = np.where(keep, drafts, -1)
    rows = np.arange(n)
    last = drafts[rows, np.maximum(length - 1, 0)]
    full = tau == length
    correction = np.flatnonzero(~full)
    if correction.size:
        tokens[correction, tau[correction]] = _draw(rng, nt.r_cum, nt.r_total, nodes[correction, tau[correction]])
    bonus = np.flatnonzero(full & ~nt.stop[last])
    if bonus.size:
        states = nt.states[nodes[bonus, tau[bonus]]]
        tokens[bonus, tau[bonus]] = _draw(rng, nt.p_cum, nt.p_total, states)
    return tokens


def simulate_block_python(t: BlockTables, n: int, rng: random.Random) -> np.ndarray:
    """The same rounds with Python integers, one at a time (any ticket size)."""
    tokens = np.full((n, t.depth + 1), -1, dtype=np.int64)
    for r in range(n):
        node, path, drafts, tau = 0, [0], [], 0
        for k in range(t.depth):
            x = _python_draw(rng, t.draft[node])
            if rng.randrange(t.h_den[node][x]) < t.h_num[node][x]:
                tau = k + 1
            node = t.child[node][x]
            path.append(node)
            drafts.append(x)
            if t.stop[x]:
                break
        committed = drafts[:tau]
        if tau < len(drafts):
            committed.append(_python_draw(rng, t.residual[path[tau]]))
        elif not t.stop[drafts[-1]]:
            committed.append(_python_draw(rng, t.target[t.states[path[tau]]]))
        tokens[r, : len(committed)] = committed
    return tokens


class BlockSimulator:
    """Independent exact block verification rounds of a Scenario from a fixed prefix."""

    def __init__(self, scenario: Scenario, prefix: Prefix = (), seed: int = 0, force_python: bool = False):
        self.tables = build_block_tables(scenario, tuple(prefix))
        self.vectorized = self.tables.fits_int64 and not force_python
        self._numpy = _NumpyBlockTables(self.tables) if self.vectorized else None
        self._rng = np.random.default_rng(seed)
        self._py = random.Random(seed)

    @property
    def method(self) -> str:
        kind = "numpy int64 (vectorized)" if self.vectorized else "Python integers (one round at a time)"
        return f"block verification, {kind}, {len(self.tables.states)} weight nodes"

    def tokens(self, n: int) -> np.ndarray:
        if self._numpy is not None:
            return simulate_block_numpy(self.tables, self._numpy, n, self._rng)
        return simulate_block_python(self.tables, n, self._py)


def block_marginals(scenario: Scenario, prefix: Prefix = ()) -> tuple[list[Fraction], list[Fraction]]:
    """Exact P(first committed token = x) and P(committed length = n), n = 0..depth+1, by a recursion
    over the weight nodes (each node's future depends only on the node)."""
    t = build_block_tables(scenario, tuple(prefix))
    depth = t.depth
    memo: dict[int, tuple[Fraction, list[Fraction], list[Fraction]]] = {}

    def dist(tickets: list[int]) -> list[Fraction]:
        total = sum(tickets)
        return [Fraction(c, total) if total else Fraction(0) for c in tickets]

    def future(node: int, k: int) -> tuple[Fraction, list[Fraction], list[Fraction]]:
        """(P(no draw after k hits), P(the last hit is at m), P(... and the block ends there on a stop))."""
        if node not in memo:
            none, last, stop_end = Fraction(0), [Fraction(0)] * (depth + 1), [Fraction(0)] * (depth + 1)
            for x, qx in enumerate(dist(t.draft[node])):
                if not qx:
                    continue
                h = Fraction(t.h_num[node][x], t.h_den[node][x])
                if t.stop[x] or k + 1 == depth:
                    none += qx * (1 - h)
                    last[k + 1] += qx * h
                    stop_end[k + 1] += qx * h if t.stop[x] else 0
                    continue
                c_none, c_last, c_stop = future(t.child[node][x], k + 1)
                none += qx * (1 - h) * c_none
                last[k + 1] += qx * h * c_none
                for m in range(k + 2, depth + 1):
                    last[m] += qx * c_last[m]
                    stop_end[m] += qx * c_stop[m]
            memo[node] = (none, last, stop_end)
        return memo[node]

    none, last, stop_end = future(0, 0)
    lengths = [Fraction(0)] * (depth + 2)
    lengths[1] += none  # tau = 0: one token from the residual
    for m in range(1, depth + 1):
        lengths[m + 1] += last[m] - stop_end[m]
        lengths[m] += stop_end[m]
    first = [none * r for r in dist(t.residual[0])]
    for x, qx in enumerate(dist(t.draft[0])):
        if qx:
            h = Fraction(t.h_num[0][x], t.h_den[0][x])
            terminal = t.stop[x] or depth == 1
            first[x] += qx * (1 - (1 - h) * (1 if terminal else future(t.child[0][x], 1)[0]))
    return first, lengths
