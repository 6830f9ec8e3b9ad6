"""The engine rules' step figures show each rule's own quantities: ensemble's mixture v and its acceptance, SGLang's S
line, coin bound and one coin per node beside the tree, Medusa's threshold line and what it draws the next token from;
and the statistics table compares with the rule's exact expectation."""

from __future__ import annotations

from fractions import Fraction as F

import plotly.graph_objects as go
import pytest

from specviz.core import trace as T
from specviz.playground import narrative, presets, state
from specviz.plots import engine_rule_figures, step_page, style, tree_figures

CLOSE = presets.apply_preset(presets.default_scenario(), "close")


def _rounds(name: str, seeds: int = 20, depth: int = 2):
    for seed in range(seeds):
        scenario = CLOSE.with_changes(verification=name, depth=depth, seed=seed)
        timeline = state.timeline_for(scenario)
        timeline.ensure_rounds(1)
        yield scenario, timeline.rounds[0].trace.events


def _first(name: str, kind: type):
    for scenario, events in _rounds(name):
        for event in events:
            if type(event) is kind:
                return scenario, events, event
    raise AssertionError(f"no {kind.__name__} in {name}'s rounds")


def _probs(c):
    return [F(t, c.total) for t in c.ticket_ints()]


def test_an_ensemble_check_draws_v_and_its_acceptance():
    scenario, events, event = _first("ensemble:0.5", T.EnsembleCheckEvent)
    fig, strip = engine_rule_figures.event_figures(event, events, scenario.vocab)
    go.Figure(fig.to_dict())  # a valid figure
    v = next(t for t in fig.data if t.name.startswith("v = "))
    want = [F(1, 2) * a + F(1, 2) * b for a, b in zip(_probs(event.p), _probs(event.q))]
    assert list(v.y) == [float(x) for x in want]
    assert strip.segments[0].end == event.acceptance and "1 − W + W·p/q" in strip.title


def test_an_sglang_chain_check_draws_s_and_the_coins_bound():
    scenario, events, event = _first("threshold:0.5,0.8", T.ThresholdCheckEvent)
    fig, strip = engine_rule_figures.event_figures(event, events, scenario.vocab)
    names = [t.name for t in fig.data]
    assert "S = 1/2" in names and "draft q (not read)" in names
    if not event.single:
        bound = next(t for t in fig.data if t.name.startswith("min(1, p(x)/A)"))
        assert list(bound.y) == [float(event.acceptance)]
    assert (strip.chosen == 0) == event.accepted


def test_an_sglang_tree_check_shows_the_tree_and_the_nodes_one_coin():
    scenario, events, event = _first("threshold:0.6,0.9,2", T.ThresholdTreeCheckEvent)
    fig, strip = engine_rule_figures.event_figures(event, events, scenario.vocab)
    go.Figure(fig.to_dict())
    states = {t.name for t in fig.data}
    assert "rejected" in states or "accepted" in states  # the tree knows SGLang's sibling checks (CHECK_KINDS)
    hovers = [h for t in fig.data if t.customdata is not None for h in t.customdata if isinstance(h, str)]
    assert any("summed mass C" in h for h in hovers) and not any("min(1, r/q′)" in h for h in hovers)
    assert any(getattr(t, "xaxis", None) == "x2" for t in fig.data)  # the panel beside the tree
    assert strip.draw == event.draw and strip.draw_range == event.draw_range
    assert strip.segments[strip.chosen].label == ("rejected so far" if not event.accepted else
                                                  f"#{event.sibling} {scenario.vocab[event.token]}")


def test_a_medusa_check_draws_the_threshold_line_and_no_coin_when_fast():
    scenario, events, event = _first("typical:0.09", T.MedusaCheckEvent)
    fig, strip = engine_rule_figures.event_figures(event, events, scenario.vocab)
    line = next(t for t in fig.data if t.name.startswith("T = "))
    assert set(line.y) == {float(event.threshold)} and strip is None
    scenario, events, event = _first("typical-sample:0.2", T.MedusaCheckEvent)
    assert engine_rule_figures.event_figures(event, events, scenario.vocab)[1].segments[0].end == event.acceptance


@pytest.mark.parametrize("name, kind", [("typical:0.09", T.MedusaCorrectionEvent),
                                        ("typical:0.09", T.MedusaBonusEvent),
                                        ("threshold:0.5,0.8", T.ThresholdCorrectionEvent),
                                        ("threshold:0.6,0.9,2", T.ThresholdTreeCorrectionEvent)])
def test_after_a_rejection_the_figure_draws_what_the_token_is_drawn_from(name, kind):
    scenario, events, event = _first(name, kind)
    fig, strip = engine_rule_figures.event_figures(event, events, scenario.vocab)
    go.Figure(fig.to_dict())
    source = event.drawn_from if isinstance(event, T.MedusaBonusEvent) else event.residual
    assert strip.draw_range == source.total and strip.draw == event.draw
    assert strip.segments[strip.chosen].label == style.token_labels(scenario.vocab)[event.token]
    drawn = next(t for t in fig.data if t.name in ("argmax p (fast)", "p above T, renormalized", "rest renormalized",
                                                    "rest of p, renormalized"))
    assert [F(y).limit_denominator(10**9) for y in drawn.y] == _probs(source)


@pytest.mark.parametrize("name", ["ensemble:0.5", "threshold:0.5,0.8", "threshold:1,1,2", "typical:0.09"])
def test_every_step_page_of_a_rule_builds_and_its_statistics_are_exact(name):
    for scenario, events in _rounds(name, seeds=4):
        for step in range(len(events)):
            for presenter in (False, True):
                page = step_page.build(narrative.step_view(scenario, step), scenario, presenter)
                go.Figure(page.figure.to_dict())
        view = narrative.step_view(scenario, len(events) - 1)
        table = engine_rule_figures.stats_table(view.stats)
        assert "theory (exact)" in table and "accepted drafts per round" in table
        assert view.stats.expected_accepted is not None


def test_the_tree_figure_reads_sglangs_siblings_as_checks():
    assert "threshold_check" in tree_figures.CHECK_KINDS


def test_sglang_s_final_chart_tells_its_three_series_apart_and_its_title_reads_whole():
    from specviz.core.trace import ThresholdCorrectionEvent
    from specviz.playground import presets
    from specviz.playground.state import timeline_for
    from specviz.plots import engine_rule_figures as plots_rules

    s = presets.apply_preset(presets.default_scenario(), "far apart").with_changes(verification="threshold:0.5,0.8",
                                                                                  seed=1)
    timeline = timeline_for(s)
    timeline.ensure_rounds(4)
    event = next(e for e in timeline.events if isinstance(e, ThresholdCorrectionEvent))
    fig, _ = plots_rules.threshold_final(event, list(s.vocab), False)
    swatches = {(t.marker.color, t.marker.pattern.shape) for t in fig.data}
    assert len(swatches) == len(fig.data) == 3  # 'taken out' was drawn as the correction's own swatch
    assert fig.layout.title.text.endswith("the final token from the rest of p")
    assert f"position {event.position + 1}:" in fig.layout.title.text  # positions count from 1
