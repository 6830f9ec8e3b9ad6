"""The rules view's rows of rules with settings: which declared parameters the lab offers, and the rows they name.

The Exactness lab's rules view (``specviz/app/lab_rules.py``, numbers from ``specviz.lab.all_rules``) shows every rule
side by side. A family with settings offers controls for some of its declared parameters
(``core.verification.PARAMS_BY_FAMILY``: label, stops, default, help, declared once beside the rule's settings),
starting where the declaration says a side-by-side view starts (``Param.example``, else the default); their values
name its rows. ``ROWS_BY_FAMILY`` is this layer's table: a new family says here what the lab offers of it (or
``FIXED``: its rows are ``lab.all_rules.rule_names``' fixed ones), and the completeness test names a family it forgets.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..core.verification import FAMILIES, FamilyTable, declared


@dataclass(frozen=True)
class LabRows:
    """What the rules view offers of one family: controls for its declared parameters (all but ``hides``), and the
    rows their values name."""

    offered: bool = True  # False: no controls, the family's rows are lab.all_rules.rule_names' fixed ones
    hides: tuple[str, ...] = ()  # declared fields the view leaves at their defaults (SGLang's K: its rows are chains)
    both_flags: bool = False  # a row on each side of the family's flag (sampled and SGLang's drafts), not a toggle
    default_row: bool = False  # a row at the declared defaults beside the chosen ones (SGLang's exact S = A = 1)

    def controls(self, family: str) -> tuple[str, ...]:
        """The declared fields the view offers as controls, in the declaration's order."""
        if not self.offered:
            return ()
        flag = declared(family).flag
        skipped = set(self.hides) | ({flag.field} if self.both_flags and flag is not None else set())
        return tuple(field for field in declared(family).fields if field not in skipped)


FIXED = LabRows(offered=False)  # its rows are lab.all_rules.rule_names' fixed ones ("multi:2", "traversal:2")

ROWS_BY_FAMILY: FamilyTable[LabRows] = FamilyTable("lab.rule_rows.ROWS_BY_FAMILY", {
    "token": FIXED, "block": FIXED, "tree": FIXED, "traversal": FIXED, "exact-match": FIXED, "greedy-draft": FIXED,
    "ensemble": LabRows(),
    "threshold": LabRows(hides=("width",), both_flags=True, default_row=True),
    "typical": LabRows(),
})


def controls(family: str) -> tuple[str, ...]:
    """The declared fields of a family the rules view offers as controls."""
    return ROWS_BY_FAMILY.entry(family).controls(family)


def with_controls() -> tuple[str, ...]:
    """The families the rules view offers controls for, in registry order."""
    return tuple(family for family in FAMILIES if controls(family))


def start(family: str) -> dict[str, object]:
    """Where the family's controls start: each offered field's declared start (the example, else the default)."""
    starts = declared(family).defaults(start=True)
    return {field: starts[field] for field in controls(family)}


def rows(family: str, values: Mapping[str, object]) -> tuple[str, ...]:
    """The canonical names of the family's rows at the controls' values (fields not offered take their defaults)."""
    entry, params = ROWS_BY_FAMILY.entry(family), declared(family)
    offered = controls(family)
    if not offered:
        return ()
    chosen = {**params.defaults(), **{field: values[field] for field in offered}}
    names = [params.name(params.defaults())] if entry.default_row else []
    if entry.both_flags and params.flag is not None:
        names += [params.name({**chosen, params.flag.field: side}) for side in (False, True)]
    else:
        names.append(params.name(chosen))
    return tuple(dict.fromkeys(names))


def engine_rows(values: Mapping[str, Mapping[str, object]]) -> tuple[str, ...]:
    """Every family's rows at its controls' values ({family: {field: value}}), in registry order, each once."""
    return tuple(dict.fromkeys(name for family in with_controls() for name in rows(family, values[family])))


def default_rows() -> tuple[str, ...]:
    """The rows at the controls' starts (``lab.all_rules.DEFAULT_ENGINE_RULES``)."""
    return engine_rows({family: start(family) for family in with_controls()})
