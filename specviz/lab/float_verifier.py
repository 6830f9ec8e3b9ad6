"""A float verifier written the way engines write it, the known engine bugs, and their exact cost.

Engine-style verification holds float32 probabilities, draws ``u = torch.rand(())`` (a float32
on the grid k / 2^24, k uniform in 0..2^24-1), accepts when ``u < p/q`` (or ``u <= p/q``) and
resamples from ``relu(p - q) / relu(p - q).sum()`` in float32. Because u lives on a finite
grid, the probability that such a verifier accepts is an exact rational number, so the
*whole law* of what it commits can be enumerated exactly, like the exact verifier's
(``specviz.theory``), and its distance from the target's law is an exact Fraction.

Where it deviates, and why:

* ``u <= p/q`` with p(x) = 0: u = 0 passes, so a target-zero (masked) token is accepted with
  probability q(x) / 2^24.
* p close to q but not equal: rounded to float32 separately, p32 <= q32 at every token with
  p32 < q32 at some, so the verifier can reject there while relu(p32 - q32) is all zero, and
  0/0 gives a NaN residual (a crash, or token 0). p = q exactly cannot: equal probabilities
  round to equal float32 values, p/q = 1 and every draft is accepted.
* the bonus token: drawn from the float32 p, renormalized in float, not from the exact p.
* tiny residuals: p - q cancels in float32, normalization loses or invents mass.
* FP32 rounding of tiny weights: a probability below 2^-149 becomes 0 (never emitted), one below
  2^-126 a subnormal with few significant bits.

The injected engine bugs (``BUGS``) run in exact arithmetic unless float32 is also on, so
their distance is theirs alone.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .. import theory
from ..core import Categorical, Prefix, SpecvizError, acceptance, residual_mass, residual_with_mass
from ..scenario import Scenario

U_BITS = 24
U_GRID = 1 << U_BITS  # torch.rand float32: k / 2^24
CRASH = -1  # the "token" a NaN residual commits (the engine crashes or emits garbage)

class EngineSettingsError(SpecvizError, ValueError):
    """An engine-style verifier setting out of range (the comparison, the name of an injected bug), named in words."""


BUGS: dict[str, str] = {
    "none": "no injected bug",
    "unprocessed_q": "verify against the draft's unprocessed q (before its top-k) after a top-k draft",
    "greedy": "greedy acceptance: accept only the target's argmax; corrections and the bonus are argmax",
    "residual_from_p": "on rejection resample from p instead of the residual (p - q)+",
    "skip_bonus": "skip the bonus token after a fully accepted block",
}


@dataclass(frozen=True)
class EngineSettings:
    """How the engine-style verifier computes: float32 or exact, < or <=, and an injected bug."""

    float32: bool = True
    comparison: str = "<"  # "<" or "<="
    bug: str = "none"

    def __post_init__(self) -> None:
        if self.comparison not in ("<", "<="):
            raise EngineSettingsError(f"comparison must be '<' or '<=', got {self.comparison!r}")
        if self.bug not in BUGS:
            raise EngineSettingsError(f"unknown bug {self.bug!r}; choose one of {sorted(BUGS)}")


# ------------------------------------------------------------------------------------------------
# the engine code: float32 throughout, as a GPU kernel would write it
# ------------------------------------------------------------------------------------------------


def to_float32(c: Categorical) -> np.ndarray:
    """The probabilities an engine holds: each exact probability rounded to float32."""
    return np.array([float(Fraction(t, c.total)) for t in c.ticket_ints()], dtype=np.float64).astype(np.float32)


def ratio32(p32: np.ndarray, q32: np.ndarray, token: int) -> np.float32:
    """p/q in float32 (0/0 = NaN, x/0 = inf, as on a GPU)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.float32(p32[token]) / np.float32(q32[token])


def accepts(u: np.float32, ratio: np.float32, comparison: str) -> bool:
    return bool(u < ratio) if comparison == "<" else bool(u <= ratio)


def residual32(p32: np.ndarray, q32: np.ndarray) -> np.ndarray:
    """relu(p - q) / relu(p - q).sum() in float32; all NaN when the sum is 0 (0/0)."""
    diff = np.maximum(p32 - q32, np.float32(0))
    with np.errstate(divide="ignore", invalid="ignore"):
        return (diff / diff.sum(dtype=np.float32)).astype(np.float32)


def engine_verify(p32: list[np.ndarray], q32: list[np.ndarray], drafts: list[int], rng: np.random.Generator,
                  comparison: str = "<") -> list[int]:
    """One block verified the engine way (p32 has one row more than drafts, for the bonus)."""
    out: list[int] = []
    for k, x in enumerate(drafts):
        u = np.float32(rng.integers(0, U_GRID) / U_GRID)
        if accepts(u, ratio32(p32[k], q32[k], x), comparison):
            out.append(x)
            continue
        res = residual32(p32[k], q32[k])
        if np.isnan(res).any():
            out.append(CRASH)
        else:
            out.append(int(rng.choice(res.size, p=res.astype(np.float64) / res.sum(dtype=np.float64))))
        return out
    p = p32[len(drafts)].astype(np.float64)
    out.append(int(rng.choice(p.size, p=p / p.sum())))
    return out


def acceptance_probability32(ratio: np.float32, comparison: str) -> Fraction:
    """P(u passes) exactly, for u uniform on the float32 grid k / 2^24."""
    r = float(ratio)
    if math.isnan(r):
        return Fraction(0)  # every comparison with NaN is False
    if math.isinf(r):
        return Fraction(1)
    scaled = r * U_GRID  # exact: a float32 times a power of two
    count = math.ceil(scaled) if comparison == "<" else math.floor(scaled) + 1
    return Fraction(min(max(count, 0), U_GRID), U_GRID)


# ------------------------------------------------------------------------------------------------
# the exact law of the engine verifier
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Deviation:
    """One place where the engine's verifier differs from the exact one, and its probability weight."""

    position: int
    context: tuple[int, ...]
    token: int | None  # the drafted token (None: the residual or the bonus as a whole, see stage)
    reason: str
    exact: str
    engine: str
    weight: Fraction  # P(the round gets here) * (size of the difference)
    stage: str = "check"  # "check" (an acceptance), "residual" or "bonus"


@dataclass
class EngineNode:
    accept: list[tuple[int, Fraction, Fraction]]  # (token, q(token) of the draft, engine acceptance)
    reject: list[tuple[int, Fraction]]  # law of the token committed after a rejection (CRASH = NaN)
    bonus: list[tuple[int, Fraction]]  # law of the bonus token at this context
    deviations: list[tuple[int | None, str, str, str, Fraction]] = field(default_factory=list)
    bonus_gap: Fraction = Fraction(0)  # TV(engine bonus law, exact p) at this context
    bonus_reason: str = ""


def _law(weights: np.ndarray | list) -> list[tuple[int, Fraction]]:
    values = [Fraction(float(w)) for w in weights]
    total = sum(values, Fraction(0))
    return [(i, v / total) for i, v in enumerate(values) if v]


def _argmax(c: Categorical) -> int:
    return c.top(1)[0][0]


def _reason_for_acceptance(p: Fraction, q: Fraction, p32: float, q32: float, comparison: str) -> str:
    if p == 0 and comparison == "<=":
        return "target-zero token accepted: u = 0 passes u <= p/q = 0"
    if p > 0 and p32 == 0:
        return "FP32 underflow: a tiny target probability became 0"
    if q > 0 and q32 == 0:
        return "FP32 underflow: a tiny draft probability became 0 (p/0 = inf)"
    if 0 < p32 < 2.0**-126 or 0 < q32 < 2.0**-126:
        return "FP32 subnormal: a tiny probability kept only a few bits"
    return "float32 rounding of p/q and the 2^-24 grid of u"


class EngineLaw:
    """Nodes of the engine verifier per context, cached by the Scenario state."""

    def __init__(self, scenario: Scenario, settings: EngineSettings):
        self.scenario = scenario
        self.settings = settings
        self.target = scenario.target_model()
        self.draft = scenario.draft_model()
        self.processor = scenario.processor()
        self.nodes: dict[Hashable, EngineNode] = {}

    def _full_q(self, context: Prefix) -> Categorical:
        s = self.scenario
        return s.with_changes(draft_topk=None).draft_model()(context)

    def node(self, context: Prefix) -> EngineNode:
        key = theory.scenario_state(context)
        if key in self.nodes:
            return self.nodes[key]
        s = self.settings
        p = self.processor(context, self.target(context))
        q = self.draft(context)  # what the draft samples from
        q_ver = self._full_q(context) if s.bug == "unprocessed_q" else q
        p32, q32 = to_float32(p), to_float32(q_ver)
        deviations = []
        accept = []
        for x, qx in theory.support(q):
            exact_a = acceptance(p, q, x)
            if s.bug == "greedy":
                a = Fraction(int(x == _argmax(p)))
            elif s.float32:
                a = acceptance_probability32(ratio32(p32, q32, x), s.comparison)
            else:
                px, qv = p.prob(x), q_ver.prob(x)
                a = min(Fraction(1), px / qv) if qv else Fraction(1 if px else 0)
            accept.append((x, qx, a))
            if a != exact_a:
                reason = (BUGS[s.bug] if s.bug != "none" else
                          _reason_for_acceptance(p.prob(x), q.prob(x), float(p32[x]), float(q32[x]), s.comparison))
                deviations.append((x, reason, str(exact_a), str(a), qx * abs(a - exact_a)))
        # the token committed after a rejection
        exact_mass = residual_mass(p, q)
        exact_res = theory.support(residual_with_mass(p, q)[0]) if exact_mass else []
        if s.bug == "greedy":
            reject = [(_argmax(p), Fraction(1))]
        elif s.bug == "residual_from_p":
            reject = _law(p32) if s.float32 else theory.support(p)
        elif s.float32:
            res = residual32(p32, q32)
            reject = [(CRASH, Fraction(1))] if np.isnan(res).any() or not res.any() else _law(res)
        else:
            mass = residual_mass(p, q_ver)
            reject = theory.support(residual_with_mass(p, q_ver)[0]) if mass else [(CRASH, Fraction(1))]
        engine_reject_mass = sum((qx * (1 - a) for _, qx, a in accept), Fraction(0))
        if engine_reject_mass and dict(reject) != dict(exact_res):
            if reject == [(CRASH, Fraction(1))]:
                reason = "0/0: relu(p - q) sums to 0 in float32, the residual is NaN"
            elif s.bug != "none":
                reason = BUGS[s.bug]
            else:
                reason = "float32 residual: p - q cancels or rounds, normalization moves mass"
            gap = theory.total_variation(dict(reject), dict(exact_res)) if exact_res else Fraction(1)
            deviations.append((None, reason, "(p - q)+ normalized", "engine residual", engine_reject_mass * gap))
        # the bonus token
        if s.bug == "greedy":
            bonus = [(_argmax(p), Fraction(1))]
        elif s.float32:
            bonus = _law(p32)
        else:
            bonus = theory.support(p)
        bonus_gap = theory.total_variation(dict(bonus), dict(theory.support(p)))
        bonus_reason = BUGS[s.bug] if s.bug != "none" else "float32 bonus: p rounded to float32 and renormalized"
        node = EngineNode(accept, reject, bonus, deviations, bonus_gap, bonus_reason)
        self.nodes[key] = node
        return node


@dataclass
class EngineComparison:
    """The engine verifier's exact law beside the exact verifier's and the target's."""

    settings: EngineSettings
    engine_blocks: dict[tuple[int, ...], Fraction]
    exact_blocks: dict[tuple[int, ...], Fraction]
    tv_blocks: Fraction  # TV(engine blocks, exact verifier blocks)
    tv_sequences: Fraction  # TV(engine blocks completed by the target, target law); exact verifier: 0
    tv_first: Fraction  # TV(engine first committed token, p)
    crash: Fraction  # P(a NaN residual is used)
    engine_tokens: Fraction  # expected committed tokens per round (engine)
    exact_tokens: Fraction
    deviations: list[Deviation]


def engine_block_distribution(scenario: Scenario, prefix: Prefix = (),
                              settings: EngineSettings = EngineSettings()) -> tuple[dict, list[Deviation]]:
    """Exact law of the tokens the engine verifier commits in one round, and where it deviates."""
    law = EngineLaw(scenario, settings)
    depth, stops = scenario.depth, frozenset(scenario.stop_ids)
    out: dict[tuple[int, ...], Fraction] = {}
    deviations: list[Deviation] = []

    def walk(context: Prefix, tokens: tuple[int, ...], weight: Fraction, k: int) -> None:
        node = law.node(context)
        for token, reason, exact, engine, size in node.deviations:
            if weight * size:
                stage = "check" if token is not None else "residual"
                deviations.append(Deviation(k, tokens, token, reason, exact, engine, weight * size, stage))
        reject = Fraction(0)
        for x, qx, a in node.accept:
            reject += weight * qx * (1 - a)
            w = weight * qx * a
            if not w:
                continue
            committed = tokens + (x,)
            if x in stops:
                theory.add_mass(out, committed, w)
            elif k + 1 == depth:
                if settings.bug == "skip_bonus":
                    theory.add_mass(out, committed, w)
                    deviations.append(Deviation(k + 1, committed, None, BUGS["skip_bonus"], "a bonus token from p",
                                                "no bonus token", w, "bonus"))
                else:
                    after = law.node(context + (x,))
                    for y, py in after.bonus:
                        theory.add_mass(out, committed + (y,), w * py)
                    if after.bonus_gap:
                        deviations.append(Deviation(k + 1, committed, None, after.bonus_reason, "bonus from p",
                                                    "engine bonus", w * after.bonus_gap, "bonus"))
            else:
                walk(context + (x,), committed, w, k + 1)
        if reject:
            for y, ry in node.reject:
                theory.add_mass(out, tokens + (y,), reject * ry)

    walk(tuple(prefix), (), Fraction(1), 0)
    return out, deviations


def compare(scenario: Scenario, prefix: Prefix = (), settings: EngineSettings = EngineSettings()) -> EngineComparison:
    """The engine verifier against the exact one, as exact distances."""
    prefix = tuple(prefix)
    engine, deviations = engine_block_distribution(scenario, prefix, settings)
    exact = theory.block_distribution(scenario, prefix)
    target = theory.target_distribution(scenario, prefix)
    completed = theory.complete_with_target(scenario, engine, prefix)
    p = scenario.processor()(prefix, scenario.target_model()(prefix))
    first = {x: pr for x, pr in enumerate(theory.first_token_marginal(engine, scenario.vocab_size)) if pr}
    crash = sum((pr for tokens, pr in engine.items() if CRASH in tokens), Fraction(0))
    if crash:
        first[CRASH] = crash
    return EngineComparison(
        settings, engine, exact, theory.total_variation(engine, exact), theory.total_variation(completed, target),
        theory.total_variation(first, dict(theory.support(p))), crash, theory.mean_length(engine),
        theory.mean_length(exact), sorted(deviations, key=lambda d: -d.weight))


def compare_all(scenario: Scenario, prefix: Prefix = (), comparison: str = "<") -> dict[str, EngineComparison]:
    """Float32 verifier (no bug) and each injected bug in exact arithmetic, keyed by bug name."""
    out = {"float32": compare(scenario, prefix, EngineSettings(True, comparison, "none"))}
    for bug in BUGS:
        if bug != "none":
            out[bug] = compare(scenario, prefix, EngineSettings(False, comparison, bug))
    return out
