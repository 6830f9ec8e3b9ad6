"""The markdown table the real-model benchmarks print under their figures (one printer for both)."""

from __future__ import annotations

from collections.abc import Sequence


def print_markdown(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """A markdown table: the header, its separator row, then one line per row."""
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
