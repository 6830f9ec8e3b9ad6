"""Shape checks of a scenario: one entry per token in every table, row and mask, stop ids inside the vocabulary."""

from __future__ import annotations

from .model import Row, Scenario, Table
from .reading import describe
from .reading_errors import ScenarioError


def check_shapes(scenario: Scenario, names: dict[str, str] | None = None) -> None:
    """ScenarioError unless every per-token list has one entry per token and stop ids are tokens.

    A table, mask or stop id that does not fit the vocabulary cannot be shown as written (the
    Playground would pad or drop it), so it is refused whole. When vocab disagrees with every
    table, vocab is named; otherwise the list that disagrees with vocab. names maps the document's
    field names to a caller's (a link's 'p' for 'target').
    """
    names = names or {}
    v = scenario.vocab_size
    tables = {"target": scenario.target, "draft": scenario.draft}
    widths = {len(t.start) for t in tables.values()}
    if len(widths) == 1 and v not in widths:
        raise ScenarioError(names.get("vocab", "vocab"), f"has {count(v, 'label')} but each table row has "
                                                         f"{count(widths.pop(), 'weight')}; give one label per weight")
    for key, table in tables.items():
        name = names.get(key, key)
        _check_row(table.start, v, f"{name}.start")
        if table.rows is not None:
            if len(table.rows) != v:
                raise ScenarioError(f"{name}.rows", f"has {count(len(table.rows), 'row')} for the {v} tokens of "
                                                    "vocab; give one row after each token")
            for i, row in enumerate(table.rows):
                _check_row(row, v, f"{name}.rows[{i}]")
    if scenario.target_mask is not None and len(scenario.target_mask) != v:
        raise ScenarioError(names.get("target_mask", "target_mask"),
                            f"has {count(len(scenario.target_mask), 'value')} for the {v} tokens of vocab; give one "
                            "true or false per token")
    for stop in sorted(scenario.stop_ids):
        if not 0 <= stop < v:
            raise ScenarioError(names.get("stop_ids", "stop_ids"),
                                f"{describe(stop)} is not a token of the {v}-token vocab; stop ids are 0 to {v - 1} "
                                f"(ids, as links and files write them, count from 0: 0 is the first token)")


def check_raw_shapes(data: dict) -> None:
    """check_shapes on the document's list lengths alone, when vocab and both tables are lists as they should be."""
    def shape(table: object) -> Table | None:
        if not isinstance(table, dict) or not isinstance(table.get("start"), list):
            return None
        rows = table.get("rows")
        if rows is not None and not (isinstance(rows, list) and all(isinstance(row, list) for row in rows)):
            return None
        zeros = None if rows is None else tuple((0,) * len(row) for row in rows)
        return Table((0,) * len(table["start"]), zeros)

    target, draft = shape(data["target"]), shape(data["draft"])
    if isinstance(data["vocab"], list) and target is not None and draft is not None:
        check_shapes(Scenario(vocab=tuple(data["vocab"]), target=target, draft=draft))


def _check_row(row: Row, v: int, where: str) -> None:
    if len(row) != v:
        raise ScenarioError(where, f"has {count(len(row), 'weight')} for the {v} tokens of vocab; give one weight "
                                   "per token")


def count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"

