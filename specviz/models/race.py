"""The race: plain target sampling and exact speculative decoding on the same prompt and settings.

Both legs go through the exact core (FP32 probabilities to integer tickets, seeded streams). One race
near 1.00x is decided by timing noise, so the race is run several times, interleaved (plain first,
then speculative first, ...) over consecutive seeds; the verdict is the median speedup with its
spread, a win or a loss only when the spread excludes 1.00x. The cost model's prediction is set beside it.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, replace

from specviz.core.verification import rule
from specviz.models.cost import CostModel, Prediction, explain, measure_costs, predict, verdict_of
from specviz.models.drafts import DraftSpec, SharedTargetDraft
from specviz.models.generate import Generation, RoundRecord, Session, Settings
from specviz.models.lm import Prefix
from specviz.models.loading import LoadedModel
from specviz.models.stats import Summary, summarize

PLAIN, SPECULATIVE = "plain", "speculative"
TRIALS = 3  # races per comparison: the page and the command line run the same number
Progress = Callable[[str, Session, RoundRecord], None]
SAME_LAW = ("The two texts differ although both use the same seed: both are exact samples of the same law p, but "
            "the speculative run spends its random draws on drafts and acceptance tests, so it draws a different "
            "sample (same law, different sample).")


@dataclass
class Leg:
    """One side of one race."""

    name: str
    label: str
    generation: Generation
    summary: Summary

    @property
    def tokens_per_s(self) -> float:
        return self.summary.tokens_per_s


@dataclass
class Trial:
    """One race: both legs on one seed, in the order they ran."""

    seed: int
    plain: Leg
    speculative: Leg
    plain_first: bool

    @property
    def speedup(self) -> float:
        """Speculative tokens/s over plain tokens/s in this race."""
        return self.speculative.tokens_per_s / self.plain.tokens_per_s if self.plain.tokens_per_s else 0.0


@dataclass
class RaceResult:
    """Every race, the median speedup and its spread, and the cost model's prediction with its explanation.

    `plain` and `speculative` are the first race's legs (the settings' own seed): the texts to show.
    """

    trials: list[Trial]
    cost: CostModel | None = None
    prediction: Prediction | None = None
    explanation: str = ""
    verification: str = "token"

    @property
    def plain(self) -> Leg:
        return self.trials[0].plain

    @property
    def speculative(self) -> Leg:
        return self.trials[0].speculative

    @property
    def speedups(self) -> list[float]:
        return [t.speedup for t in self.trials]

    @property
    def speedup(self) -> float:
        """The median speedup over the races."""
        return statistics.median(self.speedups)

    @property
    def spread(self) -> tuple[float, float]:
        """The slowest and the fastest race's speedup."""
        return min(self.speedups), max(self.speedups)

    def chart_speeds(self) -> tuple[float, float]:
        """(plain, speculative) tokens/s for a chart whose ratio is the median speedup: the plain legs' median
        speed, and that times the median speedup."""
        plain = statistics.median(t.plain.tokens_per_s for t in self.trials)
        return plain, plain * self.speedup

    @property
    def verdict(self) -> str:
        """'wins', 'loses' or 'shows no measurable difference' (a win or a loss only when the spread excludes 1)."""
        return verdict_of(self.spread)

    def line(self) -> str:
        """The verdict in one line: the command line's last line and the page's banner."""
        low, high = self.spread
        races = len(self.trials)
        spread = f"spread {low:.2f}x to {high:.2f}x" if races > 1 else "a single race"
        return (f"speedup: {self.speedup:.2f}x, median of {races} interleaved races ({spread}): speculative decoding "
                f"{self.verdict} against plain sampling")


def run_leg(name: str, session: Session, progress: Progress | None = None) -> Leg:
    """Play a session to the end, reporting each round."""
    for record in session.rounds():
        if progress is not None:
            progress(name, session, record)
    return Leg(name, session.label, session.generation, summarize(session.generation, session.settings.depth))


def round_expectations(leg: Leg) -> list[float | None]:
    """Each round's own expected token count where the rule computes it exactly (block verification)."""
    return [None if r.expected_accepted is None else 1.0 + r.expected_accepted for r in leg.generation.rounds]


def prediction_for(cost: CostModel, leg: Leg, *, shared_target: bool = False) -> Prediction | None:
    """The cost model's speedup for the rounds this leg played, at its measured acceptance per checked draft."""
    s = leg.summary
    if not leg.generation.rounds:
        return None
    acceptance = s.acceptance_rate if s.acceptance_rate is not None else 0.0
    return predict(cost, leg.label, [len(r.drafted) for r in leg.generation.rounds], acceptance,
                   shared_target=shared_target, expected=round_expectations(leg))


def _trial(target: LoadedModel, prompt: str | Prefix, draft: DraftSpec, settings: Settings, index: int, *,
           draft_model: LoadedModel | None, progress: Progress | None, keep_raw: bool) -> tuple[Trial, Session]:
    """Race `index`: seed settings.seed + index; even races run plain first, odd ones speculative first."""
    seeded = replace(settings, seed=settings.seed + index)
    speculative = Session(target, draft, seeded, prompt, draft_model=draft_model, top_n=None,
                          keep_raw=keep_raw and index == 0)
    plain = Session(target, None, seeded, prompt, top_n=None)
    plain_first = index % 2 == 0
    legs: dict[str, Leg] = {}
    for name, session in ((PLAIN, plain), (SPECULATIVE, speculative))[:: 1 if plain_first else -1]:
        legs[name] = run_leg(name, session, progress)
    return Trial(seeded.seed, legs[PLAIN], legs[SPECULATIVE], plain_first), speculative


def race(target: LoadedModel, prompt: str | Prefix, draft: DraftSpec, settings: Settings, *,
         draft_model: LoadedModel | None = None, progress: Progress | None = None, keep_raw: bool = False,
         cost: CostModel | None = None, measure: bool = True, trials: int = TRIALS) -> RaceResult:
    """`trials` interleaved races of plain sampling against speculative decoding, same prompt and processors.

    keep_raw keeps the first race's speculative traces (to inspect a round); the cost model is measured
    once per model, device and draft (cached) unless given.
    """
    if not isinstance(trials, int) or isinstance(trials, bool) or trials < 1:
        raise ValueError(f"trials must be a whole number >= 1, got {trials!r}")
    played = [_trial(target, prompt, draft, settings, i, draft_model=draft_model, progress=progress,
                     keep_raw=keep_raw) for i in range(trials)]
    result = RaceResult([t for t, _ in played], verification=rule(settings.verification).name)
    if cost is None and measure and draft.kind != "model":
        cost = measure_costs(target, [draft], max_tokens=settings.depth + 1)
    spec_leg = result.speculative
    if cost is not None and spec_leg.label in cost.draft_step_s:
        result.cost = cost
        result.prediction = prediction_for(cost, spec_leg,
                                           shared_target=isinstance(played[0][1].draft, SharedTargetDraft))
        if result.prediction is not None:
            s = spec_leg.summary
            result.explanation = explain(cost, spec_leg.label, result.prediction, result.speedup,
                                         plain_rounds=s.plain_rounds, device_kind=target.device.type,
                                         spread=result.spread, races=trials, counts=(s.accepted, s.checks),
                                         verb=rule(settings.verification).kept_verb,
                                         verify_share=s.time_s["verify_s"] / s.wall_s if s.wall_s else None)
    return result


def trials_line(result: RaceResult) -> str:
    """Every race's speedup, in the order run, with which leg went first."""
    return "races: " + "; ".join(f"seed {t.seed} ({'plain' if t.plain_first else 'speculative'} first) "
                                 f"{t.speedup:.2f}x" for t in result.trials)


def race_table(result: RaceResult) -> list[str]:
    """The first race's legs side by side as text lines, every race, the prediction and why (the CLI's report)."""
    rows = [(f"seed {result.trials[0].seed}", "plain", "speculative")]
    for leg_name, get in (("tokens", lambda s: f"{s.tokens}"), ("wall time", lambda s: f"{s.wall_s:.2f} s"),
                          ("tokens/s", lambda s: f"{s.tokens_per_s:.1f}"),
                          ("target verification passes", lambda s: f"{s.target_forwards}"),
                          ("tokens per verification pass", lambda s: f"{s.tokens_per_target_forward:.2f}"),
                          ("target passes spent drafting", lambda s: f"{s.drafting_forwards}")):
        rows.append((leg_name, get(result.plain.summary), get(result.speculative.summary)))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = [f"{a.ljust(widths[0])}  {b.rjust(widths[1])}  {c.rjust(widths[2])}" for a, b, c in rows]
    lines.append(trials_line(result))
    if result.prediction is not None:
        lines.append(f"predicted speedup {result.prediction.speedup:.2f}x (cost model on {result.cost.device}), "
                     f"measured {result.speedup:.2f}x (median)")
    if result.explanation:
        lines.append(result.explanation)
    lines.append(SAME_LAW)
    return lines


def theory_point(result: RaceResult, depth: int) -> dict[str, float] | None:
    """The race as a point on the Theory page's speedup curves (None without a cost model's prediction)."""
    if result.prediction is None or result.cost is None:
        return None
    leg = result.speculative
    drafted = [len(r.drafted) for r in leg.generation.rounds if r.drafted]
    g = max(1, round(sum(drafted) / len(drafted))) if drafted else depth
    return {"acceptance_rate": leg.summary.acceptance_rate or 0.0, "cost_ratio": result.cost.draft_ratio(leg.label),
            "depth": g, "verify_ratio": result.cost.pass_ratio(g + 1), "measured_speedup": result.speedup,
            "predicted_speedup": result.prediction.speedup}
