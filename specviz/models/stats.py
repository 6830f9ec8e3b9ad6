"""Per-generation statistics: acceptance by draft position, measured alpha vs theory, time split."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from fractions import Fraction

import numpy as np

from specviz.core.block_verifier import tau_distribution
from specviz.models.generate import Generation
from specviz.theory import expected_tokens

TIME_PARTS = ("draft_forward_s", "draft_exact_s", "target_forward_s", "verify_s")
TIME_LABELS = {"draft_forward_s": "draft forward", "draft_exact_s": "draft sampling (exact)",
               "target_forward_s": "target forward", "verify_s": "exact verification"}


TOKEN_BASIS = "tokenwise formula at the mean alpha"
BLOCK_BASIS = "block verification, exact on these drafted blocks"


def _expected_tokens(rounds, mean_alpha: float | None, depth: int) -> float | None:
    """Theory's tokens per drafting round: block verification's exact E[kept] + 1 on the run's own blocks,
    else tokenwise's (1 - alpha^(depth+1)) / (1 - alpha) at the mean alpha."""
    blocks = [r.expected_accepted for r in rounds if r.expected_accepted is not None]
    if blocks:
        return 1.0 + sum(blocks) / len(blocks)
    return float(expected_tokens(min(1.0, mean_alpha), depth)) if mean_alpha is not None else None


@dataclass
class Summary:
    """What a generation measured, ready for a table or JSON."""

    device: str
    rounds: int
    tokens: int
    drafted: int
    accepted: int
    corrections: int
    bonuses: int
    reached: list[int]
    accepted_at: list[int]
    acceptance_by_position: list[float | None]
    alpha_by_position: list[float | None]
    mean_alpha: float | None
    tokens_per_round: float
    expected_tokens_per_round: float | None
    expected_basis: str
    target_forwards: int
    tokens_per_target_forward: float
    drafting_forwards: int
    plain_rounds: int
    checks: int
    acceptance_rate: float | None
    time_s: dict[str, float]
    wall_s: float
    tokens_per_s: float

    def to_dict(self) -> dict:
        """JSON-ready."""
        return asdict(self)


def summarize(gen: Generation, depth: int) -> Summary:
    """Summary statistics of a generation drafted at (up to) the given depth.

    Target forwards count verification passes (and the passes of plain target samples); forwards of the
    target spent *drafting* (q = p, or the target re-processed) are `drafting_forwards`, kept apart so
    that q = p reads depth + 1 tokens per verification pass.
    """
    rounds = gen.rounds
    reached, accepted_at = [0] * depth, [0] * depth
    alpha_sums = [0.0] * depth
    for r in rounds:
        for position, value in enumerate(r.alphas[:depth]):
            reached[position] += 1
            alpha_sums[position] += value
            accepted_at[position] += position < r.accepted
    checked = [a for r in rounds for a in r.alphas]
    mean_alpha = float(np.mean(checked)) if checked else None
    wall = sum(r.wall_s for r in rounds)
    forwards = sum(r.target_forwards for r in rounds)  # verification passes (and plain samples) only
    n_tokens = len(gen.tokens)
    origins = [o for r in rounds for o in r.origins]
    return Summary(
        device=gen.device,
        rounds=len(rounds),
        tokens=n_tokens,
        drafted=sum(len(r.drafted) for r in rounds),
        accepted=sum(r.accepted for r in rounds),
        corrections=origins.count("correction"),
        bonuses=origins.count("bonus"),
        reached=reached,
        accepted_at=accepted_at,
        acceptance_by_position=[a / n if n else None for a, n in zip(accepted_at, reached)],
        alpha_by_position=[s / n if n else None for s, n in zip(alpha_sums, reached)],
        mean_alpha=mean_alpha,
        tokens_per_round=n_tokens / len(rounds) if rounds else 0.0,
        expected_tokens_per_round=_expected_tokens(rounds, mean_alpha, depth),
        expected_basis=BLOCK_BASIS if any(r.expected_accepted is not None for r in rounds) else TOKEN_BASIS,
        target_forwards=forwards,
        tokens_per_target_forward=n_tokens / forwards if forwards else 0.0,
        drafting_forwards=sum(r.draft_target_forwards for r in rounds),
        plain_rounds=sum(r.plain for r in rounds),
        checks=sum(reached),
        acceptance_rate=sum(accepted_at) / sum(reached) if sum(reached) else None,
        time_s={part: sum(getattr(r, part) for r in rounds) for part in TIME_PARTS},
        wall_s=wall,
        tokens_per_s=n_tokens / wall if wall else 0.0,
    )


def acceptance_words(s: Summary) -> str:
    """The acceptance rate with its denominator: checked drafts (tokenwise stops checking at a rejection)."""
    if not s.checks:
        return "no draft was checked"
    rate = f"{s.accepted} of {s.checks} checked drafts, {100 * s.accepted / s.checks:.0f}%"
    unchecked = s.drafted - s.checks
    return rate + (f"; {unchecked} drafted after a rejection were never checked" if unchecked > 0 else "")


def format_summary(s: Summary) -> str:
    """A plain-text block of the statistics for the terminal."""
    def pct(value: float | None) -> str:
        return "  -  " if value is None else f"{100 * value:5.1f}%"

    drafting = f"; {s.drafting_forwards} more target forwards spent drafting" if s.drafting_forwards else ""
    plain = f"; {s.plain_rounds} rounds without a draft (plain target samples)" if s.plain_rounds else ""
    lines = [
        f"device: {s.device}",
        f"tokens: {s.tokens} in {s.rounds} rounds ({s.tokens_per_round:.2f} per round; theory "
        f"{s.expected_tokens_per_round:.2f} per drafting round, {s.expected_basis})"
        if s.expected_tokens_per_round is not None else f"tokens: {s.tokens} in {s.rounds} rounds",
        f"drafts: {s.accepted}/{s.drafted} accepted ({acceptance_words(s)}); {s.corrections} corrections, "
        f"{s.bonuses} bonus tokens{plain}",
        f"tokens per target verification pass: {s.tokens_per_target_forward:.2f} ({s.target_forwards} passes"
        f"{drafting})",
        "position  reached  accepted  measured  alpha(p,q)",
    ]
    for i, (n, a, rate, alpha) in enumerate(zip(s.reached, s.accepted_at, s.acceptance_by_position,
                                                 s.alpha_by_position)):
        lines.append(f"{i:>8}  {n:>7}  {a:>8}  {pct(rate):>8}  {pct(alpha):>10}")
    wall = s.wall_s or 1.0
    split = ", ".join(f"{TIME_LABELS[k]} {v:.2f}s ({100 * v / wall:.0f}%)" for k, v in s.time_s.items())
    lines.append(f"time: {s.wall_s:.2f}s, {s.tokens_per_s:.1f} tokens/s; {split}")
    return "\n".join(lines)


def paired_expected_accepted(gen: Generation) -> tuple[Fraction, Fraction, int] | None:
    """Exact expected accepted drafts per round under tokenwise and under block verification, on the same blocks.

    Reads a block-verification run kept with its traces: each drafted block's p(x_i) and q(x_i) give
    tokenwise's sum_k prod_{i <= k} min(1, p/q), and its stop probabilities give block verification's
    E[tau]. Both averaged over the same drafted blocks (common draws: a paired comparison, far less
    noisy than two separate runs). None when no round kept a block trace.
    """
    token = block = Fraction(0)
    blocks = 0
    for record in gen.rounds:
        decisions = record.trace.of_kind("block_decision") if record.trace is not None else []
        if not decisions:
            continue
        running = Fraction(1)
        for check in record.trace.of_kind("block_check"):
            running *= min(Fraction(1), check.p_token / check.q_token)
            token += running
        block += sum(i * w for i, w in enumerate(tau_distribution(decisions[0].stop_probabilities)))
        blocks += 1
    return (token / blocks, block / blocks, blocks) if blocks else None
