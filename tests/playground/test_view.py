"""The narrative, committed text, history and statistics at one step."""

from fractions import Fraction

from specviz.core.trace import CheckEvent, CorrectionEvent
from specviz.playground import narrative as view
from specviz.playground import presets, state
from specviz.scenario import Table


def scenario(name="far apart", markov=False, **changes):
    return presets.apply_preset(presets.default_scenario(markov), name, markov).with_changes(**changes)


def walk(s, rounds=4):
    timeline = state.timeline_for(s)
    timeline.ensure_rounds(rounds)
    return [view.step_view(s, i) for i in range(len(timeline.events))]


def test_fmt_fraction():
    assert view.fmt_fraction(Fraction(3, 10)) == "3/10 ≈ 0.3000"
    assert view.fmt_fraction(1) == "1"
    assert view.fmt_draw(3, 7) == "draw 3 of 0..6 (u = 3/7 ≈ 0.4286)"


def test_check_narrative_has_exact_fractions():
    for v in walk(scenario()):
        if isinstance(v.event, CheckEvent):
            e = v.event
            text = " ".join(v.lines)
            assert f"p({view.text_of(scenario(), [e.token])}) = {view.fmt_fraction(e.p_token)}" in text
            assert f"min(1, p(x)/q(x)) = {view.fmt_fraction(e.acceptance)}" in text
            assert f"draw {e.draw} of 0..{e.draw_range - 1}" in text
            assert ("accepted" if e.accepted else "rejected") in v.headline
            return
    raise AssertionError("no check event")


def test_correction_narrative_has_residual_mass():
    for v in walk(scenario()):
        if isinstance(v.event, CorrectionEvent):
            assert "residual" in v.headline
            assert view.fmt_fraction(v.event.residual_mass) in " ".join(v.lines)
            return
    raise AssertionError("no correction event")


def test_every_phase_is_narrated():
    seen = set()
    for name in ("far apart", "p = q", "stop-heavy"):
        for v in walk(scenario(name)):
            seen.add(v.phase)
            assert v.headline and v.lines
    assert seen == {"draft", "check", "correction", "bonus", "stop", "result"}


def test_committed_tokens_follow_the_results():
    s = scenario()
    views = walk(s, 3)
    timeline = state.timeline_for(s)
    last = views[timeline.round_end(2)]
    committed = [t.token for t in last.committed]
    assert committed == [t for r in timeline.rounds[:3] for r in [r] for t in r.result.tokens]
    for played in timeline.rounds[:3]:
        origins = [t.origin for t in last.committed if t.round_id == played.round_id]
        assert origins[: played.result.accepted_drafts] == ["accepted"] * played.result.accepted_drafts
        assert origins[-1] in ("correction", "bonus", "accepted")
        if played.result.rejected:
            assert origins[-1] == "correction"


def test_history_and_stats():
    s = scenario("p = q")
    timeline = state.timeline_for(s)
    timeline.ensure_rounds(2)
    v = view.step_view(s, timeline.round_end(1))
    assert [h.round_id for h in v.history] == [0, 1]
    assert v.stats.alpha == 1 and v.stats.expected == s.depth + 1
    assert v.stats.acceptance_rate == 1
    assert v.stats.tokens_per_round == s.depth + 1
    table = view.stats_markdown(v.stats)
    assert "| acceptance rate | 1 (6 of 6)" in table
    mid = view.step_view(s, 1)
    assert mid.history == [] and mid.stats.tokens_per_round is None


def test_pending_drafts_and_html():
    s = scenario("close")
    v = view.step_view(s, s.depth - 1)  # last draft of round 0
    assert v.phase == "draft" and len(view.pending_drafts(v)) == s.depth
    from specviz.plots.committed_text import committed_html

    html = committed_html(v, s.vocab)
    assert html.count("<span") == s.depth and "font-style:italic" in html
    empty = committed_html(view.step_view(s, 0), s.vocab)
    assert "<sup>" in empty


def test_markov_theory_note():
    v = view.step_view(scenario("close", markov=True), 0)
    assert "Markov" in v.stats.note
    assert "Stop tokens" in view.step_view(scenario("stop-heavy"), 0).stats.note


def test_long_integers_are_abbreviated_with_exact_values_on_demand():
    from fractions import Fraction

    from specviz.playground import narrative as v

    long = Fraction(3**80, 2**130)
    text = v.fmt_fraction(long)
    assert "digit fraction" in text and str(3**80) not in text and len(text) < 50
    assert v.fmt_fraction(Fraction(3, 10)) == "3/10 ≈ 0.3000"
    # issue 17: one rule for long integers everywhere (specviz.formats): 6 digits at each end, as the CLI wrote them
    assert v.fmt_int(10**30) == "100000…000000 (31 digits)" and v.fmt_int(12345) == "12345"
    s = presets.default_scenario().with_changes(
        target=Table((Fraction(1, 3**60), 1, 2, 3, 4, 5)), draft=Table((1, 1, 1, 1, 1, 1)))
    timeline = state.timeline_for(s)
    timeline.ensure_rounds(1)
    check = next(e for e in timeline.events if e.kind == "check")
    values = dict(v.exact_values(check, s.vocab))
    x = s.vocab[check.token]
    assert values[f"p({x})"] == str(check.p_token)  # the exact value, in full
    lines = " ".join(v.step_view(s, timeline.events.index(check)).lines)
    assert str(check.p_token.denominator) not in lines and "digit fraction" in lines


def test_exact_values_fold_into_an_escaped_details_element():
    assert view.exact_values_html([]) == ""
    folded = view.exact_values_html([("p(<x>)", str(3**80))])
    assert folded.startswith("<details>") and str(3**80) in folded and "p(&lt;x&gt;)" in folded


def test_rounds_table_shows_the_latest_rounds_escaped_under_a_heading_that_says_how_many():
    s = scenario(vocab=("<b>", "a|b", "c", "d", "e", "f"))
    views = walk(s, rounds=6)
    last = views[-1]
    assert len(last.history) >= 5
    table = view.rounds_html(last, last=3)
    assert f"the last 3 of {len(last.history)}" in table and table.count("<tr>") == 1 + 3
    assert "<b>" not in table.split("</thead>")[1]  # token text is escaped, never markup
    rows = view.rounds_rows(last)
    assert [r["round"] for r in rows] == [str(h.round_id) for h in last.history]
    assert all(r["rejected at"] == ("—" if h.rejected_at is None else str(h.rejected_at))
               for r, h in zip(rows, last.history))
    assert "kept τ" in view.rounds_html(last, block=True)
    assert "no round finished yet" in view.rounds_html(views[0])


def test_compact_keeps_a_markdown_table_markdown_inside_its_wrapper():
    wrapped = view.compact("| a | b |\n|---|---|\n| 1 | 2 |")
    assert wrapped.startswith("<div class='specviz-compact'>") and wrapped.endswith("</div>")
    assert "\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n" in wrapped  # blank lines: the table still renders as markdown
