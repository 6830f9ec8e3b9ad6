"""The cost model: what a target pass over k new tokens and one draft step cost on this device, and
the speedup they predict.

Measuring needs torch (`measure_costs`); everything that predicts or explains is a pure function of a
`CostModel` and measured acceptance, so the tests feed it made-up timings.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from specviz.theory import expected_tokens

AGREEMENT = 0.25  # predicted and measured speedups "agree" within this relative difference


@dataclass(frozen=True)
class CostModel:
    """Seconds of one target pass over k = 1, 2, ... new tokens, and of one draft step per draft label."""

    model: str
    device: str
    target_pass_s: tuple[float, ...]
    draft_step_s: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.target_pass_s or any(not t > 0 for t in self.target_pass_s):
            raise ValueError(f"target pass times must be positive seconds, got {self.target_pass_s}")
        if any(t < 0 for t in self.draft_step_s.values()):
            raise ValueError(f"draft step times must be >= 0 seconds, got {self.draft_step_s}")

    def pass_s(self, new_tokens: int) -> float:
        """One target pass over new_tokens tokens (the longest measured pass where asked for more)."""
        if new_tokens < 1:
            raise ValueError(f"a target pass covers at least one token, got {new_tokens}")
        return self.target_pass_s[min(new_tokens, len(self.target_pass_s)) - 1]

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
                   {str(k): float(v) for k, v in data.get("draft_step_s", {}).items()})


def round_seconds(cost: CostModel, draft: str, depth: int, *, shared_target: bool = False) -> float:
    """Predicted time of one round: depth draft steps and one verification pass over depth + 1 tokens.

    depth 0 is a plain target sample (one single-token pass). A draft that *is* the target (q = p, or
    the target re-processed) already paid for the drafted positions, so its check covers one new token.
    """
    if depth == 0:
        return cost.pass_s(1)
    return depth * cost.draft_step_s[draft] + cost.pass_s(1 if shared_target else depth + 1)


def round_tokens(acceptance: float, depth: int) -> float:
    """Expected committed tokens of a round at this depth, if every draft is accepted with this chance."""
    return 1.0 if depth == 0 else float(expected_tokens(min(max(acceptance, 0.0), 1.0), depth))


@dataclass(frozen=True)
class Prediction:
    """Predicted speedup over plain sampling from the cost model and the measured acceptance."""

    speedup: float
    tokens_per_round: float
    seconds_per_round: float
    acceptance: float
    depths: tuple[int, ...]
    shared_target: bool = False


def predict(cost: CostModel, draft: str, depths: Sequence[int], acceptance: float, *,
            shared_target: bool = False, expected: Sequence[float | None] | None = None) -> Prediction:
    """The speedup these rounds should give: expected tokens per second against one token per single pass.

    expected, where given, is each round's own expected token count (block verification's exact
    E[kept] + 1 on its drafted block); None entries (and no list) use tokenwise's formula at acceptance.
    """
    if not depths:
        raise ValueError("a prediction needs at least one round")
    own = list(expected) if expected is not None else [None] * len(depths)
    tokens = sum(round_tokens(acceptance, d) if e is None or d == 0 else e for d, e in zip(depths, own))
    seconds = sum(round_seconds(cost, draft, d, shared_target=shared_target) for d in depths)
    return Prediction(speedup=tokens * cost.pass_s(1) / seconds, tokens_per_round=tokens / len(depths),
                      seconds_per_round=seconds / len(depths), acceptance=acceptance, depths=tuple(depths),
                      shared_target=shared_target)


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


def explain(cost: CostModel, draft: str, prediction: Prediction, measured: float, *, plain_rounds: int = 0,
            device_kind: str = "cpu", spread: tuple[float, float] | None = None, races: int = 1,
            counts: tuple[int, int] | None = None, verb: str = "accepted", verify_share: float | None = None) -> str:
    """Why speculative decoding wins or loses here, in two or three sentences with the measured numbers.

    With the spread of repeated races the verdict is a win or a loss only when the spread excludes 1.00x;
    counts (kept, checked) name the acceptance rate's denominator; verb is the rule's ("accepted", "kept");
    verify_share is the measured share of the run spent in exact verification (not in the cost model).
    """
    where = "this GPU" if device_kind in ("cuda", "mps") else "this CPU"
    drafted = [d for d in prediction.depths if d]
    depth = round(statistics.mean(drafted)) if drafted else 1
    check = cost.pass_ratio(depth + 1)
    ratio = cost.draft_ratio(draft) if draft in cost.draft_step_s else 0.0
    verdict = verdict_of(spread) if spread is not None else \
        "wins" if measured >= 1.05 else "loses" if measured <= 0.95 else "breaks even"
    cost_text = (f"a {depth + 1}-token check costs {check:.2f} single passes on {where}" if not prediction.shared_target
                 else "the draft is the target itself, so every draft step is a full target pass and the check "
                      "only adds the bonus position")
    lines = [
        f"Speculative decoding {verdict} here ({_measured_text(measured, spread, races)}): the {draft} draft costs "
        f"{ratio:.2f} of a target pass per token and {_acceptance_text(prediction, counts, verb)}; {cost_text}.",
        f"So a round commits {prediction.tokens_per_round:.2f} tokens in expectation for the time of "
        f"{prediction.seconds_per_round / cost.pass_s(1):.2f} single passes.",
    ]
    if plain_rounds:
        lines.append(f"{plain_rounds} of {len(prediction.depths)} rounds found no n-gram match and sampled the "
                     "target alone.")
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


# --- measuring (torch) -----------------------------------------------------------------------------------


def cache_dir() -> Path:
    """Where measured cost models are kept: $SPECVIZ_CACHE_DIR, else ~/.cache/specviz."""
    root = os.environ.get("SPECVIZ_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "specviz")
    return Path(root)


def cache_key(model: str, device: str, max_tokens: int, drafts: Sequence[str]) -> str:
    return json.dumps([model, device, max_tokens, sorted(drafts)])


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
                  context: int = 48, use_cache: bool = True) -> CostModel:
    """Time target passes over 1..max_tokens new tokens after a context, and one step of each draft.

    Cached per model, device and draft set, in memory and on disk (cache_dir()).
    """
    from specviz.core import Owner, RandomStreams, identity_processor
    from specviz.models.drafts import LookupDraft, build_draft
    from specviz.models.lm import CausalLM
    from specviz.models.target import TargetModel

    labels = [d.label() for d in drafts]
    key = cache_key(target.name, target.device_name, max_tokens, labels)
    path = cache_dir() / "costs.json"
    if use_cache:
        if key in _MEMORY:
            return _MEMORY[key]
        stored = _read_cache(path)
        if key in stored:
            _MEMORY[key] = CostModel.from_dict(stored[key])
            return _MEMORY[key]
    lm = CausalLM(target.model, target.vocab_size, target.device)
    model = TargetModel(lm)
    prefix = tuple((7 * i + 11) % target.vocab_size for i in range(context))
    lm.probs(prefix)  # the context sits in the KV cache, as it does during generation

    def target_pass(k: int) -> Callable[[], None]:
        block = tuple((prefix[i] + 1) % target.vocab_size for i in range(k - 1))

        def run() -> None:  # one forward over k new tokens, and the exact tickets of each position
            model.sync(prefix)
            model.prefetch(prefix, block)
            for i in range(k):
                model(prefix + block[:i])
        return run

    passes = tuple(_fastest_time(target_pass(k), repeats) for k in range(1, max_tokens + 1))
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
    cost = CostModel(target.name, target.device_name, passes, steps)
    _MEMORY[key] = cost
    if use_cache:
        _write_cache(path, key, cost)
    return cost


def _read_cache(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _write_cache(path: Path, key: str, cost: CostModel) -> None:
    try:
        data = _read_cache(path)
        data[key] = cost.to_dict()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1))
    except OSError:  # a read-only home only costs a re-measurement next time
        pass
