"""The editable form behind the Playground's controls, as plain data, and its conversion to a Scenario.

Weights stay text while they are edited (so '1/3' is exact and a typo can be shown back
to the user); ``to_scenario`` parses them and raises ``PlaygroundError`` for text that is
not a number. Everything the core itself refuses is left to ``explain.check_scenario``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from ..scenario import Scenario, Table, weight_text
from .explain import PlaygroundError, check_vocab
from .share import parse_weight

TextRow = tuple[str, ...]
NEW_WEIGHT = "1"


@dataclass(frozen=True)
class Tables:
    """Weights as text: rows[0] is the start row; in Markov mode rows[1 + t] follows token t."""

    p: tuple[TextRow, ...]
    q: tuple[TextRow, ...]
    allowed: tuple[bool, ...]
    stop: tuple[bool, ...]

    @property
    def markov(self) -> bool:
        return len(self.p) > 1


def tables_from_scenario(scenario: Scenario) -> Tables:
    def rows(table: Table) -> tuple[TextRow, ...]:
        return tuple(tuple(weight_text(w) for w in row) for row in (table.start, *(table.rows or ())))

    v = scenario.vocab_size
    allowed = tuple(scenario.target_mask) if scenario.target_mask is not None and len(scenario.target_mask) == v \
        else (True,) * v
    return Tables(rows(scenario.target), rows(scenario.draft), allowed,
                  tuple(i in scenario.stop_ids for i in range(v)))


def _fit_row(row: TextRow, v: int) -> TextRow:
    return tuple(row[:v]) + (NEW_WEIGHT,) * max(0, v - len(row))


def _fit_rows(rows: tuple[TextRow, ...], v: int, markov: bool) -> tuple[TextRow, ...]:
    start = _fit_row(rows[0], v)
    if not markov:
        return (start,)
    after = [_fit_row(r, v) for r in rows[1: v + 1]]
    after += [start] * (v - len(after))
    return (start, *after)


def fit_tables(tables: Tables, v: int, markov: bool) -> Tables:
    """Tables resized to v tokens (new tokens weigh 1, new rows copy the start row) and to the mode."""
    fitted = Tables(_fit_rows(tables.p, v, markov), _fit_rows(tables.q, v, markov),
                    tuple(tables.allowed[:v]) + (True,) * max(0, v - len(tables.allowed)),
                    tuple(tables.stop[:v]) + (False,) * max(0, v - len(tables.stop)))
    return fitted


def set_weight(tables: Tables, model: str, row: int, token: int, text: str) -> Tables:
    rows = [list(r) for r in getattr(tables, model)]
    rows[row][token] = str(text).strip()
    return replace(tables, **{model: tuple(tuple(r) for r in rows)})


def parse_vocab(text: str) -> tuple[str, ...]:
    """Labels from 'the, cat, sat' (PlaygroundError unless 2..12 distinct nonempty labels)."""
    labels = tuple(label.strip() for label in text.split(","))
    check_vocab(labels)
    return labels


def vocab_text(vocab: tuple[str, ...]) -> str:
    return ", ".join(vocab)


def _parse_rows(rows: tuple[TextRow, ...], name: str, vocab: tuple[str, ...]) -> Table:
    def parse(row: TextRow, where: str) -> tuple:
        return tuple(parse_weight(w, f"for ‘{vocab[i]}’ in {name}{where}") for i, w in enumerate(row))

    start = parse(rows[0], " (start)" if len(rows) > 1 else "")
    if len(rows) == 1:
        return Table(start)
    return Table(start, tuple(parse(r, f" after ‘{vocab[t]}’") for t, r in enumerate(rows[1:])))


@dataclass(frozen=True)
class Settings:
    """The scalar controls (sliders, inputs). top-k equal to the vocabulary size means 'keep all'."""

    depth: int = 3
    draft_topk: int | None = None
    temperature: float = 1.0
    top_k: int | None = None
    top_p: float = 1.0
    fp32: bool = False
    seed: int = 0
    request_id: str = "demo"
    generation: int = 0


def settings_from_scenario(scenario: Scenario) -> Settings:
    return Settings(scenario.depth, scenario.draft_topk, float(scenario.target_temperature), scenario.target_top_k,
                    1.0 if scenario.target_top_p is None else float(scenario.target_top_p), scenario.fp32,
                    scenario.seed, scenario.request_id, scenario.generation)


def to_scenario(vocab: tuple[str, ...], tables: Tables, settings: Settings, context_id: str = "") -> Scenario:
    """The Scenario these controls describe (PlaygroundError for weights that are not numbers)."""
    v = len(vocab)
    tables = fit_tables(tables, v, tables.markov)
    temperature = round(float(settings.temperature), 4)
    top_p = round(float(settings.top_p), 4)
    return Scenario(
        vocab=vocab,
        target=_parse_rows(tables.p, "p", vocab),
        draft=_parse_rows(tables.q, "q", vocab),
        depth=int(settings.depth),
        draft_topk=None if settings.draft_topk is None or settings.draft_topk >= v else int(settings.draft_topk),
        target_mask=None if all(tables.allowed) else tuple(bool(a) for a in tables.allowed),
        target_temperature=1.0 if temperature == 1 else temperature,
        target_top_k=None if settings.top_k is None or settings.top_k >= v else int(settings.top_k),
        target_top_p=None if top_p >= 1 else top_p,
        stop_ids=frozenset(i for i, s in enumerate(tables.stop) if s),
        fp32=bool(settings.fp32),
        seed=int(settings.seed),
        request_id=str(settings.request_id),
        generation=int(settings.generation),
        context_id=context_id,
    )


def normalized_text(row: TextRow) -> list[str]:
    """Each weight over the row's sum, as 'a/b ≈ 0.123' (or '—' when the row is not valid)."""
    try:
        values = [Fraction(parse_weight(w)) for w in row]
    except (PlaygroundError, ValueError, OverflowError):
        return ["—"] * len(row)
    total = sum(values)
    if total <= 0 or any(v < 0 for v in values):
        return ["—"] * len(row)
    out = []
    for value in values:
        p = value / total
        if p.denominator == 1:
            out.append(str(p.numerator))
        elif p.denominator < 10**6:
            out.append(f"{p.numerator}/{p.denominator} ≈ {float(p):.3f}")
        else:
            out.append(f"≈ {float(p):.4f}")
    return out


# --- the data-editor tables (plain pandas, tested without Streamlit) -----------------------------
P_COL, PN_COL, Q_COL, QN_COL, ALLOW_COL, STOP_COL = ("p weight", "p normalized", "q weight", "q normalized",
                                                    "target allows", "stop")


def fixed_frame(tables: Tables, vocab: tuple[str, ...]):
    """One row per token: raw and normalized p and q, the mask tick and the stop tick."""
    import pandas as pd

    return pd.DataFrame({
        P_COL: list(tables.p[0]), PN_COL: normalized_text(tables.p[0]),
        Q_COL: list(tables.q[0]), QN_COL: normalized_text(tables.q[0]),
        ALLOW_COL: list(tables.allowed), STOP_COL: list(tables.stop),
    }, index=pd.Index(list(vocab), name="token"))


def token_frame(tables: Tables, vocab: tuple[str, ...]):
    """Markov mode's per-token settings: the mask tick and the stop tick."""
    import pandas as pd

    return pd.DataFrame({ALLOW_COL: list(tables.allowed), STOP_COL: list(tables.stop)},
                        index=pd.Index(list(vocab), name="token"))


def row_names(vocab: tuple[str, ...]) -> list[str]:
    return ["(start)"] + [f"after ‘{v}’" for v in vocab]


def markov_frame(tables: Tables, model: str, vocab: tuple[str, ...], normalized: bool = False):
    """Markov mode: one row per previous token (and the start), one column t0, t1, ... per next token."""
    import pandas as pd

    rows = getattr(tables, model)
    data = [normalized_text(r) if normalized else list(r) for r in rows]
    return pd.DataFrame(data, columns=[f"t{i}" for i in range(len(vocab))],
                        index=pd.Index(row_names(vocab)[: len(rows)], name="previous"))


def apply_edits(tables: Tables, edits: dict, table: str) -> Tables:
    """Apply a data editor's ``edited_rows`` ({row: {column: value}}) to the tables.

    table: 'fixed' (the one-table editor), 'tokens' (mask/stop), or 'p' / 'q' (Markov rows).
    """
    for row_key, changes in edits.items():
        row = int(row_key)
        for column, value in changes.items():
            if column in (ALLOW_COL, STOP_COL):
                name = "allowed" if column == ALLOW_COL else "stop"
                flags = list(getattr(tables, name))
                flags[row] = bool(value)
                tables = replace(tables, **{name: tuple(flags)})
            elif table == "fixed" and column in (P_COL, Q_COL):
                tables = set_weight(tables, "p" if column == P_COL else "q", 0, row, "" if value is None else value)
            elif table in ("p", "q") and str(column).startswith("t"):
                tables = set_weight(tables, table, row, int(str(column)[1:]), "" if value is None else value)
    return tables
