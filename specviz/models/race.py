"""The race: plain target sampling and exact speculative decoding on the same prompt, seed and settings.

Both legs go through the exact core (FP32 probabilities to integer tickets, seeded streams); they
run one after the other with live progress, then the measured speedup is set beside the one the
cost model predicts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from specviz.models.cost import CostModel, Prediction, explain, measure_costs, predict
from specviz.models.drafts import DraftSpec, SharedTargetDraft
from specviz.models.generate import Generation, RoundRecord, Session, Settings
from specviz.models.lm import Prefix
from specviz.models.loading import LoadedModel
from specviz.models.stats import Summary, summarize

PLAIN, SPECULATIVE = "plain", "speculative"
Progress = Callable[[str, Session, RoundRecord], None]


@dataclass
class Leg:
    """One side of the race."""

    name: str
    label: str
    generation: Generation
    summary: Summary

    @property
    def tokens_per_s(self) -> float:
        return self.summary.tokens_per_s


@dataclass
class RaceResult:
    """Both legs, the measured speedup, and the cost model's prediction with its explanation."""

    plain: Leg
    speculative: Leg
    cost: CostModel | None = None
    prediction: Prediction | None = None
    explanation: str = ""

    @property
    def speedup(self) -> float:
        """Speculative tokens/s over plain tokens/s."""
        return self.speculative.tokens_per_s / self.plain.tokens_per_s if self.plain.tokens_per_s else 0.0

    def line(self) -> str:
        """The command line's last line."""
        return (f"speedup: {self.speedup:.2f}x (speculative {self.speculative.tokens_per_s:.1f} tokens/s, "
                f"plain {self.plain.tokens_per_s:.1f} tokens/s)")


def run_leg(name: str, session: Session, progress: Progress | None = None) -> Leg:
    """Play a session to the end, reporting each round."""
    for record in session.rounds():
        if progress is not None:
            progress(name, session, record)
    return Leg(name, session.label, session.generation, summarize(session.generation, session.settings.depth))


def prediction_for(cost: CostModel, leg: Leg, *, shared_target: bool = False) -> Prediction | None:
    """The cost model's speedup for the rounds this leg played, at its measured acceptance rate."""
    s = leg.summary
    if not leg.generation.rounds:
        return None
    acceptance = s.acceptance_rate if s.acceptance_rate is not None else 0.0
    return predict(cost, leg.label, [len(r.drafted) for r in leg.generation.rounds], acceptance,
                   shared_target=shared_target)


def race(target: LoadedModel, prompt: str | Prefix, draft: DraftSpec, settings: Settings, *,
         draft_model: LoadedModel | None = None, progress: Progress | None = None, keep_raw: bool = False,
         cost: CostModel | None = None, measure: bool = True) -> RaceResult:
    """Plain sampling, then speculative decoding, with the same prompt, seed, temperature and processors.

    keep_raw keeps the speculative leg's traces (to inspect a round); the cost model is measured once
    per model, device and draft (cached) unless given.
    """
    speculative = Session(target, draft, settings, prompt, draft_model=draft_model, top_n=None, keep_raw=keep_raw)
    plain = Session(target, None, settings, prompt, top_n=None)
    plain_leg = run_leg(PLAIN, plain, progress)
    spec_leg = run_leg(SPECULATIVE, speculative, progress)
    result = RaceResult(plain_leg, spec_leg)
    if cost is None and measure and draft.kind != "model":
        cost = measure_costs(target, [draft], max_tokens=settings.depth + 1)
    if cost is not None and spec_leg.label in cost.draft_step_s:
        result.cost = cost
        result.prediction = prediction_for(cost, spec_leg,
                                           shared_target=isinstance(speculative.draft, SharedTargetDraft))
        if result.prediction is not None:
            result.explanation = explain(cost, spec_leg.label, result.prediction, result.speedup,
                                         plain_rounds=spec_leg.summary.plain_rounds,
                                         device_kind=target.device.type)
    return result


def race_table(result: RaceResult) -> list[str]:
    """Both legs side by side as text lines, then the prediction and why (the command line's report)."""
    rows = [("", "plain", "speculative")]
    for leg_name, get in (("tokens", lambda s: f"{s.tokens}"), ("wall time", lambda s: f"{s.wall_s:.2f} s"),
                          ("tokens/s", lambda s: f"{s.tokens_per_s:.1f}"),
                          ("target verification passes", lambda s: f"{s.target_forwards}"),
                          ("tokens per verification pass", lambda s: f"{s.tokens_per_target_forward:.2f}"),
                          ("target passes spent drafting", lambda s: f"{s.drafting_forwards}")):
        rows.append((leg_name, get(result.plain.summary), get(result.speculative.summary)))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = [f"{a.ljust(widths[0])}  {b.rjust(widths[1])}  {c.rjust(widths[2])}" for a, b, c in rows]
    if result.prediction is not None:
        lines.append(f"predicted speedup {result.prediction.speedup:.2f}x (cost model on {result.cost.device}), "
                     f"measured {result.speedup:.2f}x")
    if result.explanation:
        lines.append(result.explanation)
    return lines
