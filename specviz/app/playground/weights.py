"""The Playground's weights tab: p, q, the mask and the stop tokens as editable tables (or sliders), and their edits."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ...playground import explain, form, share
from ...plots import style
from .session import EDITOR_TABLES, PlaygroundSession, editor_key, session, weight_slider_key

S = PlaygroundSession
WEIGHT_SLIDER_MAX = 50


# --- edits -------------------------------------------------------------------------------------------------
# Streamlit's data editor keeps the cells typed since it was drawn as ``edited_rows`` and sends them all with
# each edit, 150 ms after the last keystroke. When the data it is given changes, the browser drops those
# edits (and sends an empty set): an edit typed while a rerun was on its way was lost, and with the key bumped
# on every edit the grid itself was remounted under the next keystrokes. So the editors keep showing the tables
# they were first drawn from (``editor_base``) for as long as they live, the tables are that base with every
# edit applied, and the normalized values, which change with each edit, are drawn beside them.
def editors_alive(pg: PlaygroundSession) -> bool:
    """Whether an editor of this version holds state (Streamlit drops it after a run that does not draw it)."""
    return any(editor_key(table, pg.editor_version) in pg.store for table in EDITOR_TABLES)


def editor_base(pg: PlaygroundSession) -> form.Tables:
    """The tables the editors of this version show: kept while they live, taken afresh when they are (re)drawn."""
    base = pg.editor_base
    if base is None or base[0] != pg.editor_version or not editors_alive(pg):
        base = pg.editor_base = (pg.editor_version, pg.tables)
    return base[1]


def editor_edits(pg: PlaygroundSession) -> dict[str, dict]:
    """Each editor's ``edited_rows`` (every cell typed since it was drawn), by table; empty ones left out."""
    edits = {}
    for table in EDITOR_TABLES:
        key = editor_key(table, pg.editor_version)
        rows = pg.store[key].get("edited_rows") if key in pg.store else None
        if rows:
            edits[table] = rows
    return edits


def apply_edits(pg: PlaygroundSession) -> None:
    """The tables as the editors show them: their base with every edit typed into them applied.

    Nothing changes while no editor of this version holds state (another tab is open, the editors were
    redrawn after a load): the tables then already hold every edit, and the next editor starts from them.
    """
    if not editors_alive(pg):
        return
    tables = editor_base(pg)
    for table, rows in editor_edits(pg).items():
        tables = form.apply_edits(tables, rows, table)
    if tables != pg.tables:
        pg.tables = tables


def on_table_edit(key: str, table: str) -> None:
    """An editor's callback: the tables follow its cells (every edit since it was drawn, in one pass)."""
    apply_edits(session())


def apply_pending_edits() -> None:
    """Edits not applied by a callback (AppTest sets an editor's state directly) are applied at the top of a run."""
    apply_edits(session())


def on_weight_slider(model: str, token: int) -> None:
    pg = session()
    pg.tables = form.set_weight(pg.tables, model, 0, token, str(pg.store[weight_slider_key(model, token)]))
    pg.editor_version = pg.editor_version + 1


# --- the tab ----------------------------------------------------------------------------------------------
def large_tables(pg: PlaygroundSession) -> str:
    """Presenter mode: the weights as plain tables at a projector's size (the editors draw on a canvas that CSS
    cannot enlarge), normalized as the animation uses them; ticks for the mask and the stop tokens."""
    tables, vocab, fp32 = pg.tables, pg.table_vocab, bool(pg.fp32)
    if not tables.markov:
        frame = form.fixed_frame(tables, vocab, fp32)
        frame.index = [style.token_label(label) for label in vocab]  # ‘.’ quoted, as the charts show it
        for column in (form.ALLOW_COL, form.STOP_COL):
            frame[column] = ["✓" if flag else "" for flag in frame[column]]
        parts = [frame.to_html(escape=True, border=0)]
    else:
        labels = {f"t{i}": style.token_label(label) for i, label in enumerate(vocab)}
        parts = []
        for model, name in (("p", "Target p"), ("q", "Draft q")):
            frame = form.markov_frame(tables, model, vocab, normalized=True, fp32=fp32, compact=len(vocab) > 6)
            parts.append(f"<b>{name}, normalized</b>" + frame.rename(columns=labels).to_html(escape=True, border=0))
    return "<div class='specviz-weights-large'>" + "".join(parts) + "</div>"


def weight_editors(presenter: bool = False) -> None:
    pg = session()
    if presenter:  # the numbers at a size a room reads; the editors under them, folded
        st.markdown(large_tables(pg), unsafe_allow_html=True)
        with st.expander("Edit the weights (the editors, at their usual size)"):
            editors(pg)
        return
    editors(pg)


def editors(pg: PlaygroundSession) -> None:
    """The editors: one table (fixed mode), the token settings and p's and q's rows (Markov), or sliders."""
    tables = pg.tables
    if pg.mode_note and tables.markov:
        st.info(pg.mode_note)
    if tables.markov:
        markov_editors(pg)
        return
    sliders = st.toggle("Edit weights with sliders", key=S.sliders.key)
    if sliders and weight_sliders(pg):
        return
    fixed_editor(pg)


def fixed_editor(pg: PlaygroundSession) -> None:
    """One row per token: p and q as typed, the mask and the stop ticks; beside it, p and q normalized."""
    fp32 = bool(pg.fp32)
    key = editor_key("fixed", pg.editor_version)
    base = editor_base(pg)
    typed, shown = st.columns([48, 52], gap="small")
    frame = form.fixed_frame(base, pg.table_vocab, fp32).drop(columns=[form.PN_COL, form.QN_COL])
    frame.index = pd.Index([style.token_label(label) for label in pg.table_vocab], name="token")
    typed.data_editor(frame, key=key, on_change=on_table_edit, args=(key, "fixed"), width="stretch",
        column_config={
            "token": st.column_config.TextColumn(width=72),
            form.P_COL: st.column_config.TextColumn(help="a number ≥ 0: 3, 0.25 or 1/3", width=84),
            form.Q_COL: st.column_config.TextColumn(help="a number ≥ 0: 3, 0.25 or 1/3", width=84),
            form.ALLOW_COL: st.column_config.CheckboxColumn("allows", help="the target mask (a grammar)",
                                                              width=64),
            form.STOP_COL: st.column_config.CheckboxColumn(help="a stop token ends the request", width=48),
        })
    normalized = "normalized, as FP32 rounds it" if fp32 else "normalized"
    frame = form.fixed_frame(pg.tables, pg.table_vocab, fp32)[[form.PN_COL, form.QN_COL]]
    frame.index = pd.Index([style.token_label(label) for label in pg.table_vocab], name="token")
    shown.dataframe(frame, width="stretch", column_config={
        form.PN_COL: st.column_config.TextColumn(help=f"p {normalized}; ⚠ marks a refused weight"),
        form.QN_COL: st.column_config.TextColumn(help=f"q {normalized}; ⚠ marks a refused weight")})
    if fp32:
        st.caption("FP32 on: the normalized columns show the weights as float32 holds them; a weight FP32 "
                   "flushes to 0 is marked (flushed), one it keeps as a subnormal (subnormal).")


def markov_editors(pg: PlaygroundSession) -> None:
    """Markov mode: the mask/stop table, then p's and q's rows (raw and normalized)."""
    vocab, tables, version, fp32 = pg.table_vocab, pg.tables, pg.editor_version, bool(pg.fp32)
    base = editor_base(pg)
    key = editor_key("tokens", version)
    st.data_editor(form.token_frame(base, vocab), key=key, on_change=on_table_edit, args=(key, "tokens"))
    # every column must show at 1280 px beside the sidebar (about 820 px of page): each table gets the page's
    # full width, one under the other; from 7 tokens on the normalized cells are decimals in narrow columns
    compact = len(vocab) > 6
    raw = columns_config(vocab, "small" if len(vocab) <= 8 else 54)
    normalized = raw if compact else columns_config(vocab, None)
    for model, name in (("p", "Target p"), ("q", "Draft q")):
        key = editor_key(model, version)
        st.markdown(f"**{name}: one row per previous token** (raw weights)")
        st.data_editor(form.markov_frame(base, model, vocab), key=key, on_change=on_table_edit,
                       args=(key, model), column_config=raw)
        st.markdown(f"**{name}, normalized**" + (" (as FP32 rounds it)" if fp32 else ""))
        st.dataframe(form.markov_frame(tables, model, vocab, normalized=True, fp32=fp32, compact=compact),
                     column_config=normalized)


def columns_config(vocab: tuple[str, ...], width) -> dict:
    return {f"t{i}": st.column_config.TextColumn(style.token_label(label), width=width)
            for i, label in enumerate(vocab)}


def slider_values(tables: form.Tables) -> dict[tuple[str, int], int] | str:
    """Each start-row weight as a whole number 0..50 for the sliders, or the first text that cannot be one."""
    values = {}
    for model in ("p", "q"):
        for i, text in enumerate(getattr(tables, model)[0]):
            try:
                number = share.parse_weight(text)
            except explain.PlaygroundError:
                number = None
            if number is None or number != int(number) or not 0 <= number <= WEIGHT_SLIDER_MAX:
                return text
            values[model, i] = int(number)
    return values


def weight_sliders(pg: PlaygroundSession) -> bool:
    """Sliders for whole-number weights; False (and a note) when a weight needs the table."""
    values = slider_values(pg.tables)
    if isinstance(values, str):
        st.info(f"Sliders take whole numbers 0..{WEIGHT_SLIDER_MAX}; ‘{values}’ needs the table.")
        return False
    p_col, q_col = st.columns(2)
    for model, column in (("p", p_col), ("q", q_col)):
        normalized = form.normalized_text(getattr(pg.tables, model)[0], bool(pg.fp32))
        column.markdown(f"**{'target p' if model == 'p' else 'draft q'}**")
        for i, label in enumerate(pg.table_vocab):
            key = weight_slider_key(model, i)
            pg.store[key] = values[model, i]
            column.slider(f"{label} — {normalized[i]}", 0, WEIGHT_SLIDER_MAX, key=key,
                          on_change=on_weight_slider, args=(model, i))
    return True
