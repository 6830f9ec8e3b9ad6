"""The edge-case gallery: every card's stated outcome is what the library computes."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from specviz import gallery
from specviz.playground import share


@pytest.mark.parametrize("card", gallery.CARDS, ids=[c.slug for c in gallery.CARDS])
def test_card_outcome_holds(card):
    assert gallery.check(card) == {}
    assert card.title and len(card.text) > 60 and card.expected


def test_the_issue_cards_are_all_there():
    slugs = [c.slug for c in gallery.CARDS]
    # issue 18 added "verification-rules", issue 23 the engine rules, issue 36 SGLang's top-K, traversal and the
    # lookup tree's exact match
    assert len(slugs) == len(set(slugs)) == 18
    assert {"p-equals-q", "disjoint", "q-zero", "p-zero", "topk-excludes-mode", "one-hot", "stop-in-draft",
            "fp32-tiny", "mask-all", "boundary", "deep-bonus", "block-verification", "verification-rules",
            "engine-rules", "medusa-typical", "sglang-top-k", "traversal", "lookup-tree-exact-match"} == set(slugs)


def test_the_engine_rule_cards_state_the_issues_numbers_and_open_the_playground_on_the_rule():
    """Issue 23: ensemble:0.5 commits (1/2, 1/2) at TV 1/6; threshold:1,1 is exact with exact match's 4/9; Medusa's
    typical:0.09 on p = (.90, .04, .03, .02, .01), q uniform, is at TV 1/10."""
    engine = gallery.BY_SLUG["engine-rules"]
    facts = gallery.observe(engine)
    assert facts["P(first = a) under ensemble:0.5"] == F(1, 2) and facts["TV to p (ensemble:0.5)"] == F(1, 6)
    assert facts["acceptance (threshold:1,1)"] == facts["acceptance (exact-match)"] == F(4, 9)
    assert facts["TV to p (threshold:1,1)"] == 0
    medusa = gallery.BY_SLUG["medusa-typical"]
    assert gallery.observe(medusa)["TV to p (typical:0.09)"] == F(1, 10)
    for card in (engine, medusa):
        assert card.opens == "playground" and card.scenario.verification in share.scenario_to_query(card.scenario)[
            "verification"]
        assert all(text in card.text for text in ("1/")) and "δ = 0.3" in medusa.text
    with pytest.raises(gallery.UnknownFactError, match="P\\(length = 1\\)"):  # a round fact needs an enumerable rule
        gallery.observe(engine, ["P(length = 1)"])


def test_the_rules_card_states_the_issues_numbers_and_opens_the_rules_view():
    card = gallery.BY_SLUG["verification-rules"]
    facts = gallery.observe(card)
    assert facts["acceptance (multi:2)"] == F(7, 9) and facts["optimum (2 drafts)"] == F(8, 9)
    assert facts["accepted drafts (multi:2)"] == F(112, 81) and facts["TV to p (typical:0.09)"] == F(1, 3)
    assert card.opens == "rules" and {c.opens for c in gallery.CARDS} == {"playground", "rules"}


def test_the_block_verification_card_states_the_papers_numbers():
    card = gallery.BY_SLUG["block-verification"]
    facts = gallery.observe(card)
    assert facts["accepted drafts (token)"] == F(10, 9) and facts["accepted drafts (block)"] == F(11, 9)
    assert facts["ideal accepted drafts"] == F(4, 3) and facts["block exact"] is True
    assert facts["tokens per round (block)"] - facts["tokens per round (token)"] == F(1, 9)
    assert all(text in card.text for text in ("10/9", "11/9", "12/9"))


@pytest.mark.parametrize("card", gallery.CARDS, ids=[c.slug for c in gallery.CARDS])
def test_card_opens_in_the_playground(card):
    scenario, step = share.scenario_from_query(share.scenario_to_query(card.scenario))
    assert scenario == card.scenario and step == 0


def test_the_issue_36_cards_state_its_numbers():
    """SGLang's thresholds S = 1/4, A = 1/2, two drafts: 1/2 on its own top-K drafts, 65/294 on sampled ones; traversal
    keeps 118/81 drafts where recursive rejection sampling keeps 112/81 (Sun et al.'s example, width 2, depth 2)."""
    sglang = gallery.observe(gallery.BY_SLUG["sglang-top-k"])
    assert sglang["TV to p (sglang:1/4,1/2,2)"] == F(1, 2) and sglang["TV to p (threshold:1/4,1/2,2)"] == F(65, 294)
    traversal = gallery.observe(gallery.BY_SLUG["traversal"])
    assert traversal["accepted drafts (traversal:2)"] == F(118, 81) > traversal["accepted drafts (multi:2)"]
    assert gallery.BY_SLUG["traversal"].opens == "rules"


def test_observe_reports_disagreement_and_unknown_facts():
    card = gallery.BY_SLUG["p-equals-q"]
    wrong = gallery.Card(card.slug, card.title, card.text, card.scenario, {"alpha": F(1, 2)})
    assert gallery.check(wrong) == {"alpha": (F(1, 2), F(1))}
    with pytest.raises(KeyError):
        gallery.observe(card.scenario, ["nonsense"])
    assert gallery.format_fact(F(3, 4)) == "3/4" and gallery.format_fact(F(2)) == "2"
    assert gallery.format_fact(F(1, 3**60)).startswith("≈")


def test_fact_table_puts_the_verdict_first_and_keeps_exact_values():
    card = gallery.BY_SLUG["deep-bonus"]
    rows, exact = gallery.fact_table(card, gallery.observe(card))
    assert all(list(row)[0] == "" and row[""] == "✓" for row in rows)
    assert all(len(row["computed"]) <= 12 for row in rows)  # fits a narrow card
    assert any("2476099/3200000" in note for note in exact)  # the exact value is still on the card
    # a shortened value never looks round when it is not: 8388609/16777216 is not 1/2
    assert gallery.short_fact(F(8388609, 16777216)) == "≈ 0.5000001"
    assert gallery.short_fact(F(97, 128)) == "97/128"
    wrong = {**gallery.observe(card), "alpha": F(1, 2)}
    rows, _ = gallery.fact_table(card, wrong)
    assert [r[""] for r in rows if r["fact"] == "alpha"] == ["✗"]
