"""The race: plain target sampling and exact speculative decoding on the same prompt and settings.

All legs go through the exact core (FP32 probabilities to integer tickets, seeded streams). One race
near 1.00x is decided by timing noise, so the race is run several times, interleaved (each leg goes
first in turn) over consecutive seeds; the verdict is the median speedup with its spread, a win or a
loss only when the spread excludes 1.00x. Under a tree rule a third leg runs the same draft as a chain
(verified as the tree's rule verifies a chain: tokenwise for recursive rejection sampling, exact match for
exact match), so the race says whether the tree pays over the chain; under exact match a lookup tree's rounds
also say what that chain would have committed on the same draws (``RoundRecord.chain_tokens``). Every figure
shown for one race comes from the median race (the race whose speedup is the median), so the texts, the cards, the chart
and the headline agree. The cost model's prediction is set beside it, checked against the run's own
timed passes (its calibration).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from specviz.core.verification import FamilyTable, Rule, rule
from specviz.models.cost import (
    Calibration,
    CostModel,
    Prediction,
    check_calibration,
    explain_speedup,
    forget_calibration,
    measure_costs,
    predict,
    verdict_of,
)
from specviz.models.drafts import DraftSpec, SharedTargetDraft
from specviz.models.lm import Prefix
from specviz.models.loading import LoadedModel
from specviz.models.model_errors import ModelSettingError
from specviz.models.round_loop import Generation, GenerationSettings, RoundRecord, Session
from specviz.models.stats import Summary, round_expected_tokens, summarize

PLAIN, CHAIN, SPECULATIVE = "plain", "chain", "speculative"
CHAIN_RULE = "token"  # the chain a tree is raced against: the same draft, verified tokenwise ...
# ... or as the tree's own rule verifies a chain, where that rule has a chain of its own (exact match)
CHAIN_RULE_BY_FAMILY: FamilyTable[str] = FamilyTable(
    "models.race.CHAIN_RULE_BY_FAMILY",
    {"token": CHAIN_RULE, "block": CHAIN_RULE, "tree": CHAIN_RULE, "ensemble": CHAIN_RULE, "threshold": CHAIN_RULE,
     "typical": CHAIN_RULE, "traversal": CHAIN_RULE, "exact-match": "exact-match"}, scope="playable")


def chain_rule(found: Rule | str) -> Rule:
    """The rule the race's chain leg runs beside a tree of this rule (tokenwise, or exact match's chain)."""
    return rule(CHAIN_RULE_BY_FAMILY[found])


TRIALS = 3  # races per comparison: the page and the command line run the same number
Progress = Callable[[str, Session, RoundRecord | None], None]  # (leg, its session, the round played; None: it starts)
Stage = Callable[[str], None]  # what the race does between rounds (sessions made, the cost model measured)
SAME_LAW = ("The texts differ although every leg uses the same seed: all are exact samples of the same law p, but "
            "a speculative run spends its random draws on drafts and acceptance tests, so it draws a different "
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
    """One race: every leg on one seed, in the order they ran."""

    seed: int
    legs: dict[str, Leg]  # in the order they ran

    @property
    def plain(self) -> Leg:
        return self.legs[PLAIN]

    @property
    def speculative(self) -> Leg:
        return self.legs[SPECULATIVE]

    @property
    def chain(self) -> Leg | None:
        """The same draft as a chain (``chain_rule``), raced under a tree rule; None otherwise."""
        return self.legs.get(CHAIN)

    @property
    def plain_first(self) -> bool:
        return next(iter(self.legs)) == PLAIN

    @property
    def first(self) -> str:
        return next(iter(self.legs))

    def speedup_of(self, name: str) -> float:
        """That leg's tokens/s over plain tokens/s in this race."""
        plain = self.plain.tokens_per_s
        return self.legs[name].tokens_per_s / plain if plain else 0.0

    @property
    def speedup(self) -> float:
        """Speculative tokens/s over plain tokens/s in this race."""
        return self.speedup_of(SPECULATIVE)

    @property
    def over_chain(self) -> float | None:
        """Speculative (tree) tokens/s over the chain's in this race; None without a chain leg."""
        chain = self.chain
        if chain is None or not chain.tokens_per_s:
            return None
        return self.speculative.tokens_per_s / chain.tokens_per_s


@dataclass
class RaceResult:
    """Every race, the median race and its spread, and the cost model's prediction with its explanation."""

    trials: list[Trial]
    cost: CostModel | None = None
    prediction: Prediction | None = None
    explanation: str = ""
    verification: str = "token"
    calibration: Calibration | None = None

    @property
    def speedups(self) -> list[float]:
        return [t.speedup for t in self.trials]

    @property
    def median_trial(self) -> Trial:
        """The race whose speedup is the median (the lower middle one for an even count): every figure of
        one race shown beside the headline comes from it."""
        order = sorted(range(len(self.trials)), key=lambda i: (self.speedups[i], i))
        return self.trials[order[(len(order) - 1) // 2]]

    @property
    def plain(self) -> Leg:
        return self.median_trial.plain

    @property
    def speculative(self) -> Leg:
        return self.median_trial.speculative

    @property
    def chain(self) -> Leg | None:
        return self.median_trial.chain

    @property
    def speedup(self) -> float:
        """The median speedup over the races (the median race's own)."""
        return self.median_trial.speedup

    @property
    def spread(self) -> tuple[float, float]:
        """The slowest and the fastest race's speedup."""
        return min(self.speedups), max(self.speedups)

    def spread_of(self, values: list[float]) -> tuple[float, float]:
        return min(values), max(values)

    @property
    def chain_speedups(self) -> list[float]:
        return [t.speedup_of(CHAIN) for t in self.trials if t.chain is not None]

    @property
    def over_chain(self) -> list[float]:
        return [t.over_chain for t in self.trials if t.over_chain is not None]

    def chart_speeds(self) -> dict[str, float]:
        """Tokens/s of each leg of the median race, plain first: its ratios are the speedups the page states."""
        trial = self.median_trial
        return {name: trial.legs[name].tokens_per_s for name in (PLAIN, CHAIN, SPECULATIVE) if name in trial.legs}

    @property
    def verdict(self) -> str:
        """'wins', 'loses' or 'shows no measurable difference' (a win or a loss only when the spread excludes 1)."""
        return verdict_of(self.spread)

    def line(self) -> str:
        """The verdict in one line: the command line's last line and the page's banner."""
        low, high = self.spread
        races = len(self.trials)
        spread = f"spread {low:.2f}x to {high:.2f}x" if races > 1 else "a single race"
        line = (f"speedup: {self.speedup:.2f}x, median of {races} interleaved races ({spread}): speculative decoding "
                f"{self.verdict} against plain sampling")
        return line + (f"; {self.chain_line()}" if self.chain is not None else "")

    def chain_line(self) -> str:
        """The tree against the chain of the same draft, in the median race and over all races."""
        chain = self.median_trial.speedup_of(CHAIN)
        over = self.median_trial.over_chain or 0.0
        low, high = self.spread_of(self.over_chain)
        verdict = "pays over" if round(low, 2) > 1 else "loses to" if round(high, 2) < 1 else "ties with"
        return (f"the chain (same draft, {chain_rule(self.verification).label}) {chain:.2f}x in that race; the tree "
                f"{verdict} the chain "
                f"({over:.2f}x the chain's speed, races {low:.2f}x to {high:.2f}x)")


def run_leg(name: str, session: Session, progress: Progress | None = None) -> Leg:
    """Play a session to the end, reporting its start (record None) and each round."""
    if progress is not None:
        progress(name, session, None)
    for record in session.rounds():
        if progress is not None:
            progress(name, session, record)
    return Leg(name, session.label, session.generation, summarize(session.generation, session.settings.depth))


def round_expectations(leg: Leg) -> list[float | None]:
    """Each round's expected token count: the summary's own definition (stats.round_expected_tokens); a tree
    round, which no formula here covers, counts the tokens it committed."""
    rounds = leg.generation.rounds
    expected = round_expected_tokens(rounds, leg.summary.mean_alpha)
    return [float(len(r.tokens)) if e is None and r.shape != "chain" and not r.plain else e
            for e, r in zip(expected, rounds)]


def expectation_basis(leg: Leg) -> str:
    """Where a drafting round's expected tokens come from, in words (the page's chart says the same)."""
    if leg.summary.tree_width > 1:
        return "the tokens the tree rounds committed"
    return leg.summary.expected_basis


def prediction_for(cost: CostModel, leg: Leg, *, shared_target: bool = False) -> Prediction | None:
    """The cost model's speedup for the rounds this leg played, at its measured acceptance per checked draft."""
    s = leg.summary
    if not leg.generation.rounds:
        return None
    acceptance = s.acceptance_rate if s.acceptance_rate is not None else 0.0
    rounds = leg.generation.rounds
    return predict(cost, leg.label, [r.depth for r in rounds], acceptance, shared_target=shared_target,
                   expected=round_expectations(leg), nodes=[r.nodes for r in rounds])


def calibration_for(cost: CostModel, trial: Trial, *, shared_target: bool = False) -> Calibration:
    """The cost model against the median race's own timings: plain samples, verification passes, draft steps.

    A draft that is the target leaves its check only the positions it did not draft (a chain: the bonus).
    """
    plain = [r.target_forward_s / r.target_forwards for r in trial.plain.generation.rounds if r.target_forwards]
    spec = [r for r in trial.speculative.generation.rounds if not r.plain and r.target_forwards == 1]
    checks = [(1 if shared_target else r.nodes + 1, r.target_forward_s) for r in spec if r.nodes == r.depth
              or not shared_target]
    steps = [r.draft_forward_s / r.depth for r in spec if r.draft_forward_s > 0 and r.nodes == r.depth]
    return check_calibration(cost, trial.speculative.label, plain, checks, steps)


def _legs(settings: GenerationSettings) -> list[tuple[str, GenerationSettings | None]]:
    """The legs of a race: plain, the chain (under a tree rule) and the speculative run."""
    legs: list[tuple[str, GenerationSettings | None]] = [(PLAIN, None)]
    if rule(settings.verification).width > 1:
        legs.append((CHAIN, replace(settings, verification=chain_rule(settings.verification).name)))
    return legs + [(SPECULATIVE, settings)]


def _trial(target: LoadedModel, prompt: str | Prefix, draft: DraftSpec, settings: GenerationSettings, index: int,
           *, draft_model: LoadedModel | None, progress: Progress | None,
           keep_raw: bool, stage: Stage | None = None, trials: int = TRIALS) -> tuple[Trial, Session]:
    """Race `index`: seed settings.seed + index; the legs' order rotates, so each goes first in turn."""
    seeded = replace(settings, seed=settings.seed + index)
    if stage is not None:  # a tree's first session runs the model's tree self-check (once per model): say so first
        stage(f"Race {index + 1} of {trials} (seed {seeded.seed}): starting its runs"
              + (" (the first tree session checks the model's tree scoring once)" if index == 0
                 and rule(settings.verification).width > 1 else ""))
    sessions = {name: Session(target, None if own is None else draft, replace(own or seeded, seed=seeded.seed),
                              prompt, draft_model=draft_model, top_n=None, keep_raw=keep_raw and name == SPECULATIVE)
                for name, own in _legs(seeded)}
    names = list(sessions)
    shift = index % len(names)
    order = names[shift:] + names[:shift]
    legs = {name: run_leg(name, sessions[name], progress) for name in order}
    return Trial(seeded.seed, legs), sessions[SPECULATIVE]


def race(target: LoadedModel, prompt: str | Prefix, draft: DraftSpec, settings: GenerationSettings, *,
         draft_model: LoadedModel | None = None, progress: Progress | None = None, keep_raw: bool = False,
         cost: CostModel | None = None, measure: bool = True, trials: int = TRIALS,
         stage: Stage | None = None) -> RaceResult:
    """`trials` interleaved races of plain sampling against speculative decoding, same prompt and processors.

    keep_raw keeps the median race's speculative traces (to inspect a round); the cost model is measured
    once per model, device and draft (cached) unless given, and checked against the median race's timings.
    progress hears each run start and each round; stage what happens between them (sessions, the cost model).
    """
    if not isinstance(trials, int) or isinstance(trials, bool) or trials < 1:
        raise ModelSettingError(f"trials must be a whole number >= 1, got {trials!r}")
    played = [_trial(target, prompt, draft, settings, i, draft_model=draft_model, progress=progress,
                     keep_raw=keep_raw, stage=stage, trials=trials) for i in range(trials)]
    result = RaceResult([t for t, _ in played], verification=rule(settings.verification).name)
    median = result.median_trial
    for trial in result.trials:  # only the shown race keeps its traces
        if trial is not median:
            for record in trial.speculative.generation.rounds:
                record.trace = None
    spec_leg = median.speculative
    if cost is None and measure and draft.kind != "model":
        widest = max((r.nodes + 1 for t in result.trials for r in t.speculative.generation.rounds), default=0)
        if stage is not None:
            stage("The races are done; the cost model times a target pass and a draft step on this device (measured "
                  "once per model, draft and device, then kept for a week)")
        cost = measure_costs(target, [draft], max_tokens=settings.depth + 1, widest=widest)
    if cost is not None and spec_leg.label in cost.draft_step_s:
        shared = isinstance(played[result.trials.index(median)][1].draft, SharedTargetDraft)
        _predict_and_explain(result, cost, spec_leg, shared, target.device.type, settings.verification)
    return result


def _predict_and_explain(result: RaceResult, cost: CostModel, leg: Leg, shared: bool, device_kind: str,
                         verification: str) -> None:
    """Set the result's prediction, calibration check and explanation (and forget an unreliable calibration)."""
    result.cost = cost
    result.prediction = prediction_for(cost, leg, shared_target=shared)
    result.calibration = calibration_for(cost, result.median_trial, shared_target=shared)
    if not result.calibration.reliable:
        forget_calibration(cost)
    if result.prediction is None:
        return
    s = leg.summary
    result.explanation = explain_speedup(
        cost, leg.label, result.prediction, result.speedup, plain_rounds=s.plain_rounds, device_kind=device_kind,
        spread=result.spread, races=len(result.trials), counts=(s.accepted, s.checked_drafts),
        verb=rule(verification).kept_verb, verify_share=s.time_s["verify_s"] / s.wall_s if s.wall_s else None,
        basis=expectation_basis(leg), calibration=result.calibration)


def trials_line(result: RaceResult) -> str:
    """Every race's speedup, in the order run, with which leg went first."""
    return "races: " + "; ".join(f"seed {t.seed} ({t.first} first) {t.speedup:.2f}x" for t in result.trials)


def race_table(result: RaceResult) -> list[str]:
    """The median race's legs side by side as text lines, every race, the prediction and why (the CLI's report)."""
    trial = result.median_trial
    names = [n for n in (PLAIN, CHAIN, SPECULATIVE) if n in trial.legs]
    rows = [(f"median race, seed {trial.seed}", *names)]
    for leg_name, get in (("tokens", lambda s: f"{s.tokens}"), ("wall time", lambda s: f"{s.wall_s:.2f} s"),
                          ("tokens/s", lambda s: f"{s.tokens_per_s:.1f}"),
                          ("target verification passes", lambda s: f"{s.target_forwards}"),
                          ("tokens per verification pass", lambda s: f"{s.tokens_per_target_forward:.2f}"),
                          ("drafted nodes per pass", lambda s: "-" if s.nodes_per_pass is None
                           else f"{s.nodes_per_pass:.2f}"),
                          ("target passes spent drafting", lambda s: f"{s.drafting_forwards}"),
                          ("the chain's tokens on the same draws", lambda s: "-" if s.chain_same_draws is None
                           else f"{s.chain_same_draws}")):
        rows.append((leg_name, *(get(trial.legs[n].summary) for n in names)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(names) + 1)]
    lines = ["  ".join([r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:])]) for r in rows]
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
    if result.prediction is None or result.cost is None or rule(result.verification).width > 1:
        return None  # the curves are the chain's formula: a tree is no point on them
    leg = result.speculative
    drafted = [len(r.drafted) for r in leg.generation.rounds if r.drafted]
    g = max(1, round(sum(drafted) / len(drafted))) if drafted else depth
    return {"acceptance_rate": leg.summary.acceptance_rate or 0.0, "cost_ratio": result.cost.draft_ratio(leg.label),
            "depth": g, "verify_ratio": result.cost.pass_ratio(g + 1), "measured_speedup": result.speedup,
            "predicted_speedup": result.prediction.speedup}
