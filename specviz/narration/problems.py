"""What turns an exception into words for people: the page and the command line say the same refusal alike.

``problem_of`` turns an exception into a ``Problem`` (a title, the detail, how to fix it) chosen by the
exception's type (``functools.singledispatch``) and its structured fields, never by its message: a
``SpecvizError`` is a refused input (what to change), anything else is a bug in specviz (``bug_report``: the
exception's type and one line to copy, ``bug_line``). The Playground shows a Problem as a box
(``Problem.markdown``, ``app.playground.messages``), the command line as one line (``Problem.line``,
``refusal_line``); the real-models page and the Playground's measurements copy the same ``bug_line``.
``file_problem`` says why a file (a lecture script, a scenario) was not loaded.
"""

from __future__ import annotations

import math
import os
import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import singledispatch
from pathlib import Path

from ..core import (
    MAX_DEPTH,
    BlockError,
    MaskError,
    ProcessorError,
    ProposalError,
    SessionError,
    SpecvizError,
    SupportError,
    TokenError,
    TopKError,
    VerificationError,
    VocabularyMismatchError,
    WeightTypeError,
    WeightValueError,
)
from ..core.medusa import TypicalSupportError
from ..scenario import Scenario
from ..scenario.reading_errors import PlaygroundError


@dataclass(frozen=True)
class Problem:
    """What is wrong, in plain words, and how to get back to a working state.

    ``bug``: not a refused input but a bug in specviz (``bug_report``); ``detail`` is then the line to copy.
    """

    title: str
    detail: str
    fix: str
    unreadable: bool = False  # a link or file that was not opened (PlaygroundError.unreadable): nothing to undo
    bug: bool = False

    def markdown(self) -> str:
        return f"**{self.title}**  \n{self.detail}  \n*How to fix:* {self.fix}"

    def line(self) -> str:
        """The problem as one line of plain text (the command line's): its title, then its detail."""
        detail = " ".join(self.detail.split())
        shared = len(os.path.commonprefix([self.title, detail]))
        return detail if shared >= 20 else f"{self.title}: {detail}"  # a detail that starts as the title says it


@dataclass(frozen=True)
class Where:
    """Where a refusal happened, when the caller knows: the model ('target p', 'draft q'), the scenario, the row."""

    model: str | None = None
    scenario: Scenario | None = None
    row: int | None = None  # the previous token of a Markov row (None: the start row)

    def words(self) -> str:
        """'target p after ‘sat’', 'draft q', or 'this setting' when the model is not known."""
        if not self.model:
            return "this setting"
        name = _row_name(self.scenario, self.row) if self.scenario is not None else ""
        return f"{self.model} {name}".strip()


def _row_name(scenario: Scenario, row: int | None) -> str:
    if row is None:
        return "at the start" if scenario.target.rows is not None else ""
    return f"after ‘{scenario.vocab[row]}’"


# --- bugs: any exception that is not a SpecvizError -----------------------------------------------------
BUG_TITLE = "This is a bug in specviz"
BUG_FIX = ("Nothing you typed caused it: copy the line above into a bug report, with the page's link (it reopens "
           "this scenario and step). Another step or setting may still work.")
_PROJECT = Path(__file__).resolve().parents[2]  # the checkout: specviz/, views/, app.py


def _ours(filename: str) -> bool:
    path = Path(filename).resolve()
    return path.is_relative_to(_PROJECT) and "site-packages" not in path.parts


def _innermost_frame(error: BaseException) -> str:
    """'specviz/plots/tree_figures.py:123 in _layout': the deepest frame of the project's code (else the deepest)."""
    frames = traceback.extract_tb(error.__traceback__) if error.__traceback__ is not None else []
    if not frames:
        return ""
    frame = ([f for f in frames if _ours(f.filename)] or frames)[-1]
    path = Path(frame.filename).resolve()
    shown = path.relative_to(_PROJECT) if path.is_relative_to(_PROJECT) else Path(path.name)
    return f"{shown.as_posix()}:{frame.lineno} in {frame.name}"


def bug_line(error: BaseException) -> str:
    """One line to copy into a bug report: the exception's type, its first message line, where it was raised."""
    message = str(error).strip().splitlines()[0] if str(error).strip() else "(no message)"
    if len(message) > 200:
        message = message[:200] + "…"
    where = _innermost_frame(error)
    return f"{type(error).__name__}: {message}" + (f" (at {where})" if where else "")


def bug_report(error: BaseException) -> Problem:
    """A bug in specviz, said as one: its type and a line to copy, never advice to undo an input."""
    return Problem(BUG_TITLE, bug_line(error), BUG_FIX, bug=True)


# --- refusals, by the exception's type ------------------------------------------------------------------
@singledispatch
def _problem(error: BaseException, where: Where) -> Problem:
    """Any exception that is not a SpecvizError: a bug."""
    return bug_report(error)


def problem_of(error: BaseException, *, model: str | None = None, scenario: Scenario | None = None,
               row: int | None = None) -> Problem:
    """A Problem for any exception: a refused input for a SpecvizError (by its type), else a bug report.

    model is 'target p' or 'draft q' when known, row the previous token of a Markov row.
    """
    return _problem(error, Where(model, scenario, row))


@_problem.register
def _refused(error: SpecvizError, where: Where) -> Problem:
    return Problem("The exact core refused this setting", str(error), "Undo the last edit.")


@_problem.register
def _input(error: PlaygroundError, where: Where) -> Problem:
    if error.unreadable:  # nothing was loaded: no edit to undo, no nearest setting being played
        return Problem("This link or file cannot be opened", str(error),
                       "Nothing of it was loaded; the Playground keeps the scenario it showed. Check the link, "
                       "or load a file the Playground downloaded.", unreadable=True)
    return Problem("This input is not accepted", str(error), "Correct that input, or press “Undo last edit”.")


@_problem.register
def _weight_type(error: WeightTypeError, where: Where) -> Problem:
    return Problem(f"A weight of the {where.words()} is not a number", str(error),
                   "Type a number such as 3, 0.25 or 1/3 (weights need not sum to 1).")


def _negative_or_not_finite(weight: object) -> bool:
    if isinstance(weight, float):
        return not math.isfinite(weight) or weight < 0
    try:
        return Fraction(weight) < 0  # type: ignore[arg-type]
    except (TypeError, ValueError):  # not a number at all: not a question of FP32's range
        return True


def _weights(where: Where) -> Iterable[object] | None:
    """The weights the refusal is about: the named row, every weight of the scenario, or None (unknown)."""
    s = where.scenario
    if s is None:
        return None
    tables = [s.target if where.model.startswith("target") else s.draft] if where.model else [s.target, s.draft]
    rows = []
    for table in tables:
        if where.model and where.row is not None and table.rows is not None:
            rows.append(table.rows[where.row])
        elif where.model:
            rows.append(table.start)
        else:
            rows += [table.start, *(table.rows or ())]
    return [w for row in rows for w in row]


FP32_MAX = 3.4028234663852886e38  # the largest finite float32


def _too_large_for_fp32(weight: object) -> bool:
    try:
        return abs(Fraction(weight)) > Fraction(FP32_MAX)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def _row_of(where: Where) -> tuple | None:
    """The weights of the row a refusal names (the model's start row, or its row after a token); None if unknown."""
    s = where.scenario
    if s is None or not where.model:
        return None
    table = s.target if where.model.startswith("target") else s.draft
    if where.row is not None and table.rows is not None and 0 <= where.row < len(table.rows):
        return table.rows[where.row]
    return table.start


def _cell_words(where: Where, bad) -> str | None:
    """'Weight 2 (‘cat’) of the target p is -1' for the first weight of the named row that ``bad`` picks: weights
    counted from 1 and named by their token's label, as the weights table and a link name them; None if none."""
    row = _row_of(where)
    if row is None:
        return None
    for index, weight in enumerate(row):
        if bad(weight):
            label = where.scenario.vocab[index] if index < where.scenario.vocab_size else "?"
            shown = weight if not isinstance(weight, float) else repr(weight)
            return f"Weight {index + 1} (‘{label}’) of the {where.words()} is {_shown_weight(shown)}"
    return None


def _shown_weight(value: object) -> str:
    text = str(value)
    return text if len(text) <= 30 else f"{text[:12]}…{text[-12:]} ({len(text)} characters)"


@_problem.register
def _weight_value(error: WeightValueError, where: Where) -> Problem:
    """Negative or not finite, or (when every weight is a finite number ≥ 0 under FP32) too large for FP32."""
    weights = _weights(where)
    fp32 = where.scenario is not None and where.scenario.fp32
    if fp32 and weights is not None and not any(_negative_or_not_finite(w) for w in weights):
        cell = _cell_words(where, _too_large_for_fp32)
        return Problem(f"A weight of the {where.words()} is too large for FP32",
                       f"{cell}: above FP32's largest value ≈ 3.4e38." if cell else str(error),
                       "Scale the weights down (only their ratios matter) or switch FP32 off.")
    cell = _cell_words(where, _negative_or_not_finite)
    return Problem(f"A weight of the {where.words()} is negative or not finite",
                   f"{cell}: weights are finite numbers ≥ 0." if cell else str(error),
                   "Use a finite number ≥ 0; 0 removes the token.")


@_problem.register
def _support(error: SupportError, where: Where) -> Problem:
    model, scenario, words = where.model or "", where.scenario, where.words()
    if model.startswith("target"):
        if scenario is not None and scenario.target_mask is not None:
            return Problem(
                f"Every token the target allows has weight 0: the target has no support ({words})",
                "After the mask (and top-k / top-p) no token of p has positive weight, so the target "
                "cannot produce anything.",
                "Tick a token with positive p weight in the mask, or give an allowed token a weight.")
        return Problem(f"Every weight of the {words} is 0: the target has no support",
                       "p must give positive weight to at least one token, or the target cannot produce "
                       "anything.", "Give at least one token a positive p weight.")
    if model.startswith("draft"):
        return Problem(f"Every weight of the {words} is 0: the draft has no support",
                       "q must give positive weight to at least one token, or the draft cannot propose "
                       "anything.", "Give at least one token a positive q weight.")
    return Problem("A distribution has no support", str(error), "Give at least one token a positive weight.")


@_problem.register
def _typical_support(error: TypicalSupportError, where: Where) -> Problem:
    """Medusa's sampled rule truncates p below its threshold and nothing is left: the rule's settings, not a weight."""
    return Problem("Medusa's typical truncation keeps no token here", str(error),
                   "Lower ε or δ in the rule's settings, or switch Medusa's fast on (it commits p's most likely "
                   "token after a rejection, with no truncated sample).")


@_problem.register
def _session(error: SessionError, where: Where) -> Problem:
    return Problem("The verifier session refused this round", str(error),
                   "The request id must be nonempty and the generation ≥ 0; press Reset or New seed (a request "
                   "that committed a stop token plays no further round).")


# (error class, title, how to fix) for refusals whose message is shown as the core words it
_PLAIN: tuple[tuple[type[SpecvizError], str, str], ...] = (
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
    (VerificationError, "This verification rule cannot play here",
     "Pick tokenwise, block or a tree with the Verification switch."),
)


def _plain(title: str, fix: str):
    def told(error: SpecvizError, where: Where) -> Problem:
        return Problem(title, str(error), fix)

    return told


for _kind, _title, _fix in _PLAIN:
    _problem.register(_kind, _plain(_title, _fix))


def file_problem(error: BaseException, what: str) -> Problem:
    """A file (a lecture script, a scenario) that was not loaded: the refusal names the field to correct."""
    if not isinstance(error, SpecvizError):
        return bug_report(error)
    field = getattr(error, "field", "")  # LectureError, ScenarioError and PlaygroundError name their culprit
    fix = (f"Correct {field} in the file and load it again" if field else "Correct the file and load it again")
    return Problem(f"The {what} was not loaded", str(error),
                   fix + "; nothing of it was loaded, and the Playground keeps what it showed.", unreadable=True)


def refusal_line(error: SpecvizError) -> str:
    """A refusal as the command line prints it, after its ``prog: error:``: the line of the words the page shows
    when the refusal has its own (``problem_of``'s table), else the error's message, which names its flag or
    setting itself (a model that cannot load, a file that cannot be read)."""
    if _problem.dispatch(type(error)) is _refused:
        return " ".join(str(error).split())
    return problem_of(error).line()
