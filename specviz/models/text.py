"""Token ids to display strings; special tokens (end of turn, end of text) read as markers, never raw."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# readable names for the special tokens chat models emit; any other special token shows its bare name
SPECIAL_NAMES = {"im_end": "end of turn", "im_start": "start of turn", "endoftext": "end of text",
                 "eos": "end of text", "bos": "start of text", "end_of_text": "end of text", "eot_id": "end of turn"}


def special_ids(tokenizer: Any) -> frozenset[int]:
    """The tokenizer's special token ids (end of turn, end of text, ...)."""
    return frozenset(int(i) for i in (getattr(tokenizer, "all_special_ids", None) or []))


def special_marker(tokenizer: Any, token: int) -> str:
    """A readable marker for a special token, e.g. ⟨end of turn⟩ for <|im_end|>."""
    raw = str(tokenizer.convert_ids_to_tokens(int(token)) or token)
    name = raw.strip("<>|").strip() or str(token)
    return f"⟨{SPECIAL_NAMES.get(name.lower(), name)}⟩"


def token_pieces(tokenizer: Any, ids: Sequence[int]) -> list[str]:
    """One string per token whose concatenation is the decoded text (multi-byte characters kept whole).

    Special tokens become a marker (special_marker) instead of their raw text: the rest is the decode.
    """
    specials = special_ids(tokenizer)
    pieces: list[str] = []
    run: list[int] = []  # the ordinary tokens since the last special one, decoded together
    previous = ""
    for token in ids:
        if token in specials:
            pieces.append(special_marker(tokenizer, token))
            run, previous = [], ""
            continue
        run.append(token)
        text = tokenizer.decode(run)
        if text.startswith(previous) and not text.endswith("\ufffd"):
            pieces.append(text[len(previous):])
            previous = text
        elif text.endswith("\ufffd"):
            pieces.append("")
        else:
            piece = tokenizer.decode([token])
            pieces.append(piece)
            previous += piece
    return pieces


def token_text(tokenizer: Any, token: int) -> str:
    """One token's text as decoded, except a special token, which reads as its marker (never <|im_end|>)."""
    return special_marker(tokenizer, token) if token in special_ids(tokenizer) else tokenizer.decode([token])


def token_label(tokenizer: Any, token: int) -> str:
    """A short visible label for one token id (whitespace shown as ␣ and ⏎, special tokens as markers)."""
    if token in special_ids(tokenizer):
        return special_marker(tokenizer, token)
    text = tokenizer.decode([token])
    text = text.replace(" ", "␣").replace("\n", "⏎").replace("\t", "⇥")
    return text if text.strip() else f"<{token}>"
