"""Playground figures, checked on their figure dicts: fixed axes, exact hovers, second cues."""

from fractions import Fraction

import plotly.graph_objects as go
import pytest

from specviz.core.trace import BonusEvent, CheckEvent, CorrectionEvent, DraftEvent, ResultEvent, StopEvent
from specviz.playground import presets, state
from specviz.plots import step_figures as plots
from specviz.plots import style


def events(name, kind, markov=False):
    s = presets.apply_preset(presets.default_scenario(markov), name, markov)
    timeline = state.timeline_for(s)
    timeline.ensure_rounds(6)
    for index, e in enumerate(timeline.events):
        if e.kind == kind:
            return s, e, timeline.rounds[timeline.round_of(index)].trace.events
    raise AssertionError(f"no {kind} event")


def fixed_axes(fig, vocab, axis="xaxis", yaxis="yaxis"):
    layout = fig.to_dict()["layout"]
    assert layout[axis]["type"] == "category"
    assert layout[axis]["categoryarray"] == style.token_labels(vocab)
    assert "‘.’ period" in layout[axis]["categoryarray"] or "." not in vocab  # punctuation quoted and named
    assert "‘.’<br>period" in layout[axis]["ticktext"] or "." not in vocab  # its name on a line of its own
    assert layout[yaxis]["range"] == plots.Y_RANGE


def test_draft_figure():
    s, e, _ = events("close", "draft")
    fig = plots.draft_figure(e, s.vocab)
    fixed_axes(fig, s.vocab)
    bar = fig.to_dict()["data"][0]
    assert bar["marker"]["color"] == style.role("q").color and bar["marker"]["pattern"]["shape"] == "/"
    widths = bar["marker"]["line"]["width"]
    assert widths[e.token] == style.HIGHLIGHT_LINE["width"] and sorted(widths)[:-1] == [1] * (len(widths) - 1)
    assert bar["customdata"][e.token] == plots._exact(e.q.prob(e.token))
    assert "drafted" in fig.to_dict()["layout"]["annotations"][0]["text"]


def test_check_figure_has_p_and_q_with_exact_hover():
    s, e, _ = events("far apart", "check")
    assert isinstance(e, CheckEvent)
    fig = plots.check_figure(e, s.vocab)
    fixed_axes(fig, s.vocab)
    p_bar, q_bar = fig.to_dict()["data"]
    assert p_bar["name"] == "target p" and q_bar["name"] == "draft q"
    assert p_bar["y"][e.token] == pytest.approx(float(e.p_token))
    assert "/" in p_bar["customdata"][e.token] or p_bar["customdata"][e.token] in ("0", "1")
    assert p_bar["marker"]["pattern"]["shape"] != q_bar["marker"]["pattern"]["shape"]


def test_residual_figure_splits_p_into_overlap_and_excess():
    s, e, _ = events("far apart", "correction")
    assert isinstance(e, CorrectionEvent)
    fig = plots.residual_figure(e, s.vocab)
    data = fig.to_dict()["data"]
    overlap, excess, q_marks, normalized = data
    p = plots.probs(e.p)
    for i in range(s.vocab_size):
        assert overlap["y"][i] + excess["y"][i] == pytest.approx(float(p[i]))
    assert sum(excess["y"]) == pytest.approx(float(e.residual_mass))
    assert normalized["marker"]["line"]["width"][e.token] == style.HIGHLIGHT_LINE["width"]
    assert q_marks["marker"]["symbol"] == style.role("q").symbol
    assert fig.to_dict()["layout"]["barmode"] == "stack"
    fixed_axes(fig, s.vocab, "xaxis2", "yaxis2")


def test_bonus_figure():
    s, e, _ = events("p = q", "bonus")
    assert isinstance(e, BonusEvent)
    fig = plots.bonus_figure(e, s.vocab)
    fixed_axes(fig, s.vocab)
    assert "bonus" in fig.to_dict()["layout"]["annotations"][0]["text"]


@pytest.mark.parametrize("kind", ["stop", "result"])
def test_round_figure(kind):
    s, e, round_events = events("stop-heavy" if kind == "stop" else "far apart", kind)
    assert isinstance(e, StopEvent | ResultEvent)
    fig = plots.round_figure(round_events, s.vocab, s.depth)
    layout = fig.to_dict()["layout"]
    assert layout["xaxis"]["range"] == [0.5, s.depth + 1.5]  # positions count from 1
    drafted = next(t for t in fig.to_dict()["data"] if t["name"] == "drafted")
    assert min(drafted["x"]) == 1
    names = {t["name"] for t in fig.to_dict()["data"]}
    assert {"drafted", "accepted draft", "correction", "bonus"} <= names


def test_acceptance_draw_marks_u_against_threshold():
    s, e, _ = events("far apart", "check")
    strip = plots.acceptance_draw_strip(e)
    assert strip.u == Fraction(e.draw, e.draw_range)
    if 0 < e.acceptance < 1:
        assert strip.segments[0].end == e.acceptance and strip.segments[0].label.startswith("accept")
    chosen = strip.segments[strip.chosen]
    assert chosen.start <= strip.u < chosen.end  # the draw lands in the chosen segment, exactly
    assert chosen.label.startswith("accept") == e.accepted


def test_sampling_draw_segments_cover_the_unit_interval():
    s, e, _ = events("close", "draft")
    assert isinstance(e, DraftEvent)
    strip = plots.sampling_draw_strip(e.q, e.draw, e.token, s.vocab, cue="q", title="t")
    assert strip.segments[0].start == 0 and strip.segments[-1].end == 1
    assert all(a.end == b.start for a, b in zip(strip.segments, strip.segments[1:]))  # exact, no gaps
    chosen = strip.segments[strip.chosen]
    assert chosen.label == style.token_label(s.vocab[e.token]) and chosen.start <= strip.u < chosen.end


def test_token_charts_reserve_their_margins_so_the_browser_draws_once():
    s, e, round_events = events("far apart", "check")
    for presenter in (False, True):
        main, _ = plots.event_figures(e, round_events, s.vocab, s.depth, presenter=presenter)
        margin = main.to_dict()["layout"]["margin"]
        size = style.font_size(presenter)
        assert margin["l"] >= 2.5 * size + 20  # the y title and its tick labels
        assert margin["t"] >= style.title_space(main.layout.title.text, presenter) + size + 20  # title + legend
        go.Figure(main.to_dict())  # still a valid figure


def test_labels_that_fit_are_kept_level_and_long_ones_get_room_below():
    s, e, round_events = events("far apart", "check")
    short = plots.settle_margins(plots.check_figure(e, s.vocab, presenter=True), presenter=True)
    size = style.PRESENTER_FONT_SIZE  # '‘.’ period' is two lines: a second line below the ticks
    assert short.layout.xaxis.tickangle == 0 and short.layout.margin.b == 2 * size + 26 + round(1.2 * size)
    long_vocab = tuple(f"token{i:02d}" for i in range(len(s.vocab)))
    wide = plots.settle_margins(plots.check_figure(e, long_vocab), presenter=False)
    assert wide.layout.xaxis.tickangle is None and wide.layout.margin.b > 2 * style.FONT_SIZE + 26


@pytest.mark.parametrize("kind", ["draft", "check", "correction", "bonus", "stop", "result"])
def test_event_figures_dispatch(kind):
    name = {"bonus": "p = q", "stop": "stop-heavy"}.get(kind, "far apart")
    s, e, round_events = events(name, kind)
    main, draw = plots.event_figures(e, round_events, s.vocab, s.depth, presenter=True)
    go.Figure(main.to_dict())  # the figure skips validation when built; plotly must accept it
    assert main.to_dict()["layout"]["font"]["size"] == style.PRESENTER_FONT_SIZE
    assert (draw is None) == (kind in ("stop", "result"))


def test_history_figure():
    fig = plots.history_figure([(0, 3, "bonus"), (1, 1, "correction"), (2, 0, "correction")], 3, Fraction(5, 2))
    data = fig.to_dict()["data"]
    assert data[0]["y"] == [3, 1, 0] and data[1]["y"] == [0, 1, 1] and data[2]["y"] == [1, 0, 0]
    assert data[3]["y"] == pytest.approx([4, 3, 7 / 3])
    assert fig.to_dict()["layout"]["yaxis"]["range"] == [0, 4.5]
    assert plots.history_figure([], 2, None).to_dict()["data"][0]["x"] == []
    go.Figure(fig.to_dict())


def test_style_palette_and_second_cues():
    assert set(style.OKABE_ITO.values()) >= {c.color for c in style.ORIGINS.values()}
    for group in (style.ORIGINS, style.ROLES):
        cues = list(group.values())
        assert len({c.symbol for c in cues}) == len(cues)
    shown = [style.origin(n) for n in ("accepted", "correction", "bonus")]
    assert len({c.pattern for c in shown}) == 3 and len({c.glyph for c in shown}) == 3
    assert len({c.dash for c in shown}) == 3
    assert style.PRESENTER_FONT_SIZE > style.FONT_SIZE >= 16
    assert "accepted draft" in style.legend_html()


def test_a_legend_that_wraps_gets_a_second_row_of_room():
    s, e, round_events = events("far apart", "result")
    fig = plots.round_figure(round_events, s.vocab, s.depth)
    narrow = plots.settle_margins(go.Figure(fig), width=484).layout.margin.t
    wide = plots.settle_margins(go.Figure(fig), width=2000).layout.margin.t
    assert narrow == wide + style.FONT_SIZE + 20


# --- margins reserved, so that plotly draws a chart once (tests/e2e/test_e2e_drawn_once.py checks it in Chromium)
@pytest.mark.parametrize("top", [0.255, 0.394, 0.428])
def test_a_right_side_axis_reserves_what_chromium_measured(top):
    from specviz.plots.step_figures import _right_axis_px

    def axis(title_size):
        return {"range": [0, top], "nticks": 5, "side": "right",
                "title": {"text": "probability", "font": {"size": title_size}}}

    assert 60 <= _right_axis_px(axis(14), 18) <= 66  # measured: 60 px at 18 px type (ticks 0.1 apart)
    assert 72 <= _right_axis_px(axis(19), 24) <= 78  # and 72 px at 24 px


def test_finer_ticks_on_a_right_side_axis_take_more_room():
    from specviz.plots.step_figures import _right_axis_px

    coarse = _right_axis_px({"range": [0, 0.4], "nticks": 5, "title": {"text": "p"}}, 18)  # 0.1 apart: "0.3"
    fine = _right_axis_px({"range": [0, 0.08], "nticks": 5, "title": {"text": "p"}}, 18)  # 0.02 apart: "0.06"
    assert fine > coarse


def test_a_tree_reserves_room_for_its_root_label_when_its_columns_are_narrow():
    import plotly.graph_objects as go

    from specviz.plots import tree_figures

    def figure(depth):
        return go.Figure(layout={"xaxis": {"range": [-0.25, depth + 0.6], "domain": [0, 0.56]}})

    assert tree_figures.left_margin(figure(1), False) == tree_figures.TREE_MARGIN  # wide columns: the label fits
    assert tree_figures.left_margin(figure(3), False) >= 19  # depth 3: measured 19 px in Chromium
    assert tree_figures.left_margin(figure(3), True) >= 21  # and 21 px in presenter mode


@pytest.mark.parametrize("topk", [1, None])
def test_the_drafted_mark_never_rises_into_the_legend(topk):
    from specviz.playground.state import timeline_for

    s = presets.default_scenario().with_changes(draft_topk=topk)
    timeline = timeline_for(s)
    timeline.ensure_rounds(1)
    draft = timeline.events[0]
    mark = plots.draft_figure(draft, s.vocab).layout.annotations[0]
    tall = max(plots.probs(draft.q)) > plots.HIGH_BAR
    assert tall == (topk == 1)
    assert (mark.ay > 0) == tall  # over a bar of q = 1 the label hangs inside the plot, beside the bar
    assert mark.text.startswith("drafted:")
