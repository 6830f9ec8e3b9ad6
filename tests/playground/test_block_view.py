"""Block verification in the Playground's pure modules: links, form, step views, figures, many rounds."""

from fractions import Fraction as F

import plotly.graph_objects as go
import pytest

from specviz import gallery, narration
from specviz.core.block_verifier import tau_distribution
from specviz.core.trace import (
    BlockCheckEvent,
    BlockDecisionEvent,
    BonusEvent,
    CheckEvent,
    ResultEvent,
    ScaledCorrectionEvent,
)
from specviz.narration import block as block_narration
from specviz.playground import form, many_rounds, narrative, presets, proof, share, state
from specviz.playground.explain import PlaygroundError
from specviz.plots import step_figures as plots
from specviz.plots import step_html, style
from specviz.scenario import Scenario, Table

EXAMPLE = gallery.BY_SLUG["block-verification"].scenario  # p = (1/3, 2/3), q = (2/3, 1/3), depth 2
FAR = presets.apply_preset(presets.default_scenario(), "far apart").with_changes(verification="block")


# --- links, files and the form keep the verification -------------------------------------------------
@pytest.mark.parametrize("markov", [False, True])
def test_block_verification_round_trips_through_links_files_and_the_form(markov):
    scenario = presets.apply_preset(presets.default_scenario(markov), "close", markov).with_changes(
        verification="block", seed=9)
    query = share.scenario_to_query(scenario, 5)
    assert query["verification"] == "block"
    assert share.scenario_from_query(query) == (scenario, 5)
    assert share.import_json(share.export_json(scenario, 5)) == (scenario, 5)
    settings = form.settings_from_scenario(scenario)
    assert settings.verification == "block"
    assert form.to_scenario(scenario.vocab, form.tables_from_scenario(scenario), settings) == scenario


def test_tokenwise_links_are_unchanged_and_a_bad_verification_is_refused():
    tokenwise = presets.default_scenario()
    query = share.scenario_to_query(tokenwise)
    assert "verification" not in query and share.scenario_from_query(query)[0].verification == "token"
    with pytest.raises(PlaygroundError, match="verification ‘joint’"):
        share.scenario_from_query({**query, "verification": "joint"})


# --- step views -----------------------------------------------------------------------------------------
def all_steps(scenario, rounds=3):
    timeline = state.timeline_for(scenario)
    timeline.ensure_rounds(rounds)
    return [narrative.step_view(scenario, i) for i in range(len(timeline.events))]


@pytest.mark.parametrize("seed", range(8))
def test_every_block_step_has_a_title_narration_and_figures(seed):
    scenario = FAR.with_changes(seed=seed)
    for sv in all_steps(scenario):
        assert sv.phase in narrative.PHASE_TITLES
        assert not isinstance(sv.event, CheckEvent)
        told = block_narration.narrate_event(sv.event, scenario.vocab, narration.PAGE.block_formats)
        if told is not None:
            assert (sv.headline, sv.lines) == told
        main, draw = plots.event_figures(sv.event, sv.round_events, scenario.vocab, scenario.depth, presenter=True)
        assert isinstance(main, go.Figure)
        assert (draw is None) == isinstance(sv.event, (BlockDecisionEvent, ResultEvent)) or sv.phase == "stop"


def test_committed_text_pending_drafts_history_and_stats_follow_the_block_decision():
    scenario = FAR.with_changes(seed=1)
    steps = all_steps(scenario, 4)
    for sv in steps:
        seen = sv.round_events[: sv.position_in_round + 1]
        decision = next((e for e in seen if isinstance(e, BlockDecisionEvent)), None)
        before = [t for t in sv.committed if t.round_id < sv.round_id]
        this_round = [t for t in sv.committed if t.round_id == sv.round_id]
        if decision is None:
            assert not this_round  # nothing is kept before the decision
            if any(isinstance(e, BlockCheckEvent) for e in seen):
                assert sv.pending == sv.drafted
        else:
            assert [t.token for t in this_round[: decision.accepted_drafts]] == \
                list(decision.drafts[: decision.accepted_drafts])
            assert all(t.origin == "accepted" for t in this_round[: decision.accepted_drafts])
            assert sv.pending == []
        assert len(before) == sum(h.tokens for h in sv.history[: sv.round_id])
    last = steps[-1]
    assert isinstance(last.event, ResultEvent)
    timeline = state.timeline_for(scenario)
    for row, played in zip(last.history, timeline.rounds, strict=True):
        decision = played.trace.of_kind("block_decision")[0]
        assert row.accepted == decision.accepted_drafts
        assert row.rejected_at == (decision.accepted_drafts if decision.ending == "correction" else None)
    stats = last.stats
    assert stats.verification == "block" and stats.accepted_in_rounds == sum(h.accepted for h in last.history)
    assert stats.accepted_per_round == F(stats.accepted_in_rounds, stats.rounds)
    table = step_html.stats_markdown(stats)
    assert "kept drafts per round" in table and "acceptance rate" not in table


def test_block_theory_is_the_papers_example():
    stats = narrative.step_view(EXAMPLE, 0).stats
    assert stats.expected_accepted == F(11, 9) and stats.expected == F(20, 9)  # Sun et al. 2025, the gallery card
    big = Scenario(vocab=tuple("abcdefgh"), target=Table((1,) * 8), draft=Table((2,) + (1,) * 7), depth=5,
                   verification="block")  # 8^5 blocks: too many for every step
    expected_accepted, expected, note = narrative.block_theory(big)
    assert expected_accepted is None and expected is None and "too many" in note


def test_long_block_numbers_are_abbreviated_and_listed_in_full():
    scenario = Scenario(vocab=("a", "b", "c"), target=Table((0.1, 0.7, 0.2)), draft=Table((0.3, 0.3, 0.4)),
                        depth=3, fp32=True, verification="block", seed=3)  # FP32 weights: 24-bit fractions
    checks = [sv for sv in all_steps(scenario, 2) if isinstance(sv.event, BlockCheckEvent)]
    long = [sv for sv in checks if narration.exact_values(sv.event, scenario.vocab)]
    assert long
    for sv in long:
        exact = dict(narration.exact_values(sv.event, scenario.vocab))
        k = sv.event.position + 1  # named by the position (from 1), as the narration names them
        assert exact[f"h_{k}"] == str(sv.event.stop_probability) and exact[f"w_{k}"] == str(sv.event.weight)
        assert all(len(line) < 300 for line in sv.lines)


# --- figures --------------------------------------------------------------------------------------------
def events_of(kind, scenario=EXAMPLE, seeds=range(40)):
    for seed in seeds:
        timeline = state.timeline_for(scenario.with_changes(seed=seed))
        timeline.ensure_rounds(1)
        for event in timeline.rounds[0].trace.events:
            if isinstance(event, kind):
                yield event, timeline.rounds[0].trace.events


def test_the_stop_draw_is_against_h_and_marks_the_hit():
    for event, _ in events_of(BlockCheckEvent):
        strip = plots.stop_draw_strip(event)
        h = event.stop_probability
        assert strip.segments[0].start == 0 and strip.segments[-1].end == 1
        if 0 < h < 1:
            assert strip.segments[0].end == h and strip.segments[0].label.startswith("hit")
        chosen = strip.segments[strip.chosen]
        assert chosen.label.startswith("hit") == event.hit
        assert strip.u == F(event.draw, event.draw_range) and chosen.start <= strip.u < chosen.end


def test_the_decision_chart_shows_the_exact_law_of_tau():
    for event, _ in events_of(BlockDecisionEvent):
        fig = plots.block_decision_figure(event, EXAMPLE.vocab)
        bars = fig.data[0]
        assert list(bars.y) == pytest.approx([float(t) for t in tau_distribution(event.stop_probabilities)])
        assert fig.data[1].name == "h_τ (stop)" and fig.data[2].name == "w_τ (weight)"
        assert list(fig.data[1].y) == pytest.approx([float(h) for h in event.stop_probabilities])
        assert f"keep {event.accepted_drafts} of {len(event.drafts)}" in fig.layout.title.text


def test_the_decision_chart_lies_flat_and_counts_positions_from_1():
    """Issue 20 item 5: flat two-line ticks (no squashed plot); hits named by their positions, counted from 1."""
    for event, _ in events_of(BlockDecisionEvent):
        fig = plots.block_decision_figure(event, EXAMPLE.vocab)
        xaxis = fig.layout.xaxis
        assert xaxis.tickangle == 0 and list(xaxis.tickvals) == list(range(len(event.drafts) + 1))
        assert xaxis.ticktext[0] == "0<br>none"
        assert xaxis.ticktext[1] == f"1<br>+{style.token_labels(EXAMPLE.vocab)[event.drafts[0]]}"
        assert "positions 1..τ" in xaxis.title.text  # positions count from 1, as every count a person reads
        hits = [k + 1 for k, hit in enumerate(event.hits) if hit]
        label = fig.layout.annotations[0].text
        assert label.endswith(f"at position{'s' if len(hits) > 1 else ''} {', '.join(map(str, hits))})"
                              if hits else "(no hit)")


def test_the_scaled_residual_chart_draws_w_times_p():
    found = False
    for event, _ in events_of(ScaledCorrectionEvent, FAR):
        fig = plots.residual_figure(event, FAR.vocab)
        overlap, excess = fig.data[0], fig.data[1]
        w, p, q = event.scale, plots.probs(event.p), plots.probs(event.q)
        assert list(excess.y) == pytest.approx([float(max(w * a - b, 0)) for a, b in zip(p, q)])
        assert list(overlap.y) == pytest.approx([float(min(w * a, b)) for a, b in zip(p, q)])
        if w != 1:
            found = True
            assert excess.name == "(w·p − q)+" and "w·p" in fig.layout.title.text
    assert found


def test_the_round_summary_shows_block_kept_drafts():
    for _event, events in events_of(ResultEvent):
        decision = next(e for e in events if isinstance(e, BlockDecisionEvent))
        fig = plots.round_figure(events, EXAMPLE.vocab, EXAMPLE.depth)
        accepted = next(t for t in fig.data if t.name == "accepted draft" or "accepted" in t.name)
        assert list(accepted.x) == list(range(1, decision.accepted_drafts + 1))  # positions from 1
        bonus = [t for t in fig.data if "bonus" in t.name][0]
        assert len(bonus.x) == any(isinstance(e, BonusEvent) for e in events)


# --- the other tabs ---------------------------------------------------------------------------------------
def test_many_rounds_runs_the_block_monte_carlo_and_refuses_tokenwise_bugs():
    result = many_rounds.run(EXAMPLE, 20_000, "none", seed=1, chunks=3)
    assert result.rounds == 20_000 and result.distance == 0 and result.law == result.p
    assert result.exact_tokens_per_round == F(20, 9) and "block verification" in result.method
    assert abs(result.tokens_per_round - 20 / 9) < 0.05
    with pytest.raises(many_rounds.BlockBugError, match="tokenwise"):
        many_rounds.run(EXAMPLE, 100, "greedy")


def test_the_proof_tab_finds_the_prefix_of_a_block_check():
    for event, events in events_of(BlockCheckEvent, FAR, range(3)):
        assert proof.event_prefix(event, list(events)) == event.prefix
    assert "Exactness lab" in proof.BLOCK_NOTE and "tokenwise" in proof.BLOCK_NOTE
