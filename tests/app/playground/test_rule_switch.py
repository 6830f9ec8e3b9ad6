"""The Verification switch: every playable family has a choice, names round-trip, limits are said in words."""

import pytest

from specviz.app.playground import rule_switch
from specviz.app.playground.session import PlaygroundSession
from specviz.core.verification import families, rule
from specviz.playground import presets

NAMES = ["token", "block", *[f"multi:{k}" for k in range(1, 5)], *[f"multi-distinct:{k}" for k in range(1, 5)],
         "threshold:0.5,0.8", "threshold:1,1,3", "sglang:1,1", "sglang:0.5,0.8,2", "typical:0.09",
         "typical:0.09,sqrt", "typical-sample:0.2,0.5", "traversal:2", "traversal-distinct:3", "traversal:1"]


def test_every_playable_family_has_one_choice_whose_key_is_the_family():
    assert sorted(choice.key for choice in rule_switch.CHOICES) == sorted(families("playable"))
    assert rule_switch.SWITCH_BY_FAMILY.missing() == ()
    assert all(choice.help in rule_switch.HELP for choice in rule_switch.CHOICES)
    assert rule_switch.HELP.endswith("All are exact.") == all(c.exact for c in rule_switch.CHOICES)


@pytest.mark.parametrize("name", NAMES)
def test_a_name_set_on_the_switch_reads_back_unchanged(name):
    pg = PlaygroundSession({})
    rule_switch.show(pg, name)
    assert pg.verification == rule_switch.SWITCH_BY_FAMILY[name].key
    assert rule_switch.chosen(pg) == name


def test_a_chain_keeps_the_trees_last_width_for_the_next_switch_to_the_tree():
    pg = PlaygroundSession({})
    rule_switch.show(pg, "token")
    assert (pg.tree_width, pg.tree_distinct) == (2, False)  # defaults, before the tree was ever chosen
    rule_switch.show(pg, "multi-distinct:3")
    rule_switch.show(pg, "block")
    assert rule_switch.chosen(pg) == "block"
    pg.verification = "tree"  # what the radio does
    assert rule_switch.chosen(pg) == "multi-distinct:3"


def test_a_tree_the_playground_cannot_animate_is_said_in_words():
    s = presets.default_scenario()
    assert rule_switch.switch_problems(s) == []
    assert rule_switch.switch_problems(s.with_changes(verification="block")) == []
    wide = rule_switch.switch_problems(s.with_changes(verification="multi:8", depth=1))
    assert len(wide) == 1 and "wider than the Playground offers" in wide[0].title and "'multi:8'" in wide[0].detail
    big = rule_switch.switch_problems(s.with_changes(verification="multi:4", depth=4))
    assert "too large to animate" in big[0].title and "lower the depth to 2 or fewer" in big[0].fix
    assert rule_switch.switch_problems(s.with_changes(verification="multi:3", depth=3)) == []  # 39 nodes: it plays
    pg = PlaygroundSession({})
    rule_switch.show(pg, "multi:8")
    assert pg.tree_width == rule_switch.MAX_PLAYGROUND_WIDTH and rule(rule_switch.chosen(pg)).width == 4


def test_traversal_plays_with_its_width_and_distinct_children_from_its_declaration():
    s = presets.default_scenario().with_changes(verification="traversal:2")
    assert rule_switch.switch_problems(s) == []
    big = rule_switch.switch_problems(s.with_changes(verification="traversal-distinct:4", depth=4))
    assert "too large to animate" in big[0].title  # the tree rules' limits, in words
    pg = PlaygroundSession({})
    rule_switch.show(pg, "traversal-distinct:3")
    assert pg.verification == "traversal" and (pg.traversal_width, pg.traversal_distinct) == (3, True)
    rule_switch.show(pg, "multi:2")  # the tree's controls are its own: traversal's keep their values
    pg.verification = "traversal"
    assert rule_switch.chosen(pg) == "traversal-distinct:3"
    assert "traversal (Weng et al. 2025" in rule_switch.HELP


def test_sglang_is_the_threshold_choice_with_top_k_drafting_on():
    pg = PlaygroundSession({})
    rule_switch.show(pg, "sglang:0.5,0.8,2")
    assert pg.verification == "threshold" and pg.threshold_top_k
    pg.threshold_top_k = False
    assert rule_switch.chosen(pg) == "threshold:0.5,0.8,2"
    assert "sglang:S,A[,K]" in rule_switch.HELP and "rejection_sample_method" in rule_switch.HELP


def test_medusa_delta_defaults_to_medusas_and_sqrt_is_a_choice():
    pg = PlaygroundSession({})
    rule_switch.show(pg, "typical:0.05")
    assert pg.typical_delta == "0.3" and rule_switch.chosen(pg) == "typical:0.05"
    pg.typical_delta = rule_switch.SQRT_EPS
    assert rule_switch.chosen(pg) == "typical:0.05,sqrt"
