"""Committed tokens as HTML chips coloured by origin (colour + border style + glyph), pending drafts after them.

Pure functions of plain data: a step's committed tokens (anything with ``.text`` and ``.origin``, such as
``playground.narrative.Token``) and its pending draft ids (the Overview's example); the Compare tab's rounds use
the same chip. The step player draws the Playground's own committed text from its frames.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING

from . import style

if TYPE_CHECKING:  # the step view is this module's input; nothing here calls back into it
    from ..playground.narrative import StepView, Token

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


def tokens_html(committed: Sequence[Token], pending: Sequence[int], vocab: Sequence[str], large: bool = False) -> str:
    """Committed tokens as chips coloured by origin, the pending drafts (ids) after them; large: presenter type."""
    chips = [chip(style.token_label(t.text), style.origin(t.origin)) for t in committed]
    chips += [chip(style.token_label(vocab[t]), style.role("q"), pending=True) for t in pending]
    return chips_html(chips, large)


def committed_html(view: StepView, vocab: Sequence[str], large: bool = False) -> str:
    """The step's committed text as chips coloured by origin, its pending drafts after it."""
    return tokens_html(view.committed, view.pending, vocab, large)


def round_chips_html(tokens: Sequence[int], kept: int, ending: str, vocab: Sequence[str], large: bool) -> str:
    """One round's committed tokens (the Compare tab): ``kept`` accepted drafts, then the correction or bonus."""
    chips = [chip(style.token_label(vocab[t]), style.origin("accepted" if i < kept else ending))
             for i, t in enumerate(tokens)]
    return chips_html(chips, size="font-size:1.5rem;line-height:2.2" if large else "line-height:2.1")
