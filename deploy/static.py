"""Streamlit's bundle for nginx: the package's files linked into a folder, each compressible one beside its .gz."""

from __future__ import annotations

import gzip
import importlib.util
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from .errors import ServeError

COMPRESSIBLE = (".js", ".mjs", ".css", ".json", ".map", ".svg", ".html", ".txt", ".ttf")
MIN_SIZE = 1024  # nginx's gzip_min_length: smaller files go as they are
LEVEL = 9  # compressed once per start, served many times


@dataclass(frozen=True)
class Bundle:
    """What was linked and compressed: file counts and bytes."""

    files: int
    compressed: int  # files with a .gz beside them
    compressed_raw_bytes: int  # their own size
    gz_bytes: int  # their .gz size


def streamlit_bundle_dir() -> Path:
    """The folder Streamlit serves at /static/ (its package's static/static: streamlit.file_util.get_static_dir),
    found without importing Streamlit (the supervisor would carry it, some 70 MB, for nothing)."""
    spec = importlib.util.find_spec("streamlit")
    if spec is None or not spec.submodule_search_locations:
        raise ServeError("Streamlit is not installed in this Python (make install)")
    return Path(list(spec.submodule_search_locations)[0]) / "static" / "static"


def _one(source: Path, target: Path) -> tuple[int, int]:
    """Link one file; write its .gz when worth it. Returns (raw bytes, gz bytes or 0)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(source, target)
    size = source.stat().st_size
    if source.suffix.lower() not in COMPRESSIBLE or size < MIN_SIZE:
        return size, 0
    packed = gzip.compress(source.read_bytes(), LEVEL, mtime=0)
    if len(packed) >= size:
        return size, 0
    gz = target.with_name(target.name + ".gz")
    gz.write_bytes(packed)
    # nginx dates a .gz answer (Last-Modified, ETag) by the .gz file: give it the original's times
    stat = source.stat()
    os.utime(gz, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    return size, len(packed)


def build(root: Path, source: Path | None = None, threads: int = 2) -> Bundle:
    """Fill root/static with the bundle (links) and its .gz files; root must not hold a static/ yet."""
    source = streamlit_bundle_dir() if source is None else source
    target = root / "static"
    target.mkdir(parents=True)
    files = sorted(p for p in source.rglob("*") if p.is_file())
    with ThreadPoolExecutor(max_workers=threads) as pool:  # zlib releases the GIL
        sizes = list(pool.map(lambda p: _one(p, target / p.relative_to(source)), files))
    packed = [(raw, gz) for raw, gz in sizes if gz]
    return Bundle(files=len(files), compressed=len(packed), compressed_raw_bytes=sum(raw for raw, _ in packed),
                  gz_bytes=sum(gz for _, gz in packed))
