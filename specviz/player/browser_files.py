"""The player's browser files (``browser/player.html``, ``player.css``, ``player.js``), read once as text.

They are trusted code: they never hold data (a round's frames travel as the component's data, or in the deck as
JSON that no HTML parser reads), so what a user typed can never become markup or script.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

BROWSER = Path(__file__).resolve().parent / "browser"
NAMES = ("player.html", "player.css", "player.js", "reporter.js", "feed.js")


@cache
def text(name: str) -> str:
    """The text of browser/<name>."""
    if name not in NAMES:
        raise AssertionError(f"the player has no file {name!r} (it has {', '.join(NAMES)})")
    return (BROWSER / name).read_text(encoding="utf-8")


def html() -> str:
    return text("player.html")


def css() -> str:
    return text("player.css")


def js() -> str:
    return text("player.js")
