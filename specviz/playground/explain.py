"""Plain-language explanations of everything the exact core (or the Playground) refuses.

``check_scenario`` builds every distribution a scenario can use (each row of p and q,
the target processor, the draft top-k) one by one, so a refusal can name the row and
the model; ``explain`` turns any exception into a ``Problem`` the page can show in
place of a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core import (
    MAX_DEPTH,
    BlockError,
    MaskError,
    Owner,
    ProcessorError,
    ProposalError,
    SessionError,
    SpecvizError,
    SupportError,
    TokenError,
    TopKError,
    VocabularyMismatchError,
    WeightTypeError,
    WeightValueError,
)
from ..scenario import Scenario
from .presets import MAX_VOCAB, MIN_VOCAB


class PlaygroundError(SpecvizError, ValueError):
    """An input the Playground refuses before the core sees it (vocabulary, table shape, link text).

    ``field`` names the input ('p', 'step', 'file', ...; '' when the message says it alone).
    ``unreadable`` is True for a link or file that could not be opened at all: nothing of it was
    loaded, so there is no edit to undo and no nearest setting being played.
    """

    def __init__(self, message: str, *, field: str = "", unreadable: bool = False):
        super().__init__(message)
        self.field = field
        self.unreadable = unreadable


@dataclass(frozen=True)
class Problem:
    """What is wrong, in plain words, and how to get back to a working state."""

    title: str
    detail: str
    fix: str
    unreadable: bool = False  # a link or file that was not opened (PlaygroundError.unreadable): nothing to undo

    def markdown(self) -> str:
        return f"**{self.title}**  \n{self.detail}  \n*How to fix:* {self.fix}"


def _row_name(scenario: Scenario, row: int | None) -> str:
    if row is None:
        return "at the start" if scenario.target.rows is not None else ""
    return f"after ‘{scenario.vocab[row]}’"


def _where(model: str, scenario: Scenario | None, row: int | None) -> str:
    if scenario is None:
        return model
    name = _row_name(scenario, row)
    return f"{model} {name}".strip()


# (error class, title, how to fix) for refusals whose message is shown as the core words it
_PLAIN: tuple[tuple[type[Exception], str, str], ...] = (
    (MaskError, "The target mask does not match the vocabulary",
     "Tick or untick one box per token (the mask is reset when the vocabulary changes)."),
    (TopKError, "Top-k is outside the vocabulary", "Pick k between 1 and the number of tokens."),
    (ProcessorError, "A target setting is out of range",
     "Temperature must be > 0 and top-p in (0, 1]; 1 means no change."),
    (TokenError, "A token id is outside the vocabulary",
     "Stop tokens and prefixes must name tokens of the vocabulary."),
    (BlockError, "The draft block is not valid", f"Choose a depth between 1 and {MAX_DEPTH}."),
    (ProposalError, "The draft proposed a token it gives zero probability",
     "This cannot happen with the Playground's own draft; reload the preset."),
    (VocabularyMismatchError, "p and q use different vocabularies", "Give both tables one weight per token."),
)


def explain(error: BaseException, *, model: str | None = None, scenario: Scenario | None = None,
            row: int | None = None) -> Problem:
    """A Problem for any exception; model is 'target p' or 'draft q' when known, row the previous token."""
    where = _where(model, scenario, row) if model else "this setting"
    raw = str(error)
    if isinstance(error, PlaygroundError):
        return _input_problem(error)
    if isinstance(error, (WeightTypeError, WeightValueError)):
        return _weight_problem(error, where)
    if isinstance(error, SupportError):
        return _support_problem(raw, model, scenario, where)
    for kind, title, fix in _PLAIN:
        if isinstance(error, kind):
            return Problem(title, raw, fix)
    if isinstance(error, SessionError):
        if "stopped" in raw:
            return Problem("The request has stopped", "A stop token was committed, so no further round can be "
                           "played from this prefix.", "Press Reset or New seed, or untick the stop token.")
        return Problem("The verifier session refused this round", raw,
                       "The request id must be nonempty and the generation ≥ 0; press Reset.")
    if isinstance(error, SpecvizError):
        return Problem("The exact core refused this setting", raw, "Undo the last edit.")
    return Problem("Unexpected error", f"{type(error).__name__}: {raw}", "Undo the last edit or reload a preset.")


def _input_problem(error: PlaygroundError) -> Problem:
    if error.unreadable:  # nothing was loaded: no edit to undo, no nearest setting being played
        return Problem("This link or file cannot be opened", str(error),
                       "Nothing of it was loaded; the Playground keeps the scenario it showed. Check the link, "
                       "or load a file the Playground downloaded.", unreadable=True)
    return Problem("This input is not accepted", str(error), "Correct that input, or press “Undo last edit”.")


def _weight_problem(error: Exception, where: str) -> Problem:
    raw = str(error)
    if isinstance(error, WeightTypeError):
        return Problem(f"A weight of the {where} is not a number", raw,
                       "Type a number such as 3, 0.25 or 1/3 (weights need not sum to 1).")
    if "FP32" in raw:
        return Problem(f"A weight of the {where} is too large for FP32", raw,
                       "Scale the weights down (only their ratios matter) or switch FP32 off.")
    return Problem(f"A weight of the {where} is negative or not finite", raw,
                   "Use a finite number ≥ 0; 0 removes the token.")


def _support_problem(raw: str, model: str | None, scenario: Scenario | None, where: str) -> Problem:
    if model and model.startswith("target"):
        if scenario is not None and scenario.target_mask is not None:
            return Problem(
                f"Every token the target allows has weight 0: the target has no support ({where})",
                "After the mask (and top-k / top-p) no token of p has positive weight, so the target "
                "cannot produce anything.",
                "Tick a token with positive p weight in the mask, or give an allowed token a weight.")
        return Problem(f"Every weight of the {where} is 0: the target has no support",
                       "p must give positive weight to at least one token, or the target cannot produce "
                       "anything.", "Give at least one token a positive p weight.")
    if model and model.startswith("draft"):
        return Problem(f"Every weight of the {where} is 0: the draft has no support",
                       "q must give positive weight to at least one token, or the draft cannot propose "
                       "anything.", "Give at least one token a positive q weight.")
    return Problem("A distribution has no support", raw, "Give at least one token a positive weight.")


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
            return [explain(PlaygroundError(f"The {model} table has {len(table.rows)} rows after a previous "
                                            f"token; it needs one per token ({v})."))]
        rows += list(enumerate(table.rows))
    problems = []
    for row, weights in rows:
        if len(weights) != v:
            problems.append(explain(PlaygroundError(
                f"The {_where(model, scenario, row)} has {len(weights)} weights; it needs one per token ({v}).")))
            continue
        prefix = () if row is None else (row,)
        try:
            if model.startswith("target"):
                scenario.processor()(prefix, scenario.target_model()(prefix))
            else:
                scenario.draft_model()(prefix)
        except Exception as error:  # noqa: BLE001 - every refusal becomes a message
            problems.append(explain(error, model=model, scenario=scenario, row=row))
    return problems


def check_scenario(scenario: Scenario) -> list[Problem]:
    """Every problem that would stop this scenario from playing, in plain language (empty: it plays)."""
    try:
        check_vocab(scenario.vocab)
    except PlaygroundError as error:
        return [explain(error)]
    v = scenario.vocab_size
    problems: list[Problem] = []
    if type(scenario.depth) is not int or not 1 <= scenario.depth <= MAX_DEPTH:
        problems.append(explain(BlockError(f"depth must be in 1..{MAX_DEPTH}, got {scenario.depth!r}")))
    if scenario.draft_topk is not None and (type(scenario.draft_topk) is not int or not 1 <= scenario.draft_topk <= v):
        problems.append(explain(TopKError(f"draft top-k must be an int in 1..{v}, got {scenario.draft_topk!r}")))
    if scenario.target_top_k is not None and (type(scenario.target_top_k) is not int
                                              or not 1 <= scenario.target_top_k <= v):
        problems.append(explain(TopKError(f"target top-k must be an int in 1..{v}, got {scenario.target_top_k!r}")))
    if scenario.target_mask is not None and len(scenario.target_mask) != v:
        problems.append(explain(MaskError(f"the mask has {len(scenario.target_mask)} values for {v} tokens")))
    for stop in sorted(scenario.stop_ids):
        if type(stop) is not int or not 0 <= stop < v:
            problems.append(explain(TokenError(f"stop token id {stop!r} outside 0..{v - 1}")))
    try:
        Owner(scenario.request_id, scenario.generation)
    except SessionError as error:
        problems.append(explain(error))
    try:
        scenario.processor()
    except Exception as error:  # noqa: BLE001
        problems.append(explain(error))
    if problems:
        return problems
    problems += _check_rows(scenario, "target p")
    problems += _check_rows(scenario, "draft q")
    return problems


def first_problem(scenario: Scenario) -> Problem | None:
    problems = check_scenario(scenario)
    return problems[0] if problems else None


__all__ = ["PlaygroundError", "Problem", "check_scenario", "check_vocab", "explain",
           "first_problem"]
