"""Token ids to display strings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def token_pieces(tokenizer: Any, ids: Sequence[int]) -> list[str]:
    """One string per token whose concatenation is the decoded text (multi-byte characters kept whole)."""
    pieces: list[str] = []
    previous = ""
    for i in range(len(ids)):
        text = tokenizer.decode(list(ids[: i + 1]))
        if text.startswith(previous) and not text.endswith("\ufffd"):
            pieces.append(text[len(previous):])
            previous = text
        elif text.endswith("\ufffd"):
            pieces.append("")
        else:
            piece = tokenizer.decode([ids[i]])
            pieces.append(piece)
            previous += piece
    return pieces


def token_label(tokenizer: Any, token: int) -> str:
    """A short visible label for one token id (whitespace shown as ␣ and ⏎)."""
    text = tokenizer.decode([token])
    text = text.replace(" ", "␣").replace("\n", "⏎").replace("\t", "⇥")
    return text if text.strip() else f"<{token}>"
