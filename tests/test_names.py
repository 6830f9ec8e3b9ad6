"""One file name, one concept (issue 35): no two modules of the package or its pages share a file name."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def shared_names(paths: list[Path]) -> dict[str, list[str]]:
    """File name -> the modules holding it, for the names held by more than one (packages' __init__.py aside)."""
    by_name: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        if path.name != "__init__.py":
            by_name[path.name].append(path.relative_to(ROOT).as_posix())
    return {name: sorted(where) for name, where in by_name.items() if len(where) > 1}


def test_no_two_modules_share_a_file_name():
    paths = sorted((ROOT / "specviz").rglob("*.py")) + sorted((ROOT / "views").rglob("*.py"))
    shared = shared_names(paths)
    assert not shared, "modules sharing a file name (name the layer's role: *_figures, *_words, *_tab):\n" + "\n".join(
        f"{name}: {', '.join(where)}" for name, where in sorted(shared.items()))


def test_the_check_sees_a_shared_name():
    paths = [ROOT / "specviz/plots/tree.py", ROOT / "specviz/core/tree.py", ROOT / "specviz/core/__init__.py",
             ROOT / "specviz/plots/__init__.py"]
    assert shared_names(paths) == {"tree.py": ["specviz/core/tree.py", "specviz/plots/tree.py"]}
