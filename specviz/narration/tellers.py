"""Who tells each trace event in words: one entry per event class, looked up exactly.

``WORDS`` maps each event class of ``specviz.core.trace`` to its ``Words``: how it is told (a rule's own
``narrate(event, vocab, formats)``, the same lines on the page and in the terminal; or the chain's ``sentences``
and ``numbers``, which read the scenario's setting), the exact values the page folds under it, and the tokens it
commits. A class is looked up exactly, never through its base class: a new subclass of ``CheckEvent`` is not
told as its parent with min(1, p/q), and ``tests/narration/test_tellers.py`` fails naming any class of
``core/trace.py`` without an entry. To tell a new event, write ``@tells(NewEvent, values=...)`` over a function
``(event, vocab, formats) -> (headline, lines)`` in its rule's narration module.

This module imports nothing of the narration it indexes (the rule modules import it to register), so it holds no
words itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

Narration = tuple[str, list[str]]
Values = list[tuple[str, Any]]
Narrate = Callable[[Any, Sequence[str], Any], Narration]  # (event, vocab, narration.block.Formats)
ValuesOf = Callable[[Any, Sequence[str]], Values]
Committed = Callable[[Any], list[tuple[int, str]]]


@dataclass(frozen=True)
class Words:
    """How one event class is told: exactly one of ``narrate`` (a rule's) and ``sentences`` (the chain's)."""

    values: ValuesOf  # (name, exact value) of every number the narration writes, as it names them
    narrate: Narrate | None = None  # a rule's: the same lines in both profiles (the terminal drops the bold)
    sentences: Callable[..., Narration] | None = None  # the chain's page sentences (event, setting, drafted, profile)
    numbers: Callable[..., list[str]] | None = None  # the chain's terminal numbers (event, vocab, profile)
    committed: Committed | None = None  # the (token, origin) it commits; None: by the class's ``origin``

    @property
    def module(self) -> str:
        """The narration module that tells it (``narration.engine_rule_words``, ...)."""
        return (self.narrate or self.sentences).__module__  # type: ignore[union-attr]


WORDS: dict[type, Words] = {}


def register(cls: type, words: Words) -> None:
    """Enter one event class's words (each class once: a second entry is a bug in the module that makes it)."""
    if cls in WORDS:
        raise AssertionError(f"{cls.__name__} is told twice")
    if (words.narrate is None) == (words.sentences is None):
        raise AssertionError(f"{cls.__name__}: give either a rule's narrate or the chain's sentences")
    WORDS[cls] = words


def tells(*classes: type, values: ValuesOf, committed: Committed | None = None) -> Callable[[Narrate], Narrate]:
    """Register a rule's narration ``(event, vocab, formats) -> (headline, lines)`` for these event classes (each
    exactly: a subclass needs its own entry), with the exact values it names."""

    def enter(narrate: Narrate) -> Narrate:
        for cls in classes:
            register(cls, Words(values=values, narrate=narrate, committed=committed))
        return narrate

    return enter


def words_of(event: Any) -> Words:
    """The words of this event's exact class; a class without an entry is a bug in specviz (an AssertionError naming
    it: every event class of ``core/trace.py`` has its entry, as the tests check)."""
    words = WORDS.get(type(event))
    if words is None:
        raise AssertionError(f"no narration for {type(event).__name__}: register one with narration.tellers.tells")
    return words


def own(event: Any, module: str) -> Words | None:
    """This event's words when the narration ``module`` tells it; None for any other event."""
    words = WORDS.get(type(event))
    return words if words is not None and words.module == module else None


def narrate_own(event: Any, vocab: Sequence[str], formats: Any, module: str) -> Narration | None:
    """(headline, lines) of this event when ``module`` tells it; None for any other event."""
    words = own(event, module)
    return None if words is None or words.narrate is None else words.narrate(event, vocab, formats)


def values_own(event: Any, vocab: Sequence[str], module: str) -> Values | None:
    """The exact values of this event when ``module`` tells it; None for any other event."""
    words = own(event, module)
    return None if words is None else words.values(event, vocab)


def draws(event: Any) -> Values:
    """The draw and its range, the first of most events' values."""
    return [("draw", event.draw), ("draw range", event.draw_range)]


def correction_values(event: Any, vocab: Sequence[str]) -> Values:
    """A correction's values: its draw, the residual's mass and the token's probability under it."""
    return draws(event) + [("residual mass", event.residual_mass),
                           (f"r({vocab[event.token]})", event.residual.prob(event.token))]
