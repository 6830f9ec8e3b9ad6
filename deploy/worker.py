"""One app process of `make serve`: `streamlit run`, with the app's libraries imported and frozen first.

    python -m deploy.worker [--no-freeze] app.py --server.port 40001 ...      (then `streamlit run`'s arguments)

Python's full garbage collection walks every tracked object while holding the GIL, so every session of the
process waits for it. Most of those objects are the libraries' (numpy, pandas, plotly, Streamlit, specviz):
importing them before the server starts and moving them out of the collector's reach (`gc.freeze()`) leaves
a full pass about a third of the objects to walk. Measured behind nginx under 60 students on the shared 2-core
machine: a full pass took 69-91 ms of CPU (median) before, 20-25 ms after; it costs about 60 MB more memory
per process (the modules the Playground alone would not load). docs/performance.md has the figures.
"""

from __future__ import annotations

import gc
import importlib
import logging
import os
import pkgutil
import sys
import time
from collections.abc import Sequence

LIBRARIES = ("numpy", "pandas", "plotly.graph_objects", "plotly.io", "streamlit")
PACKAGE = "specviz"
# the command line (its __main__ runs it), and the models with their page (torch, a few hundred MB per process:
# only the Real models page loads it; tests/serve/test_worker_launcher.py checks torch stays out)
SKIP = ("specviz.__main__", "specviz.cli", "specviz.models", "specviz.app.real_models_page")
# st.cache_data decorators warn once each when imported before Streamlit's runtime exists (harmless: the
# cache itself is made at the first call, under the runtime)
QUIET = "streamlit.runtime.caching.cache_data_api"
GC_LOG = "SPECVIZ_GC_LOG"  # a folder: each process appends its full collections' times there


def preimport(package: str = PACKAGE, skip: Sequence[str] = SKIP) -> list[str]:
    """Import the libraries and every module of `package` but the skipped; returns what failed, and why."""
    failed = []
    for name in LIBRARIES:
        failed += _try_import(name)
    quiet = logging.getLogger(QUIET)  # made by the import of streamlit, with its level: lowered here
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        for name in modules_of(package, tuple(skip)):
            failed += _try_import(name)
    finally:
        quiet.setLevel(level)
    return failed


def modules_of(package: str, skip: tuple[str, ...]) -> list[str]:
    """Every module of the package, a skipped one's subpackages not even walked (walking imports a package)."""
    found, todo = [], [importlib.import_module(package)]
    for _ in range(10_000):
        if not todo:
            break
        current = todo.pop()
        for info in pkgutil.iter_modules(current.__path__, f"{current.__name__}."):
            if info.name.startswith(skip):
                continue
            found.append(info.name)
            if info.ispkg:
                try:
                    todo.append(importlib.import_module(info.name))
                except Exception:  # noqa: BLE001 - reported when imported for real
                    pass
    return found


def _try_import(name: str) -> list[str]:
    try:
        importlib.import_module(name)
    except Exception as error:  # noqa: BLE001 - a module that cannot load here still loads (or fails) in the app
        return [f"{name}: {type(error).__name__}: {error}"]
    return []


def freeze() -> int:
    """Collect once, then move every object alive now out of the collector's passes; returns how many."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def log_full_collections(folder: str) -> None:
    """Append each full collection's CPU and wall time (ms) to folder/gc-<pid>.txt (the benchmark reads them)."""
    path = os.path.join(folder, f"gc-{os.getpid()}.txt")
    started: list[float] = [0.0, 0.0]

    def record(phase: str, info: dict) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            started[:] = [time.thread_time(), time.perf_counter()]
            return
        cpu_ms, wall_ms = 1000 * (time.thread_time() - started[0]), 1000 * (time.perf_counter() - started[1])
        with open(path, "a") as out:
            out.write(f"{cpu_ms:.2f} {wall_ms:.2f}\n")

    gc.callbacks.append(record)


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    plain = bool(args) and args[0] == "--no-freeze"  # the same launcher without the freeze, for comparisons
    args = args[1:] if plain else args
    if not plain:
        for problem in preimport():
            print(f"deploy.worker: not preloaded: {problem}", file=sys.stderr)
        print(f"deploy.worker: {freeze()} objects frozen out of the garbage collector's passes", file=sys.stderr,
              flush=True)
    if os.environ.get(GC_LOG):  # from here on: the freeze's own collection is not the app's
        os.makedirs(os.environ[GC_LOG], exist_ok=True)
        log_full_collections(os.environ[GC_LOG])
    from streamlit.web.cli import main as streamlit_main

    sys.argv = ["streamlit", "run", *args]
    streamlit_main()


if __name__ == "__main__":
    main()
