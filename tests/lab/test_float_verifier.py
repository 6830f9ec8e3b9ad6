"""specviz.lab.float_verifier: where a float32 engine verifier deviates, and what each bug costs, exactly."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from specviz import theory
from specviz.lab import float_verifier as fv
from specviz.scenario import Scenario, Table

BASE = Scenario(vocab=("a", "b", "c", "d"), target=Table((F(1, 2), F(1, 3), F(1, 6), 0)),
                draft=Table((F(1, 6), F(1, 2), F(1, 12), F(1, 4))), depth=2)


def test_acceptance_probability_on_the_u_grid():
    half = np.float32(0.5)
    assert fv.acceptance_probability32(half, "<") == F(1, 2)
    assert fv.acceptance_probability32(half, "<=") == F(1, 2) + F(1, 2**24)
    assert fv.acceptance_probability32(np.float32(0), "<") == 0
    assert fv.acceptance_probability32(np.float32(0), "<=") == F(1, 2**24)
    assert fv.acceptance_probability32(np.float32(2), "<") == 1
    assert fv.acceptance_probability32(np.float32("nan"), "<=") == 0
    assert fv.acceptance_probability32(np.float32("inf"), "<") == 1


def test_engine_code_runs_a_block():
    rng = np.random.default_rng(0)
    p = [np.array([0.5, 0.5, 0.0], dtype=np.float32)] * 3
    q = [np.array([0.25, 0.25, 0.5], dtype=np.float32)] * 2
    for _ in range(50):
        out = fv.engine_verify(p, q, [2, 0], rng)
        assert 1 <= len(out) <= 3 and 2 not in out  # with "<", the p = 0 token is never kept
    assert np.isnan(fv.residual32(p[0], p[0])).all()  # 0/0 when p = q


def test_exact_settings_without_bug_reproduce_the_exact_verifier():
    c = fv.compare(BASE, settings=fv.EngineSettings(float32=False))
    assert c.engine_blocks == c.exact_blocks
    assert c.tv_blocks == 0 and c.tv_sequences == 0 and c.deviations == []


def test_target_zero_token_accepted_under_less_equal():
    strict = fv.compare(BASE, settings=fv.EngineSettings(comparison="<"))
    loose = fv.compare(BASE, settings=fv.EngineSettings(comparison="<="))
    assert not any("target-zero" in d.reason for d in strict.deviations)
    zero = [d for d in loose.deviations if "target-zero" in d.reason]
    assert zero and zero[0].token == 3
    assert zero[0].weight == F(1, 4) * F(1, 2**24)  # q(d) * P(u = 0)
    # d gets committed with positive probability: the law is wrong, by a tiny exact amount
    assert any(3 in block for block in loose.engine_blocks)
    assert 0 < loose.tv_sequences < F(1, 10**6)
    assert sum(loose.engine_blocks.values()) == 1


def test_nan_residual_when_float32_p_and_q_nearly_agree():
    near = Scenario(vocab=("a", "b", "c"), target=Table((12, 18, 7)), draft=Table((11999998, 17999999, 7000000)),
                    depth=1)
    c = fv.compare(near)
    assert c.crash > 0
    assert any(d.reason.startswith("0/0") for d in c.deviations)
    assert any(fv.CRASH in block for block in c.engine_blocks)


def test_fp32_underflow_of_tiny_probabilities():
    tiny = Scenario(vocab=("a", "b", "c"), target=Table((1, 1e-50, 1)), draft=Table((1, 1, 1)), depth=1)
    c = fv.compare(tiny)
    assert any("underflow" in d.reason for d in c.deviations)
    assert not any(1 in block for block in c.engine_blocks)  # b can never be emitted
    assert c.tv_sequences > 0


def test_each_bug_has_its_exact_cost():
    topk = BASE.with_changes(draft_topk=3)
    results = fv.compare_all(topk)
    assert set(results) == {"float32", "unprocessed_q", "greedy", "residual_from_p", "skip_bonus"}
    assert results["unprocessed_q"].tv_sequences > F(1, 100)
    assert results["greedy"].tv_sequences > F(1, 10)
    assert results["residual_from_p"].tv_sequences > F(1, 100)
    skip = results["skip_bonus"]
    assert skip.tv_sequences == 0 and skip.tv_blocks > 0  # correct law, fewer tokens per round
    assert skip.engine_tokens < skip.exact_tokens
    assert 0 < results["float32"].tv_sequences < F(1, 10**6)
    # without a draft top-k, verifying against the unprocessed q is harmless
    assert fv.compare(BASE, settings=fv.EngineSettings(False, "<", "unprocessed_q")).tv_sequences == 0
    for r in results.values():
        assert sum(r.engine_blocks.values()) == 1


def test_greedy_commits_argmax_only():
    c = fv.compare(BASE, settings=fv.EngineSettings(False, "<", "greedy"))
    assert all(set(block) == {0} for block in c.engine_blocks)  # a rejection commits the argmax too
    assert c.tv_first == 1 - F(1, 2)  # TV(point mass on a, p) = 1 - p(a)
    assert c.tv_first == theory.total_variation({0: F(1)}, {0: F(1, 2), 1: F(1, 3), 2: F(1, 6)})


def test_bad_settings_are_refused():
    with pytest.raises(ValueError):
        fv.EngineSettings(comparison="<<")
    with pytest.raises(ValueError):
        fv.EngineSettings(bug="typo")


def test_bonus_differences_are_listed_as_deviations():
    from specviz.playground.presets import preset_scenario

    close = preset_scenario("close", 6, 3, False)
    skip = fv.compare(close, settings=fv.EngineSettings(False, "<", "skip_bonus"))
    assert skip.tv_blocks == F(2197, 2744)
    bonus = [d for d in skip.deviations if d.stage == "bonus"]
    assert bonus and all(d.token is None and len(d.context) == 3 for d in bonus)
    assert sum(d.weight for d in bonus) == skip.tv_blocks  # every fully accepted block lost its bonus
    same = fv.compare(preset_scenario("p = q", 6, 3, False), settings=fv.EngineSettings(True, "<", "none"))
    assert same.tv_blocks == F(15, 1879048241)
    assert same.deviations and {d.stage for d in same.deviations} == {"bonus"}
    assert "float32 bonus" in same.deviations[0].reason


def test_any_nonzero_distance_comes_with_a_deviation():
    from specviz.playground.presets import PRESETS, preset_scenario

    for name in PRESETS:
        scenario = preset_scenario(name, 3, 2, False)
        for result in fv.compare_all(scenario).values():
            if result.tv_blocks or result.tv_sequences:
                assert result.deviations, (name, result.settings)


def test_p_equal_q_never_rejects_under_float32():
    same = Scenario(vocab=("a", "b", "c"), target=Table((12, 18, 7)), draft=Table((12, 18, 7)), depth=1)
    c = fv.compare(same)
    assert c.crash == 0 and not any(d.stage != "bonus" for d in c.deviations)
