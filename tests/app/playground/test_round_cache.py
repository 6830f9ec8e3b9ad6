"""Rounds built once per (scenario, round, presenter) for every session of the process, as the bytes the player is
sent; bounded; a refusal is never cached."""

from __future__ import annotations

import json

import pytest

from specviz.app.playground import round_cache
from specviz.app.playground.round_cache import RoundFrames
from specviz.core.errors import SpecvizError
from specviz.player import round_frames
from specviz.playground import presets
from specviz.playground.state import timeline_for

FAR = presets.apply_preset(presets.default_scenario(), "far apart").with_changes(seed=1)


def test_a_round_is_built_once_and_sent_as_its_json(monkeypatch):
    built = []
    real = round_frames.payload
    monkeypatch.setattr(round_frames, "payload", lambda *a: built.append(a) or real(*a))
    cache = RoundFrames(capacity=2)
    timeline_for(FAR).ensure_rounds(3)
    first = cache.get(FAR, 0, False)
    assert cache.get(FAR, 0, False) is first and len(built) == 1
    assert json.loads(first) == json.loads(json.dumps(real(FAR, 0, False)))
    cache.get(FAR, 0, True)
    cache.get(FAR, 1, False)  # the third: the least recently used goes
    assert cache.info() == round_cache.CacheInfo(hits=1, misses=3, size=2)
    cache.get(FAR, 0, False)
    assert len(built) == 4


def test_a_refusal_is_raised_each_time_and_never_cached(monkeypatch):
    calls = []

    def refuse(*args):
        calls.append(args)
        raise SpecvizError("refused")

    monkeypatch.setattr(round_frames, "payload", refuse)
    cache = RoundFrames()
    for _ in range(2):
        with pytest.raises(SpecvizError):
            cache.get(FAR, 0, False)
    assert len(calls) == 2 and cache.info().size == 0
