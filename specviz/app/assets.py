"""The app's JavaScript and CSS, kept as files in assets/ and read here (cached: they never change in a run)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

ASSETS = Path(__file__).resolve().parents[2] / "assets"


@cache
def text(name: str) -> str:
    """The text of assets/<name>."""
    return (ASSETS / name).read_text(encoding="utf-8")


def style_tag(name: str) -> str:
    """assets/<name> (a CSS file) as a <style> element."""
    return f"<style>\n{text(name)}</style>"


def script_tag(name: str, **values: str) -> str:
    """assets/<name> (a JS file) as a <script> element, each __KEY__ placeholder replaced by values[KEY]."""
    body = text(name)
    for placeholder, value in values.items():
        body = body.replace(f"__{placeholder}__", value)
    return f"<script>\n{body}</script>\n"
