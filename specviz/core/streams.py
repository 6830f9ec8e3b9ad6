"""Request/generation/round-owned, domain-separated, reproducible random streams."""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from .errors import SessionError


@dataclass(frozen=True)
class Owner:
    """Who a stream or block belongs to: one request, one generation of it."""

    request_id: str
    generation: int

    def __post_init__(self) -> None:
        if not isinstance(self.request_id, str) or not self.request_id:
            raise SessionError(
                f"invalid request/generation owner: request_id must be a nonempty string, got {self.request_id!r}"
            )
        if type(self.generation) is not int or self.generation < 0:
            raise SessionError(
                f"invalid request/generation owner: generation must be an int >= 0, got {self.generation!r}"
            )


def stream_seed(seed: int, owner: Owner, round_id: int, domain: str) -> int:
    """The 256-bit seed of one domain's generator: SHA-256 of the repr of the key tuple."""
    key = repr((seed, owner.request_id, owner.generation, round_id, domain)).encode()
    return int.from_bytes(hashlib.sha256(key).digest(), "big")


class RandomStreams:
    """Three independent generators per (seed, owner, round): proposal, acceptance, correction-or-bonus.

    Creating streams consumes no process-global randomness, and the verifier never
    reuses the proposal generator for its own draws.
    """

    def __init__(self, seed: int, owner: Owner, round_id: int):
        if type(round_id) is not int or round_id < 0:
            raise SessionError(f"round ID must be nonnegative: got {round_id!r}; rounds count 0, 1, 2, ...")
        self.seed = seed
        self.owner = owner
        self.round_id = round_id
        self.proposal = random.Random(stream_seed(seed, owner, round_id, "proposal"))
        self.acceptance = random.Random(stream_seed(seed, owner, round_id, "acceptance"))
        self.correction = random.Random(stream_seed(seed, owner, round_id, "correction-or-bonus"))
