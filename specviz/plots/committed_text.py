"""The committed text as HTML chips coloured by origin (colour + border style + glyph), pending drafts after it."""

from __future__ import annotations

import html

from ..playground.narrative import StepView, pending_drafts
from . import style


def _chip(text: str, cue, pending: bool = False) -> str:
    border = {"solid": "solid", "dash": "dashed", "dot": "dotted"}.get(cue.dash, "solid")
    style = (f"display:inline-block;margin:2px 3px;padding:1px 8px;border:3px {border} {cue.color};"
             f"border-radius:8px;color:{cue.color};font-weight:600;")
    if pending:
        style += "opacity:0.75;font-style:italic;"
    return f"<span style='{style}'>{html.escape(text)}<sup>&nbsp;{cue.glyph}</sup></span>"


def committed_html(view: StepView, vocab: tuple[str, ...], large: bool = False) -> str:
    """The committed text as chips coloured by origin (colour + border style + glyph), pending drafts after it.

    large: presenter type (the chips grow with the rest of the page).
    """
    chips = [_chip(style.token_label(t.text), style.origin(t.origin)) for t in view.committed]
    pending = pending_drafts(view)
    chips += [_chip(style.token_label(vocab[t]), style.role("q"), pending=True) for t in pending]
    if not chips:
        chips = ["<span style='color:#777'>(nothing committed yet)</span>"]
    size = "font-size:1.6rem;line-height:2.3" if large else "line-height:2.2"
    return f"<div style='{size}'>" + "".join(chips) + "</div>"
