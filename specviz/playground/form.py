"""The editable form behind the Playground's controls, as plain data, and its conversion to a Scenario.

Weights stay text while they are edited (so '1/3' is exact and a typo can be shown back
to the user); ``to_scenario`` parses them and raises ``PlaygroundError`` for text that is
not a number. Everything the core itself refuses is left to ``explain.check_scenario``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np

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
class SidebarSettings:
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
    verification: str = "token"  # the registry name the Verification switch describes ("token", "multi:2", ...)


def settings_from_scenario(scenario: Scenario) -> SidebarSettings:
    top_p = 1.0 if scenario.target_top_p is None else float(scenario.target_top_p)
    return SidebarSettings(scenario.depth, scenario.draft_topk, float(scenario.target_temperature),
                           scenario.target_top_k, top_p, scenario.fp32, scenario.seed, scenario.request_id,
                           scenario.generation, scenario.verification)


def to_scenario(vocab: tuple[str, ...], tables: Tables, settings: SidebarSettings, context_id: str = "") -> Scenario:
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
        verification=settings.verification,
    )


FP32_MAX = 3.4028234663852886e38
FP32_TINY = 2.0**-126  # the smallest normal float32; below it a value is subnormal (or 0 below 2^-149)


def _cell_flag(text: str, fp32: bool) -> tuple[Fraction | None, str]:
    """(the weight as FP32 or exact, '') or (None, '⚠ why this cell is refused')."""
    try:
        value = parse_weight(text)
    except PlaygroundError:
        return None, "⚠ not a number"
    if value < 0:
        return None, "⚠ negative"
    if not fp32:
        return Fraction(value), ""
    try:
        double = float(value)
    except OverflowError:
        return None, "⚠ too large for FP32"
    if double > FP32_MAX * (1 + 2**-25):  # rounds to inf in float32
        return None, "⚠ too large for FP32"
    return Fraction(float(np.float32(double))), ""


def _decimal(p: Fraction) -> str:
    return f"{float(p):.4f}" if p >= Fraction(1, 10_000) else f"{float(p):.2e}"


def _compact(p: Fraction) -> str:
    if p.denominator == 1:
        return str(p.numerator)
    return f"{float(p):.3f}" if p >= Fraction(1, 1000) else f"{float(p):.1e}"


def normalized_text(row: TextRow, fp32: bool = False, compact: bool = False) -> list[str]:
    """Each weight over the row's sum, as 'a/b ≈ 0.123'; with fp32, of the weights rounded to float32.

    A refused cell says why ('⚠ negative'); FP32 zeros and subnormals are marked; a row
    with no mass shows '—'. compact: decimals only ('0.222', '0 FP32', '1e-40 sub'), for narrow columns.
    """
    cells = [_cell_flag(w, fp32) for w in row]
    if any(flag for _, flag in cells):
        return [flag or "—" for _, flag in cells]
    values = [value for value, _ in cells]
    total = sum(values, Fraction(0))
    if total <= 0:
        return ["—"] * len(row)
    out = []
    for text, value in zip(row, values, strict=True):
        p = value / total
        if compact:
            flushed = fp32 and value == 0 and Fraction(parse_weight(text)) != 0
            cell = "0 FP32" if flushed else _compact(p)
            out.append(cell + (" sub" if fp32 and 0 < value < FP32_TINY else ""))
            continue
        if p.denominator == 1:
            cell = str(p.numerator)
        elif p.denominator < 10**6:
            cell = f"{p.numerator}/{p.denominator} ≈ {float(p):.3f}"
        else:
            cell = f"≈ {_decimal(p)}"
        if fp32 and value == 0 and Fraction(parse_weight(text)) != 0:
            cell = "0 (flushed)"
        elif fp32 and 0 < value < FP32_TINY:
            cell += " (subnormal)"
        out.append(cell)
    return out


def resize_topk(k: int, old_v: int, new_v: int) -> int:
    """A top-k slider after the vocabulary changes: 'keep all' (k = old V) stays keep all; a set k is kept."""
    if k >= old_v:
        return new_v
    return min(k, new_v)


@dataclass(frozen=True)
class Refit:
    """The weight tables and the two top-k sliders fitted to a (possibly new) vocabulary and mode."""

    tables: Tables
    draft_topk: int
    top_k: int
    changed: bool  # the tables or the vocabulary changed: the editors must redraw


def refit_controls(tables: Tables, table_vocab: tuple[str, ...], vocab: tuple[str, ...], markov: bool,
                   draft_topk: int, top_k: int) -> Refit:
    """Tables resized to the vocabulary and mode; top-k sliders resized when the vocabulary's size changes."""
    fitted = fit_tables(tables, len(vocab), markov)
    changed = fitted != tables or tuple(vocab) != tuple(table_vocab)
    old_v, v = len(table_vocab), len(vocab)
    if changed and old_v != v:  # "keep all" stays keep all; a filter the user set is kept
        draft_topk, top_k = resize_topk(draft_topk, old_v, v), resize_topk(top_k, old_v, v)
    return Refit(fitted, draft_topk, top_k, changed)


# --- the data-editor tables (plain pandas, tested without Streamlit) -----------------------------
P_COL, PN_COL, Q_COL, QN_COL, ALLOW_COL, STOP_COL = ("p weight", "p normalized", "q weight", "q normalized",
                                                    "target allows", "stop")


def fixed_frame(tables: Tables, vocab: tuple[str, ...], fp32: bool = False):
    """One row per token: raw and normalized p and q, the mask tick and the stop tick."""
    import pandas as pd

    return pd.DataFrame({
        P_COL: list(tables.p[0]), PN_COL: normalized_text(tables.p[0], fp32),
        Q_COL: list(tables.q[0]), QN_COL: normalized_text(tables.q[0], fp32),
        ALLOW_COL: list(tables.allowed), STOP_COL: list(tables.stop),
    }, index=pd.Index(list(vocab), name="token"))


def token_frame(tables: Tables, vocab: tuple[str, ...]):
    """Markov mode's per-token settings: the mask tick and the stop tick."""
    import pandas as pd

    return pd.DataFrame({ALLOW_COL: list(tables.allowed), STOP_COL: list(tables.stop)},
                        index=pd.Index(list(vocab), name="token"))


def row_names(vocab: tuple[str, ...]) -> list[str]:
    return ["(start)"] + [f"after ‘{v}’" for v in vocab]


def markov_frame(tables: Tables, model: str, vocab: tuple[str, ...], normalized: bool = False, fp32: bool = False,
                 compact: bool = False):
    """Markov mode: one row per previous token (and the start), one column t0, t1, ... per next token."""
    import pandas as pd

    rows = getattr(tables, model)
    data = [normalized_text(r, fp32, compact) if normalized else list(r) for r in rows]
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


# --- what the controls can hold ---------------------------------------------------------------------
SEED_MAX = 2**53 - 1  # a browser number box holds whole numbers exactly only up to 2^53 - 1
TEMPERATURE_RANGE = (0.1, 3.0)
TOP_P_RANGE = (0.05, 1.0)


def _number(value) -> str:
    """A setting in a note: None is 'off' (top-p 2.5 -> off), a long number keeps its ends."""
    if value is None:
        return "off"
    text = f"{value:g}" if isinstance(value, float) else str(value)
    return text if len(text) <= 25 else f"{text[:10]}…{text[-10:]} ({len(text)} digits)"


def fit_to_controls(scenario: Scenario, max_depth: int) -> tuple[Scenario, list[str]]:
    """The scenario as the sidebar's controls can hold it, and one note per value that had to change.

    A link or file may carry values no control can show (seed -5, temperature 5, depth 9);
    playing them silently altered would misreport the link, so each change is named.
    """
    changes: dict = {}
    notes: list[str] = []

    def change(field: str, name: str, old, new, why: str) -> None:
        if new != old:
            changes[field] = new
            notes.append(f"{name} {_number(old)} → {_number(new)} ({why})")

    v = scenario.vocab_size
    change("depth", "depth", scenario.depth, min(max(scenario.depth, 1), max_depth), f"depth is 1 to {max_depth}")
    change("seed", "seed", scenario.seed, min(max(scenario.seed, 0), SEED_MAX), f"seeds are 0 to {SEED_MAX}")
    change("generation", "generation", scenario.generation, min(max(scenario.generation, 0), SEED_MAX),
           "generations are ≥ 0")
    low, high = TEMPERATURE_RANGE
    t = float(scenario.target_temperature)
    fitted = round(min(max(t, low), high), 4)
    if fitted != t:
        why = f"the slider goes from {low} to {high}" if not low <= t <= high else "the slider keeps 4 decimals"
        change("target_temperature", "temperature", t, 1.0 if fitted == 1 else fitted, why)
    if scenario.target_top_p is not None:
        top_p = float(scenario.target_top_p)
        fitted = round(min(max(top_p, TOP_P_RANGE[0]), TOP_P_RANGE[1]), 4)
        if fitted != top_p:
            change("target_top_p", "top-p", top_p, None if fitted >= 1 else fitted,
                   f"the slider goes from {TOP_P_RANGE[0]} to 1 and keeps 4 decimals")
    for field, name in (("draft_topk", "draft top-k"), ("target_top_k", "target top-k")):
        k = getattr(scenario, field)
        if k is not None and k >= v:
            changes[field] = None
            notes.append(f"{name} {k} → keep all ({k} ≥ the {v} tokens of the vocabulary)")
    return (scenario.with_changes(**changes) if changes else scenario), notes


def alterations_line(notes: list[str], source: str = "link") -> str:
    """The one line that says what opening a link or file changed, and why."""
    return f"The {source} was adjusted to what the controls allow: " + "; ".join(notes) + "."


def seed_from_text(text: str | int) -> int:
    """The seed a text box holds; PlaygroundError unless it is a whole number from 0 to 2^53 − 1."""
    raw = str(text).strip().replace(",", "").replace("_", "")  # typed thousands separators are fine
    try:
        seed = int(raw) if raw.isascii() else None  # int() would also read '４２' and '٤٢'
    except ValueError:
        seed = None
    if seed is None:
        raise PlaygroundError(f"The seed ‘{text}’ is not a whole number; type e.g. 0, 1 or 42 (ASCII digits 0-9).",
                              field="seed")
    if not 0 <= seed <= SEED_MAX:
        raise PlaygroundError(f"The seed {seed} is outside 0 to {SEED_MAX:,} (2^53 − 1, the largest whole "
                              "number a browser holds exactly).")
    return seed


def flagged_cells(tables: Tables, vocab: tuple[str, ...], fp32: bool = False) -> list[str]:
    """Every weight cell that is refused, named as the weights tab shows it ('p weight of ‘the’: negative')."""
    out = []
    names = ["(start)"] + [f"after ‘{label}’" for label in vocab]
    for model in ("p", "q"):
        rows = getattr(tables, model)
        for r, row in enumerate(rows):
            for i, text in enumerate(row):
                flag = _cell_flag(text, fp32)[1]
                if flag:
                    where = f"{model} weight of ‘{vocab[i]}’" if i < len(vocab) else f"{model} weight {i}"
                    if len(rows) > 1:
                        where += f", row {names[r] if r < len(names) else r}"
                    out.append(f"{where}: ‘{text}’ is {flag.removeprefix('⚠ ')}")
    return out
