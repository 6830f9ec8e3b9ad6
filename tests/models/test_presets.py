"""The presets tell the story of when speculative decoding pays off."""

from __future__ import annotations

import pytest

from specviz.models.model_presets import DEFAULT, PRESETS, by_name


def test_presets_tell_the_story_in_order():
    assert DEFAULT is PRESETS[0] and DEFAULT.draft_spec.kind == "lookup"
    assert 0.3 <= DEFAULT.temperature <= 0.5 and "Repeat this text" in DEFAULT.prompt
    kinds = [p.draft_spec.kind for p in PRESETS]
    assert kinds == ["lookup", "lookup", "early-exit", "early-exit", "bf16"]
    assert PRESETS[3].draft_spec.layers == 30  # SmolLM2's full depth: q = p
    assert by_name(PRESETS[1].name) is PRESETS[1]
    tree = PRESETS[1]
    assert tree.verification == "exact-match:3" and tree.settings().verification == "exact-match:3"  # its rule
    assert "The red fox ran to the barn." in tree.prompt and DEFAULT.settings().verification == "token"
    with pytest.raises(ValueError, match="unknown preset"):
        by_name("nope")
    settings = DEFAULT.settings(seed=7)
    assert (settings.seed, settings.depth, settings.temperature) == (7, DEFAULT.depth, DEFAULT.temperature)
