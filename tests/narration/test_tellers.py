"""One narration entry per event class of the trace, looked up exactly (``narration.tellers.WORDS``)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from trace_classes import event_classes

from specviz import narration
from specviz.core import trace
from specviz.core.categorical import Categorical
from specviz.narration import tellers


def test_every_event_class_of_the_trace_has_words():
    missing = [c.__name__ for c in event_classes() if c not in tellers.WORDS]
    assert not missing, f"no narration entry (narration.tellers.tells) for: {', '.join(missing)}"


def test_an_entry_is_either_a_rules_narration_or_the_chains_sentences():
    for cls, words in tellers.WORDS.items():
        assert (words.narrate is None) != (words.sentences is None), cls.__name__
        assert words.module.startswith("specviz.narration"), cls.__name__


def test_a_class_is_entered_once():
    with pytest.raises(AssertionError, match="told twice"):
        tellers.register(trace.CheckEvent, tellers.WORDS[trace.CheckEvent])


def test_a_subclass_without_an_entry_is_refused_not_told_as_its_parent():
    class NewCheckEvent(trace.CheckEvent):
        pass

    p = Categorical.dense([1, 1])
    event = NewCheckEvent(0, 0, (), p, p, 0, Fraction(1, 2), Fraction(1, 2), Fraction(1), 0, 1, True)
    setting = narration.Setting(("a", "b"), 2)
    with pytest.raises(AssertionError, match="no narration for NewCheckEvent"):
        narration.sentences(event, setting)
    with pytest.raises(AssertionError, match="NewCheckEvent"):
        narration.exact_values(event, setting.vocab)
