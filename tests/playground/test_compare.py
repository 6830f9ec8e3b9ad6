"""Tokenwise against block verification on one shared drafted block."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from specviz.core.trace import BlockDecisionEvent, CheckEvent, DraftEvent
from specviz.playground import compare, presets, state
from specviz.scenario import play


def scenario(name="far apart", **changes):
    return presets.apply_preset(presets.default_scenario(), name).with_changes(**changes)


def test_both_sides_verify_the_same_drafts():
    c = compare.compare(scenario(), (), 0)
    token, block = c.side("token"), c.side("block")
    for side in (token, block):
        drafts = [e.token for e in side.trace.events if isinstance(e, DraftEvent)]
        assert tuple(drafts) == c.drafts
    assert [e.token for e in token.checks] == list(c.drafts[: len(token.checks)])
    assert [e.token for e in block.checks] == list(c.drafts)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), name=st.sampled_from(list(presets.PRESETS)), depth=st.integers(1, 5))
def test_each_side_is_the_rules_own_round(seed, name, depth):
    """Each side commits what that rule's own round 0 commits (the same streams, the same drafts)."""
    s = scenario(name, seed=seed, depth=depth)
    c = compare.compare(s, (), 0)
    for rule in ("token", "block"):
        own = play(s.with_changes(verification=rule), 1)[0]
        assert c.side(rule).result == own.result
        assert [type(e) for e in c.side(rule).trace.events] == [type(e) for e in own.trace.events]


def test_block_never_keeps_fewer_in_expectation_but_can_differ_here():
    """Somewhere in the first seeds the rules commit different tokens from the same drafts."""
    differ = [seed for seed in range(40)
              if (c := compare.compare(scenario(seed=seed, depth=4), (), 0)).side("token").result
              != c.side("block").result]
    assert differ


def test_compare_at_uses_the_rounds_prefix():
    s = scenario("close", seed=3)
    timeline = state.timeline_for(s)
    timeline.ensure_rounds(3)
    c = compare.compare_at(s, 2)
    assert c.prefix == timeline.rounds[2].prefix and c.round_id == 2
    assert c.side(s.verification).result == timeline.rounds[2].result


def test_rows_and_summary_name_counts_with_their_denominator():
    s = scenario(seed=5)
    c = compare.compare(s, (), 0)
    rows = compare.rows(c, s.vocab)
    assert [r["rule"] for r in rows] == ["tokenwise", "block verification"]
    token = c.side("token")
    assert rows[0]["drafts committed"] == f"{token.kept} of {len(c.drafts)} accepted"  # out of every draft
    assert rows[1]["drafts committed"].endswith(f"of {len(c.drafts)} kept")
    assert c.side("block").summary().startswith(f"{c.side('block').kept} of {len(c.drafts)} drafts kept")
    decision = next(e for e in c.side("block").trace.events if isinstance(e, BlockDecisionEvent))
    assert decision.accepted_drafts == c.side("block").kept
    assert all(isinstance(e, CheckEvent) for e in token.checks)


def test_a_tree_is_compared_too_with_its_own_drafts():
    s = scenario("close", seed=2, verification="multi:3", depth=2)
    assert compare.rules_for(s) == ("token", "block", "multi:3")
    assert compare.rules_for(scenario()) == ("token", "block")
    c = compare.compare(s, (), 0)
    tree = c.side("multi:3")
    assert tree.chain is None and tree.drafted == 12 and not c.same_drafts
    own = play(s, 1)[0]
    assert tree.result == own.result  # the tree's own round 0
    assert c.side("token").chain == c.side("block").chain == c.drafts  # the chains still share their drafts
    assert "drafted nodes accepted" in tree.summary()
    assert any("sibling 1 of" in line for line in compare.trace_lines(tree, s.vocab))


def test_the_exact_expectations_are_sun_et_als():
    from specviz import gallery

    example = gallery.BY_SLUG["block-verification"].scenario
    expected = compare.expectations(example)
    assert expected["token"].kept == Fraction(10, 9) and expected["block"].kept == Fraction(11, 9)
    assert expected["block"].tokens == Fraction(20, 9)


def test_over_seeds_counts_every_seed_once_and_matches_each_seeds_own_round():
    from specviz import gallery

    example = gallery.BY_SLUG["block-verification"].scenario
    seeds = compare.over_seeds(example, (), 0, 40)
    more, fewer, same = seeds.more("block", "token"), seeds.more("token", "block"), seeds.same("block", "token")
    assert more + fewer + same == 40 and sum(seeds.differences("block", "token").values()) == 40
    assert (same, more, fewer) == (30, 5, 5)  # a quarter differ, and in half of those block keeps fewer
    for index in (0, 10, 39):
        own = compare.compare(example.with_changes(seed=index), (), 0)
        assert seeds.kept["token"][index] == own.side("token").kept and seeds.kept["block"][index] == own.side(
            "block").kept
    sentence = compare.seeds_sentence(seeds)
    assert "at 30" in sentence and "kept more at 5" in sentence and "Over 40 seeds (0 to 39)" in sentence
    assert 0 < seeds.standard_error("block") < 1


def test_tokens_are_printed_as_the_playground_prints_them_and_the_draws_explained():
    vocab = ("the", ".", "cat")
    assert compare.tokens_text(vocab, (0, 1)) == "‘the’ ‘.’" and compare.tokens_text(vocab, ()) == "nothing"
    assert compare.prefix_text(vocab, ()) == "from the start of the text"
    assert compare.prefix_text(vocab, (2,)) == "after ‘cat’"
    assert "denominator of its own probability" in compare.why_draws_differ(("token", "block"))
    assert "min(1, r/q′) for the tree" in compare.why_draws_differ(("token", "block", "multi:2"))
