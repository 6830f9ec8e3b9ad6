"""specviz.lab.all_rules: every rule side by side, exactly, and each rule's own mechanism by Monte Carlo."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from specviz import theory
from specviz.core import rule
from specviz.lab import all_rules
from specviz.lab.montecarlo import goodness_of_fit
from specviz.scenario import Scenario, Table

EXAMPLE = Scenario(vocab=("a", "b"), target=Table((1, 2)), draft=Table((2, 1)), depth=2)
WIDER = Scenario(vocab=("a", "b", "c", "d"), target=Table((1, 4, 2, 1)), draft=Table((4, 1, 3, 2)), depth=2,
                 stop_ids=frozenset({3}))


def test_the_paper_example_side_by_side():
    comparison = all_rules.compare(EXAMPLE)
    by_name = {row.rule.name: row for row in comparison.rows}
    assert [row.rule.name for row in comparison.rows] == list(all_rules.rule_names())
    assert by_name["token"].accepted_drafts == F(10, 9)
    assert by_name["block"].accepted_drafts == F(11, 9)
    assert by_name["multi:2"].accepted_drafts == F(112, 81)
    assert by_name["multi:2"].kept_by_position == (F(7, 9), F(49, 81))
    assert by_name["multi:3"].kept_by_position[0] == F(23, 27)
    assert by_name["multi-distinct:2"].kept_by_position[0] == 1
    assert by_name["exact-match"].kept_by_position[0] == F(4, 9)
    assert by_name["greedy-draft"].kept_by_position[0] == F(1, 3)
    assert by_name["typical:0.09"].first_law == (F(2, 3), F(1, 3))  # Medusa keeps every draft: q
    assert by_name["typical:0.09"].distance == F(1, 3)
    assert all(row.distance == 0 for row in comparison.rows if row.rule.exact)
    assert all(row.tokens == row.accepted_drafts + 1 for row in comparison.rows)  # no stop tokens
    assert comparison.optima[0].value == F(8, 9) and comparison.optima[0].chosen == frozenset({0})


def test_the_typical_eps_is_the_users():
    comparison = all_rules.compare(EXAMPLE, ("ensemble:0.25", "typical:0.50,0.2"))
    assert [row.rule.name for row in comparison.rows[-2:]] == ["ensemble:0.25", "typical:0.5,0.2"]
    assert all_rules.rule_names(("token", "ensemble:1/2", "ensemble:0.5"))[-1] == "ensemble:0.5"  # once, canonical


@pytest.mark.parametrize("scenario", [EXAMPLE, WIDER], ids=["example", "wider"])
@pytest.mark.parametrize("name", list(all_rules.rule_names()) + [
    "multi-distinct:3", "typical:0.3", "typical-sample:0.2", "typical:0.3,0.9", "threshold:0.6,0.9,2",
    "threshold:1,1,3", "threshold:0.3,0.5,3", "ensemble:0.1", "sglang:1/4,1/2,2", "sglang:1,1,3", "sglang:0.6,0.9"])
def test_each_mechanism_commits_its_exact_law(scenario, name):
    comparison = all_rules.compare(scenario, (name,))
    p, q = all_rules.first_pair(scenario)
    law = all_rules.first_law(scenario, name)
    sample = all_rules.sample_first_tokens(scenario, name, 40_000, seed=3)
    # traversal's walk is played by its core verifier, at most MAX_PLAYED_ROUNDS rounds
    n = all_rules.MAX_PLAYED_ROUNDS if name.startswith("traversal") else 40_000
    assert sample.rounds == sample.counts.sum() == n
    check = goodness_of_fit(sample.counts, list(law))
    assert check.impossible == 0
    assert check.p_value > 1e-4  # seeded: the same draws every run
    if sample.kept is not None:  # traversal keeps its first draft as often as RRS at the root: the weights there are 1
        kept = theory.node_law(name, p, q).acceptance
        sigma = float(kept * (1 - kept) / n) ** 0.5
        assert abs(sample.kept / n - float(kept)) <= 5 * sigma + 1e-12
    assert comparison.p == tuple(p.prob(x) for x in range(p.vocab_size))


def test_a_lossy_rule_is_told_apart_from_p():
    sample = all_rules.sample_first_tokens(EXAMPLE, "typical:0.09", 20_000, seed=1)
    fit = all_rules.fit(sample, all_rules.compare(EXAMPLE).p, ["a", "b"])
    assert fit.p_value < 1e-6
    assert abs(fit.total_variation - 1 / 3) < 0.02


def test_runs_are_seeded_and_bad_counts_are_refused():
    first = all_rules.sample_first_tokens(EXAMPLE, "multi:2", 1_000, seed=7).counts
    assert np.array_equal(first, all_rules.sample_first_tokens(EXAMPLE, "multi:2", 1_000, seed=7).counts)
    with pytest.raises(all_rules.RulesError, match="rounds n"):
        all_rules.sample_first_tokens(EXAMPLE, "token", 0)


def test_engines_and_issues_are_named():
    assert "EAGLE" in all_rules.engines(rule("multi:2"))
    assert "Medusa" in all_rules.engines(rule("typical:0.09"))
    assert "mlx-lm" in all_rules.engines(rule("exact-match"))
    assert all(url.startswith("https://github.com/") for _, url, _ in all_rules.ISSUES)
