"""What the command line writes on a terminal: the marked text, its legend, a progress bar."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from typing import TextIO

ANSI = {"accepted": "\033[32m", "correction": "\033[31;1m", "bonus": "\033[35;1m", "target": "\033[2m"}
RESET = "\033[0m"
MARKS = {"accepted": ("", ""), "correction": ("[", "]"), "bonus": ("{", "}"), "target": ("«", "»")}


def use_color(choice: str, out: TextIO) -> bool:
    """--color: always, never, or auto (when out is a terminal)."""
    return choice == "always" or (choice == "auto" and out.isatty())


class Progress:
    """A one-line progress bar on stderr (only when stderr is a terminal)."""

    def __init__(self, total: int, stream: TextIO = sys.stderr):
        self.total, self.stream = total, stream
        self.enabled = stream.isatty()
        self.began = time.perf_counter()

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        width = 30
        filled = int(width * min(done, self.total) / max(self.total, 1))
        rate = done / max(time.perf_counter() - self.began, 1e-9)
        self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{self.total} tokens {rate:.1f}/s")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def marked_text(pieces: Sequence[str], origins: Sequence[str], color: bool) -> str:
    """The generated text with each token marked by origin (ANSI colours, or brackets without)."""
    out = []
    for piece, origin in zip(pieces, origins):
        if color:
            out.append(f"{ANSI[origin]}{piece}{RESET}")
        else:
            left, right = MARKS[origin]
            out.append(f"{left}{piece}{right}")
    return "".join(out)


def legend(color: bool) -> str:
    """What the marks mean."""
    if color:
        return " ".join(f"{ANSI[o]}{o}{RESET}" for o in ANSI)
    return "accepted draft: plain, [correction], {bonus}, «target sample without a draft»"
