"""The race on a tiny model: both legs reproducible by seed, the same settings, the speedup line, the CLI."""

from __future__ import annotations

import io
import re
import statistics

import pytest

from specviz.models import GenerationSettings, parse_draft
from specviz.models.cost import CostModel
from specviz.models.race import race, race_table

PROMPT = "w1 w2 w3 w1 w2 w3 w1 w2"


@pytest.fixture(autouse=True)
def _cost_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SPECVIZ_CACHE_DIR", str(tmp_path))


def _race(model, seed: int, draft: str = "lookup:3", verification: str = "token", **kw):
    cost = CostModel(model.name, model.device_name, (0.01, 0.012, 0.014, 0.016, 0.018, 0.02),
                     {draft: 0.0})
    return race(model, PROMPT, parse_draft(draft), GenerationSettings(depth=5, seed=seed, max_new_tokens=10,
                                                            verification=verification), cost=cost, **kw)


def test_both_legs_are_reproducible_by_seed(tiny):
    a, b, c = (_race(tiny, seed).trials[0] for seed in (3, 3, 4))  # race 0 runs the settings' own seed
    assert a.plain.generation.tokens == b.plain.generation.tokens
    assert a.speculative.generation.tokens == b.speculative.generation.tokens
    assert a.speculative.generation.origins == b.speculative.generation.origins
    assert a.plain.generation.tokens != c.plain.generation.tokens
    assert set(a.plain.generation.origins) == {"target"} and a.plain.summary.drafted == 0
    assert a.plain.label == "plain" and a.speculative.label == "lookup:3"
    # the same prompt for both legs, through the same exact processors
    assert a.plain.generation.prompt_ids == a.speculative.generation.prompt_ids
    assert a.plain.generation.context_id.replace("draft=plain", "") == \
        a.speculative.generation.context_id.replace("draft=lookup:3", "")


def test_every_figure_of_one_race_comes_from_the_median_race(tiny):
    """Issue 24: the cards showed the seed-1 race beside the median race's headline and chart."""
    result = _race(tiny, 1, keep_raw=True)
    median = result.median_trial
    assert sorted(result.speedups)[1] == result.speedup == median.speedup == statistics.median(result.speedups)
    assert result.plain is median.plain and result.speculative is median.speculative
    speeds = result.chart_speeds()
    assert speeds == {"plain": median.plain.tokens_per_s, "speculative": median.speculative.tokens_per_s}
    assert speeds["speculative"] / speeds["plain"] == pytest.approx(result.speedup)
    assert all(r.trace is not None for r in median.speculative.generation.rounds)  # the shown race keeps traces
    others = [t for t in result.trials if t is not median]
    assert all(r.trace is None for t in others for r in t.speculative.generation.rounds)
    assert "median race, seed" in race_table(result)[0]


LINE = (r"speedup: \d+\.\d\dx, median of 3 interleaved races \(spread \d+\.\d\dx to \d+\.\d\dx\): "
        r"speculative decoding (wins|loses|shows no measurable difference) against plain sampling")


def test_the_speedup_line_and_prediction(tiny):
    result = _race(tiny, 1)
    line = result.line()
    # issue 20: the line gives the median of interleaved races and its spread (was one race's speedup)
    assert re.fullmatch(LINE, line)
    assert all(t.speedup == pytest.approx(t.speculative.tokens_per_s / t.plain.tokens_per_s) for t in result.trials)
    assert result.speedup == statistics.median(result.speedups)
    assert result.prediction is not None and result.prediction.depths == tuple(
        len(r.drafted) for r in result.speculative.generation.rounds)
    assert result.calibration is not None and set(result.calibration.ratios) == {"single passes", "checks"}
    assert "The cost model predicts" in result.explanation
    table = "\n".join(race_table(result))
    assert "tokens per verification pass" in table and "predicted speedup" in table


def test_progress_reports_each_leg_in_order(tiny):
    seen: list[str] = []
    _race(tiny, 2, progress=lambda leg, session, record: seen.append(leg), trials=1)
    assert seen[0] == "plain" and seen[-1] == "speculative"
    assert seen == sorted(seen, key=["plain", "speculative"].index)


def test_races_are_interleaved_over_consecutive_seeds(tiny):
    """The plain run does not always go first: load from elsewhere hits both legs alike."""
    order: list[tuple[str, int]] = []
    result = _race(tiny, 5, progress=lambda leg, session, record: order.append((leg, session.settings.seed)),
                   trials=3)
    runs = [key for i, key in enumerate(order) if i == 0 or order[i - 1] != key]
    assert runs == [("plain", 5), ("speculative", 5), ("speculative", 6), ("plain", 6), ("plain", 7),
                    ("speculative", 7)]
    assert [t.seed for t in result.trials] == [5, 6, 7]
    assert [t.plain_first for t in result.trials] == [True, False, True]
    again = _race(tiny, 5, trials=1)
    assert again.speculative.generation.tokens == result.trials[0].speculative.generation.tokens  # race 0: seed 5
    with pytest.raises(ValueError, match="trials must be a whole number >= 1, got 0"):
        _race(tiny, 5, trials=0)


def test_the_verdict_needs_the_spread_to_exclude_one():
    from specviz.models.cost import verdict_of

    assert verdict_of((1.02, 1.3)) == "wins" and verdict_of((0.5, 0.98)) == "loses"
    assert verdict_of((0.97, 1.11)) == verdict_of((1.0, 1.2)) == "shows no measurable difference"
    assert verdict_of((0.43, 0.998)) == verdict_of((1.004, 1.3)) == "shows no measurable difference"  # reads 1.00x


def test_block_prediction_uses_block_theory_and_names_denominators(tiny):
    result = _race(tiny, 3, draft="early-exit:1", verification="block", trials=1)
    s = result.speculative.summary
    expected = [1 + r.expected_accepted for r in result.speculative.generation.rounds if r.drafted]
    assert s.expected_basis.startswith("block verification")
    assert s.expected_tokens_per_round == pytest.approx(sum(expected) / len(expected))
    assert f"had {s.accepted} of {s.checks} checked drafts kept" in result.explanation


def test_cli_race_ends_with_the_speedup_line(tiny_dir):
    from specviz.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = main(["generate", PROMPT, "--model", str(tiny_dir), "--draft", "lookup:3", "--depth", "5",
                 "--temperature", "0.5", "--max-new-tokens", "8", "--race", "--no-chat"], out=out, err=err)
    assert code == 0, err.getvalue()
    lines = out.getvalue().strip().splitlines()
    assert re.fullmatch(LINE, lines[-1])  # issue 20: median and spread of interleaved races
    assert any(line.startswith("races: seed 1 (plain first)") for line in lines)
    assert "--- plain (plain) ---" in lines and "--- speculative (lookup:3) ---" in lines


def test_a_tree_races_plain_the_chain_and_the_tree_each_going_first_in_turn(tiny):
    order: list[tuple[str, int]] = []
    result = _race(tiny, 2, verification="multi-distinct:2",
                   progress=lambda leg, session, record: order.append((leg, session.settings.seed)))
    runs = [key for i, key in enumerate(order) if i == 0 or order[i - 1] != key]
    assert [leg for leg, _ in runs] == ["plain", "chain", "speculative", "chain", "speculative", "plain",
                                        "speculative", "plain", "chain"]
    for trial in result.trials:
        assert trial.chain.generation.verification == "token" and trial.speculative.generation.verification == \
            "multi-distinct:2"
        assert trial.chain.generation.prompt_ids == trial.speculative.generation.prompt_ids
        assert trial.over_chain == pytest.approx(trial.speculative.tokens_per_s / trial.chain.tokens_per_s)
        spec = trial.speculative.summary
        assert spec.target_forwards == spec.rounds and spec.nodes_per_pass is not None
    line = result.line()
    assert "the chain (same draft, tokenwise)" in line and "the chain's speed" in line
    assert list(result.chart_speeds()) == ["plain", "chain", "speculative"]
    assert result.prediction is not None and result.prediction.depths == tuple(
        r.depth for r in result.speculative.generation.rounds)
    table = race_table(result)
    assert table[0].split()[-3:] == ["plain", "chain", "speculative"] and "drafted nodes per pass" in "\n".join(table)
