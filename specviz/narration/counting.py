"""How the words count: from 1, wherever a person reads a number that counts or names a place.

Step 1 is a round's first step, round 1 the first round, position 1 a block's first draft, sibling 1 a node's first
child, node [1, 2] the first child's second child; block verification's w_k, ρ_k and h_k are computed at position k
(as Sun et al. number them), and τ counts the drafts kept. The trace's data keep Python's indices from 0
(``round_id``, ``position``, ``path``): the JSON of ``play --json`` and the downloaded traces read as before.
"""

from __future__ import annotations

from collections.abc import Sequence


def nth(index: int) -> int:
    """The number a person reads for an index from 0: round_id 0 is round 1."""
    return index + 1


def node(path: Sequence[int]) -> str:
    """'node [1, 2]' for the path (0, 1) (sibling indices from the root); the root is 'the root'."""
    return f"node [{', '.join(str(i + 1) for i in path)}]" if path else "the root"
