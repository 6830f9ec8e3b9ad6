"""The editable form (weights as text) and its conversion to a Scenario."""

from fractions import Fraction

import pytest

from specviz.playground import form, presets
from specviz.playground.explain import PlaygroundError


def test_scenario_round_trips_through_the_form():
    for markov in (False, True):
        s = presets.apply_preset(presets.default_scenario(markov), "stop-heavy", markov).with_changes(
            target_mask=(True, True, False, True, True, True), draft_topk=3, target_top_p=0.9, seed=5)
        tables = form.tables_from_scenario(s)
        assert tables.markov is markov
        back = form.to_scenario(s.vocab, tables, form.settings_from_scenario(s))
        assert back == s


def test_keep_all_values_become_none():
    s = presets.default_scenario()
    settings = form.SidebarSettings(draft_topk=6, top_k=6, top_p=1.0, temperature=1.0)
    back = form.to_scenario(s.vocab, form.tables_from_scenario(s), settings)
    assert back.draft_topk is None and back.target_top_k is None and back.target_top_p is None
    assert back.target_mask is None


def test_fit_tables_resizes_and_switches_mode():
    tables = form.tables_from_scenario(presets.default_scenario())
    bigger = form.fit_tables(tables, 8, markov=False)
    assert bigger.p[0][-2:] == ("1", "1") and len(bigger.allowed) == 8 and bigger.stop[-1] is False
    smaller = form.fit_tables(tables, 3, markov=False)
    assert smaller.p == (("6", "5", "4"),)
    markov = form.fit_tables(tables, 6, markov=True)
    assert len(markov.p) == 7 and markov.p[3] == markov.p[0]
    assert form.fit_tables(markov, 6, markov=False).p == tables.p


def test_weights_are_parsed_exactly():
    s = presets.default_scenario()
    tables = form.set_weight(form.tables_from_scenario(s), "p", 0, 0, " 1/3 ")
    tables = form.set_weight(tables, "q", 0, 1, "0.25")
    back = form.to_scenario(s.vocab, tables, form.SidebarSettings())
    assert back.target.start[0] == Fraction(1, 3) and back.draft.start[1] == 0.25


@pytest.mark.parametrize("text", ["abc", "", "inf", "1/0"])
def test_unreadable_weight_names_token_and_model(text):
    s = presets.default_scenario()
    tables = form.set_weight(form.tables_from_scenario(s), "q", 0, 2, text)
    with pytest.raises(PlaygroundError, match="‘sat’ in q"):
        form.to_scenario(s.vocab, tables, form.SidebarSettings())


def test_parse_vocab():
    assert form.parse_vocab(" the, cat ,. ") == ("the", "cat", ".")
    with pytest.raises(PlaygroundError):
        form.parse_vocab("solo")
    assert form.vocab_text(("a", "b")) == "a, b"


def test_normalized_text():
    assert form.normalized_text(("1", "3")) == ["1/4 ≈ 0.250", "3/4 ≈ 0.750"]
    assert form.normalized_text(("2", "0")) == ["1", "0"]
    assert form.normalized_text(("0", "0")) == ["—", "—"]
    assert form.normalized_text(("x", "1")) == ["⚠ not a number", "—"]
    assert form.normalized_text(("1", "-2")) == ["—", "⚠ negative"]


def test_normalized_text_shows_fp32_zeros_and_subnormals():
    exact = form.normalized_text(("1e-46", "1e-40", "1"))
    assert exact[0].startswith("≈ 1.00e-46") and exact[1].startswith("≈ 1.00e-40")  # never "≈ 0.0000"
    fp32 = form.normalized_text(("1e-46", "1e-40", "1"), fp32=True)
    assert fp32[0] == "0 (flushed)"
    assert fp32[1].endswith("(subnormal)") and fp32[1].startswith("≈ 1.00e-40")
    assert fp32[2] == "≈ 1.0000"
    assert form.normalized_text(("1e39", "1"), fp32=True) == ["⚠ too large for FP32", "—"]
    assert form.normalized_text(("1e39", "1"))[1] != "—"  # fine without FP32


def test_compact_normalized_text_fits_narrow_columns():
    assert form.normalized_text(("1", "3"), compact=True) == ["0.250", "0.750"]
    assert form.normalized_text(("1e-46", "1e-40", "1"), fp32=True, compact=True)[:2] == ["0 FP32", "1.0e-40 sub"]
    assert form.normalized_text(("0", "2"), compact=True) == ["0", "1"]


def test_flagged_cells_name_the_cell():
    tables = form.Tables((("1", "-1"),), (("abc", "1"),), (True, True), (False, False))
    assert form.flagged_cells(tables, ("a", "b")) == ["p weight of ‘b’: ‘-1’ is negative",
                                                      "q weight of ‘a’: ‘abc’ is not a number"]


def test_resize_topk_keeps_keep_all_and_explicit_filters():
    assert form.resize_topk(6, 6, 12) == 12  # keep all stays keep all
    assert form.resize_topk(3, 6, 12) == 3  # a filter the user set is kept
    assert form.resize_topk(5, 6, 4) == 4
    assert form.resize_topk(4, 4, 8) == 8


def test_fit_to_controls_names_every_change():
    from specviz.playground import presets

    s = presets.default_scenario().with_changes(seed=-5, target_temperature=5.0, depth=9)
    fitted, notes = form.fit_to_controls(s, 5)
    assert (fitted.seed, fitted.target_temperature, fitted.depth) == (0, 3.0, 5)
    assert len(notes) == 3 and "seed -5 → 0" in notes[0] + notes[1] + notes[2]
    line = form.alterations_line(notes)
    assert "temperature 5 → 3" in line and "depth 9 → 5" in line and line.count("\n") == 0
    fitted, notes = form.fit_to_controls(s.with_changes(seed=1, target_temperature=0.123456, depth=3), 5)
    assert fitted.target_temperature == 0.1235 and notes == ["temperature 0.123456 → 0.1235 (the slider keeps 4 "
                                                             "decimals)"]
    assert form.fit_to_controls(presets.default_scenario(), 5) == (presets.default_scenario(), [])
    assert form.seed_from_text(" 42 ") == 42 and form.seed_from_text(str(2**53 - 1)) == 2**53 - 1
    for bad in ("-3", str(2**53), "1.5", "abc"):
        with pytest.raises(form.PlaygroundError):
            form.seed_from_text(bad)


def test_apply_edits_from_the_data_editors():
    s = presets.default_scenario()
    tables = form.tables_from_scenario(s)
    edited = form.apply_edits(tables, {"0": {form.P_COL: "9", form.ALLOW_COL: False}, 2: {form.STOP_COL: True}},
                              "fixed")
    assert edited.p[0][0] == "9" and edited.allowed[0] is False and edited.stop[2] is True
    markov = form.fit_tables(tables, 6, markov=True)
    edited = form.apply_edits(markov, {3: {"t4": "7"}}, "q")
    assert edited.q[3][4] == "7" and edited.q[0] == markov.q[0]


def test_frames():
    s = presets.default_scenario()
    tables = form.tables_from_scenario(s)
    frame = form.fixed_frame(tables, s.vocab)
    assert list(frame.index) == list(s.vocab)
    assert list(frame[form.PN_COL])[0] == "2/7 ≈ 0.286"
    markov = form.fit_tables(tables, 6, markov=True)
    mframe = form.markov_frame(markov, "p", s.vocab)
    assert mframe.shape == (7, 6) and mframe.index[1] == "after ‘the’"
    assert form.markov_frame(markov, "p", s.vocab, normalized=True).iloc[0, 0] == "2/7 ≈ 0.286"
    assert list(form.token_frame(tables, s.vocab).columns) == [form.ALLOW_COL, form.STOP_COL]


def test_refit_controls_resizes_tables_and_keeps_set_filters():
    tables = form.tables_from_scenario(presets.default_scenario())
    vocab = presets.DEFAULT_VOCAB
    same = form.refit_controls(tables, vocab, vocab, False, 6, 6)
    assert not same.changed and same.tables == tables and (same.draft_topk, same.top_k) == (6, 6)
    grown = form.refit_controls(tables, vocab, (*vocab, "x", "y"), False, 6, 3)
    assert grown.changed and len(grown.tables.p[0]) == 8 and grown.tables.p[0][-1] == form.NEW_WEIGHT
    assert (grown.draft_topk, grown.top_k) == (8, 3)  # keep all stays keep all; a set filter is kept
    shrunk = form.refit_controls(tables, vocab, vocab[:2], False, 6, 3)
    assert (shrunk.draft_topk, shrunk.top_k) == (2, 2)
    markov = form.refit_controls(tables, vocab, vocab, True, 6, 6)
    assert markov.changed and markov.tables.markov and (markov.draft_topk, markov.top_k) == (6, 6)
    renamed = form.refit_controls(tables, vocab, tuple("abcdef"), False, 4, 6)
    assert renamed.changed and renamed.tables == tables and renamed.draft_topk == 4
