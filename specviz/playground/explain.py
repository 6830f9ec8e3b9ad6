"""The Playground's checks of a scenario before it plays, each refusal in plain language.

``check_scenario`` builds every distribution a scenario can use (each row of p and q, the target
processor, the draft top-k) one by one, so a refusal can name the row and the model. The words for a refusal or
a bug (``Problem``, ``problem_of``, ``bug_report``, ...) live in ``specviz.narration.problems``, which the command
line uses too; they are named here as well for the Playground's callers.
"""

from __future__ import annotations

from ..core import MAX_DEPTH, BlockError, MaskError, Owner, SessionError, SpecvizError, TokenError, TopKError
from ..narration.problems import (
    BUG_FIX,
    BUG_TITLE,
    Problem,
    Where,
    bug_line,
    bug_report,
    file_problem,
    problem_of,
)
from ..scenario import Scenario
from ..scenario.reading_errors import PlaygroundError
from .presets import MAX_VOCAB, MIN_VOCAB

explain = problem_of  # the name older callers import


def _where(model: str, scenario: Scenario | None, row: int | None) -> str:
    return Where(model, scenario, row).words()


def check_vocab(vocab: tuple[str, ...]) -> None:
    """Raise PlaygroundError unless the labels are 2..12 distinct nonempty strings."""
    if not MIN_VOCAB <= len(vocab) <= MAX_VOCAB:
        raise PlaygroundError(f"The vocabulary needs {MIN_VOCAB} to {MAX_VOCAB} tokens; it has {len(vocab)}.")
    for label in vocab:
        if not label.strip():
            raise PlaygroundError("A token label is empty; give every token a visible label.")
    seen: set[str] = set()
    for label in vocab:
        if label in seen:
            raise PlaygroundError(f"The label ‘{label}’ appears twice; every token needs its own label.")
        seen.add(label)


def _check_rows(scenario: Scenario, model: str) -> list[Problem]:
    table = scenario.target if model.startswith("target") else scenario.draft
    v = scenario.vocab_size
    rows: list[tuple[int | None, tuple]] = [(None, table.start)]
    if table.rows is not None:
        if len(table.rows) != v:
            return [problem_of(PlaygroundError(f"The {model} table has {len(table.rows)} rows after a previous "
                                            f"token; it needs one per token ({v})."))]
        rows += list(enumerate(table.rows))
    problems = []
    for row, weights in rows:
        if len(weights) != v:
            problems.append(problem_of(PlaygroundError(
                f"The {_where(model, scenario, row)} has {len(weights)} weights; it needs one per token ({v}).")))
            continue
        prefix = () if row is None else (row,)
        try:
            if model.startswith("target"):
                scenario.processor()(prefix, scenario.target_model()(prefix))
            else:
                scenario.draft_model()(prefix)
        except SpecvizError as error:  # a refusal becomes a message; anything else is a bug, shown as one
            problems.append(problem_of(error, model=model, scenario=scenario, row=row))
    return problems


def check_scenario(scenario: Scenario) -> list[Problem]:
    """Every problem that would stop this scenario from playing, in plain language (empty: it plays)."""
    try:
        check_vocab(scenario.vocab)
    except PlaygroundError as error:
        return [problem_of(error)]
    v = scenario.vocab_size
    problems: list[Problem] = []
    if type(scenario.depth) is not int or not 1 <= scenario.depth <= MAX_DEPTH:
        problems.append(problem_of(BlockError(f"depth must be in 1..{MAX_DEPTH}, got {scenario.depth!r}")))
    if scenario.draft_topk is not None and (type(scenario.draft_topk) is not int or not 1 <= scenario.draft_topk <= v):
        problems.append(problem_of(TopKError(f"draft top-k must be an int in 1..{v}, got {scenario.draft_topk!r}")))
    if scenario.target_top_k is not None and (type(scenario.target_top_k) is not int
                                              or not 1 <= scenario.target_top_k <= v):
        problems.append(problem_of(TopKError(f"target top-k must be an int in 1..{v}, got {scenario.target_top_k!r}")))
    if scenario.target_mask is not None and len(scenario.target_mask) != v:
        problems.append(problem_of(MaskError(f"the mask has {len(scenario.target_mask)} values for {v} tokens")))
    for stop in sorted(scenario.stop_ids):
        if type(stop) is not int or not 0 <= stop < v:
            problems.append(problem_of(TokenError(f"stop token id {stop!r} outside 0..{v - 1}")))
    try:
        Owner(scenario.request_id, scenario.generation)
    except SessionError as error:
        problems.append(problem_of(error))
    try:
        scenario.processor()
    except SpecvizError as error:
        problems.append(problem_of(error))
    if problems:
        return problems
    problems += _check_rows(scenario, "target p")
    problems += _check_rows(scenario, "draft q")
    return problems


__all__ = ["BUG_FIX", "BUG_TITLE", "PlaygroundError", "Problem", "bug_line", "bug_report", "check_scenario",
           "check_vocab", "explain", "file_problem", "problem_of"]
