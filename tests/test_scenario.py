"""Scenario: the toy description the pages share; round trips and plays like the core."""

from fractions import Fraction

from specviz.scenario import Scenario, Table, play, scenario_from_dict, scenario_to_dict


def make(**kw):
    base = dict(vocab=("the", "cat", "sat"), target=Table((Fraction(1, 2), 1, 0.25)),
                draft=Table((1, 1, 1), ((1, 0, 0), (0, 1, 0), (0, 0, 1))), depth=2, seed=3)
    base.update(kw)
    return Scenario(**base)


def test_round_trip_through_dict():
    s = make(stop_ids=frozenset({2}), target_mask=(True, True, False), fp32=True, draft_topk=2)
    assert scenario_from_dict(scenario_to_dict(s)) == s


def test_context_depends_on_the_settings():
    assert make().context != make(target_top_k=1).context
    assert make(context_id="fixed").context == "fixed"


def test_play_is_reproducible_and_continues_from_the_committed_prefix():
    first, second = play(make(), 4), play(make(), 4)
    assert [r.result for r in first] == [r.result for r in second]
    for before, after in zip(first, first[1:]):
        assert after.prefix == before.prefix + before.result.tokens


def test_markov_rows_follow_the_previous_token():
    s = make(target=Table((1, 1, 1), ((0, 1, 0), (0, 0, 1), (1, 0, 0))), draft=Table((1, 1, 1)))
    tokens = sum((r.result.tokens for r in play(s, 5)), ())
    for a, b in zip(tokens, tokens[1:]):
        assert b == (a + 1) % 3
