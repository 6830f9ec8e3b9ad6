"""Real-model figures and texts: the exact test in words, readable numbers, the race chart."""

from __future__ import annotations

from specviz.plots import real_model_figures as plots


def _check(accepted: bool, draw: int, numerator: int, denominator: int, p: float = 6.9e-05) -> dict:
    return {"token": 5, "accepted": accepted, "draw": draw, "draw_range": denominator,
            "p_token": {"float": p}, "q_token": {"float": 1.0},
            "acceptance": {"exact": f"{numerator}/{denominator}", "float": numerator / denominator}}


def test_rejection_reads_draw_at_least_numerator():
    text = plots.check_text(_check(False, 812345, 69, 1_000_000), lambda t: "x")
    assert "draw 812,345 >= numerator 69" in text and "**rejected**" in text and "<" not in text.split("→")[0]
    text = plots.check_text(_check(True, 12, 69, 1_000_000), lambda t: "x")
    assert "draw 12 < numerator 69" in text and "**accepted**" in text


def test_tiny_probabilities_and_long_integers_are_abbreviated():
    text = plots.check_text(_check(False, 10**40, 3 * 10**39, 10**41), lambda t: "x")
    assert "p(x) = 6.9×10⁻⁵" in text and "0.000000" not in text
    assert "1.000×10⁴⁰ (41 digits)" in text and "3.000×10³⁹ (40 digits)" in text
    assert plots.short_prob(0) == "0" and plots.short_prob(0.4213) == "0.4213" and plots.short_prob(1.0) == "1"
    assert plots.short_prob(0.0031) == "0.0031" and plots.short_prob(2.5e-12) == "2.5×10⁻¹²"
    assert plots.short_int(123456789) == "123,456,789" and plots.short_int(-(10**20)).startswith("-1.000×10²⁰")


def test_positions_count_from_zero_like_the_playground():
    view = {"kind": "check", "position": 0, "token": 1, "accepted": True,
            "pq": {"tokens": [1], "values0": [0.5], "rest0": 0.5, "values1": [0.5], "rest1": 0.5}}
    assert "position 0" in plots.view_figure(view, str).layout.title.text
    fig = plots.acceptance_figure([1.0, 0.5], [0.9, 0.4], [4, 2])
    assert list(fig.data[0].x) == ["0", "1"]
    assert list(plots.tokens_per_round_figure([(1, "bonus"), (0, "target")], None).data[0].x) == [0, 1]


def test_plain_samples_have_their_own_cue_and_chart_title():
    html = plots.tokens_html(["a", "b"], ["accepted", "target"])
    assert plots.PLAIN.label in html
    view = {"kind": "bonus", "position": 0, "token": 1, "plain": True, "p": {"tokens": [1], "values0": [1.0],
                                                                            "rest0": 0.0}}
    assert plots.view_figure(view, str).layout.title.text.startswith("No draft this round")
    assert plots.PLAIN.label in plots.legend_html(plain=True) and plots.PLAIN.label not in plots.legend_html()


def test_race_figure():
    fig = plots.race_figure([("plain sampling", 20.0), ("speculative (lookup:3)", 45.0)], predicted=2.5)
    assert list(fig.data[0].x) == [20.0, 45.0, 50.0]
    assert fig.layout.title.text == "The median race, vs plain: speculative 2.25x"
    three = plots.race_figure([("plain sampling", 20.0), ("chain (lookup:3)", 40.0), ("tree ×2 (lookup:3)", 50.0)])
    assert list(three.data[0].y) == ["plain sampling", "chain (lookup:3)", "tree ×2 (lookup:3)"]
    assert three.layout.title.text == "The median race, vs plain: chain 2.00x, tree ×2 2.50x"


def test_block_check_and_decision_texts_name_every_number():
    from fractions import Fraction

    from specviz.models.event_data import _exact

    view = {"kind": "block_check", "position": 1, "token": 3, "p_token": _exact(Fraction(1, 4)),
            "q_token": _exact(Fraction(1, 2)), "previous_weight": _exact(Fraction(1)), "weight": _exact(Fraction(1, 2)),
            "residual_mass": _exact(Fraction(1, 8)), "stop_probability": _exact(Fraction(1, 5)), "draw": 3,
            "draw_range": 5, "hit": False, "last": False}
    text = plots.block_check_text(view, lambda t: "x")
    assert "w = min(1, 1·p/q) = 0.5" in text and "h = ρ / (ρ + 1 − w) = 0.2" in text
    assert "draw 3 >= numerator 1" in text and "**miss**" in text
    last = plots.block_check_text({**view, "last": True, "hit": True, "draw": 0, "residual_mass": None}, lambda t: "x")
    assert "h = w (the whole block)" in last and "draw 0 < numerator 1" in last
    decision = {"kind": "block_decision", "position": 1, "accepted_drafts": 1, "drafts": [3, 4], "hits": [True, False],
                "ending": "correction"}
    assert "**1 draft is kept**" in plots.block_decision_text(decision)
