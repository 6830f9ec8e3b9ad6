"""Engine bugs injected into the Monte Carlo's tables: the exact first-token law against the float verifier's."""

from fractions import Fraction

import numpy as np
import pytest

from specviz import theory
from specviz.lab import buggy_tables as bt
from specviz.lab import float_verifier as fv
from specviz.lab import montecarlo as mc
from specviz.playground import presets

SCENARIOS = {
    "far apart": presets.apply_preset(presets.default_scenario(), "far apart"),
    "close top-k": presets.apply_preset(presets.default_scenario(), "close").with_changes(draft_topk=2, depth=2),
    "disjoint (ties)": presets.apply_preset(presets.default_scenario(), "disjoint supports").with_changes(depth=2),
    "markov": presets.apply_preset(presets.default_scenario(markov=True), "far apart", True).with_changes(depth=2),
}


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("bug", list(fv.BUGS))
def test_first_token_law_matches_the_float_verifiers_exact_engine_law(name, bug):
    s = SCENARIOS[name]
    t = bt.tables_with_bug(s, bug)
    law = bt.first_token_law(t, t.start)
    assert sum(law) == 1
    engine = fv.compare(s, (), fv.EngineSettings(float32=False, comparison="<", bug=bug))
    p = dict(theory.support(s.processor()((), s.target_model()(()))))
    assert theory.total_variation({x: f for x, f in enumerate(law) if f}, p) == engine.tv_first


def test_without_a_bug_the_first_token_law_is_p_and_greedy_is_far():
    s = SCENARIOS["far apart"]
    p = theory.support(s.processor()((), s.target_model()(())))
    t = bt.tables_with_bug(s, "none")
    assert [f for f in bt.first_token_law(t, t.start) if f] == [f for _, f in p]
    greedy = bt.first_token_law(bt.tables_with_bug(s, "greedy"), t.start)
    assert greedy[0] == 1  # only the target's argmax ever comes first


def test_drop_bonus_removes_only_the_bonus_column():
    tokens = np.array([[1, 2, 3], [0, -1, -1]])
    assert bt.drop_bonus(tokens, 2).tolist() == [[1, 2, -1], [0, -1, -1]]


def test_unknown_bug_is_refused():
    with pytest.raises(ValueError, match="unknown bug"):
        bt.tables_with_bug(SCENARIOS["far apart"], "typo")


def test_simulated_rounds_follow_the_buggy_law():
    s = SCENARIOS["far apart"]
    t = bt.tables_with_bug(s, "residual_from_p")
    tokens = mc.simulate_numpy(t, mc.NumpyTables(t), 50_000, t.start, np.random.default_rng(1))
    law = bt.first_token_law(t, t.start)
    fit = mc.goodness_of_fit(np.bincount(tokens[:, 0], minlength=6), law)
    assert fit.p_value > 1e-6 and fit.impossible == 0
    assert law != [Fraction(w, sum(s.target.start)) for w in s.target.start]
