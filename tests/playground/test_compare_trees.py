"""Compare's trees two ways: recursive rejection sampling and traversal verification on the same tree and streams."""

from fractions import Fraction as F

import pytest

from specviz import theory
from specviz.core import VerificationError
from specviz.playground import compare, presets
from specviz.scenario import Scenario


def scenario(name: str, depth: int = 3) -> Scenario:
    return presets.preset_scenario("close", 5, depth, False).with_changes(verification=name)


@pytest.mark.parametrize("name, pair", [
    ("multi:2", ("multi:2", "traversal:2")), ("traversal:3", ("multi:3", "traversal:3")),
    ("multi-distinct:2", ("multi-distinct:2", "traversal-distinct:2")),
    ("traversal-distinct:1", ("multi-distinct:1", "traversal-distinct:1")), ("token", None), ("block", None),
    ("threshold:1,1,2", None)])
def test_a_tree_rule_has_its_two_verifications(name, pair):
    assert compare.tree_rules(name) == pair


@pytest.mark.parametrize("seed", range(6))
def test_both_verify_the_same_tree_with_the_same_streams(seed):
    result = compare.compare_trees(scenario("traversal:2").with_changes(seed=seed))
    assert [s.rule.name for s in result.sides] == ["multi:2", "traversal:2"]
    assert result.same_tree and not result.same_drafts
    rrs, traversal = result.sides
    assert rrs.trace.of_kind("tree_draft") == traversal.trace.of_kind("tree_draft")
    assert traversal.trace.of_kind("traversal_check") and not rrs.trace.of_kind("traversal_check")


def test_the_exact_expectations_side_by_side():
    s = scenario("multi:2")
    pair = compare.tree_rules("multi:2")
    expected = compare.expectations(s, (), pair)
    for name in pair:
        assert expected[name].kept == theory.round_expectation(s.with_changes(verification=name)).accepted_drafts
    assert expected["traversal:2"].kept >= expected["multi:2"].kept
    assert expected["traversal:2"].tokens - expected["traversal:2"].kept == 1  # no stop token in this scenario


def test_over_seeds_counts_both_and_names_them():
    s = scenario("multi:2")
    seeds = compare.over_seeds(s, (), 0, 10, compare.tree_rules("multi:2"))
    assert set(seeds.kept) == {"multi:2", "traversal:2"}
    assert seeds.same("traversal:2", "multi:2") + seeds.more("traversal:2", "multi:2") + seeds.more(
        "multi:2", "traversal:2") == 10
    assert "traversal verification" in compare.seeds_sentence(seeds, "traversal:2", "multi:2")


def test_trace_lines_say_which_node_its_weight_and_the_draw():
    result = compare.compare_trees(scenario("traversal:2").with_changes(seed=3))
    lines = compare.trace_lines(result.side("traversal:2"), scenario("traversal:2").vocab)
    assert any(line.startswith("node [") and "weight" in line and "draw" in line for line in lines)
    assert "the node's current weight for traversal" in compare.why_draws_differ(("multi:2", "traversal:2"))


def test_a_chain_rule_is_refused_in_words():
    with pytest.raises(VerificationError, match="drafts no tree of K children per node"):
        compare.compare_trees(scenario("block"))


def test_width_one_expects_what_block_verification_keeps():
    s = scenario("traversal:1", 2)
    expected = compare.expectations(s, (), ("token", "block", "multi:1", "traversal:1"))
    assert expected["traversal:1"].kept == expected["block"].kept > expected["multi:1"].kept == expected["token"].kept
    assert isinstance(expected["block"].kept, F)


def test_the_tables_rows_and_sentence_carry_the_papers_exact_numbers_with_their_denominators():
    """Weng et al.'s example (the gallery's card): 112/81 drafts per round for recursive rejection sampling, 118/81
    for traversal, so 6/81 = 2/27 more; tokens are one more each (no stop token)."""
    from specviz import gallery

    paper = gallery.BY_SLUG["traversal"].scenario.with_changes(verification="traversal:2")
    result = compare.trees_at(paper, 0)
    expected = compare.expectations(paper, result.prefix, ("multi:2", "traversal:2"))
    rows = compare.trees_rows(result, expected, paper.vocab)
    assert [r["verification"] for r in rows] == ["recursive rejection sampling (multi:2)", "traversal (traversal:2)"]
    assert [r["E[drafts kept] per round (exact)"] for r in rows] == ["112/81 ≈ 1.383", "118/81 ≈ 1.457"]
    assert [r["E[tokens] per round (exact)"] for r in rows] == ["193/81 ≈ 2.383", "199/81 ≈ 2.457"]
    assert all(r["this round: drafted nodes kept"] == f"{s.kept} of 6" for r, s in zip(rows, result.sides))
    sentence = compare.trees_sentence(result, expected)
    assert "traversal keeps 2/27 ≈ 0.074 more drafts than recursive rejection sampling" in sentence
    assert "every tree drafted from this prefix and every draw" in sentence


@pytest.mark.parametrize("name, walks", [("traversal:2", True), ("traversal-distinct:3", True), ("multi:2", False),
                                         ("token", False), ("exact-match:2", False)])
def test_compare_verifies_the_tree_two_ways_for_traversal_only(name, walks):
    assert compare.is_traversal(name) is walks
