"""Issue 20 items 3-6 under AppTest: the link follows every edit, the preset box says "custom (from ...)",
a refused card shows one consistent state, unreadable links get a plain message, filters are all named."""

from pathlib import Path

import pytest
from player_support import caption, has_player
from streamlit.testing.v1 import AppTest

from specviz import gallery
from specviz.app.playground.messages import REFUSED_CAPTION
from specviz.playground import explain, presets, share

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "playground.py")
WEIGHTS_TAB = "✏️ p and q weights, mask, stop tokens"
SHARE_TAB = "🔗 Share, download, load"
MASK_ALL = gallery.BY_SLUG["mask-all"].scenario


def ok(at):
    assert not at.exception, [e.value for e in at.exception]
    return at


def app(query=None, tab=None):
    at = AppTest.from_file(PAGE, default_timeout=60)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    if tab:
        at.session_state["pg_tab"] = tab
    return ok(at.run())


def link(at) -> dict:
    return {k: (v[0] if isinstance(v, list) else v) for k, v in at.query_params.items()}


def type_cells(at, edits: dict) -> None:
    """Cells typed into the weights editor, sent as the browser sends them: with every cell typed since it was drawn."""
    key = f"pg_fixed_{at.session_state['pg_editor_version']}"
    try:
        typed = {row: dict(cells) for row, cells in at.session_state[key]["edited_rows"].items()}
    except KeyError:
        typed = {}
    for row, cells in edits.items():
        typed.setdefault(row, {}).update(cells)
    at.session_state[key] = {"edited_rows": typed, "added_rows": [], "deleted_rows": []}


def set_weight(at, column, row, text):
    type_cells(at, {row: {column: text}})
    return ok(at.run())


def step_caption(at) -> list[str]:
    """The step player's label ('Step 1 · round 1 · ...'), when the page shows a player."""
    return [caption(at)] if has_player(at) else []


def test_a_weight_edit_on_the_weights_tab_updates_the_link_and_the_preset_box_at_once():
    at = app(tab=WEIGHTS_TAB)
    assert link(at)["p"] == "6,5,4,3,2,1"
    set_weight(at, "p weight", 0, "9")
    assert link(at)["p"] == "9,5,4,3,2,1" and link(at)["at"] == "1"
    assert at.selectbox(key="pg_preset").value == "custom (from close)"
    assert any("‘close’ after your edits" in c.value for c in at.sidebar.caption)
    set_weight(at, "p weight", 0, "6")  # the preset's own weights again: its name again
    assert at.selectbox(key="pg_preset").value == "close" and link(at)["p"] == "6,5,4,3,2,1"
    set_weight(at, "q weight", 1, "1")
    edited = at.session_state["pg_scenario"]
    assert at.selectbox(key="pg_preset").value == "custom (from close)"
    at.selectbox(key="pg_preset").set_value("far apart").run()
    assert ok(at).session_state["pg_scenario"] == presets.apply_preset(edited, "far apart")
    assert at.selectbox(key="pg_preset").value == "far apart" and link(at)["q"] == "1,4,9,16,25,36"
    at.button(key="pg_undo_preset").click().run()
    assert ok(at).session_state["pg_scenario"] == edited
    assert at.selectbox(key="pg_preset").value == "custom (from close)"


def test_a_refused_gallery_card_shows_one_consistent_state():
    assert explain.check_scenario(MASK_ALL)
    at = app(share.scenario_to_query(MASK_ALL))
    # the controls, the box and the link all show the card; nothing of another scenario is animated
    assert at.slider(key="pg_depth").value == 2 and at.text_input(key="pg_vocab").value == "a, b, c, d"
    assert any("no support" in e.value for e in at.error)
    assert any(b.key == "pg_undo" for b in at.button)
    assert any(REFUSED_CAPTION in c.value for c in at.caption)
    assert not step_caption(at) and not at.get("plotly_chart") and not has_player(at)
    assert any("Nothing to animate" in i.value for i in at.info)
    assert link(at) == share.scenario_to_query(MASK_ALL, 0)
    at.session_state["pg_tab"] = WEIGHTS_TAB
    editor = ok(at.run()).data_editor[0].value
    assert list(editor.index) == ["a", "b", "c", "d"] and not editor["target allows"].any()
    at.session_state["pg_tab"] = SHARE_TAB
    ok(at.run())
    assert any("vocab=a%2Cb%2Cc%2Cd" in c.value and "mask=0000" in c.value for c in at.code)
    assert link(at) == share.scenario_to_query(MASK_ALL, 0)


def test_a_refused_card_plays_once_its_settings_can_and_undo_returns_to_the_last_working_scenario():
    at = app(share.scenario_to_query(MASK_ALL), tab=WEIGHTS_TAB)
    type_cells(at, {0: {"target allows": True}})
    ok(at.run())
    playing = at.session_state["pg_scenario"]
    assert playing.vocab == ("a", "b", "c", "d") and playing.depth == 2 and playing.target_mask[0]
    assert not at.error and link(at) == share.scenario_to_query(playing, 0)
    at.session_state["pg_tab"] = "▶ Animation"
    assert step_caption(ok(at.run()))
    # undo from a refused card: the last scenario that worked, animated again
    at = app(share.scenario_to_query(MASK_ALL))
    at.button(key="pg_undo").click().run()
    assert not ok(at).error and step_caption(at)
    assert at.session_state["pg_scenario"] == presets.default_scenario()
    assert link(at) == share.scenario_to_query(presets.default_scenario(), 0)


def unreadable_link(monkeypatch):
    def refuse(params):
        error = explain.PlaygroundError("The link's p ‘%%%’ cannot be read.")
        error.unreadable = True  # the contract with share.py: nothing of the link could be read
        raise error

    monkeypatch.setattr(share, "scenario_from_query", refuse)


def test_an_unreadable_link_gets_a_plain_message_without_undo(monkeypatch):
    unreadable_link(monkeypatch)
    at = app(share.scenario_to_query(presets.default_scenario(), 0) | {"p": "%%%"})
    assert any("cannot be read" in e.value for e in at.error)
    assert not any(b.key == "pg_undo" for b in at.button)
    text = " ".join(c.value for c in at.caption)
    assert "nearest settings" not in text and "last scenario that worked" not in text
    assert step_caption(at) and at.session_state["pg_scenario"] == presets.default_scenario()


def test_notes_of_the_reader_are_each_said_in_the_one_line(monkeypatch):
    read = share.scenario_from_query

    class Opened(tuple):
        notes = ("step 9999 → 12 (the last event)", "unknown key zzz ignored")

    monkeypatch.setattr(share, "scenario_from_query", lambda params: Opened(read(params)))
    at = app(share.scenario_to_query(presets.default_scenario(), 3) | {"seed": "-5"})
    lines = [i.value for i in at.info if "adjusted" in i.value]
    assert len(lines) == 1 and "\n" not in lines[0]
    assert all(part in lines[0] for part in ("step 9999 → 12", "unknown key zzz ignored", "seed -5 → 0"))


@pytest.mark.parametrize("top_p, shown", [(0.9, "target top-p 0.9"), (1.0, None)])
def test_active_filters_name_top_p(top_p, shown):
    at = app()
    at.slider(key="pg_top_p").set_value(top_p).run()
    captions = " ".join(c.value for c in ok(at).sidebar.caption)
    if shown:
        assert "Active filters: " + shown in captions
    else:
        assert "Active filters" not in captions


def test_a_step_past_the_end_of_a_link_is_said():
    at = app(share.scenario_to_query(presets.default_scenario(), 99_999))
    step = at.session_state["pg_state"].step
    lines = [i.value for i in at.info if "adjusted" in i.value]
    assert len(lines) == 1 and f"Step 100000 → Step {step + 1} (the last step" in lines[0]
    assert link(at)["at"] == str(step + 1)
