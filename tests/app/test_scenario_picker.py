"""The lab's and theory's scenario picker: preset scenarios and the exact cache keys."""

from __future__ import annotations

from specviz.app import measured
from specviz.app import scenario_picker as picker
from specviz.playground import presets
from specviz.playground.presets import preset_scenario


def test_a_preset_scenario_uses_the_default_words_at_six_tokens_and_letters_otherwise():
    assert preset_scenario("close", 6, 3, False).vocab == presets.DEFAULT_VOCAB
    four = preset_scenario("far apart", 4, 2, True)
    assert four.vocab == ("a", "b", "c", "d") and four.depth == 2 and four.target.rows is not None


def test_the_cache_key_gives_back_the_same_scenario():
    scenario = preset_scenario("stop-heavy", 5, 4, True).with_changes(seed=7)
    key = picker.to_key(scenario)
    assert picker.from_key(key) == scenario and picker.to_key(picker.from_key(key)) == key
    assert picker.to_key(scenario.with_changes(seed=8)) != key


def test_the_playground_scenario_is_found_only_when_it_is_one():
    scenario = preset_scenario("close", 6, 3, False)
    assert measured.playground_scenario({measured.PLAYGROUND_SCENARIO: scenario}) == scenario
    assert measured.playground_scenario({measured.PLAYGROUND_SCENARIO: "close"}) is None
    assert measured.playground_scenario({}) is None and measured.collect({}) == measured.Collected()
