"""Many rounds at once: exact Monte Carlo histograms with and without an injected engine bug."""

from fractions import Fraction

import numpy as np
import plotly.graph_objects as go
import pytest

from specviz.core import SpecvizError, VerificationError
from specviz.lab import montecarlo as mc
from specviz.playground import many_rounds as m
from specviz.playground import presets
from specviz.plots import many_rounds_figures as plots

FAR = presets.apply_preset(presets.default_scenario(), "far apart")


def test_exact_rounds_converge_to_p():
    result = m.run(FAR, 20_000, "none", seed=3, chunks=4)
    assert result.rounds == 20_000 and int(result.counts.sum()) == 20_000
    assert result.distance == 0 and result.law == result.p
    assert sum(result.p) == 1 and result.p == tuple(Fraction(w, sum(FAR.target.start)) for w in FAR.target.start)
    fit = mc.goodness_of_fit(result.counts, list(result.p))
    assert fit.impossible == 0 and fit.p_value > 1e-6  # a fixed seed: deterministic
    assert result.exact_tokens_per_round == mc.exact_law(FAR, (), max_blocks=0).length[1] + sum(
        n * f for n, f in enumerate(mc.exact_law(FAR, (), max_blocks=0).length) if n != 1)


@pytest.mark.parametrize("bug", ["greedy", "residual_from_p"])
def test_an_injected_bug_drifts_away_from_p_by_its_exact_distance(bug):
    result = m.run(FAR, 20_000, bug, seed=3)
    assert result.distance > Fraction(1, 10)
    fit_bug = mc.goodness_of_fit(result.counts, list(result.law))
    assert fit_bug.p_value > 1e-6  # the samples follow the bug's exact law ...
    assert mc.goodness_of_fit(result.counts, list(result.p)).p_value < 1e-12  # ... and not p
    assert abs(result.measured_distance - float(result.distance)) < 0.03


def test_unprocessed_q_needs_a_draft_topk_and_skip_bonus_keeps_the_first_token():
    plain = m.run(FAR, 1_000, "unprocessed_q")
    assert plain.distance == 0 and "top-k" in m.hint("unprocessed_q", plain.distance, None)
    topk = presets.apply_preset(presets.default_scenario(), "close").with_changes(draft_topk=2)
    assert m.run(topk, 1_000, "unprocessed_q").distance > 0
    skipped = m.run(FAR, 5_000, "skip_bonus", seed=1)
    full = m.run(FAR, 5_000, "none", seed=1)
    assert skipped.distance == 0 and np.array_equal(skipped.counts, full.counts)  # same draws, same first token
    assert skipped.tokens < full.tokens
    assert skipped.exact_tokens_per_round < full.exact_tokens_per_round


def test_chunks_report_progress_and_bad_arguments_are_refused():
    seen = []
    m.run(FAR, 1_000, chunks=4, on_chunk=lambda r: seen.append(r.rounds))
    assert seen == [250, 500, 750, 1_000]
    with pytest.raises(m.ManyRoundsError, match="unknown bug"):
        m.run(FAR, 10, "typo")
    with pytest.raises(m.ManyRoundsError, match="positive"):
        m.run(FAR, 0)
    assert issubclass(m.ManyRoundsError, SpecvizError) and issubclass(m.BlockBugError, m.ManyRoundsError)


def test_a_tree_is_refused_in_words_rather_than_run_as_another_rule():
    """Many rounds simulates tokenwise and block rounds; a tree's rounds are not tokenwise rounds."""
    for name in ("multi:2", "multi-distinct:3"):
        with pytest.raises(VerificationError, match="Many rounds simulates tokenwise and block verification only"):
            m.run(FAR.with_changes(verification=name), 100)
        with pytest.raises(VerificationError, match="the exact Monte Carlo simulates tokenwise and block rounds"):
            mc.MonteCarlo(FAR.with_changes(verification=name))
    assert mc.checked_rules() == ("token", "block")


def test_histogram_figure_shows_p_the_bug_law_and_binomial_bars():
    result = m.run(FAR, 2_000, "greedy", seed=2)
    fig = plots.histogram_figure(result)
    go.Figure(fig.to_dict())  # valid plotly
    bars, p, law = fig.data
    assert list(bars.y) == (result.counts / 2_000).tolist()
    assert list(bars.error_y.array) == pytest.approx(result.error_bars().tolist())
    assert list(p.y) == [float(v) for v in result.p] and list(law.y) == [float(v) for v in result.law]
    assert "55/91" in fig.layout.title.text  # the exact distance, from the exact law
    assert "‘.’ period" in list(bars.x)  # punctuation tokens are quoted and named on the axis
    assert len(plots.histogram_figure(m.run(FAR, 100)).data) == 2  # no bug: no second law
    assert "converges to p" in plots.summary(m.run(FAR, 100))


def test_bug_choice_sets_a_bug_aside_with_block_and_returns_it_with_tokenwise():
    assert m.bug_choice(False, "greedy", None) == ("greedy", None)
    assert m.bug_choice(True, "greedy", None) == ("none", "greedy")
    assert m.bug_choice(True, "none", "greedy") == ("none", "greedy")
    assert m.bug_choice(False, "none", "greedy") == ("greedy", None)
    assert m.bug_choice(True, "none", None) == ("none", None)
