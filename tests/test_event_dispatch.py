"""Events are dispatched by registries keyed by their exact class, never by isinstance ladders (issue 35).

An ``isinstance`` test against a class of ``specviz/core/trace.py`` outside ``specviz/core`` is how a new subclass of
``CheckEvent`` got narrated and drawn as its parent, with min(1, p/q). Each layer has its registry instead (words:
``narration.tellers.WORDS``, figures: ``plots.figure_builders.FIGURES``, frames: ``player.frames.BUILDERS``), and
what reads one role of an event reads its ``kind`` or a ClassVar of the trace (``origin``). Read with ast over
specviz/, views/ and app.py, naming each file and line.
"""

from __future__ import annotations

import ast
from pathlib import Path

from trace_classes import event_classes

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 0  # issue 35 asked for at most 5; none is left, so none may come back


def _names(node: ast.expr) -> list[str]:
    elts = node.elts if isinstance(node, ast.Tuple) else [node]
    return [e.id if isinstance(e, ast.Name) else e.attr if isinstance(e, ast.Attribute) else "" for e in elts]


def event_tests(source: str, where: str, classes: set[str]) -> list[str]:
    """'file:line: isinstance(..., Class)' for each isinstance/issubclass test naming one of these classes."""
    found = []
    for node in ast.walk(ast.parse(source, filename=where)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 2
                and node.func.id in ("isinstance", "issubclass")):
            named = [n for n in _names(node.args[1]) if n in classes]
            if named:
                found.append(f"{where}:{node.lineno}: {node.func.id}(..., {', '.join(named)})")
    return found


def all_event_tests() -> list[str]:
    classes = {cls.__name__ for cls in event_classes()}
    files = sorted((ROOT / "specviz").rglob("*.py")) + sorted((ROOT / "views").rglob("*.py")) + [ROOT / "app.py"]
    found = []
    for path in files:
        where = path.relative_to(ROOT).as_posix()
        if not where.startswith("specviz/core/"):
            found += event_tests(path.read_text(encoding="utf-8"), where, classes)
    return found


def test_isinstance_tests_on_events_outside_core_stay_within_the_limit():
    counted = all_event_tests()
    assert len(counted) <= LIMIT, ("isinstance tests on the trace's event classes outside core/ (use the layer's "
                                   "registry, the event's kind or a ClassVar):\n" + "\n".join(counted))


def test_the_scan_sees_a_ladder():
    source = ("def f(e):\n    if isinstance(e, (CheckEvent, Foo)):\n        return 1\n"
              "    return issubclass(e, t.BonusEvent)\n")
    assert event_tests(source, "x.py", {"CheckEvent", "BonusEvent"}) == [
        "x.py:2: isinstance(..., CheckEvent)", "x.py:4: issubclass(..., BonusEvent)"]
