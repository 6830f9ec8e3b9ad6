"""The step view: the narration, committed text, pending drafts, history and statistics at one step, as data."""

from fractions import Fraction

import pytest

from specviz import formats, narration
from specviz.core.trace import CheckEvent, CorrectionEvent
from specviz.playground import narrative, presets, state
from specviz.scenario import Table


def scenario(name="far apart", markov=False, **changes):
    return presets.apply_preset(presets.default_scenario(markov), name, markov).with_changes(**changes)


def walk(s, rounds=4):
    timeline = state.timeline_for(s)
    timeline.ensure_rounds(rounds)
    return [narrative.step_view(s, i) for i in range(len(timeline.events))]


fraction = formats.fraction_folded  # the page's narration writes numbers in the page profile's formats


def test_the_page_formats():
    assert narration.PAGE.fraction is fraction
    assert fraction(Fraction(3, 10)) == "3/10 ≈ 0.3000"
    assert fraction(1) == "1"
    assert formats.draw(3, 7) == "draw 3 of 0..6 (u = 3/7 ≈ 0.4286)"


def test_check_narrative_has_exact_fractions():
    for v in walk(scenario()):
        if isinstance(v.event, CheckEvent):
            e = v.event
            text = " ".join(v.lines)
            assert f"p({narrative.text_of(scenario(), [e.token])}) = {fraction(e.p_token)}" in text
            assert f"min(1, p(x)/q(x)) = {fraction(e.acceptance)}" in text
            assert f"draw {e.draw} of 0..{e.draw_range - 1}" in text
            assert ("accepted" if e.accepted else "rejected") in v.headline
            return
    raise AssertionError("no check event")


def test_correction_narrative_has_residual_mass():
    for v in walk(scenario()):
        if isinstance(v.event, CorrectionEvent):
            assert "residual" in v.headline
            assert fraction(v.event.residual_mass) in " ".join(v.lines)
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
    v = narrative.step_view(s, timeline.round_end(1))
    assert [h.round_id for h in v.history] == [0, 1]
    assert v.stats.alpha == 1 and v.stats.expected == s.depth + 1
    assert v.stats.acceptance_rate == 1
    assert v.stats.tokens_per_round == s.depth + 1
    mid = narrative.step_view(s, 1)
    assert mid.history == [] and mid.stats.tokens_per_round is None


def test_pending_drafts_are_the_rounds_unchecked_drafts():
    s = scenario("close")
    v = narrative.step_view(s, s.depth - 1)  # last draft of round 0
    assert v.phase == "draft" and v.pending == v.drafted and len(v.pending) == s.depth
    timeline = state.timeline_for(s)
    first_check = next(i for i, e in enumerate(timeline.events) if isinstance(e, CheckEvent))
    after = narrative.step_view(s, first_check)
    assert after.pending == after.drafted[1:]  # the checked draft is committed or rejected, no longer pending
    end = narrative.step_view(s, timeline.round_end(0))
    assert end.pending == []


def test_history_rows_name_how_each_round_ended():
    def row(accepted, tokens, rejected_at):
        return narrative.HistoryRow(0, "", accepted, rejected_at, "", tokens, False)

    assert row(accepted=1, tokens=2, rejected_at=1).ending == "correction"
    assert row(accepted=3, tokens=4, rejected_at=None).ending == "bonus"
    assert row(accepted=2, tokens=2, rejected_at=None).ending == "none"  # a stop token ended it


def test_markov_theory_note():
    v = narrative.step_view(scenario("close", markov=True), 0)
    assert "Markov" in v.stats.note
    assert "Stop tokens" in narrative.step_view(scenario("stop-heavy"), 0).stats.note


@pytest.mark.parametrize("verification", ["token", "block", "multi:2", "multi-distinct:3"])
def test_every_playable_rule_has_its_theory_column(verification):
    s = scenario("close", verification=verification)
    theory = narrative.STEP_THEORY_BY_FAMILY[verification](s)
    stats = narrative.step_view(s, 0).stats
    assert (stats.alpha, stats.expected, stats.expected_accepted, stats.note) == (
        theory.alpha, theory.expected, theory.expected_accepted, theory.note)
    if verification == "token":
        assert theory.alpha is not None and theory.expected is not None
    elif verification == "block":
        assert theory.alpha is None and theory.expected_accepted is not None
    else:  # a tree is measured: its expectation is on the Theory page
        assert theory == narrative.Theory(note=narrative.TREE_NOTE)


def test_long_integers_are_abbreviated_with_exact_values_on_demand():
    long = Fraction(3**80, 2**130)
    text = fraction(long)
    assert "digit fraction" in text and str(3**80) not in text and len(text) < 50
    assert fraction(Fraction(3, 10)) == "3/10 ≈ 0.3000"
    # issue 17: one rule for long integers everywhere (specviz.formats): 6 digits at each end, as the CLI wrote them
    assert formats.abbreviate(10**30) == "100000…000000 (31 digits)" and formats.abbreviate(12345) == "12345"
    s = presets.default_scenario().with_changes(
        target=Table((Fraction(1, 3**60), 1, 2, 3, 4, 5)), draft=Table((1, 1, 1, 1, 1, 1)))
    timeline = state.timeline_for(s)
    timeline.ensure_rounds(1)
    check = next(e for e in timeline.events if e.kind == "check")
    values = dict(narration.exact_values(check, s.vocab))
    x = s.vocab[check.token]
    assert values[f"p({x})"] == str(check.p_token)  # the exact value, in full
    lines = " ".join(narrative.step_view(s, timeline.events.index(check)).lines)
    assert str(check.p_token.denominator) not in lines and "digit fraction" in lines
