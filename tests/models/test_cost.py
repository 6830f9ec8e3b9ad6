"""The cost model and the speedup it predicts: pure functions, checked on made-up timings."""

from __future__ import annotations

import pytest

from specviz.models.cost import CostModel, agrees, cache_key, explain_speedup, predict, round_seconds, round_tokens
from specviz.theory import expected_tokens

# a CPU-like device: a 6-token pass costs 1.6 single passes; the early-exit draft 0.25 of a pass
CPU = CostModel("m", "cpu", (0.040, 0.046, 0.052, 0.054, 0.058, 0.064), {"early-exit:8": 0.010, "lookup:3": 0.0})
# a GPU-like device: the verification pass is flat
GPU = CostModel("m", "cuda", (0.010,) * 6, {"early-exit:8": 0.0025, "lookup:3": 0.0})


def test_ratios():
    assert CPU.pass_ratio(1) == 1 and CPU.pass_ratio(6) == pytest.approx(1.6)
    assert CPU.pass_ratio(9) == CPU.pass_ratio(6)  # beyond the measured range: the longest pass
    assert CPU.draft_ratio("early-exit:8") == pytest.approx(0.25)
    with pytest.raises(ValueError, match="at least one token"):
        CPU.pass_s(0)
    with pytest.raises(ValueError, match="positive"):
        CostModel("m", "cpu", (0.0,))
    with pytest.raises(ValueError, match=">= 0"):
        CostModel("m", "cpu", (1.0,), {"x": -1.0})
    assert CostModel.from_dict(CPU.to_dict()) == CPU


def test_round_seconds():
    assert round_seconds(CPU, "early-exit:8", 0) == 0.040  # a plain target sample
    assert round_seconds(CPU, "early-exit:8", 5) == pytest.approx(5 * 0.010 + 0.064)
    # a draft that is the target: the check only adds the bonus position
    assert round_seconds(CPU, "early-exit:8", 5, shared_target=True) == pytest.approx(5 * 0.010 + 0.040)


def test_round_tokens():
    assert round_tokens(0.7, 0) == 1.0
    assert round_tokens(0.5, 3) == pytest.approx(float(expected_tokens(0.5, 3)))
    assert round_tokens(1.0, 4) == 5.0 and round_tokens(0.0, 4) == 1.0


def test_prediction_on_made_up_timings():
    # prompt lookup accepted 90% of the time at depth 5: 4.69 tokens per round for 1.6 single passes
    lookup = predict(CPU, "lookup:3", [5] * 10, 0.9)
    assert lookup.tokens_per_round == pytest.approx(float(expected_tokens(0.9, 5)))
    assert lookup.speedup == pytest.approx(lookup.tokens_per_round / 1.6)
    # rounds without a match are plain samples: they pull the speedup towards 1
    mixed = predict(CPU, "lookup:3", [5] * 5 + [0] * 5, 0.9)
    assert 1 < mixed.speedup < lookup.speedup
    # a poor early-exit draft loses on the CPU and still loses on a flat GPU pass, by less
    cpu = predict(CPU, "early-exit:8", [4] * 10, 0.06)
    gpu = predict(GPU, "early-exit:8", [4] * 10, 0.06)
    assert cpu.speedup < gpu.speedup < 1
    # q = p: every draft accepted, each draft step a full pass: no gain
    same = predict(CostModel("m", "cpu", (0.04,) * 6, {"q=p": 0.04}), "q=p", [4] * 3, 1.0, shared_target=True)
    assert same.speedup == pytest.approx(1.0)
    with pytest.raises(ValueError, match="at least one round"):
        predict(CPU, "lookup:3", [], 0.5)


def test_agreement_and_explanation():
    assert agrees(2.0, 2.4) and not agrees(1.0, 2.0) and not agrees(1.0, 0.0)
    p = predict(CPU, "early-exit:8", [4] * 10, 0.06)
    text = explain_speedup(CPU, "early-exit:8", p, measured=p.speedup)
    assert "loses" in text and "costs 0.25 of a target pass per token" in text and "accepted 6% of the time" in text
    assert "a 5-token check costs 1.45 single passes on this CPU" in text and "within 25%" in text
    off = explain_speedup(CPU, "early-exit:8", p, measured=2 * p.speedup)
    assert "off by more than 25%" in off
    assert "exact verification's own time (30% of" in explain_speedup(CPU, "early-exit:8", p, measured=2 * p.speedup,
                                                             verify_share=0.3)
    spread = explain_speedup(CPU, "early-exit:8", p, measured=0.9, spread=(0.8, 1.1), races=3, counts=(3, 50))
    assert "shows no measurable difference here (median 0.90x over 3 interleaved races, spread 0.80x to 1.10x)" \
        in spread and "had 3 of 50 checked drafts accepted (6%)" in spread
    win = explain_speedup(GPU, "lookup:3", predict(GPU, "lookup:3", [5, 0], 0.9), measured=2.0, plain_rounds=1,
                  device_kind="cuda")
    assert "wins" in win and "this GPU" in win and "1 of 2 rounds found no n-gram match" in win


def test_cache_key_names_model_device_and_drafts():
    assert cache_key("m", "cpu", 6, ["b", "a"]) == cache_key("m", "cpu", 6, ["a", "b"])
    assert cache_key("m", "cpu", 6, ["a"]) != cache_key("m", "cuda", 6, ["a"])


def test_measured_costs_are_cached_per_model_and_device(tiny, tmp_path, monkeypatch):
    from specviz.models import cost as cost_module
    from specviz.models.drafts import parse_draft

    monkeypatch.setenv("SPECVIZ_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(cost_module, "_MEMORY", {})
    drafts = [parse_draft("lookup:3"), parse_draft("early-exit:1")]
    measured = cost_module.measure_costs(tiny, drafts, max_tokens=3, repeats=1)
    assert len(measured.target_pass_s) == 3 and set(measured.draft_step_s) == {"lookup:3", "early-exit:1"}
    assert (tmp_path / "costs.json").is_file()
    monkeypatch.setattr(cost_module, "_MEMORY", {})
    monkeypatch.setattr(cost_module, "_fastest_time", lambda *a, **k: pytest.fail("re-measured a cached model"))
    assert cost_module.measure_costs(tiny, drafts, max_tokens=3) == measured  # read back from disk


def test_wide_passes_are_measured_on_a_fixed_grid_so_one_calibration_serves_every_tree():
    from specviz.models.cost import wide_sizes

    assert wide_sizes(6, 6) == () and wide_sizes(6, 8) == (8,) and wide_sizes(6, 30) == (8, 16, 32)
    assert wide_sizes(6, 33) == wide_sizes(6, 64) == (8, 16, 32, 64) and wide_sizes(6, 500) == (8, 16, 32, 64, 128)


def test_wide_passes_are_interpolated_for_trees():
    wide = CostModel("m", "cpu", (0.040, 0.046, 0.052), {"d": 0.01}, ((8, 0.070), (16, 0.100)))
    assert wide.pass_s(3) == 0.052 and wide.pass_s(8) == 0.070
    assert wide.pass_s(12) == pytest.approx(0.085) and wide.pass_s(40) == 0.100  # the widest beyond the grid
    assert CostModel.from_dict(wide.to_dict()) == wide
    with pytest.raises(ValueError, match="wider than 3 tokens"):
        CostModel("m", "cpu", (0.04, 0.05, 0.06), {}, ((2, 0.1),))
    # a tree of 14 nodes at depth 3: three draft levels of ~5 nodes, one check over 15 tokens
    seconds = round_seconds(wide, "d", 3, nodes=14)
    assert seconds == pytest.approx(3 * 0.01 * wide.pass_ratio(5) + wide.pass_s(15))
    assert round_seconds(wide, "d", 3, nodes=3) == round_seconds(wide, "d", 3)  # a chain
    tree = predict(wide, "d", [3, 3], 0.5, expected=[2.0, 3.0], nodes=[14, 14])
    assert "a 15-token check (a tree of 14 nodes) costs" in explain_speedup(wide, "d", tree, measured=1.0)


def test_one_definition_of_expected_tokens_per_drafting_round():
    """Issue 24: the chart said 5.58 and the explanation 5.54; both now read the rounds' own expectations."""
    p = predict(CPU, "lookup:3", [5, 0, 3], 0.9, expected=[5.5, None, 3.25])
    assert p.tokens_per_round == pytest.approx((5.5 + 3.25) / 2) and p.drafting_rounds == 2  # plain rounds left out
    text = explain_speedup(CPU, "lookup:3", p, measured=2.0, basis="the test's basis")
    assert f"a drafting round commits {p.tokens_per_round:.2f} tokens in expectation (the test's basis, over 2 " \
           "drafting rounds)" in text


def test_a_calibration_off_from_the_runs_own_passes_is_said_unreliable():
    from specviz.models.cost import check_calibration

    good = check_calibration(CPU, "early-exit:8", [0.041, 0.039, 0.040], [(5, 0.058)], [0.011], now=CPU.measured_at)
    assert good.reliable and good.ratios["single passes"] == pytest.approx(1.0) and good.age_s is None
    loaded = CostModel("m", "cpu", (0.2,) * 6, {"early-exit:8": 0.05}, measured_at=1000.0)  # measured while busy
    bad = check_calibration(loaded, "early-exit:8", [0.04] * 5, [(5, 0.06)], [0.01], now=1000.0 + 600)
    assert not bad.reliable and bad.ratios["single passes"] == pytest.approx(0.2)
    assert "single passes took 0.20x the calibrated time (median of 5)" in bad.words
    assert "calibrated 10 min ago" in bad.words and "measured again next time" in bad.words
    assert "moments ago" in check_calibration(loaded, "early-exit:8", [0.04], [], [], now=1010.0).words
    p = predict(loaded, "early-exit:8", [4] * 3, 0.1)
    text = explain_speedup(loaded, "early-exit:8", p, measured=0.19, calibration=bad)
    assert f"The cost model predicts {p.speedup:.2f}x, but it is unreliable here: this run's" in text


def test_stale_or_old_format_calibrations_are_measured_again(tiny, tmp_path, monkeypatch):
    import json
    import time

    from specviz.models import cost as cost_module
    from specviz.models.drafts import parse_draft

    monkeypatch.setenv("SPECVIZ_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(cost_module, "_MEMORY", {})
    assert not cost_module.fresh({"model": "m"}) and not cost_module.fresh({"format": 2, "measured_at": 0})
    assert cost_module.fresh({"format": 2, "measured_at": time.time() - 60})
    drafts = [parse_draft("lookup:3")]
    key = cache_key(tiny.name, tiny.device_name, 2, ["lookup:3"])
    old = CostModel(tiny.name, tiny.device_name, (9.0, 9.0), {"lookup:3": 0.0}).to_dict()  # the format before
    (tmp_path / "costs.json").write_text(json.dumps({key: old, "other": old}))
    measured = cost_module.measure_costs(tiny, drafts, max_tokens=2, repeats=1)
    assert measured.target_pass_s != (9.0, 9.0) and measured.measured_at > 0
    stored = json.loads((tmp_path / "costs.json").read_text())
    assert set(stored) == {key} and stored[key]["format"] == cost_module.COSTS_FORMAT  # the stale entries left
    cost_module.forget_calibration(measured)
    assert json.loads((tmp_path / "costs.json").read_text()) == {} and not cost_module._MEMORY
