"""The Preset box's words: a preset's name, 'custom (from close)' after an edit, the link's custom kept."""

from specviz.playground import presets
from specviz.scenario import Table


def test_box_label_follows_the_weights():
    close = presets.default_scenario()
    edited = close.with_changes(target=Table((9, 5, 4, 3, 2, 1)))
    assert presets.box_label("close", close) == "close"
    assert presets.box_label("close", edited) == presets.custom_from("close") == "custom (from close)"
    assert presets.box_label("custom (from close)", close) == "close"  # the edit undone
    assert presets.box_label("custom (from close)", edited) == "custom (from close)"
    assert presets.box_label(presets.CUSTOM, edited) == presets.CUSTOM
    assert presets.box_label("close", close.with_changes(depth=5, seed=3)) == "close"  # not a weight
    markov = presets.default_scenario(markov=True)
    assert presets.box_label("close", markov) == "close"


def test_describe_says_where_custom_weights_came_from():
    assert presets.describe("close") == presets.PRESETS["close"].description
    assert "‘far apart’ after your edits" in presets.describe(presets.custom_from("far apart"))
    assert presets.describe(presets.CUSTOM) == presets.CUSTOM_DESCRIPTION
    assert presets.edited_from("custom (from p = q)") == "p = q" and presets.edited_from("close") is None
