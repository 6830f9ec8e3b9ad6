"""Rules own their behaviour: every layer table names every registered family, and no layer compares families.

In the style of tests/test_layers.py: one test reads every module's source with ast and fails
naming the file, the line and the expression that reads a rule's ``.family`` outside the registry
(``specviz/core/verification.py``), where a ``FamilyTable`` lookup belongs instead. Another finds
every table where it lives: a module-level constant ``<WHAT>_BY_FAMILY`` of the package whose
``layer`` is its own address, so that a message naming the table says where to add the entry.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import sys
from pathlib import Path

import pytest

import specviz
from specviz.core import verification
from specviz.core.errors import VerificationError
from specviz.core.verification import FAMILIES, TABLES, FamilyTable, Unsupported, families, rule

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = "specviz/core/verification.py"

# Files whose owners are moving their family comparisons into layer tables: each entry must still read
# `.family`, so that a converted file is struck off here.
KNOWN_FAMILY_READS: set[str] = {
}


def import_every_module() -> None:
    """Import the whole package, so that every layer's tables have registered themselves."""
    for info in pkgutil.walk_packages(specviz.__path__, prefix="specviz."):
        if not info.name.endswith(".__main__"):  # running the command line is not importing a layer
            importlib.import_module(info.name)


def sources() -> list[Path]:
    paths = sorted((ROOT / "specviz").rglob("*.py")) + sorted((ROOT / "views").glob("*.py")) + [ROOT / "app.py"]
    return [path for path in paths if path.relative_to(ROOT).as_posix() != REGISTRY]


def family_reads(path: Path) -> list[str]:
    """Each `x.family` in a module, as 'file:line: expression'."""
    tree = ast.parse(path.read_text(), filename=str(path))
    where = path.relative_to(ROOT).as_posix()
    return [f"{where}:{node.lineno}: {ast.unparse(node)}" for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr == "family"]


def test_every_table_is_a_module_constant_named_by_its_address() -> None:
    import_every_module()
    addresses: dict[int, list[str]] = {}
    for name, module in list(sys.modules.items()):
        if name.startswith("specviz.") and module is not None:
            for attribute, value in vars(module).items():
                if isinstance(value, FamilyTable):
                    addresses.setdefault(id(value), []).append(f"{name.removeprefix('specviz.')}.{attribute}")
    problems = []
    for table in TABLES:
        where = addresses.get(id(table), [])
        if not where:
            problems.append(f"{table.layer}: not bound to a module-level constant of specviz (define it at module "
                            "level, named <WHAT>_BY_FAMILY)")
        elif table.layer not in where:
            problems.append(f"{table.layer}: bound at {', '.join(where)}; its layer must be its address, e.g. "
                            f"FamilyTable({where[0]!r}, ...)")
        elif not table.layer.endswith("_BY_FAMILY"):
            problems.append(f"{table.layer}: name the constant <WHAT>_BY_FAMILY, so that every table is found alike")
    assert not problems, "layer tables that are hard to find:\n" + "\n".join(problems)


def test_pages_declare_no_table() -> None:
    """The pages are not imported by the completeness test, so their tables would never be checked."""
    pages = sorted((ROOT / "views").glob("*.py")) + [ROOT / "app.py"]
    found = [f"{path.relative_to(ROOT)}:{node.lineno}" for path in pages
             for node in ast.walk(ast.parse(path.read_text(), filename=str(path)))
             if isinstance(node, ast.Call) and "FamilyTable" in (getattr(node.func, "id", None),
                                                                  getattr(node.func, "attr", None))]
    assert not found, "a page declares a FamilyTable; move it into the library layer it belongs to: " + ", ".join(found)


def test_every_layer_table_names_every_family_of_its_scope() -> None:
    import_every_module()
    gaps = [f"{table.layer} (scope {table.scope}) misses {', '.join(table.missing())}"
            for table in TABLES if table.missing()]
    assert not gaps, "layer tables without an entry for a registered family:\n" + "\n".join(gaps)


def test_no_module_outside_the_registry_reads_a_rules_family() -> None:
    reads = {path.relative_to(ROOT).as_posix(): family_reads(path) for path in sources()}
    crossing = [line for path, lines in reads.items() if path not in KNOWN_FAMILY_READS for line in lines]
    assert not crossing, ("a layer compares a rule's family; look it up in that layer's FamilyTable instead:\n"
                          + "\n".join(crossing))
    fixed = sorted(path for path in KNOWN_FAMILY_READS if not reads.get(path))
    assert not fixed, f"strike these off KNOWN_FAMILY_READS, they no longer read .family: {fixed}"


def test_every_rule_belongs_to_a_registered_family_with_its_playability() -> None:
    for name in ("token", "block", "multi:2", "multi-distinct:3", "exact-match", "greedy-draft", "typical:1/2",
                 "typical-sample:0.2,0.3", "ensemble:0.5", "threshold:1,1", "threshold:0.5,0.8,3"):
        found = rule(name)
        assert found.family in FAMILIES, name
        assert FAMILIES[found.family] == found.playable, name


def test_a_table_looks_up_the_rules_family_and_names_itself_when_it_has_none() -> None:
    before = len(TABLES)
    table = FamilyTable("tests.example", {"token": 1, "tree": 3}, scope="playable")
    try:
        assert table["token"] == 1 and table[rule("multi:2")] == 3 and table["multi-distinct:4"] == 3
        assert table.missing() == ("block", "ensemble", "threshold", "typical", "exact-match")
        with pytest.raises(VerificationError, match=r"'block' \(block verification\) has no entry in tests.example"):
            table["block"]
    finally:
        TABLES.remove(table)
    assert len(TABLES) == before


def test_a_table_refuses_a_family_that_is_not_registered() -> None:
    with pytest.raises(VerificationError, match=r"tests.typo: \['blokc'\] are not registered families"):
        FamilyTable("tests.typo", {"blokc": 1})


def test_an_unsupported_entry_refuses_the_rule_with_the_layers_reason() -> None:
    table = FamilyTable("tests.unsupported", {"token": 1, "block": 2, "tree": Unsupported("trees are drawn elsewhere"),
                                              "ensemble": 4, "threshold": 5, "typical": 6, "exact-match": 7},
                       scope="playable")
    try:
        assert table.missing() == ()
        assert table.supports("token") and not table.supports("multi:2") and table.supports("typical:0.5")
        assert not table.supports("greedy-draft")  # not in a playable table at all
        with pytest.raises(VerificationError, match=r"^verification 'multi:3' \(tree, 3 i.i.d. drafts per node\): "
                                                    "trees are drawn elsewhere$"):
            table["multi:3"]
    finally:
        TABLES.remove(table)


def test_a_table_with_otherwise_covers_every_family_it_does_not_name() -> None:
    table = FamilyTable("tests.otherwise", {"token": 1, "block": 2}, scope="playable",
                        otherwise=Unsupported("only tokenwise and block here"))
    valued = FamilyTable("tests.valued", {"token": 1}, scope="all", otherwise=0)
    try:
        assert table.missing() == () and valued.missing() == ()
        assert table["block"] == 2 and table.supports("token") and not table.supports("ensemble:0.5")
        with pytest.raises(VerificationError, match=r"^verification 'typical:0.09' \(.*\): only tokenwise and block"):
            table["typical:0.09"]
        assert valued["exact-match"] == 0 and valued.supports("threshold:1,1") and valued["token"] == 1
    finally:
        TABLES.remove(table)
        TABLES.remove(valued)


def test_scopes_list_the_registered_families() -> None:
    assert set(families("all")) == set(FAMILIES)
    assert set(families("playable")) == {name for name, playable in FAMILIES.items() if playable}
    assert set(families("playable")) <= set(families("all"))
    assert verification.families() == families("all")
