"""Theory of traversal verification: its first token on context-dependent models, and its refusals past the limit."""

import sys
from fractions import Fraction as F
from pathlib import Path

import pytest

from specviz import theory
from specviz.core import Categorical
from specviz.core.errors import LawError
from specviz.core.traversal import TraversalPass, TraversalSettings, constant_pass
from specviz.playground import presets

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from traversal_law import traversal_law  # noqa: E402


def _markov(rows):
    dists = [Categorical.dense(r) for r in rows]
    return lambda prefix: dists[prefix[-1] if prefix else 0]


@pytest.mark.parametrize("width, distinct", [(1, False), (2, False), (2, True), (3, True)])
def test_the_first_token_over_a_markov_round_is_the_enumerated_one_and_p(width, distinct):
    p_model = _markov([[1, 2, 3], [4, 1, 0], [1, 1, 1]])
    q_model = _markov([[3, 1, 1], [1, 1, 4], [2, 0, 1]])
    law = traversal_law(p_model, q_model, (), 3, width, distinct)
    first = [F(0)] * 3
    for (tokens, _), w in law.items():
        first[tokens[0]] += w
    name = f"traversal{'-distinct' if distinct else ''}:{width}"
    assert theory.traversal_first_token(p_model, draft=q_model, depth=3, verification=name) == tuple(first)
    assert tuple(first) == tuple(p_model(()).prob(x) for x in range(3))


def test_only_traversal_has_this_first_token():
    with pytest.raises(theory.TheoryError, match="not traversal verification"):
        theory.traversal_first_token(presets.default_scenario())


def test_a_root_past_the_limit_is_refused_before_any_work():
    p, q = Categorical.dense([1] * 120_000), Categorical.dense([2] * 120_000)
    with pytest.raises(theory.TheoryLimitError, match="the root alone has 120,000 draft tokens x width 3"):
        theory.expected_accepted_drafts(p, q, 2, "traversal:3")


def test_the_pass_counts_its_steps_and_refuses_in_words():
    p, q = Categorical.dense([1, 2, 3, 4]), Categorical.dense([4, 3, 2, 1])
    with pytest.raises(LawError, match="limited to 500: lower the depth, the width or the vocabulary"):
        constant_pass(p, q, TraversalSettings(3), 4, limit=500).root()
    scenario = presets.preset_scenario("far apart", 12, 5, True).with_changes(verification="traversal-distinct:3")
    with pytest.raises(theory.TheoryLimitError, match="traversal verification's exact pass reaches"):
        theory.round_expectation(scenario)
    with pytest.raises(LawError, match="width"):
        TraversalPass(lambda c: ({}, {}, None), 2, 9, False)
