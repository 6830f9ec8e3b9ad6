"""No silent `except Exception` in the package: a broad handler (bare, Exception or BaseException) says why on its
line (`# noqa: BLE001 - why`) and re-raises or reports what it caught (it uses the exception it bound: a bug report,
a log line, an error handed to whoever asks, a refusal in words). Read with ast, in the style of tests/test_layers.py,
naming the file and the line."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BROAD = {"Exception", "BaseException"}


def _is_broad(handler: ast.ExceptHandler) -> bool:
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return handler.type is None or any(isinstance(k, ast.Name) and k.id in BROAD for k in kinds)


def _says_what_it_caught(handler: ast.ExceptHandler) -> bool:
    body = ast.Module(body=handler.body, type_ignores=[])
    raises = any(isinstance(node, ast.Raise) for node in ast.walk(body))
    uses = handler.name is not None and any(isinstance(node, ast.Name) and node.id == handler.name
                                            for node in ast.walk(body))
    return raises or uses


def silent_handlers(source: str, where: str) -> list[str]:
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source, filename=where)):
        if isinstance(node, ast.ExceptHandler) and _is_broad(node):
            line = lines[node.lineno - 1]
            why = line.partition("# noqa: BLE001 - ")[2].strip()
            if not why:
                found.append(f"{where}:{node.lineno}: a broad except without its reason (# noqa: BLE001 - why)")
            elif not _says_what_it_caught(node):
                found.append(f"{where}:{node.lineno}: a broad except that neither re-raises nor reports what it "
                             f"caught ({why})")
    return found


def test_every_broad_except_of_the_package_says_why_and_reports_or_reraises():
    paths = sorted((ROOT / "specviz").rglob("*.py")) + sorted((ROOT / "views").glob("*.py")) + [ROOT / "app.py"]
    silent = [line for path in paths for line in silent_handlers(path.read_text(), path.relative_to(ROOT).as_posix())]
    assert not silent, "catch what is expected; a bug is said as one:\n" + "\n".join(silent)


def test_the_check_finds_a_silent_handler_and_one_without_its_reason():
    swallowed = "try:\n    pass\nexcept Exception:  # noqa: BLE001 - nothing\n    value = None\n"
    assert silent_handlers(swallowed, "x.py") == ["x.py:3: a broad except that neither re-raises nor reports what it "
                                                  "caught (nothing)"]
    unexplained = "try:\n    pass\nexcept (ValueError, BaseException) as error:\n    raise\n"
    assert silent_handlers(unexplained, "y.py") == ["y.py:3: a broad except without its reason (# noqa: BLE001 - why)"]
    reported = "try:\n    pass\nexcept Exception as error:  # noqa: BLE001 - a bug\n    log(error)\n"
    assert silent_handlers(reported, "z.py") == []
