"""Per-generation statistics: acceptance by draft position, measured alpha vs theory, time split."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from fractions import Fraction

import numpy as np

from specviz.core.block_verifier import tau_distribution
from specviz.core.verification import rule
from specviz.models.round_loop import Generation
from specviz.theory import expected_tokens

TIME_PARTS = ("draft_forward_s", "draft_exact_s", "target_forward_s", "verify_s")
TIME_LABELS = {"draft_forward_s": "draft forward", "draft_exact_s": "draft sampling (exact)",
               "target_forward_s": "target forward", "verify_s": "exact verification"}


TOKEN_BASIS = "tokenwise formula at the mean alpha and each round's own depth"
BLOCK_BASIS = "block verification, exact on these drafted blocks"


def round_expected_tokens(rounds, mean_alpha: float | None) -> list[float | None]:
    """Theory's committed tokens for each round: None for a plain sample or a tree round (no formula here);
    block verification's exact E[kept] + 1 on the round's own block; otherwise tokenwise's
    (1 - alpha^(g+1)) / (1 - alpha) at the run's mean alpha and the round's own depth g.

    The one definition the page's chart, the command line and the cost model's prediction all read.
    """
    out: list[float | None] = []
    for r in rounds:
        if r.plain or not r.drafted or r.shape != "chain":
            out.append(None)
        elif r.expected_accepted is not None:
            out.append(1.0 + r.expected_accepted)
        elif mean_alpha is not None:
            out.append(float(expected_tokens(min(1.0, mean_alpha), len(r.drafted))))
        else:
            out.append(None)
    return out


def _mean(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


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
    expected_tokens_per_round: float | None  # per drafting round (plain samples and tree rounds left out)
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
    verification: str = "token"
    tree_width: int = 1  # drafts per node (1: a chain)
    nodes: int = 0  # drafted nodes the target scored, over every round
    nodes_per_pass: float | None = None  # drafted nodes per target verification pass of a drafting round
    checked_drafts: int = 0  # drafts tested against the target (a tree's siblings included)
    tree_scoring: dict | None = None  # how the target scored trees (one pass or per path, and why)
    chain_same_draws: int | None = None  # an exact-match lookup tree: the lookup chain's tokens on the same draws
    rounds_ahead_of_chain: int = 0  # rounds where the tree committed more than that chain (never fewer)

    def to_dict(self) -> dict:
        """JSON-ready."""
        return asdict(self)


def summarize(gen: Generation, depth: int) -> Summary:
    """Summary statistics of a generation drafted at (up to) the given depth (under gen.verification).

    Target forwards count verification passes (and the passes of plain target samples); forwards of the
    target spent *drafting* (q = p, or the target re-processed) are `drafting_forwards`, kept apart so
    that q = p reads depth + 1 tokens per verification pass. For a tree, a position is a depth of the
    tree: reached when the walk got there, accepted when one of the node's children was accepted.
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
    drafting = [r for r in rounds if not r.plain]
    drafting_passes = sum(r.target_forwards for r in drafting)
    n_tokens = len(gen.tokens)
    origins = [o for r in rounds for o in r.origins]
    found = rule(gen.verification)
    expected = _mean(round_expected_tokens(rounds, mean_alpha)) if found.width == 1 else None
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
        expected_tokens_per_round=expected,
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
        verification=found.name,
        tree_width=found.width,
        nodes=sum(r.nodes for r in rounds),
        nodes_per_pass=sum(r.nodes for r in drafting) / drafting_passes if drafting_passes else None,
        checked_drafts=sum(r.checked for r in rounds),
        tree_scoring=gen.tree_scoring.to_dict() if gen.tree_scoring is not None else None,
        chain_same_draws=sum(r.chain_tokens for r in rounds) if rounds and all(  # type: ignore[misc]
            r.chain_tokens is not None for r in rounds) else None,
        rounds_ahead_of_chain=sum(r.chain_tokens is not None and len(r.tokens) > r.chain_tokens for r in rounds),
    )


def acceptance_words(s: Summary) -> str:
    """The acceptance rate with its denominator: checked drafts (tokenwise stops checking at a rejection; a tree
    checks siblings until one is accepted, and counts a depth as reached when its walk got there)."""
    if not s.checked_drafts and not s.checks:
        return "no draft was checked"
    if s.tree_width > 1:
        return (f"{s.accepted} of {s.checked_drafts} checked drafts, {100 * s.accepted / s.checked_drafts:.0f}%; "
                f"a child accepted at {s.accepted} of {s.checks} tree depths reached")
    checked = s.checked_drafts or s.checks  # one denominator with the page's "Accepted / checked" card
    rate = f"{s.accepted} of {checked} checked drafts, {100 * s.accepted / checked:.0f}%"
    unchecked = s.drafted - checked
    return rate + (f"; {unchecked} drafted after a rejection were never checked" if unchecked > 0 else "")


def tree_words(s: Summary) -> str | None:
    """How the target scored the trees, with the nodes per pass (None for a chain)."""
    if s.tree_width == 1:
        return None
    how = s.tree_scoring["words"] if s.tree_scoring else "no tree was drafted"
    per_pass = "" if s.nodes_per_pass is None else f"; {s.nodes_per_pass:.1f} drafted nodes per target pass"
    return f"tree scoring: {how}{per_pass}"


def same_draws_words(s: Summary) -> str | None:
    """An exact-match lookup tree against its chain on the very same draws (None when not measured)."""
    if s.chain_same_draws is None:
        return None
    return (f"on the same draws the lookup chain would have committed {s.chain_same_draws} tokens in these "
            f"{s.rounds} rounds ({s.chain_same_draws / s.rounds:.2f} per target pass), the tree {s.tokens} "
            f"({s.tokens_per_target_forward:.2f}): more in {s.rounds_ahead_of_chain} rounds, fewer in none")


def format_summary(s: Summary) -> str:
    """A plain-text block of the statistics for the terminal."""
    def pct(value: float | None) -> str:
        return "  -  " if value is None else f"{100 * value:5.1f}%"

    drafting = f"; {s.drafting_forwards} more target forwards spent drafting" if s.drafting_forwards else ""
    plain = f"; {s.plain_rounds} rounds without a draft (plain target samples)" if s.plain_rounds else ""
    lines = [
        f"device: {s.device}",
        f"tokens: {s.tokens} in {s.rounds} rounds ({s.tokens_per_round:.2f} per round; theory "
        f"{s.expected_tokens_per_round:.2f} per drafting round, {s.expected_basis}, over "
        f"{s.rounds - s.plain_rounds} drafting rounds)"
        if s.expected_tokens_per_round is not None else f"tokens: {s.tokens} in {s.rounds} rounds",
        f"drafts: {s.accepted}/{s.drafted} accepted ({acceptance_words(s)}); {s.corrections} corrections, "
        f"{s.bonuses} bonus tokens{plain}",
        f"tokens per target verification pass: {s.tokens_per_target_forward:.2f} ({s.target_forwards} passes"
        f"{drafting})",
        *filter(None, [tree_words(s), same_draws_words(s)]),
        "position  reached  accepted  measured  alpha(p,q)" if s.tree_width == 1 else
        "   depth  reached  accepted  measured  alpha(p,q)",
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
