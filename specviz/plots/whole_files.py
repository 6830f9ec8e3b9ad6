"""Files written whole or not at all: each under a temporary name in its folder, then renamed over its name.

A rename within one folder replaces the name in one step (``os.replace``), so a reader (or a person after a
Ctrl-C) sees the old file, or no file, or the whole new one, never a half-written one. The temporary name
starts with '.' and ends with ``PART`` so that a listing of the folder does not show it as a figure.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

PART = ".part"


def temporary_name(path: Path) -> Path:
    """Where ``path`` is written before it is renamed: '.step-01-draw.svg.<pid>.part' beside it."""
    return path.with_name(f".{path.name}.{os.getpid()}{PART}")


def write_whole(path: Path, data: bytes | str) -> Path:
    """Write data (text as UTF-8) to path, whole or not at all; the temporary file goes whatever stops the write."""
    body = data.encode("utf-8") if isinstance(data, str) else data
    part = temporary_name(path)
    try:
        with open(part, "wb") as file:
            file.write(body)
        os.replace(part, path)
    except BaseException:  # noqa: BLE001 - Ctrl-C, a full disk, a folder gone: no half-written file stays behind
        with contextlib.suppress(OSError):
            part.unlink()
        raise
    return path
