"""The lab's Monte Carlo of exact match's own mechanism (K distinct drafts, the target's sample) against theory."""

from __future__ import annotations

import math

import pytest

from specviz import theory
from specviz.lab import all_rules
from specviz.playground.presets import preset_scenario


@pytest.mark.parametrize("name", ["exact-match", "exact-match:2", "exact-match:3"])
def test_the_mechanism_keeps_what_theory_says_and_commits_p(name):
    scenario = preset_scenario("far apart", 5, 2, False)
    p, q = all_rules.first_pair(scenario)
    n = 60_000
    sample = all_rules.sample_first_tokens(scenario, name, n, seed=3)
    law = theory.node_law(name, p, q)
    a = float(law.acceptance)
    assert abs(sample.kept / n - a) < 5 * math.sqrt(a * (1 - a) / n)  # five standard errors
    fit = all_rules.fit(sample, tuple(p.prob(x) for x in range(5)), list(scenario.vocab))
    assert fit.p_value > 1e-4  # the committed token follows p

