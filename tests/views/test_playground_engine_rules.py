"""The engine rules in the Playground under AppTest: the switch and its controls, a narrated round step by step
with the rule's own acceptance, links that carry the settings, and Why exactly p with the law and its distance."""

from __future__ import annotations

import json

import pytest
from player_support import frame, headline, step
from player_support import text as player_text
from test_playground import app, open_tab, page_text

from specviz import gallery, narration
from specviz.core.trace import CheckEvent, ResultEvent, TreeCheckEvent
from specviz.playground import share, state

PROOF_TAB = "🧮 Why exactly p"
MANY_TAB = "📊 Many rounds"
EXAMPLE = gallery.BY_SLUG["engine-rules"].scenario  # p = (1/3, 2/3), q = (2/3, 1/3), ensemble:0.5


def _round(at):
    """Step through the shown round, checking that every step narrates its own event; the events."""
    scenario = at.session_state["pg_scenario"]
    timeline = state.timeline_for(scenario)
    timeline.ensure_rounds(1)
    events = timeline.rounds[0].trace.events
    setting = narration.Setting.of(scenario)
    drafted: list[int] = []
    for index, event in enumerate(events):
        if index:
            step(at)
        assert at.session_state["pg_state"].step == index
        if event.kind in ("draft",):
            drafted.append(event.token)
        head, lines = narration.sentences(event, setting, drafted)
        assert headline(at) == head
        text = player_text(at)
        assert frame(at)["lines"] == [line.split("**") for line in lines]  # the browser sets each as text
        assert frame(at)["chart"] and "error" not in frame(at), event.kind
        if isinstance(event, (CheckEvent, TreeCheckEvent)):
            assert "min(1, p(x)/q(x))" not in text  # the rule's own acceptance, never tokenwise's
    assert isinstance(events[-1], ResultEvent) and not at.error
    return events


@pytest.mark.parametrize("choice, controls, name", [
    ("ensemble", {"pg_ensemble_weight": "0.25"}, "ensemble:0.25"),
    ("threshold", {"pg_threshold_single": "0.5", "pg_threshold_acc": "0.8"}, "threshold:0.5,0.8"),
    ("threshold", {"pg_threshold_width": 2}, "threshold:1,1,2"),
    ("typical", {"pg_typical_eps": "0.2", "pg_typical_delta": "0.5"}, "typical:0.2,0.5"),
    ("typical", {"pg_typical_fast": False}, "typical-sample:0.09"),
], ids=["ensemble", "threshold-chain", "threshold-tree", "medusa", "medusa-sample"])
def test_each_engine_rule_plays_a_narrated_round_from_the_switch(choice, controls, name):
    at = app(share.scenario_to_query(EXAMPLE.with_changes(verification="token")))
    at.radio(key="pg_verification").set_value(choice).run()
    assert not at.exception, at.exception
    for key, value in controls.items():
        widget = next(w for w in (*at.select_slider, *at.slider, *at.toggle) if w.key == key)
        widget.set_value(value).run()
        assert not at.exception, at.exception
    assert at.session_state["pg_scenario"].verification == name
    query = at.query_params.get("verification")
    assert name in (query if isinstance(query, str) else query[0])  # the link carries the rule
    kinds = {event.kind for event in _round(at)}
    assert ("threshold_check" in kinds) == name.endswith(",2")


def test_a_link_opens_the_switch_on_the_rules_settings_even_off_the_sliders_grid():
    at = app(share.scenario_to_query(EXAMPLE.with_changes(verification="ensemble:1/3"), 2))
    assert at.radio(key="pg_verification").value == "ensemble"
    weight = next(w for w in at.select_slider if w.key == "pg_ensemble_weight")
    assert weight.value == "1/3" and "1/3" in weight.options  # shown as it is, never moved to a stop
    assert at.session_state["pg_scenario"].verification == "ensemble:1/3" and at.session_state["pg_state"].step == 2
    at = app(share.scenario_to_query(EXAMPLE.with_changes(verification="typical:0.09")))
    assert at.radio(key="pg_verification").value == "typical"
    assert next(w for w in at.select_slider if w.key == "pg_typical_delta").value == "0.3"  # medusa_generate's δ
    at = app(share.scenario_to_query(EXAMPLE.with_changes(verification="typical:0.09,sqrt")))
    assert next(w for w in at.select_slider if w.key == "pg_typical_delta").value == "√ε"
    width = next(w for w in at.slider if w.label == "Drafts per node (width)")
    assert width.disabled and width.value == 1 and "Chains only" in width.help  # Medusa is chains-only here
    assert any("Chains only (width 1)" in c.value for c in at.caption)


def test_an_old_typical_link_keeps_opening_as_medusas_rule():
    query = share.scenario_to_query(EXAMPLE.with_changes(verification="token"))
    query["verification"] = "typical:9/100"  # an earlier spelling of the old rule's name
    at = app(query)
    assert at.session_state["pg_scenario"].verification == "typical:0.09" and not at.error
    lines = [i.value for i in at.info if "adjusted" in i.value]  # the reader's one line: Medusa's δ changed
    assert len(lines) == 1 and "now uses Medusa's default δ = 0.3" in lines[0] and "typical:0.09,sqrt" in lines[0]


@pytest.mark.parametrize("name, law, distance", [("ensemble:0.5", "a 1/2, b 1/2", "1/6"),
                                                 ("threshold:0.5,0.8", "a 5/18, b 13/18", "1/18")])
def test_why_exactly_p_shows_a_lossy_rules_law_and_its_exact_distance(name, law, distance):
    at = open_tab(app(share.scenario_to_query(EXAMPLE.with_changes(verification=name))), PROOF_TAB)
    text = page_text(at)
    assert f"**not p**: {law}" in text and f"total variation from p is **{distance}" in text
    assert any("the rule's exact law" in i.value for i in at.info)
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert f"TV to p = {distance}" in chart["layout"]["title"]["text"]
    assert "committed instead" in [trace.get("name") for trace in chart["data"]]


def test_why_exactly_p_says_an_exact_engine_rule_commits_p():
    at = open_tab(app(share.scenario_to_query(EXAMPLE.with_changes(verification="threshold:1,1"))), PROOF_TAB)
    assert "so it commits p exactly" in page_text(at) and "probability **4/9" in page_text(at)


def test_many_rounds_says_where_an_engine_rule_runs():
    at = open_tab(app(share.scenario_to_query(EXAMPLE)), MANY_TAB)
    assert any("rules view runs this rule's own mechanism" in i.value for i in at.info)
    assert not at.get("button") or all(b.key != "pg_many_run" for b in at.button)
