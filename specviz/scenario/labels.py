"""A token's label as a room reads it: the one rule for punctuation, for every chart, table and text that shows one.

A label made only of punctuation or symbols ('.', ',', '?!') is a speck on a projector, and the default
vocabulary ends with '.'. ``shown_label`` writes such a label between quotes followed by its name, ``‘.’ period``,
so the room can read it; any label with a letter or a digit is shown as it is. The name comes from
``NAMES`` (the marks a toy vocabulary holds), else from Unicode's own name for a single character when short.
Labels are plain text here: whoever draws one escapes it for its medium (``plots.style.chart_text`` for plotly,
``html.escape`` for HTML), so ``<b>x</b>`` reads as those five characters everywhere.
"""

from __future__ import annotations

import unicodedata

NAMES = {
    ".": "period", ",": "comma", "!": "exclamation", "?": "question", ";": "semicolon", ":": "colon",
    "-": "hyphen", "–": "en dash", "—": "em dash", "'": "apostrophe", '"': "quote", "(": "open paren",
    ")": "close paren", "[": "open bracket", "]": "close bracket", "/": "slash", "…": "ellipsis", "...": "ellipsis",
    "&": "ampersand", "*": "asterisk", "#": "hash", "%": "percent", "+": "plus", "=": "equals", "@": "at",
    "_": "underscore", "~": "tilde", "`": "backtick", "|": "bar", "\\": "backslash", "<": "less than",
    ">": "greater than", "^": "caret", "$": "dollar", "{": "open brace", "}": "close brace",
}
MAX_UNICODE_NAME = 16  # a longer Unicode name ('FULLWIDTH FULL STOP') would crowd an axis: the quotes alone


def is_mark(label: str) -> bool:
    """Whether label is nothing but punctuation and symbols (what a projector loses)."""
    return bool(label) and all(unicodedata.category(ch)[0] in "PS" for ch in label)


def mark_name(label: str) -> str | None:
    """'period' for '.', Unicode's name for another single mark when short; None when no short name is known."""
    if label in NAMES:
        return NAMES[label]
    if len(label) == 1:
        name = unicodedata.name(label, "").lower()
        return name if name and len(name) <= MAX_UNICODE_NAME else None
    return None


def shown_label(label: str) -> str:
    """A token label as shown to people: ``‘.’ period`` for a punctuation mark, any other label unchanged."""
    if not is_mark(label):
        return label
    name = mark_name(label)
    return f"‘{label}’ {name}" if name else f"‘{label}’"
