"""The weights editors' edits over a plain dict: every cell typed is kept, the editor's data never moves under it.

Streamlit's data editor sends every cell typed since it was drawn (``edited_rows``) with each edit, and drops
them in the browser when the data it is given changes; these tests hold the Playground to the contract that
makes typing a whole column safe: one key and one base per editor version, the tables = base + every edit.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from specviz.app.playground import weights
from specviz.app.playground.session import PlaygroundSession, editor_key
from specviz.playground import form, presets


def fresh() -> PlaygroundSession:
    pg = PlaygroundSession({})
    pg.tables = form.tables_from_scenario(presets.default_scenario())
    pg.table_vocab = presets.default_scenario().vocab
    pg.editor_version = 3
    return pg


def draw(pg: PlaygroundSession, table: str = "fixed") -> form.Tables:
    """What drawing an editor does: its base is taken, and Streamlit registers its (empty) state."""
    base = weights.editor_base(pg)
    pg.store.setdefault(editor_key(table, pg.editor_version), {"edited_rows": {}, "added_rows": [],
                                                               "deleted_rows": []})
    return base


def type_cells(pg: PlaygroundSession, edits: dict, table: str = "fixed") -> None:
    """The browser's message after an edit: every cell typed since the editor was drawn, then the callback."""
    key = editor_key(table, pg.editor_version)
    typed = pg.store[key]["edited_rows"]
    for row, cells in edits.items():
        typed.setdefault(row, {}).update(cells)
    weights.apply_edits(pg)  # what the editor's callback does, on this session


def test_typing_a_whole_column_keeps_every_cell_and_the_editor_keeps_its_key_and_data():
    pg = fresh()
    base = draw(pg)
    for row, text in enumerate(["0", "0", "7", "1/3", "0.25", "9"]):
        type_cells(pg, {row: {form.P_COL: text}})
        assert pg.editor_version == 3  # the same editor: no remount under the next keystroke
        assert weights.editor_base(pg) is base  # the data it shows never changes while it lives
    assert pg.tables.p[0] == ("0", "0", "7", "1/3", "0.25", "9")
    assert pg.tables.q == base.q


def test_a_cell_typed_twice_keeps_the_last_value_and_ticks_apply_too():
    pg = fresh()
    draw(pg)
    type_cells(pg, {0: {form.P_COL: "5"}})
    type_cells(pg, {0: {form.P_COL: "8"}, 2: {form.ALLOW_COL: False, form.STOP_COL: True}})
    assert pg.tables.p[0][0] == "8" and not pg.tables.allowed[2] and pg.tables.stop[2]


def test_leaving_the_tab_keeps_the_edits_and_the_next_editor_starts_from_them():
    pg = fresh()
    draw(pg)
    type_cells(pg, {1: {form.Q_COL: "11"}})
    del pg.store[editor_key("fixed", 3)]  # another tab's run: Streamlit drops the editor's state
    weights.apply_edits(pg)  # the top of the next run
    assert pg.tables.q[0][1] == "11"  # not reverted to the old base
    assert draw(pg).q[0][1] == "11"  # the editor drawn again shows the edit as its data


def test_a_load_draws_a_fresh_editor_from_the_loaded_tables():
    pg = fresh()
    draw(pg)
    type_cells(pg, {0: {form.P_COL: "4"}})
    pg.tables = form.tables_from_scenario(presets.apply_preset(presets.default_scenario(), "far apart", False))
    pg.editor_version += 1  # what controls.load does
    weights.apply_edits(pg)  # the old editor's edits do not touch the loaded tables
    assert draw(pg) == pg.tables and pg.tables.p[0][0] != "4"


def test_edits_set_directly_on_an_editor_never_drawn_apply_to_the_tables():
    pg = fresh()  # AppTest sets an editor's state without drawing it
    pg.store[editor_key("fixed", 3)] = {"edited_rows": {5: {form.P_COL: "2"}}}
    weights.apply_edits(pg)
    assert pg.tables.p[0][5] == "2"


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.sampled_from([form.P_COL, form.Q_COL]),
                          st.from_regex(r"[0-9]{1,3}(/[1-9])?", fullmatch=True)), min_size=1, max_size=20))
def test_the_tables_are_the_base_with_the_last_value_typed_in_each_cell(edits):
    pg = fresh()
    base = draw(pg)
    for row, column, text in edits:
        type_cells(pg, {row: {column: text}})
    expected = {(row, column): text for row, column, text in edits}
    for row in range(6):
        for column, model in ((form.P_COL, pg.tables.p[0]), (form.Q_COL, pg.tables.q[0])):
            want = expected.get((row, column), (base.p if column == form.P_COL else base.q)[0][row])
            assert model[row] == want
