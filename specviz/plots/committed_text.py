"""Committed tokens as HTML chips coloured by origin (colour + border style + glyph): the Compare tab's rounds.

Pure functions of plain data (the step player draws the Playground's own committed text from its frames).
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from . import style

_BORDERS = {"solid": "solid", "dash": "dashed", "dot": "dotted"}
EMPTY = "<span style='color:#777'>(nothing committed yet)</span>"


def chip(text: str, cue: style.Cue, pending: bool = False) -> str:
    """One token as a chip: the cue's colour, border style and glyph (pending drafts faded and slanted)."""
    css = (f"display:inline-block;margin:2px 3px;padding:1px 8px;border:3px {_BORDERS.get(cue.dash, 'solid')} "
           f"{cue.color};border-radius:8px;color:{cue.color};font-weight:600;")
    if pending:
        css += "opacity:0.75;font-style:italic;"
    return f"<span style='{css}'>{html.escape(text)}<sup>&nbsp;{cue.glyph}</sup></span>"


def chips_html(chips: Sequence[str], large: bool = False, *, size: str | None = None) -> str:
    """Chips in one line-wrapping block (large: presenter type); no chip at all says so."""
    size = size or ("font-size:1.6rem;line-height:2.3" if large else "line-height:2.2")
    return f"<div style='{size}'>" + "".join(chips or [EMPTY]) + "</div>"


def round_chips_html(tokens: Sequence[int], kept: int, ending: str, vocab: Sequence[str], large: bool) -> str:
    """One round's committed tokens (the Compare tab): ``kept`` accepted drafts, then the correction or bonus."""
    chips = [chip(style.token_label(vocab[t]), style.origin("accepted" if i < kept else ending))
             for i, t in enumerate(tokens)]
    return chips_html(chips, size="font-size:1.5rem;line-height:2.2" if large else "line-height:2.1")
