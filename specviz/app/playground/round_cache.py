"""A round's frames, built once per (scenario, round, presenter) and shared by every session of the process.

A round's frames (``specviz.player.round_frames.payload``) are a pure function of the link's state: a class that follows
the lecturer's link walks the same rounds, so each is built once, not once per student, and kept as the UTF-8
JSON the player is sent (serialized once too). The cache is bounded (least recently used first out); a refusal
(the core's, or a bug) is raised to the caller each time and never cached.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass

from ...player import round_frames as player_rounds
from ...scenario import Scenario

ROUNDS = 256  # 20-270 KB a round at V = 12 (a width-3, depth-3 tree the largest): 70 MB at most
Key = tuple[Scenario, int, bool]


@dataclass(frozen=True)
class CacheInfo:
    hits: int
    misses: int
    size: int


def encode(payload: dict) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


class RoundFrames:
    """A bounded, thread-safe LRU of built rounds (Streamlit runs each session's script in its own thread)."""

    def __init__(self, capacity: int = ROUNDS) -> None:
        self.capacity = capacity
        self._rounds: OrderedDict[Key, bytes] = OrderedDict()
        self._lock = threading.Lock()
        self._hits = self._misses = 0

    def get(self, scenario: Scenario, round_id: int, presenter: bool) -> bytes:
        """Round ``round_id``'s frames as JSON bytes, from the cache or built (outside the lock: two sessions may
        both build one)."""
        key = (scenario, round_id, presenter)
        with self._lock:
            found = self._rounds.get(key)
            if found is not None:
                self._rounds.move_to_end(key)
                self._hits += 1
                return found
            self._misses += 1
        built = encode(player_rounds.payload(scenario, round_id, presenter))
        with self._lock:
            self._rounds[key] = built
            self._rounds.move_to_end(key)
            while len(self._rounds) > self.capacity:
                self._rounds.popitem(last=False)
        return built

    def info(self) -> CacheInfo:
        with self._lock:
            return CacheInfo(self._hits, self._misses, len(self._rounds))

    def clear(self) -> None:
        with self._lock:
            self._rounds.clear()
            self._hits = self._misses = 0


rounds = RoundFrames()
