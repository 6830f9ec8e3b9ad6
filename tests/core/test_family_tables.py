"""Rules own their behaviour: every layer table names every registered family, and no layer compares families.

In the style of tests/test_layers.py: one test reads every module's source with ast and fails
naming the file, the line and the expression that reads a rule's ``.family`` outside the registry
(``specviz/core/verification.py``), where a ``FamilyTable`` lookup belongs instead. Another finds
every table where it lives: a module-level constant ``<WHAT>_BY_FAMILY`` of the package whose
``layer`` is its own address, so that a message naming the table says where to add the entry; another
reads the recipe's table in docs/design.md and fails naming a table it does not list. Beside the tables, the
tests see what else a rule touches: a table's ``otherwise`` (always a refusal in the layer's words), every
family part of a name (a rule added as a flag of an existing family), the session's slots and the lab's
controls (built from the declared parameters), the gallery and the tree figure's CHECK_KINDS.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import sys
from pathlib import Path

import pytest

import specviz
from specviz.core import verification
from specviz.core.errors import VerificationError
from specviz.core.verification import FAMILIES, TABLES, FamilyTable, Unsupported, families, rule

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = "specviz/core/verification.py"
RECIPE = ROOT / "docs" / "design.md"
RECIPE_HEADER = "| table | file | scope | an entry says |"

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
                 "typical-sample:0.2,0.3", "ensemble:0.5", "threshold:1,1", "threshold:0.5,0.8,3", "traversal:2",
                 "traversal-distinct:1"):
        found = rule(name)
        assert found.family in FAMILIES, name
        assert FAMILIES[found.family] == found.playable, name


def test_a_table_looks_up_the_rules_family_and_names_itself_when_it_has_none() -> None:
    before = len(TABLES)
    table = FamilyTable("tests.example", {"token": 1, "tree": 3}, scope="playable")
    try:
        assert table["token"] == 1 and table[rule("multi:2")] == 3 and table["multi-distinct:4"] == 3
        assert table.missing() == ("block", "ensemble", "threshold", "typical", "traversal", "exact-match")
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
                                              "ensemble": 4, "threshold": 5, "typical": 6, "traversal": 7,
                                              "exact-match": 8},
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


# --- the recipe in docs/design.md lists every table ---------------------------------------------------------------
def recipe_rows() -> dict[str, tuple[str, str]]:
    """The recipe's table: {address: (file, scope)}, read from docs/design.md."""
    lines = RECIPE.read_text().splitlines()
    start = lines.index(RECIPE_HEADER) + 2  # past the header and its rule
    rows = {}
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip().strip("`") for cell in line.strip("|").split("|")]
        rows[cells[0]] = (cells[1], cells[2].replace("`", ""))
    return rows


def test_the_recipe_lists_every_table_with_its_file_and_scope() -> None:
    import_every_module()
    rows = recipe_rows()
    problems = []
    for table in TABLES:
        if table.layer not in rows:
            problems.append(f"{table.layer}: not in the recipe's table of docs/design.md (add its row)")
            continue
        file, scope = rows[table.layer]
        module = sys.modules["specviz." + table.layer.rsplit(".", 1)[0]]
        where = Path(module.__file__).resolve().relative_to(ROOT).as_posix()
        said = table.scope + (" (otherwise)" if table.otherwise is not None else "")
        if file != where or scope != said:
            problems.append(f"{table.layer}: the recipe says {file}, {scope}; it is {where}, {said}")
    layers = {table.layer for table in TABLES}
    problems += [f"{address}: in the recipe but no such table" for address in rows if address not in layers]
    assert not problems, "docs/design.md's recipe and the tables differ:\n" + "\n".join(problems)


def test_table_names_are_unique_across_the_package() -> None:
    import_every_module()
    names: dict[str, list[str]] = {}
    for table in TABLES:
        names.setdefault(table.layer.rsplit(".", 1)[1], []).append(table.layer)
    shared = {name: layers for name, layers in names.items() if len(layers) > 1}
    assert not shared, f"two tables share a name (a reader cannot tell them apart): {shared}"


# --- what a table's `otherwise` gives a family it does not name ------------------------------------------------
def test_an_otherwise_is_a_refusal_in_the_layers_words_for_every_family_it_covers() -> None:
    import_every_module()
    problems = []
    for table in TABLES:
        if table.otherwise is None:
            continue
        if not isinstance(table.otherwise, Unsupported):
            problems.append(f"{table.layer}: otherwise={table.otherwise!r} gives a family it does not name another "
                            "family's behaviour; name the family, or refuse it with Unsupported(why)")
            continue
        for family in families(table.scope):
            if family not in table._entries:
                example = EXAMPLES[family]
                assert table.why_not(example) == table.otherwise.why, (table.layer, family)
                with pytest.raises(VerificationError, match=re.escape(table.otherwise.why)):
                    table[example]
    assert not problems, "\n".join(problems)


# one rule of each registered family (a new family adds its example here, and the gallery shows it)
EXAMPLES = {"token": "token", "block": "block", "tree": "multi:2", "ensemble": "ensemble:0.5",
            "threshold": "threshold:1,1", "typical": "typical:0.09", "traversal": "traversal:2",
            "exact-match": "exact-match", "greedy-draft": "greedy-draft"}


def test_every_family_has_an_example() -> None:
    assert set(EXAMPLES) == set(FAMILIES) and all(rule(name).family == f for f, name in EXAMPLES.items())


# --- a rule added as a flag of an existing family --------------------------------------------------------------
def test_every_family_part_of_a_name_is_declared_parsed_and_helped() -> None:
    """A flag (sglang of threshold, typical-sample of typical) is a family part of a name: declared by exactly one
    family's parameters, parsed by the registry into that family, with its engine setting in --help."""
    from specviz.core.verification import _FAMILIES, _FORM_SETTINGS, declared, playable_help

    heads = {head: family for family in FAMILIES for head in declared(family).heads}
    assert len(heads) == sum(len(declared(f).heads) for f in FAMILIES), "a family part declared twice"
    assert sorted(heads) == sorted(_FAMILIES), "the registry parses a family part no declaration names (or not one)"
    text = playable_help()
    for head, family in heads.items():
        params = declared(family)
        example = params.name({**params.defaults(), **({params.flag.field: head == params.flag.on}
                                                       if params.flag else {})})
        # the default may be the family's fixed name ("exact-match" is exact-match:1, the chain)
        assert (example == head or example.startswith(f"{head}:")) and rule(example).family == family, head
        assert head in _FORM_SETTINGS and f"{head}:{params.form} ({_FORM_SETTINGS[head]}" in text, head


# --- what is built from the declarations: the session's slots and the lab's controls ---------------------------
def test_the_session_has_a_slot_for_every_declared_field_of_every_playable_family() -> None:
    from specviz.app.playground.session import PlaygroundSession, rule_slot
    from specviz.core.verification import declared

    slots = PlaygroundSession.slots()
    missing = [rule_slot(f, field) for f in families("playable") for field in declared(f).fields
               if rule_slot(f, field) not in slots]
    assert not missing, f"declared parameters without a session slot: {missing}"


def test_the_labs_controls_are_the_declared_fields_its_table_does_not_hide() -> None:
    from specviz.core.verification import declared
    from specviz.lab import rule_rows

    for family in FAMILIES:
        entry, fields = rule_rows.ROWS_BY_FAMILY.entry(family), declared(family).fields
        hidden = set(entry.hides) | ({declared(family).flag.field} if entry.both_flags else set())
        assert set(entry.hides) <= set(fields), family
        assert rule_rows.controls(family) == (tuple(f for f in fields if f not in hidden) if entry.offered else ())


# --- the gallery and the tree figure's check kinds ------------------------------------------------------------
def _rules_a_card_shows(card) -> set[str]:
    shown = {rule(card.scenario.verification).name}
    for fact in card.expected:
        for text in re.findall(r"\(([^()]+)\)$|under (\S+)$", fact):
            try:
                shown.add(rule(text[0] or text[1]).name)
            except VerificationError:
                continue  # "P(block keeps 0)", "optimum (2 drafts)": not a rule
    return shown


def test_the_gallery_shows_every_family_and_every_family_part_of_a_name() -> None:
    from specviz import gallery
    from specviz.core.verification import declared

    shown = {name for card in gallery.CARDS for name in _rules_a_card_shows(card)}
    families_shown = {rule(name).family for name in shown}
    heads_shown = {name.partition(":")[0] for name in shown if ":" in name}
    missing = sorted(set(FAMILIES) - families_shown)
    missing += sorted({head for f in FAMILIES for head in declared(f).heads} - heads_shown)
    assert not missing, f"no gallery card shows (as its scenario's rule or in a fact) {missing}"


def test_the_tree_figure_draws_every_check_event_of_the_trace_as_a_check() -> None:
    from specviz.core import trace
    from specviz.plots import tree_figures as tree

    checks = {cls.kind for cls in vars(trace).values()
              if isinstance(cls, type) and issubclass(cls, trace.TreeCheckEvent)}
    assert set(tree.CHECK_KINDS) == checks
