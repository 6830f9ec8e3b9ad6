"""Block verification in the Playground under AppTest: the switch, a whole narrated round, links, tabs."""

from pathlib import Path

from player_support import data, frame, headline, press, step
from player_support import text as player_text
from streamlit.testing.v1 import AppTest

from specviz import gallery, narration
from specviz.core.trace import BlockCheckEvent, BlockDecisionEvent, ResultEvent
from specviz.narration import block as block_narration
from specviz.playground import presets, share, state

PAGE_FORMATS = narration.PAGE.block_formats  # the page narrates a block round in the page's number formats

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "playground.py")
EXAMPLE = gallery.BY_SLUG["block-verification"].scenario


def app(query=None):
    at = AppTest.from_file(PAGE, default_timeout=60)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def query_value(at, key):
    value = at.query_params.get(key)
    return value[0] if isinstance(value, list) else value


def test_the_switch_turns_block_on_and_a_whole_round_is_narrated_with_its_numbers():
    at = app()
    assert at.session_state["pg_scenario"].verification == "token"
    at.radio(key="pg_verification").set_value("block").run()
    assert not at.exception, at.exception
    scenario = at.session_state["pg_scenario"]
    assert scenario.verification == "block"
    assert query_value(at, "verification") == "block"  # the link carries it
    timeline = state.timeline_for(scenario)
    timeline.ensure_rounds(1)
    events = timeline.rounds[0].trace.events
    kinds_seen = set()
    for index, event in enumerate(events):
        if index:
            step(at)
        assert at.session_state["pg_state"].step == index
        text = player_text(at)
        kinds_seen.add(event.kind)
        told = block_narration.narrate_event(event, scenario.vocab, PAGE_FORMATS)
        if told is not None:  # every block step shows exactly the narration of its own numbers
            assert headline(at) == told[0]
            assert [line for line in frame(at)["lines"]] == [line.split("**") for line in told[1]]  # set as text
        if isinstance(event, BlockCheckEvent):
            k = event.position + 1  # w_k and h_k: named by the position they are computed at (from 1)
            weight = "w_1 = min(1, p/q)" if k == 1 else f"w_{k} = min(1, w_{k - 1} · p/q)"
            assert weight in text and f"h_{k}" in text
            assert f"draw {event.draw} of 0..{event.draw_range - 1}" in text
            assert frame(at)["chart"]["type"] == "bars"  # the distributions
            assert frame(at)["strip"]["title"].startswith(f"Stop draw vs h_{k}")  # the draw
        if isinstance(event, BlockDecisionEvent):
            assert f"τ = {event.accepted_drafts}" in text
        if isinstance(event, ResultEvent):  # the rounds table names block's kept drafts and correction place
            columns = data(at)["round"]["rounds"]["columns"]
            assert "kept τ" in columns and "corrected at" in columns
    assert {"block_check", "block_decision", "result"} <= kinds_seen
    assert not at.error


def test_a_link_with_block_verification_round_trips_and_old_links_stay_tokenwise():
    scenario = presets.default_scenario().with_changes(verification="block", seed=4)
    at = app(share.scenario_to_query(scenario, 3))
    assert at.session_state["pg_scenario"] == scenario
    assert at.radio(key="pg_verification").value == "block"
    assert at.session_state["pg_state"].step == 3
    old = share.scenario_to_query(scenario.with_changes(verification="token"), 0)
    assert "verification" not in old
    assert app(old).session_state["pg_scenario"].verification == "token"


def test_a_bad_verification_in_a_link_is_explained():
    query = share.scenario_to_query(presets.default_scenario(), 0)
    query["verification"] = "joint"
    at = app(query)
    assert any("verification" in e.value and "joint" in e.value for e in at.error)


def test_the_gallery_card_opens_with_block_verification_on():
    assert EXAMPLE.verification == "block"
    at = app(share.scenario_to_query(EXAMPLE))
    assert at.session_state["pg_scenario"] == EXAMPLE
    assert at.radio(key="pg_verification").value == "block"
    assert not at.error


def test_block_steps_in_presenter_mode_and_the_stats_name_kept_drafts():
    at = app(share.scenario_to_query(EXAMPLE))
    at.toggle(key="pg_presenter").set_value(True).run()
    assert at.radio(key="pg_verification").value == "block"  # the switch stays in presenter mode
    press(at, "next_round")
    text = player_text(at)
    assert data(at)["presenter"] and "kept drafts per round" in text and "E[τ] = 11/9" in text


def test_proof_tab_says_what_it_shows_and_many_rounds_runs_block_without_a_bug():
    at = app(share.scenario_to_query(EXAMPLE))
    at.session_state["pg_tab"] = "🧮 Why exactly p"
    at.run()
    assert any("Exactness lab" in i.value and "tokenwise" in i.value for i in at.info)
    at.session_state["pg_tab"] = "📊 Many rounds"
    at.run()
    assert at.selectbox(key="pg_many_bug").disabled
    assert any("tokenwise engine" in c.value for c in at.caption)
    at.button(key="pg_many_run").click().run()
    assert not at.exception, at.exception
    assert any("Exact total variation to p: 0" in m.value and "(exact 2.222)" in m.value for m in at.markdown)
    assert any("block verification" in c.value for c in at.caption)


def test_a_chosen_engine_bug_is_set_aside_with_block_and_returns_with_tokenwise():
    at = app(share.scenario_to_query(EXAMPLE.with_changes(verification="token")))
    at.session_state["pg_tab"] = "📊 Many rounds"
    at.run()
    at.selectbox(key="pg_many_bug").set_value("greedy").run()
    at.radio(key="pg_verification").set_value("block").run()
    assert not at.exception, at.exception
    assert at.selectbox(key="pg_many_bug").value == "none" and at.selectbox(key="pg_many_bug").disabled
    assert any("“greedy acceptance” returns with tokenwise" in c.value for c in at.caption)
    at.radio(key="pg_verification").set_value("token").run()
    assert at.selectbox(key="pg_many_bug").value == "greedy" and not at.selectbox(key="pg_many_bug").disabled
