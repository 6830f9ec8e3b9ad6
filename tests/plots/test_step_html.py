"""The HTML of a Playground step: narration, folded exact values, committed text, rounds and statistics."""

from fractions import Fraction

import pytest

from specviz.core.trace import CheckEvent
from specviz.playground import narrative, presets, state
from specviz.plots import committed_text, step_html
from specviz.scenario import Table


def scenario(name="far apart", **changes):
    return presets.apply_preset(presets.default_scenario(), name).with_changes(**changes)


def walk(s, rounds=4):
    timeline = state.timeline_for(s)
    timeline.ensure_rounds(rounds)
    return [narrative.step_view(s, i) for i in range(len(timeline.events))]


def test_narration_is_a_list_of_escaped_sentences_with_long_values_folded_under_it():
    assert step_html.bullets(["u < h", "a <b>"]) == "- u &lt; h\n- a &lt;b&gt;"
    s = presets.default_scenario().with_changes(
        target=Table((Fraction(1, 3**60), 1, 2, 3, 4, 5)), draft=Table((1, 1, 1, 1, 1, 1)))
    timeline = state.timeline_for(s)
    timeline.ensure_rounds(1)
    check = next(e for e in timeline.events if isinstance(e, CheckEvent))
    view = narrative.step_view(s, timeline.events.index(check))
    text = step_html.narration_markdown(view.lines, view.event, s.vocab)
    assert text.startswith("- ") and "<details>" in text and str(check.p_token.denominator) in text
    short = narrative.step_view(scenario(), 1)
    assert "<details>" not in step_html.narration_markdown(short.lines, short.event, scenario().vocab)


def test_exact_values_fold_into_an_escaped_details_element():
    assert step_html.exact_values_html([]) == ""
    folded = step_html.exact_values_html([("p(<x>)", str(3**80))])
    assert folded.startswith("<details>") and str(3**80) in folded and "p(&lt;x&gt;)" in folded


def test_committed_chips_show_pending_drafts_faded_after_the_text():
    s = scenario("close")
    v = narrative.step_view(s, s.depth - 1)  # last draft of round 0: every draft pending
    html = committed_text.committed_html(v, s.vocab)
    assert html.count("<span") == s.depth and html.count("font-style:italic") == s.depth
    empty = committed_text.committed_html(narrative.step_view(s, 0), s.vocab)
    assert "<sup>" in empty and "nothing committed yet" not in empty  # the first draft is pending already
    assert "nothing committed yet" in committed_text.tokens_html([], [], s.vocab)
    chips = committed_text.round_chips_html((0, 1, 2), 2, "correction", s.vocab, large=False)
    assert chips.count("✓") == 2 and chips.count("✗") == 1


def test_presenter_committed_text_keeps_the_last_chips_and_says_how_many():
    s = scenario("p = q")
    views = walk(s, rounds=3)
    last = views[-1]
    text = step_html.committed_markdown(last, s.vocab, presenter=True)
    shown = step_html.presenter_tail(last)
    assert len(shown) + len(last.pending) <= step_html.PRESENTER_CHIPS
    assert f"(last {len(shown)} of {len(last.committed)})" in text and "white-space:nowrap" in text
    assert step_html.committed_markdown(last, s.vocab, presenter=False).startswith("**Committed text**")


def test_rounds_table_shows_the_latest_rounds_escaped_under_a_heading_that_says_how_many():
    s = scenario(vocab=("<b>", "a|b", "c", "d", "e", "f"))
    views = walk(s, rounds=6)
    last = views[-1]
    assert len(last.history) >= 5
    table = step_html.rounds_html(last.history, "token", last=3)
    assert f"the last 3 of {len(last.history)}" in table and table.count("<tr>") == 1 + 3
    assert "<b>" not in table.split("</thead>")[1]  # token text is escaped, never markup
    rows = step_html.rounds_rows(last.history, "token")
    assert [r["round"] for r in rows] == [str(h.round_id + 1) for h in last.history]  # rounds read from 1
    assert all(r["rejected at"] == ("—" if h.rejected_at is None else str(h.rejected_at + 1))
               for r, h in zip(rows, last.history))
    assert "kept τ" in step_html.rounds_html(last.history, "block")
    assert "<th>accepted</th>" in step_html.rounds_html(last.history, "multi:2")
    assert "no round finished yet" in step_html.rounds_html(views[0].history, "token")


@pytest.mark.parametrize("verification, words", [
    ("token", "| acceptance rate |"), ("block", "| kept drafts per round |"), ("multi:3", "| acceptance rate |")])
def test_the_statistics_table_is_the_rules(verification, words):
    s = scenario("p = q", verification=verification)
    timeline = state.timeline_for(s)
    timeline.ensure_rounds(2)
    v = narrative.step_view(s, timeline.round_end(1))
    table = step_html.stats_markdown(v.stats)
    assert words in table
    html = step_html.stats_html(v.stats)
    assert html.startswith("<div class='specviz-compact'>") and (not v.stats.note or v.stats.note in html)
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


def test_two_blocks_side_by_side_are_one_element_that_keeps_their_markdown():
    html_ = step_html.side_by_side("**Rounds so far**", "| a | b |\n|---|---|\n| 1 | 2 |", (3, 2))
    assert html_.count("<div") == 3 and "grid-template-columns:3fr 2fr" in html_
    # markdown inside an HTML block renders only between blank lines
    assert "\n\n**Rounds so far**\n\n" in html_ and "\n\n| a | b |" in html_


def test_a_named_part_keeps_its_markdown_and_its_class():
    part = step_html.named(step_html.COMMITTED_CLASS, "**Committed text**", "margin-bottom:1rem")
    assert part == "<div class='specviz-committed' style='margin-bottom:1rem'>\n\n**Committed text**\n\n</div>"
    assert step_html.named("x", "- a") == "<div class='x'>\n\n- a\n\n</div>"


def test_the_words_without_a_draw_are_the_narration_alone():
    assert step_html.words(None, "- a sentence", beside=False, gap="1rem") == step_html.named(
        step_html.NARRATION_CLASS, "- a sentence")


def test_the_draw_stands_above_the_words_with_the_pages_gap_under_it():
    svg = "<svg width='10'><rect/></svg>"
    words = step_html.words(svg, "- a sentence", beside=False, gap="0.7rem")
    draw, said = words.split("\n\n</div>\n\n", 1)
    assert draw == "<div class='specviz-draw' style='margin-bottom:0.7rem'>\n\n" + svg
    assert said == "<div class='specviz-narration'>\n\n- a sentence\n\n</div>"


def test_the_wide_page_puts_the_words_left_and_the_draw_right_in_one_grid():
    svg = "<svg width='10'><rect/></svg>"
    words = step_html.words(svg, "- a sentence", beside=True, gap="1rem")
    assert words.startswith("<div class='specviz-side-by-side'") and "grid-template-columns:1fr 1fr" in words
    assert "margin-top:0'" in words  # the columns it replaces started right under the chart
    assert words.index("specviz-narration") < words.index("specviz-draw") < words.index(svg)
