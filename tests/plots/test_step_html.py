"""The words around a step (its caption, the rounds' rows, the statistics per rule) and the Compare tab's HTML."""


import pytest

from specviz.playground import narrative, presets, state
from specviz.plots import committed_text, step_html


def scenario(name="far apart", **changes):
    return presets.apply_preset(presets.default_scenario(), name).with_changes(**changes)


def walk(s, rounds=4):
    timeline = state.timeline_for(s)
    timeline.ensure_rounds(rounds)
    return [narrative.step_view(s, i) for i in range(len(timeline.events))]


def test_the_compare_tabs_html_escapes_its_text():
    assert step_html.bullets(["u < h", "a <b>"]) == "- u &lt; h\n- a &lt;b&gt;"
    chips = committed_text.round_chips_html((0, 1, 2), 2, "correction", scenario().vocab, large=False)
    assert chips.count("✓") == 2 and chips.count("✗") == 1
    assert "&lt;b&gt;" in committed_text.round_chips_html((0,), 0, "bonus", ("<b>", "x"), large=True)


def test_committed_chips_show_pending_drafts_faded_after_the_text():  # the Overview's example
    s = scenario("close")
    v = narrative.step_view(s, s.depth - 1)  # last draft of round 1: every draft pending
    html = committed_text.committed_html(v, s.vocab)
    assert html.count("<span") == s.depth and html.count("font-style:italic") == s.depth
    empty = committed_text.committed_html(narrative.step_view(s, 0), s.vocab)
    assert "<sup>" in empty and "nothing committed yet" not in empty  # the first draft is pending already
    assert "nothing committed yet" in committed_text.tokens_html([], [], s.vocab)


def test_the_rounds_rows_read_from_1_with_each_rules_columns():
    s = scenario(vocab=("<b>", "a|b", "c", "d", "e", "f"))
    views = walk(s, rounds=6)
    last = views[-1]
    assert len(last.history) >= 5
    rows = step_html.rounds_rows(last.history, "token")
    assert [r["round"] for r in rows] == [str(h.round_id + 1) for h in last.history]  # rounds read from 1
    assert all(r["rejected at"] == ("—" if h.rejected_at is None else str(h.rejected_at + 1))
               for r, h in zip(rows, last.history))
    assert "kept τ" in step_html.rounds_columns("block") and "accepted" in step_html.rounds_columns("multi:2")


@pytest.mark.parametrize("verification, words", [
    ("token", "| acceptance rate |"), ("block", "| kept drafts per round |"), ("multi:3", "| acceptance rate |")])
def test_the_statistics_table_is_the_rules(verification, words):
    s = scenario("p = q", verification=verification)
    timeline = state.timeline_for(s)
    timeline.ensure_rounds(2)
    v = narrative.step_view(s, timeline.round_end(1))
    table = step_html.stats_markdown(v.stats)
    assert words in table
    if verification == "token":
        assert "| acceptance rate | 1 (6 of 6)" in table


def test_compact_keeps_a_markdown_table_markdown_inside_its_wrapper():
    wrapped = step_html.compact("| a | b |\n|---|---|\n| 1 | 2 |")
    assert wrapped.startswith("<div class='specviz-compact'>") and wrapped.endswith("</div>")
    assert "\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n" in wrapped  # blank lines: the table still renders as markdown


def test_the_caption_counts_steps_and_events_from_one():
    v = narrative.step_view(scenario(), 1)
    assert step_html.caption(v) == (f"Step 2 · round 1 · event 2 of {v.events_in_round} · "
                                    f"{narrative.PHASE_TITLES[v.phase]}")


