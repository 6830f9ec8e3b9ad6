"""The package's layers, kept by a test: who may import whom, read from every module's source with ast.

The map (the README's Architecture section draws the same one). A part is a top-level module or
package of specviz (``specviz/theory/*`` is part ``theory``, ``specviz/lab/*`` part ``lab``); each
row names the parts it may import besides itself; every other direction is a crossing. The rows
form no cycle, so parts that keep to them cannot import each other in circles.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

LIBRARY = {"core", "formats", "scenario", "theory", "narration", "lab", "playground", "plots", "player"}
LAYERS: dict[str, set[str]] = {
    "core": set(),  # the exact core: nothing from the rest of specviz
    "formats": set(),  # number formats: fractions, decimals, abbreviated integers
    "scenario": {"core"},
    "theory": {"core", "scenario"},
    "narration": {"core", "formats", "scenario", "theory"},
    "lab": {"core", "scenario", "theory"},
    "playground": {"core", "formats", "scenario", "theory", "narration", "lab"},
    "plots": {"core", "formats", "scenario", "theory", "narration", "lab", "playground"},
    # the step player: frames of plain data from the trace (through the plots' pure helpers), its browser files
    "player": {"core", "formats", "scenario", "theory", "narration", "lab", "playground", "plots"},
    "models": {"core", "formats", "scenario", "theory", "narration"},
    "gallery": {"core", "formats", "scenario", "theory", "lab", "playground"},
    "cli": LIBRARY | {"models", "gallery"},
    "app": LIBRARY | {"models", "gallery"},  # the app side: Streamlit, session state, page parts
    "__main__": {"cli"},
    "__init__": set(),
}
STREAMLIT = {"app"}  # besides views/ and app.py, outside the package
HEAVY = ("torch", "transformers")
HEAVY_PARTS = {"models"}  # torch and transformers, at any level
LAZY_HEAVY_PARTS = {"cli"}  # only inside a function: `--help` and a refused flag never load torch
LAZY_MODELS_PARTS = {"cli"}  # specviz.models (which loads torch) only inside a function

# Crossings their owners are removing (module, imported module): each entry must still be in the tree,
# so that a fixed one is struck off here.
KNOWN_CROSSINGS: dict[tuple[str, str], str] = {}  # playground.view -> plots.style: fixed (plots/committed_text.py)
KNOWN_CYCLES: dict[frozenset[str], str] = {}  # lab.montecarlo <-> lab.block_montecarlo: fixed (lab/draws.py)

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Import:
    module: str  # the importing module, dotted
    path: str  # its file, relative to the root
    line: int
    target: str  # the imported module, dotted (the longest known prefix for names inside a module)
    lazy: bool  # inside a function

    def __str__(self) -> str:
        where = " inside a function" if self.lazy else ""
        return f"{self.path}:{self.line} ({self.module}) imports {self.target}{where}"


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(root: Path, package: str = "specviz") -> dict[str, Path]:
    """Every module of the package by dotted name."""
    return {module_name(path, root): path for path in sorted((root / package).rglob("*.py"))}


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _known_prefix(name: str, known: set[str]) -> str:
    """The longest prefix of a dotted name that is a module of the tree (else the name itself)."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in known:
            return ".".join(parts[:end])
    return name


class _Collector(ast.NodeVisitor):
    def __init__(self, module: str, path: str, is_package: bool, known: set[str]) -> None:
        self.module, self.path, self.is_package, self.known = module, path, is_package, known
        self.depth = 0
        self.found: list[Import] = []

    def _function(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def _add(self, line: int, target: str) -> None:
        self.found.append(Import(self.module, self.path, line, _known_prefix(target, self.known), self.depth > 0))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(node.lineno, alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = _absolute(node, self.module, self.is_package)
        for alias in node.names:
            # `from . import style` imports the submodule style; `from .core import Categorical` the package
            self._add(node.lineno, f"{base}.{alias.name}" if f"{base}.{alias.name}" in self.known else base)


def imports(root: Path, files: dict[str, Path], known: set[str]) -> list[Import]:
    """Every import statement of the given modules, function-level ones included, relative ones resolved."""
    found = []
    for module, path in files.items():
        collector = _Collector(module, str(path.relative_to(root)), path.name == "__init__.py", known)
        collector.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        found += collector.found
    return found


def part(module: str) -> str:
    """specviz.lab.montecarlo -> lab; specviz -> __init__."""
    names = module.split(".")
    return names[1] if len(names) > 1 else "__init__"


def _top(target: str) -> str:
    return target.split(".")[0]


def unknown_parts(package: dict[str, Path], root: Path) -> list[str]:
    return sorted({f"{path.relative_to(root)}: part {part(m)!r} has no row in LAYERS (say what it may import)"
                   for m, path in package.items() if part(m) not in LAYERS})


def crossings(found: Iterable[Import]) -> Iterator[str]:
    """Every import that goes against the map, one line each naming the module, the line and the import."""
    for imp in found:
        mine, top = part(imp.module), _top(imp.target)
        if top == "streamlit" and mine not in STREAMLIT:
            yield f"{imp}: Streamlit belongs to views/, app.py and specviz/app/ only"
        elif top in HEAVY and mine not in HEAVY_PARTS and not (imp.lazy and mine in LAZY_HEAVY_PARTS):
            where = "inside a function" if mine in LAZY_HEAVY_PARTS else "in specviz/models"
            yield f"{imp}: {top} is imported only {where}"
        elif top in ("views", "app"):
            yield f"{imp}: the package never imports the pages"
        elif top == "specviz" and imp.target != "specviz":
            theirs = part(imp.target)
            if theirs == mine:
                continue
            if theirs not in LAYERS.get(mine, set()):
                allowed = ", ".join(sorted(LAYERS.get(mine, set()))) or "nothing"
                yield f"{imp}: {mine} may import only {allowed} (see LAYERS in tests/test_layers.py)"
            elif theirs == "models" and mine in LAZY_MODELS_PARTS and not imp.lazy:
                yield f"{imp}: {mine} imports specviz.models (and so torch) only inside a function"


def cycles(found: Iterable[Import], package: Iterable[str]) -> list[list[str]]:
    """The module-level import cycles: strongly connected components of more than one module (or a self-import)."""
    nodes = set(package)
    graph: dict[str, set[str]] = {node: set() for node in nodes}
    for imp in found:
        if imp.target in nodes:
            graph[imp.module].add(imp.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def connect(node: str) -> None:  # Tarjan; the package is a few hundred modules, recursion is fine
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1 or node in graph[node]:
                out.append(sorted(component))

    for node in sorted(nodes):
        if node not in index:
            connect(node)
    return out


def _cycle_message(component: list[str], found: Iterable[Import]) -> str:
    members = set(component)
    edges = list(dict.fromkeys(str(imp) for imp in found if imp.module in members and imp.target in members))
    return "import cycle between " + ", ".join(component) + ":\n    " + "\n    ".join(edges)


def check(root: Path) -> list[str]:
    """Every problem of the tree at root: parts missing from the map, crossings, cycles (known ones excepted)."""
    package = modules(root)
    outside = {module_name(p, root): p for p in [*sorted((root / "views").glob("*.py")), root / "app.py"]
               if p.exists()}
    found = imports(root, {**package, **outside}, set(package))
    inside = [imp for imp in found if imp.module in package]
    problems = unknown_parts(package, root)
    problems += list(crossings(imp for imp in inside if (imp.module, imp.target) not in KNOWN_CROSSINGS))
    problems += [f"{imp}: torch and transformers are imported only in specviz/models" for imp in found
                 if imp.module in outside and _top(imp.target) in HEAVY]
    problems += [_cycle_message(c, inside) for c in cycles(inside, package) if frozenset(c) not in KNOWN_CYCLES]
    return list(dict.fromkeys(problems))  # one line per statement, however many names it imports


# --- the tree -----------------------------------------------------------------------------------------
def test_the_map_itself_has_no_cycle_and_core_imports_nothing():
    try:
        order = list(TopologicalSorter(LAYERS).static_order())
    except CycleError as error:
        pytest.fail(f"LAYERS allows a cycle: {error.args[1]}")
    assert order.index("core") < order.index("theory") < order.index("playground") < order.index("plots")
    assert LAYERS["core"] == set() and not STREAMLIT & LIBRARY and "models" not in LIBRARY


def test_every_module_keeps_to_the_map():
    problems = check(ROOT)
    assert not problems, "layers crossed:\n" + "\n".join(problems)


def test_known_crossings_are_still_there_so_a_fixed_one_is_struck_off():
    package = modules(ROOT)
    found = imports(ROOT, package, set(package))
    edges = {(imp.module, imp.target) for imp in found}
    stale = [f"{a} -> {b}" for a, b in KNOWN_CROSSINGS if (a, b) not in edges]
    stale += [" <-> ".join(sorted(c)) for c in KNOWN_CYCLES if c not in {frozenset(x) for x in cycles(found, package)}]
    assert not stale, "fixed, so strike them off KNOWN_CROSSINGS / KNOWN_CYCLES: " + "; ".join(stale)


def test_streamlit_lives_only_in_the_app_package_and_torch_only_in_models():
    package = modules(ROOT)
    found = imports(ROOT, package, set(package))
    streamlit = {part(imp.module) for imp in found if _top(imp.target) == "streamlit"}
    heavy = {part(imp.module) for imp in found if _top(imp.target) in HEAVY and not imp.lazy}
    assert streamlit <= STREAMLIT and heavy <= HEAVY_PARTS


# --- the README draws the same map -------------------------------------------------------------------------
NOT_PARTS = {"__init__", "__main__"}


def _architecture() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("## Architecture")
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def readme_layers(section: str) -> dict[str, set[str]]:
    """The README's table `| row | part | may import |` as LAYERS' rows ("every part below" expanded)."""
    rows: dict[str, int] = {}
    said: dict[str, str] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].isdigit():
            for name in cells[1].split("`")[1::2]:
                rows[name], said[name] = int(cells[0]), cells[2]
    out = {}
    for name, text in said.items():
        if text == "every part below":
            out[name] = {other for other, row in rows.items() if row < rows[name]}
        else:
            out[name] = set() if text == "nothing" else {word.strip() for word in text.split(",")}
        assert all(rows[other] < rows[name] for other in out[name]), f"README: {name} imports its row or above"
    return out


def test_the_readme_draws_the_same_map():
    drawn = readme_layers(_architecture())
    table = {name: allowed for name, allowed in LAYERS.items() if name not in NOT_PARTS}
    assert drawn == table


def _layout() -> str:
    """docs/design.md's section "The package's layout", the map of every part (the README links to it)."""
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    start = text.index("## The package's layout")
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def test_the_layout_lists_every_part_and_every_core_module_of_the_tree():
    section = _layout()
    package = modules(ROOT)
    parts = {part(m) for m in package} - NOT_PARTS
    missing = [f"specviz/{name}" for name in sorted(parts)
               if f"specviz/{name}/" not in section and f"specviz/{name}.py" not in section]
    missing += [f"specviz/core/{path.name}" for m, path in package.items()
                if m.startswith("specviz.core.") and path.name not in section]
    assert not missing, "docs/design.md's layout of the package leaves out: " + ", ".join(missing)


# --- the checker finds what it must (a synthetic tree with one of each crossing) ---------------------------
def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def test_the_checker_names_each_crossing_with_its_module_and_line(tmp_path):
    root = _tree(tmp_path, {
        "specviz/__init__.py": "",
        "specviz/core/__init__.py": "from .verifier import Verifier\n",
        "specviz/core/verifier.py": "from ..theory import alpha\nVerifier = 1\n",
        "specviz/theory.py": "from .core import Verifier\nalpha = 1\n",
        "specviz/lab/__init__.py": "",
        "specviz/lab/picker.py": "import json\n\nimport streamlit as st\n",
        "specviz/lab/a.py": "def f():\n    from . import b\n",
        "specviz/lab/b.py": "from .a import f\n",
        "specviz/plots/__init__.py": "",
        "specviz/plots/style.py": "import torch\n",
        "specviz/cli/__init__.py": "import specviz.models.loading\n\ndef main():\n    import torch\n",
        "specviz/models/__init__.py": "", "specviz/models/loading.py": "import torch\n",
        "specviz/newpart.py": "",
        "views/page.py": "import streamlit\nimport transformers\n",
    })
    problems = "\n".join(check(root))
    assert "specviz/core/verifier.py:1 (specviz.core.verifier) imports specviz.theory: core may import only " \
           "nothing" in problems
    assert "specviz/lab/picker.py:3 (specviz.lab.picker) imports streamlit: Streamlit belongs" in problems
    assert "specviz/plots/style.py:1 (specviz.plots.style) imports torch: torch is imported only in specviz/models" \
           in problems
    assert "specviz/cli/__init__.py:1 (specviz.cli) imports specviz.models.loading: cli imports specviz.models " \
           "(and so torch) only inside a function" in problems
    assert "specviz/cli/__init__.py:4" not in problems  # a lazy torch in the command line is allowed
    assert "import cycle between specviz.lab.a, specviz.lab.b" in problems
    assert "specviz/lab/a.py:2 (specviz.lab.a) imports specviz.lab.b inside a function" in problems
    assert "import cycle between specviz.core, specviz.core.verifier, specviz.theory" in problems
    assert "specviz/newpart.py: part 'newpart' has no row in LAYERS" in problems
    assert "views/page.py:2 (views.page) imports transformers" in problems
    assert "views/page.py:1" not in problems


def test_a_tree_that_keeps_to_the_map_has_no_problem(tmp_path):
    root = _tree(tmp_path, {
        "specviz/__init__.py": "", "specviz/core/__init__.py": "from .verifier import V\n",
        "specviz/core/verifier.py": "V = 1\n", "specviz/theory.py": "from .core import V\n",
        "specviz/app/__init__.py": "import streamlit\nfrom .. import theory\nfrom ..models import x\n",
        "specviz/models/__init__.py": "import torch\nx = 1\n",
        "app.py": "import streamlit\n",
    })
    assert check(root) == []
