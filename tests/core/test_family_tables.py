"""Rules own their behaviour: every layer table names every registered family, and no layer compares families.

In the style of tests/test_layers.py: the second test reads every module's source with ast and fails
naming the file, the line and the expression that reads a rule's ``.family`` outside the registry
(``specviz/core/verification.py``), where a ``FamilyTable`` lookup belongs instead.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

import specviz
from specviz.core import verification
from specviz.core.errors import VerificationError
from specviz.core.verification import FAMILIES, TABLES, FamilyTable, families, rule

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = "specviz/core/verification.py"

# Files whose owners are moving their family comparisons into layer tables: each entry must still read
# `.family`, so that a converted file is struck off here.
KNOWN_FAMILY_READS: set[str] = {
    "specviz/app/playground_animation.py",
    "specviz/app/playground_tabs.py",
    "specviz/app/playground_tree.py",
    "specviz/lab/montecarlo.py",
    "specviz/lab/rules.py",
    "specviz/narration/__init__.py",
    "specviz/playground/many_rounds.py",
    "specviz/playground/narrative.py",
    "specviz/playground/proof.py",
    "specviz/plots/verification.py",
    "specviz/theory.py",
    "views/exactness_lab.py",
    "views/theory.py",
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
    for name in ("token", "block", "multi:2", "multi-distinct:3", "exact-match", "greedy-draft", "typical:1/2"):
        found = rule(name)
        assert found.family in FAMILIES, name
        assert FAMILIES[found.family] == found.playable, name


def test_a_table_looks_up_the_rules_family_and_names_itself_when_it_has_none() -> None:
    before = len(TABLES)
    table = FamilyTable("tests.example", {"token": 1, "tree": 3}, scope="playable")
    try:
        assert table["token"] == 1 and table[rule("multi:2")] == 3 and table["multi-distinct:4"] == 3
        assert table.missing() == ("block",)
        with pytest.raises(VerificationError, match=r"'block' \(block verification\) has no entry in tests.example"):
            table["block"]
    finally:
        TABLES.pop()
    assert len(TABLES) == before


def test_a_table_refuses_a_family_that_is_not_registered() -> None:
    with pytest.raises(ValueError, match=r"tests.typo: \['blokc'\] are not registered families"):
        FamilyTable("tests.typo", {"blokc": 1})


def test_scopes_list_the_registered_families() -> None:
    assert set(families("all")) == set(FAMILIES)
    assert set(families("playable")) == {name for name, playable in FAMILIES.items() if playable}
    assert set(families("playable")) <= set(families("all"))
    assert verification.families() == families("all")
