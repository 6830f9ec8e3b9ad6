"""The Playground page under streamlit.testing.v1.AppTest (no browser: player_support plays the step player's
part, reading its data and sending what the browser sends)."""

from pathlib import Path

import pytest
from player_support import back, caption, data, frame, headline, notice, press, step
from player_support import text as player_text
from streamlit.testing.v1 import AppTest

from specviz.playground import presets, share, state
from specviz.scenario import Table

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "playground.py")


def app(query=None):
    at = AppTest.from_file(PAGE, default_timeout=60)
    if query:
        for key, value in query.items():
            at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


WEIGHTS_TAB = "✏️ p and q weights, mask, stop tokens"
SHARE_TAB = "🔗 Share, download, load"


def open_tab(at, label):
    """Select a tab (the page's tabs keep their selection in session state under pg_tab)."""
    at.session_state["pg_tab"] = label
    at.run()
    assert not at.exception, at.exception
    return at


def page_text(at):
    return "\n".join(m.value for m in at.markdown) + "\n" + "\n".join(s.value for s in at.subheader)


def test_loads_with_defaults_and_writes_the_link():
    at = app()
    assert "drafting position 1" in headline(at)
    assert not at.error
    assert at.query_params["vocab"] == ["the,cat,sat,on,mat,."] or at.query_params["vocab"] == "the,cat,sat,on,mat,."


@pytest.mark.parametrize("markov", [False, True])
def test_every_preset_loads(markov):
    at = app()
    if markov:
        at.radio(key="pg_mode").set_value("Markov: p, q depend on the previous token").run()
    for name in presets.PRESETS:
        at.selectbox(key="pg_preset").set_value(name).run()  # applies on choice
        assert not at.exception, (name, at.exception)
        assert not at.error, (name, [e.value for e in at.error])
        scenario = at.session_state["pg_scenario"]
        assert (scenario.target.rows is not None) is markov
        expected = presets.apply_preset(scenario, name, markov)
        assert scenario == expected, name
        step(at, 2)


def test_sliders_change_the_trace():
    at = app()
    before = headline(at), player_text(at)
    at.text_input(key="pg_seed").input("3").run()
    after = headline(at), player_text(at)
    assert at.session_state["pg_scenario"].seed == 3 and before != after
    at.slider(key="pg_depth").set_value(5).run()
    assert at.session_state["pg_scenario"].depth == 5
    step(at, 5)
    assert "checking position 1" in headline(at)
    at.slider(key="pg_draft_topk").set_value(1).run()
    assert at.session_state["pg_scenario"].draft_topk == 1
    assert at.session_state["pg_state"].step == 0  # an edit replays from the start


def test_stepping_walks_through_every_phase_with_exact_fractions():
    s = presets.apply_preset(presets.default_scenario(), "close").with_changes(seed=1)
    timeline = state.timeline_for(s)
    timeline.ensure_rounds(3)  # seed 1: a rejection and a bonus within three rounds
    at = app(share.scenario_to_query(s, 0))
    seen = set()
    for index in range(len(timeline.events)):
        event = timeline.events[index]
        text = player_text(at)
        assert at.session_state["pg_state"].step == index
        seen.add(event.kind)
        if event.kind == "draft":
            assert "drafting" in headline(at)
        elif event.kind == "check":
            word = "accepted" if event.accepted else "rejected"
            assert word in headline(at)
            a = event.acceptance
            exact = str(a.numerator) if a.denominator == 1 else f"{a.numerator}/{a.denominator}"
            assert f"min(1, p(x)/q(x)) = {exact}" in text
        elif event.kind == "correction":
            assert "residual" in headline(at)
            m = event.residual_mass
            assert f"{m.numerator}/{m.denominator}" in text and "1 − Σ min(p, q)" in text
        elif event.kind == "bonus":
            assert "bonus token" in headline(at)
        elif event.kind == "result":
            assert "commits" in headline(at)
        step(at)
    assert {"draft", "check", "correction", "bonus", "result"} <= seen


def test_step_back_play_reset_next_round_new_seed():
    at = app()
    step(at, 3)
    back(at)
    assert at.session_state["pg_state"].step == 2
    first = data(at)["round"]
    assert first["first"] == 0 and len(first["frames"]) == first["last"] + 1  # the whole round, once
    # Play runs in the browser; at the round's end it asks for the next round and plays on
    press(at, "step", dir=1, step=first["last"], playing=True)
    assert data(at)["playing"] and data(at)["step"] == first["last"] + 1 and "Round 2" in headline(at)
    press(at, "reset")
    assert at.session_state["pg_state"].step == 0 and not data(at)["playing"]
    press(at, "next_round")
    assert "Round 2" in headline(at)
    seed = at.session_state["pg_scenario"].seed
    press(at, "new_seed")
    assert at.session_state["pg_scenario"].seed == seed + 1 and at.text_input(key="pg_seed").value == str(seed + 1)


def test_stop_token_ends_the_request():
    s = presets.apply_preset(presets.default_scenario(), "stop-heavy")
    timeline = state.timeline_for(s)
    timeline.ensure_rounds(state.MAX_ROUNDS)
    at = app(share.scenario_to_query(s, len(timeline.events) - 2))
    assert "stop token" in headline(at)
    step(at)
    press(at, "next_round")
    assert "stopped" in notice(at)


def test_query_string_restores_a_scenario():
    s = presets.apply_preset(presets.default_scenario(markov=True), "far apart", True).with_changes(
        vocab=("a", "b", "c", "d", "e", "f"), depth=4, seed=9, target_mask=(True,) * 5 + (False,),
        stop_ids=frozenset({2}), target_temperature=0.5)
    at = app(share.scenario_to_query(s, 5) | {"presenter": "1"})
    assert at.session_state["pg_scenario"] == s
    assert at.session_state["pg_state"].step == 5
    assert at.session_state["pg_presenter"] is True
    assert caption(at).startswith("Step 6 ·") and data(at)["presenter"]
    at.toggle(key="pg_presenter").set_value(False).run()
    assert at.text_input(key="pg_vocab").value == "a, b, c, d, e, f"
    assert at.slider(key="pg_depth").value == 4


def test_preset_box_is_honest_about_linked_weights():
    # weights no preset has: the box says so, has no preset description, and Load preset has nothing to load
    custom = presets.default_scenario().with_changes(target=Table((1, 2, 3, 4, 5, 6)))
    at = app(share.scenario_to_query(custom, 0))
    assert at.selectbox(key="pg_preset").value == presets.CUSTOM
    captions = " ".join(c.value for c in at.sidebar.caption)
    assert presets.CUSTOM_DESCRIPTION in captions and presets.PRESETS["close"].description not in captions
    # a link whose weights are a preset's: the box names that preset
    far = presets.apply_preset(presets.default_scenario(), "far apart", False)
    at = app(share.scenario_to_query(far, 0))
    assert at.selectbox(key="pg_preset").value == "far apart"
    # picking a real preset loads it at once
    at = app(share.scenario_to_query(custom, 0))
    at.selectbox(key="pg_preset").set_value("p = q").run()
    assert at.session_state["pg_scenario"] == presets.apply_preset(custom, "p = q", False)


def test_damaged_link_is_explained():
    at = app(share.scenario_to_query(presets.default_scenario(), 0) | {"p": "1,oops,1,1,1,1"})
    assert any("not a number" in e.value for e in at.error)


def test_refused_link_keeps_its_settings_and_explains():
    s = presets.default_scenario().with_changes(target=Table((0,) * 6), depth=2)
    at = app(share.scenario_to_query(s, 0))
    assert any("target has no support" in e.value for e in at.error)
    assert at.slider(key="pg_depth").value == 2
    assert at.session_state["pg_scenario"] == presets.default_scenario()  # the animation shows a working one


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


def normalized(at, column: str = "p normalized") -> list[str]:
    """A column of the normalized table beside the weights editor."""
    return next(frame.value[column].tolist() for frame in at.dataframe if column in frame.value.columns)


def set_weight(at, column, row, text):
    type_cells(at, {row: {column: text}})
    at.run()
    assert not at.exception, at.exception


@pytest.mark.parametrize("text, words", [("-1", "negative"), ("abc", "not a number"), ("1e39", None)])
def test_refused_weight_edits_explain_and_undo(text, words):
    at = app()
    at.slider(key="pg_depth").set_value(4).run()
    good = at.session_state["pg_scenario"]
    set_weight(at, "p weight", 0, text)
    if words is None:  # 1e39 is fine until FP32 is switched on
        at.toggle(key="pg_fp32").set_value(True).run()
        words = "too large for FP32"
    assert any(words in e.value for e in at.error), [e.value for e in at.error]
    assert at.session_state["pg_scenario"].depth == 4  # nothing else was lost
    assert at.slider(key="pg_depth").value == 4
    at.button(key="pg_undo").click().run()
    assert not at.error  # back to the last scenario that worked
    assert at.session_state["pg_scenario"] == at.session_state["pg_scenario"].with_changes(fp32=False)
    assert at.session_state["pg_scenario"].depth == 4
    if text != "1e39":
        assert at.session_state["pg_scenario"] == good


def test_mask_without_support_is_explained():
    at = app()
    type_cells(at, {i: {"target allows": False} for i in range(5)})
    at.run()
    assert not at.error  # '.' still has weight
    set_weight(at, "p weight", 5, "0")
    assert any("Every token the target allows has weight 0: the target has no support" in e.value
               for e in at.error)


def test_weight_sliders_refuse_an_all_zero_draft():
    at = open_tab(app(), WEIGHTS_TAB)
    at.toggle(key="pg_sliders").set_value(True).run()
    for i in range(6):
        at.slider(key=f"pg_wq_{i}").set_value(0)
    at.run()
    assert any("draft has no support" in e.value for e in at.error)
    at.slider(key="pg_wq_2").set_value(5).run()
    assert not at.error and at.session_state["pg_scenario"].draft.start == (0, 0, 5, 0, 0, 0)


@pytest.mark.parametrize("vocab, words", [("solo", "2 to 12"), ("a, a, b", "twice"), (",".join("abcdefghijklm"),
                                                                                       "2 to 12")])
def test_refused_vocabulary(vocab, words):
    at = app()
    at.text_input(key="pg_vocab").input(vocab).run()
    assert any(words in e.value for e in at.error)
    assert at.session_state["pg_scenario"].vocab == presets.DEFAULT_VOCAB


def test_vocabulary_resize_and_markov_mode():
    at = app()
    at.text_input(key="pg_vocab").input("a, b, c, d, e, f, g, h").run()
    s = at.session_state["pg_scenario"]
    assert s.vocab_size == 8 and len(s.target.start) == 8
    at.radio(key="pg_mode").set_value("Markov: p, q depend on the previous token").run()
    s = at.session_state["pg_scenario"]
    assert s.target.rows is not None and len(s.target.rows) == 8
    assert not at.error


def test_request_id_empty_is_explained():
    at = app()
    at.text_input(key="pg_request").input("").run()
    assert any("session" in e.value.lower() for e in at.error)


def test_json_upload_restores_a_scenario():
    s = presets.apply_preset(presets.default_scenario(), "peaked vs flat").with_changes(seed=11)
    at = open_tab(app(), SHARE_TAB)
    at.file_uploader(key="pg_upload").upload("s.json", share.export_json(s, 3).encode(), "application/json").run()
    assert not at.exception
    assert at.session_state["pg_scenario"] == s and at.session_state["pg_state"].step == 3
    at.file_uploader(key="pg_upload").upload("bad.json", b"nope", "application/json").run()
    assert any("not JSON" in e.value for e in at.error)


def test_presenter_mode_hides_controls():
    at = app()
    at.toggle(key="pg_presenter").set_value(True).run()
    keys = {w.key for w in at.slider}
    assert "pg_depth" in keys and "pg_temperature" not in keys
    at.toggle(key="pg_presenter").set_value(False).run()
    assert at.slider(key="pg_temperature").value == 1.0  # kept while hidden


def test_gallery_cards_open_unchanged_or_explained():
    gallery = pytest.importorskip("specviz.gallery")
    from specviz.playground import explain

    for card in gallery.CARDS:
        at = app(share.scenario_to_query(card.scenario))
        if explain.check_scenario(card.scenario):
            assert at.error, card.scenario
        else:
            assert at.session_state["pg_scenario"] == card.scenario
            assert not at.error


# --- issue 9: what a lecturer trips over -----------------------------------------------------------
def undo_buttons(at):
    return [b for b in at.button if b.label.startswith("↩ Undo last edit")]


def test_growing_the_vocabulary_keeps_keep_all_and_set_filters():
    at = app()
    at.text_input(key="pg_vocab").input(", ".join("abcdefghijkl")).run()
    s = at.session_state["pg_scenario"]
    assert s.vocab_size == 12 and s.draft_topk is None and s.target_top_k is None
    assert at.slider(key="pg_draft_topk").value == 12 and at.slider(key="pg_top_k").value == 12
    assert "draft_topk" not in at.query_params and "top_k" not in at.query_params
    at.selectbox(key="pg_preset").set_value("far apart").run()
    s = at.session_state["pg_scenario"]
    assert s.target.start == tuple(w * w for w in range(12, 0, -1))  # every token keeps its mass
    # an explicit filter is kept (and said) when the vocabulary changes
    at.slider(key="pg_draft_topk").set_value(3).run()
    at.text_input(key="pg_vocab").input("a, b, c, d, e, f").run()
    assert at.session_state["pg_scenario"].draft_topk == 3
    assert any("Active filters: draft top-k 3" in c.value for c in at.sidebar.caption)


def test_a_refused_weight_edit_stays_on_its_tab_and_names_the_cell():
    at = open_tab(app(), WEIGHTS_TAB)
    set_weight(at, "p weight", 0, "-1")
    assert at.session_state["pg_tab"] == WEIGHTS_TAB  # not thrown back to the animation
    assert any(t.key == "pg_sliders" for t in at.toggle)  # the weights tab's content is what is shown
    assert len(undo_buttons(at)) == 1
    text = page_text(at)
    assert "p weight of ‘the’: ‘-1’ is negative" in text
    assert "highlighted" not in text + " ".join(e.value for e in at.error)
    assert "⚠ negative" in normalized(at)


def test_a_refused_link_shows_one_box():
    s = presets.default_scenario().with_changes(target=Table((0,) * 6))
    at = app(share.scenario_to_query(s, 0))
    assert len(undo_buttons(at)) == 1
    errors = [e.value for e in at.error]
    assert len(errors) == len(set(errors)) >= 1


def test_preset_applies_on_choice_and_can_be_undone():
    at = app()
    before = at.session_state["pg_scenario"]
    at.selectbox(key="pg_preset").set_value("disjoint supports").run()
    assert at.session_state["pg_scenario"] == presets.apply_preset(before, "disjoint supports")
    at.button(key="pg_undo_preset").click().run()
    assert at.session_state["pg_scenario"] == before
    assert at.selectbox(key="pg_preset").value == presets.DEFAULT_PRESET


def test_switching_to_markov_takes_the_presets_markov_form_or_says_so():
    at = app()
    at.radio(key="pg_mode").set_value("Markov: p, q depend on the previous token").run()
    s = at.session_state["pg_scenario"]
    assert s == presets.apply_preset(s, presets.DEFAULT_PRESET, True)
    assert len(set(s.target.rows)) > 1  # rows differ: the preset's Markov form
    custom = presets.default_scenario().with_changes(target=Table((1, 2, 3, 4, 5, 6)))
    at = app(share.scenario_to_query(custom, 0))
    at.radio(key="pg_mode").set_value("Markov: p, q depend on the previous token").run()
    open_tab(at, WEIGHTS_TAB)
    assert any("copy of the start row" in i.value for i in at.info)


def test_link_alterations_are_reported_in_one_line_and_the_step_is_kept():
    s = presets.default_scenario()
    query = share.scenario_to_query(s, 3) | {"seed": "-5", "temperature": "5", "depth": "9"}
    at = app(query)
    lines = [i.value for i in at.info if "adjusted" in i.value]
    assert len(lines) == 1 and "\n" not in lines[0]
    assert "seed -5 → 0" in lines[0] and "temperature 5 → 3" in lines[0] and "depth 9 → 5" in lines[0]
    shown = at.session_state["pg_scenario"]
    assert (shown.seed, shown.target_temperature, shown.depth) == (0, 3.0, 5)
    assert at.session_state["pg_state"].step == 3 and not at.error
    at = app(share.scenario_to_query(s, 2) | {"temperature": "0.123456"})
    assert any("temperature 0.123456 → 0.1235" in i.value for i in at.info)


def test_a_typed_seed_out_of_range_is_refused_plainly():
    at = app()
    for seed in ("-3", str(2**53), "1.5"):
        at.text_input(key="pg_seed").input(seed).run()
        assert any("seed" in e.value.lower() and seed in e.value for e in at.error), seed
        assert at.session_state["pg_scenario"].seed == 0
    at.text_input(key="pg_seed").input("7").run()
    assert not at.error and at.session_state["pg_scenario"].seed == 7


def test_malformed_json_names_the_missing_field():
    import json

    s = presets.default_scenario()
    data = json.loads(share.export_json(s, 0))
    del data["scenario"]["target"]
    at = open_tab(app(), SHARE_TAB)
    at.file_uploader(key="pg_upload").upload("bad.json", json.dumps(data).encode(), "application/json").run()
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "target" in errors[0] and "KeyError" not in errors[0]


def test_fp32_column_shows_flushed_zeros_and_subnormals():
    at = open_tab(app(), WEIGHTS_TAB)
    set_weight(at, "p weight", 0, "1e-46")
    set_weight(at, "p weight", 1, "1e-40")
    column = normalized(at)
    assert not column[0].startswith("≈ 0.0000") and "e-" in column[0]
    at.toggle(key="pg_fp32").set_value(True).run()
    column = normalized(at)
    assert column[0] == "0 (flushed)" and column[1].endswith("(subnormal)")


def test_rounds_table_lists_the_finished_rounds():
    at = app(share.scenario_to_query(presets.apply_preset(presets.default_scenario(), "far apart"), 0))
    for _ in range(10):
        press(at, "next_round")
    assert not at.exception and not at.dataframe  # the player draws its tables: no data grid
    rounds = data(at)["round"]["rounds"]
    assert frame(at)["finished"] == 10 and len(rounds["rows"]) >= 10 and rounds["shown"] == 8
    assert "rejected at" in rounds["columns"]
    assert [row["round"] for row in rounds["rows"][:10]] == [str(r) for r in range(1, 11)]


def test_proof_tab_rebuilds_p_and_many_rounds_runs():
    at = open_tab(app(), "🧮 Why exactly p")
    assert at.get("plotly_chart") and "p rebuilt exactly" in page_text(at)
    at = open_tab(at, "📊 Many rounds")
    at.selectbox(key="pg_many_bug").set_value("greedy").run()
    at.button(key="pg_many_run").click().run()
    assert not at.exception
    assert any("Exact total variation to p" in m.value and "not to p" in m.value for m in at.markdown)
