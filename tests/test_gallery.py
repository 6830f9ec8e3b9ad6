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
    assert len(slugs) == len(set(slugs)) == 11
    assert {"p-equals-q", "disjoint", "q-zero", "p-zero", "topk-excludes-mode", "one-hot", "stop-in-draft",
            "fp32-tiny", "mask-all", "boundary", "deep-bonus"} == set(slugs)


@pytest.mark.parametrize("card", gallery.CARDS, ids=[c.slug for c in gallery.CARDS])
def test_card_opens_in_the_playground(card):
    scenario, step = share.scenario_from_query(share.scenario_to_query(card.scenario))
    assert scenario == card.scenario and step == 0


def test_observe_reports_disagreement_and_unknown_facts():
    card = gallery.BY_SLUG["p-equals-q"]
    wrong = gallery.Card(card.slug, card.title, card.text, card.scenario, {"alpha": F(1, 2)})
    assert gallery.check(wrong) == {"alpha": (F(1, 2), F(1))}
    with pytest.raises(KeyError):
        gallery.observe(card.scenario, ["nonsense"])
    assert gallery.format_fact(F(3, 4)) == "3/4" and gallery.format_fact(F(2)) == "2"
    assert gallery.format_fact(F(1, 3**60)).startswith("≈")
