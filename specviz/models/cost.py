"""The cost model: what a target pass over k new tokens and one draft step cost on this device, and
the speedup they predict.

Measuring needs torch (`measure_costs`); everything that predicts or explains is a pure function of a
`CostModel` and measured acceptance, so the tests feed it made-up timings. A calibration is only as
good as the moment it was measured in: `check_calibration` compares it with the passes a run actually
timed, and the stored calibrations (``costs.json``) carry their age and format, so a stale one is
measured again.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from specviz.models.folders import cache_dir  # noqa: F401 - where measured cost models are kept (costs.json)
from specviz.models.model_errors import ModelSettingError
from specviz.theory import expected_tokens

AGREEMENT = 0.25  # predicted and measured speedups "agree" within this relative difference
CALIBRATION_TOLERANCE = 0.3  # a run's passes within 30% of the calibration's: the calibration holds
COSTS_FORMAT = 2  # stored calibrations of another format are measured again
MAX_AGE_S = 7 * 24 * 3600.0  # a stored calibration older than a week is measured again
WIDE_GRID = (8, 16, 32, 64, 128)  # pass widths measured for trees (a model draft's tree has at most 120 nodes)


@dataclass(frozen=True)
class CostModel:
    """Seconds of one target pass over k = 1, 2, ... new tokens, and of one draft step per draft label."""

    model: str
    device: str
    target_pass_s: tuple[float, ...]
    draft_step_s: dict[str, float] = field(default_factory=dict)
    wide_pass_s: tuple[tuple[int, float], ...] = ()  # (k, seconds) for passes wider than target_pass_s (trees)
    measured_at: float = 0.0  # time.time() of the measurement (0: unknown)

    def __post_init__(self) -> None:
        if not self.target_pass_s or any(not t > 0 for t in self.target_pass_s):
            raise ModelSettingError(f"target pass times must be positive seconds, got {self.target_pass_s}")
        if any(t < 0 for t in self.draft_step_s.values()):
            raise ModelSettingError(f"draft step times must be >= 0 seconds, got {self.draft_step_s}")
        if any(k <= len(self.target_pass_s) or not t > 0 for k, t in self.wide_pass_s):
            raise ModelSettingError(f"wide passes must be wider than {len(self.target_pass_s)} tokens and take "
                                    f"positive seconds, got {self.wide_pass_s}")

    def pass_s(self, new_tokens: int) -> float:
        """One target pass over new_tokens tokens: measured, interpolated between the wide measurements, or
        the widest measured pass where asked for more."""
        if new_tokens < 1:
            raise ModelSettingError(f"a target pass covers at least one token, got {new_tokens}")
        dense = len(self.target_pass_s)
        if new_tokens <= dense:
            return self.target_pass_s[new_tokens - 1]
        points = [(dense, self.target_pass_s[-1]), *sorted(self.wide_pass_s)]
        for (k0, t0), (k1, t1) in zip(points, points[1:]):
            if new_tokens <= k1:
                return t0 + (t1 - t0) * (new_tokens - k0) / (k1 - k0)
        return points[-1][1]

    def pass_ratio(self, new_tokens: int) -> float:
        """A pass over new_tokens tokens in units of a single-token pass (1 = flat, as the formula assumes)."""
        return self.pass_s(new_tokens) / self.pass_s(1)

    def draft_ratio(self, draft: str) -> float:
        """One draft step in units of a single-token target pass: the formula's cost ratio c."""
        return self.draft_step_s[draft] / self.pass_s(1)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CostModel:
        return cls(str(data["model"]), str(data["device"]), tuple(float(t) for t in data["target_pass_s"]),
                   {str(k): float(v) for k, v in data.get("draft_step_s", {}).items()},
                   tuple((int(k), float(t)) for k, t in data.get("wide_pass_s", ())),
                   float(data.get("measured_at", 0.0)))


def round_seconds(cost: CostModel, draft: str, depth: int, *, shared_target: bool = False,
                  nodes: int | None = None) -> float:
    """Predicted time of one round: the draft's depth levels and one verification pass over nodes + 1 tokens.

    depth 0 is a plain target sample (one single-token pass). A chain has nodes = depth, one draft step
    per level. A tree's level of n nodes is one draft pass, costed like the target's pass over n tokens
    (in single passes) times a draft step; its levels hold nodes / depth nodes on average. A draft that
    *is* the target (q = p, or the target re-processed) already paid for every node above the leaves,
    so its check covers the last level and the bonus position.
    """
    if depth == 0:
        return cost.pass_s(1)
    nodes = depth if nodes is None else nodes
    level = max(1, round(nodes / depth))
    drafting = depth * cost.draft_step_s[draft] * (cost.pass_ratio(level) if nodes > depth else 1.0)
    checked = (level if nodes > depth else 0) + 1 if shared_target else nodes + 1
    return drafting + cost.pass_s(checked)


def round_tokens(acceptance: float, depth: int) -> float:
    """Expected committed tokens of a round at this depth, if every draft is accepted with this chance."""
    return 1.0 if depth == 0 else float(expected_tokens(min(max(acceptance, 0.0), 1.0), depth))


@dataclass(frozen=True)
class Prediction:
    """Predicted speedup over plain sampling from the cost model and the measured acceptance."""

    speedup: float
    tokens_per_round: float  # per drafting round (rounds that drafted), as the page's chart shows it
    seconds_per_round: float  # per drafting round
    acceptance: float
    depths: tuple[int, ...]
    shared_target: bool = False
    drafting_rounds: int = 0
    nodes: tuple[int, ...] = ()  # each round's drafted nodes (a tree's; empty: chains, nodes = depth)


def predict(cost: CostModel, draft: str, depths: Sequence[int], acceptance: float, *,
            shared_target: bool = False, expected: Sequence[float | None] | None = None,
            nodes: Sequence[int] | None = None) -> Prediction:
    """The speedup these rounds should give: expected tokens per second against one token per single pass.

    expected, where given, is each round's own expected token count (stats.round_expected_tokens: block
    verification's exact E[kept] + 1, tokenwise's formula at the mean alpha, or a tree round's measured
    tokens); None entries (and no list) use tokenwise's formula at acceptance. nodes, where given, is each
    round's drafted nodes (a tree's; a chain's equal its depth).
    """
    if not depths:
        raise ModelSettingError("a prediction needs at least one round")
    own = list(expected) if expected is not None else [None] * len(depths)
    sizes = list(nodes) if nodes is not None else list(depths)
    per_round = [1.0 if d == 0 else round_tokens(acceptance, d) if e is None else e for d, e in zip(depths, own)]
    times = [round_seconds(cost, draft, d, shared_target=shared_target, nodes=n) for d, n in zip(depths, sizes)]
    drafting = [i for i, d in enumerate(depths) if d]
    chosen = drafting or list(range(len(depths)))
    return Prediction(speedup=sum(per_round) * cost.pass_s(1) / sum(times),
                      tokens_per_round=sum(per_round[i] for i in chosen) / len(chosen),
                      seconds_per_round=sum(times[i] for i in chosen) / len(chosen), acceptance=acceptance,
                      depths=tuple(depths), shared_target=shared_target, drafting_rounds=len(drafting),
                      nodes=tuple(sizes) if nodes is not None else ())


def agrees(predicted: float, measured: float, tolerance: float = AGREEMENT) -> bool:
    """True when the prediction is within tolerance of the measured speedup (relative to the measurement)."""
    return measured > 0 and abs(predicted - measured) <= tolerance * measured


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%" if x >= 0.01 else f"{100 * x:.1f}%"


def verdict_of(spread: tuple[float, float]) -> str:
    """"wins" or "loses" only when every race fell on one side of 1.00x; otherwise no measurable difference."""
    low, high = round(spread[0], 2), round(spread[1], 2)  # as shown: a spread read "to 1.00x" is not a loss
    return "wins" if low > 1.0 else "loses" if high < 1.0 else "shows no measurable difference"


def _measured_text(measured: float, spread: tuple[float, float] | None, races: int) -> str:
    if spread is None:
        return f"{measured:.2f}x"
    return f"median {measured:.2f}x over {races} interleaved races, spread {spread[0]:.2f}x to {spread[1]:.2f}x"


def _acceptance_text(prediction: Prediction, counts: tuple[int, int] | None, verb: str) -> str:
    """The acceptance rate with its denominator when the counts are known."""
    if counts is None:
        return f"is {verb} {_pct(prediction.acceptance)} of the time"
    kept, checked = counts
    return f"had {kept} of {checked} checked drafts {verb} ({_pct(kept / checked) if checked else '-'})"


def explain_speedup(cost: CostModel, draft: str, prediction: Prediction, measured: float, *, plain_rounds: int = 0,
                    device_kind: str = "cpu", spread: tuple[float, float] | None = None, races: int = 1,
                    counts: tuple[int, int] | None = None, verb: str = "accepted",
                    verify_share: float | None = None, basis: str = "",
                    calibration: Calibration | None = None) -> str:
    """Why speculative decoding wins or loses here, in a few sentences with the measured numbers.

    With the spread of repeated races the verdict is a win or a loss only when the spread excludes 1.00x;
    counts (kept, checked) name the acceptance rate's denominator; verb is the rule's ("accepted", "kept");
    verify_share is the measured share of the run spent in exact verification (not in the cost model);
    basis names where the expected tokens per drafting round come from; calibration, the check of the
    cost model against this run's own passes, says when the prediction cannot be trusted.
    """
    where = "this GPU" if device_kind in ("cuda", "mps") else "this CPU"
    drafted = [d for d in prediction.depths if d]
    depth = round(statistics.mean(drafted)) if drafted else 1
    sizes = [n for n, d in zip(prediction.nodes, prediction.depths) if d] or [depth]
    width = round(statistics.mean(sizes)) + 1  # the drafted nodes and the last committed token
    check = cost.pass_ratio(width)
    ratio = cost.draft_ratio(draft) if draft in cost.draft_step_s else 0.0
    verdict = verdict_of(spread) if spread is not None else \
        "wins" if measured >= 1.05 else "loses" if measured <= 0.95 else "breaks even"
    tree = "" if width == depth + 1 else f" (a tree of {width - 1} nodes)"
    cost_text = (f"a {width}-token check{tree} costs {check:.2f} single passes on {where}"
                 if not prediction.shared_target
                 else "the draft is the target itself, so every draft step is a full target pass and the check "
                      "only adds the bonus position")
    lines = [
        f"Speculative decoding {verdict} here ({_measured_text(measured, spread, races)}): the {draft} draft costs "
        f"{ratio:.2f} of a target pass per token and {_acceptance_text(prediction, counts, verb)}; {cost_text}.",
        f"So a drafting round commits {prediction.tokens_per_round:.2f} tokens in expectation"
        f"{f' ({basis}, over {prediction.drafting_rounds} drafting rounds)' if basis else ''} for the time of "
        f"{prediction.seconds_per_round / cost.pass_s(1):.2f} single passes.",
    ]
    if plain_rounds:
        lines.append(f"{plain_rounds} of {len(prediction.depths)} rounds found no n-gram match and sampled the "
                     "target alone.")
    if calibration is not None and not calibration.reliable:
        lines.append(f"The cost model predicts {prediction.speedup:.2f}x, but it is unreliable here: "
                     f"{calibration.words}.")
        return " ".join(lines)
    inside = spread is not None and spread[0] <= prediction.speedup <= spread[1]
    if inside or agrees(prediction.speedup, measured):
        where_text = "inside the races' spread" if inside else f"within {AGREEMENT:.0%} of the measurement"
        lines.append(f"The cost model predicts {prediction.speedup:.2f}x, {where_text}.")
    else:
        why = ("acceptance differs from position to position, or the machine was busier during one run "
               "than during the other")
        if verify_share is not None:
            why = (f"the cost model counts target passes and draft steps, not the exact verification's own time "
                   f"({verify_share:.0%} of the speculative run here); also {why}")
        lines.append(f"The cost model predicts {prediction.speedup:.2f}x, off by more than {AGREEMENT:.0%}: {why}.")
    return " ".join(lines)


@dataclass(frozen=True)
class Calibration:
    """The cost model against what this run timed: each measured kind of work over its calibrated time."""

    ratios: dict[str, float]  # "single passes", "checks", "draft steps": median measured / calibrated
    counts: dict[str, int]  # how many of each the run timed
    age_s: float | None  # seconds since the calibration was measured (None: unknown)

    @property
    def reliable(self) -> bool:
        """True when every kind of work the run timed is within CALIBRATION_TOLERANCE of the calibration."""
        return all(abs(r - 1) <= CALIBRATION_TOLERANCE for r in self.ratios.values())

    @property
    def words(self) -> str:
        """What was compared, for the page and the command line."""
        parts = [f"this run's {kind} took {ratio:.2f}x the calibrated time (median of {self.counts[kind]})"
                 for kind, ratio in self.ratios.items()]
        age = "" if self.age_s is None else f", calibrated {_age_words(self.age_s)}"
        verdict = ("the machine was loaded differently while the calibration was measured than during the races; "
                   "it is measured again next time" if not self.reliable else "the calibration holds")
        return f"{'; '.join(parts) or 'nothing timed to compare'}{age}: {verdict}"


def _age_words(seconds: float) -> str:
    if seconds < 60:
        return "moments ago (right after the races)"
    if seconds < 120:
        return f"{seconds:.0f} s ago"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min ago"
    return f"{seconds / 3600:.1f} h ago" if seconds < 172800 else f"{seconds / 86400:.0f} days ago"


def check_calibration(cost: CostModel, draft: str, single_passes: Sequence[float],
                      checks: Sequence[tuple[int, float]], draft_steps: Sequence[float], *,
                      now: float | None = None) -> Calibration:
    """Compare the calibration with a run's own timings: single-token passes (the plain legs' samples),
    verification passes (new tokens, seconds) and draft steps (seconds per drafted level)."""
    ratios, counts = {}, {}
    for kind, values in (("single passes", [t / cost.pass_s(1) for t in single_passes]),
                         ("checks", [t / cost.pass_s(k) for k, t in checks]),
                         ("draft steps", [t / cost.draft_step_s[draft] for t in draft_steps]
                          if cost.draft_step_s.get(draft, 0.0) > 0 else [])):
        if values:
            ratios[kind], counts[kind] = statistics.median(values), len(values)
    now = time.time() if now is None else now
    age = now - cost.measured_at if cost.measured_at else None
    return Calibration(ratios, counts, age)


# --- measuring (torch) -----------------------------------------------------------------------------------


def cache_key(model: str, device: str, max_tokens: int, drafts: Sequence[str], wide: Sequence[int] = ()) -> str:
    return json.dumps([model, device, max_tokens, sorted(drafts)] + ([sorted(wide)] if wide else []))


def wide_sizes(max_tokens: int, widest: int) -> tuple[int, ...]:
    """The pass widths measured beyond max_tokens for passes up to widest tokens (a tree's nodes + 1): the grid
    8, 16, 32, ... up to the first width that covers widest, so one calibration serves every tree that fits."""
    if widest <= max_tokens:
        return ()
    sizes = []
    for k in WIDE_GRID:
        if k > max_tokens:
            sizes.append(k)
            if k >= widest:
                break
    return tuple(sizes)


_MEMORY: dict[str, CostModel] = {}


def _fastest_time(fn: Callable[[], Any], repeats: int) -> float:
    """The fastest of `repeats` runs: on a shared machine the others measure the neighbours, not the model."""
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        fn()
        times.append(time.perf_counter() - began)
    return min(times)


def measure_costs(target: Any, drafts: Sequence[Any], max_tokens: int = 6, *, repeats: int = 5,
                  context: int = 48, use_cache: bool = True, widest: int = 0) -> CostModel:
    """Time target passes over 1..max_tokens new tokens after a context (and wider ones up to widest, for
    trees), and one step of each draft.

    Cached per model, device and draft set, in memory and on disk (cache_dir()); a stored calibration of
    another format or older than MAX_AGE_S is measured again.
    """
    from specviz.core import Owner, RandomStreams, identity_processor
    from specviz.models.drafts import LookupDraft, build_draft
    from specviz.models.lm import CausalLM
    from specviz.models.target import TargetModel

    labels = [d.label() for d in drafts]
    wide = wide_sizes(max_tokens, widest)
    key = cache_key(target.name, target.device_name, max_tokens, labels, wide)
    path = cache_dir() / "costs.json"
    if use_cache:
        if key in _MEMORY:
            return _MEMORY[key]
        stored = _read_cache(path).get(key)
        if fresh(stored):
            _MEMORY[key] = CostModel.from_dict(stored)
            return _MEMORY[key]
    lm = CausalLM(target.model, target.vocab_size, target.device)
    model = TargetModel(lm)
    prefix = tuple((7 * i + 11) % target.vocab_size for i in range(context))
    lm.probs(prefix)  # the context sits in the KV cache, as it does during generation

    def target_pass(k: int) -> Callable[[], None]:
        block = tuple((prefix[i % context] + 1) % target.vocab_size for i in range(k - 1))

        def run() -> None:  # one forward over k new tokens, and the exact tickets of the positions a walk reads
            model.sync(prefix)
            model.prefetch(prefix, block)
            for i in range(min(k, max_tokens)):
                model(prefix + block[:i])
        return run

    passes = tuple(_fastest_time(target_pass(k), repeats) for k in range(1, max_tokens + 1))
    wide_passes = tuple((k, _fastest_time(target_pass(k), repeats)) for k in wide)
    steps: dict[str, float] = {}
    rng = RandomStreams(0, Owner("cost", 0), 0).proposal
    for spec, label in zip(drafts, labels):
        draft = build_draft(spec, target, model, target_processor=identity_processor)
        if isinstance(draft, LookupDraft):
            steps[label] = _fastest_time(lambda d=draft: d.plan(prefix, 1), repeats)
            continue

        def step(d: Any = draft) -> None:  # one draft distribution after a cached context, and its draw
            d.sync(prefix)
            model.sync(prefix)
            d(prefix).sample(rng)
        step()  # warm-up: the draft's own cache fills with the context
        steps[label] = _fastest_time(step, repeats)
    cost = CostModel(target.name, target.device_name, passes, steps, wide_passes, time.time())
    _MEMORY[key] = cost
    if use_cache:
        _write_cache(path, key, cost)
    return cost


def fresh(stored: Any, now: float | None = None) -> bool:
    """True for a stored calibration of this format measured less than MAX_AGE_S ago."""
    if not isinstance(stored, dict) or stored.get("format") != COSTS_FORMAT:
        return False
    age = (time.time() if now is None else now) - float(stored.get("measured_at", 0.0))
    return 0 <= age <= MAX_AGE_S


def forget_calibration(cost: CostModel) -> None:
    """Drop a calibration a run found unreliable, from memory and from disk: the next race measures again."""
    for key in [k for k, v in _MEMORY.items() if v == cost]:
        del _MEMORY[key]
    path = cache_dir() / "costs.json"
    data = _read_cache(path)
    kept = {k: v for k, v in data.items() if not (isinstance(v, dict) and _same(v, cost))}
    if len(kept) != len(data):
        try:
            path.write_text(json.dumps(kept, indent=1))
        except OSError:  # a read-only home: the memory copy is gone, the disk copy expires with its age
            pass


def _same(stored: dict[str, Any], cost: CostModel) -> bool:
    try:
        return CostModel.from_dict(stored) == cost
    except (KeyError, TypeError, ValueError):  # a damaged entry is not this calibration
        return False


def _read_cache(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _write_cache(path: Path, key: str, cost: CostModel) -> None:
    try:
        data = {k: v for k, v in _read_cache(path).items() if fresh(v)}  # stale entries leave the file
        data[key] = {**cost.to_dict(), "format": COSTS_FORMAT}
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1))
    except OSError:  # a read-only home only costs a re-measurement next time
        pass
