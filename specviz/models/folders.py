"""Where specviz keeps what it measures or assembles on this machine: $SPECVIZ_CACHE_DIR, else ~/.cache/specviz."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """The cache folder: $SPECVIZ_CACHE_DIR, else $XDG_CACHE_HOME/specviz, else ~/.cache/specviz."""
    root = os.environ.get("SPECVIZ_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "specviz")
    return Path(root)
