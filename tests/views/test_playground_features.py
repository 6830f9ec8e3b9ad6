"""The Playground's lecture features under AppTest: the tree switch, jump to, lecture scripts, side by side."""

from __future__ import annotations

import json

from player_support import back, caption, data, frame, headline, notice, press, step
from player_support import jump as jump_to
from player_support import text as player_text
from test_playground import app, open_tab, page_text

from specviz.core.trace import BonusEvent, CheckEvent, CorrectionEvent, ResultEvent
from specviz.playground import jump, lecture, presets, share, state
from specviz.playground.lecture import Entry, Lecture

COMPARE_TAB = "⚖️ Compare"
SHARE_TAB = "🔗 Share, download, load"


def scenario(name="far apart", **changes):
    return presets.apply_preset(presets.default_scenario(), name).with_changes(**changes)


# --- the tree ------------------------------------------------------------------------------------------
def test_the_verification_switch_plays_a_tree_node_by_node():
    at = app()
    at.radio(key="pg_verification").set_value("tree").run()
    assert not at.exception and at.session_state["pg_scenario"].verification == "multi:2"
    assert "drafting the tree: node [1] is" in headline(at)  # a node named by its path, from 1
    timeline = state.timeline_for(at.session_state["pg_scenario"])
    kinds = set()
    for index in range(len(timeline.rounds[0].trace.events)):
        event = timeline.events[index]
        kinds.add(event.kind)
        assert at.session_state["pg_state"].step == index
        text = player_text(at)
        if event.kind == "tree_check":
            assert f"sibling {event.sibling + 1} of {event.siblings}" in headline(at)
            assert (f"draw {event.draw} of 0..{event.draw_range - 1}" in text if event.acceptance
                    else "r(x) = 0: rejected, no draw needed" in text)
        assert frame(at)["chart"]["type"] == "tree", event.kind  # the tree
        step(at)
    assert {"tree_draft", "tree_check", "result"} <= kinds
    assert not at.error


def test_width_and_distinct_write_the_registry_name_and_the_link():
    at = app()
    at.radio(key="pg_verification").set_value("tree").run()
    at.slider(key="pg_tree_width").set_value(3).run()
    at.toggle(key="pg_tree_distinct").set_value(True).run()
    assert at.session_state["pg_scenario"].verification == "multi-distinct:3"
    query = at.query_params.to_dict() if hasattr(at.query_params, "to_dict") else dict(at.query_params)
    assert "multi-distinct:3" in str(query.get("verification"))
    at.radio(key="pg_verification").set_value("block").run()
    assert at.session_state["pg_scenario"].verification == "block"
    at.radio(key="pg_verification").set_value("tree").run()  # the width and distinct come back
    assert at.session_state["pg_scenario"].verification == "multi-distinct:3"


def test_a_link_with_a_tree_opens_the_switch_on_it():
    at = app(share.scenario_to_query(scenario(verification="multi:2", seed=3), 4))
    assert at.radio(key="pg_verification").value == "tree"
    assert at.slider(key="pg_tree_width").value == 2 and at.toggle(key="pg_tree_distinct").value is False
    assert at.session_state["pg_state"].step == 4


def test_a_tree_too_large_to_animate_is_refused_in_words():
    at = app()
    at.radio(key="pg_verification").set_value("tree").run()
    at.slider(key="pg_tree_width").set_value(4).run()
    at.slider(key="pg_depth").set_value(4).run()
    errors = " ".join(e.value for e in at.error)
    assert "too large to animate" in errors and "width 4 and depth 4 drafts 340 tokens" in errors
    assert "lower the depth to 2 or fewer" in errors
    assert at.session_state["pg_scenario"].depth != 4  # the last scenario that worked keeps playing


def test_a_link_over_the_limits_is_refused_before_any_frame_is_built(monkeypatch):
    from specviz.app.playground import round_cache
    from specviz.player import frames

    round_cache.rounds.clear()  # every round is built anew here
    built = []
    real = frames.frame
    monkeypatch.setattr(frames, "frame", lambda view, ctx: built.append(ctx.scenario) or real(view, ctx))
    at = app(share.scenario_to_query(scenario(verification="multi:4", depth=4, seed=3), 0))
    errors = " ".join(e.value for e in at.error)
    assert "too large to animate" in errors and "drafts 340 tokens" in errors
    assert not [s for s in built if s.verification == "multi:4"]  # no frame of it
    assert "Nothing to animate" in " ".join(i.value for i in at.info)  # in the player's place, as before it


# --- jump to -------------------------------------------------------------------------------------------
def test_jump_to_moves_to_each_target():
    s = scenario("close", seed=1)
    at = app(share.scenario_to_query(s, 0))
    timeline = state.timeline_for(s)
    expected_kind = {jump.FIRST_REJECTION: CheckEvent, jump.NEXT_CORRECTION: CorrectionEvent,
                     jump.NEXT_BONUS: BonusEvent, jump.ROUND_END: ResultEvent, jump.FIRST_CHECK: CheckEvent}
    for target in jump.TARGETS:
        before = at.session_state["pg_state"].step
        jump_to(at, target)  # within the round in the browser, beyond it asked of the server
        now = at.session_state["pg_state"].step
        start = timeline.starts[timeline.round_of(before)] if target == jump.FIRST_CHECK else None
        assert now == jump.find(timeline.events, before, target, start=start)
        assert isinstance(timeline.events[now], expected_kind[target])
    assert "commits" in headline(at)


def test_jump_without_a_target_says_so():
    at = app(share.scenario_to_query(scenario("p = q", seed=2), 0))
    jump_to(at, jump.NEXT_CORRECTION)  # none in the round: the server plays on, and says there is none
    assert at.session_state["pg_state"].step == 0
    assert "No correction to jump to" in notice(at)


def test_round_end_at_a_rounds_end_says_so():
    s = scenario("close", seed=1)
    at = app(share.scenario_to_query(s, 0))
    jump_to(at, jump.ROUND_END)
    end = at.session_state["pg_state"].step
    assert isinstance(state.timeline_for(s).events[end], ResultEvent)
    # there again: the browser says it is there already, in the words the round carries
    assert f"Already at the end of round 1 (step {end + 1})" in data(at)["round"]["here"][f"round end@{end}"]
    press(at, "jump", target=jump.ROUND_END)  # the server says the same
    assert at.session_state["pg_state"].step == end and f"Already at the end of round 1 (step {end + 1})" in notice(at)


# --- lecture scripts --------------------------------------------------------------------------------------
def two_entries():
    return Lecture((Entry(scenario("far apart", seed=1), 1, until=3, title="rejection"),
                    Entry(scenario("p = q", seed=2, verification="block"), 0, until=1, title="bonus")), title="T")


def captions(at) -> str:
    """The player's caption line: its label and the lecture banner."""
    return caption(at) + "\n" + ((data(at).get("lecture") or {}).get("text") or "")


def load_lecture(at, talk):
    open_tab(at, SHARE_TAB)
    at.file_uploader(key="pg_lecture_upload").upload("l.json", lecture.lecture_to_json(talk).encode(),
                                                      "application/json").run()
    assert not at.exception, at.exception
    return at


def test_a_lecture_script_walks_across_entries_with_step_and_back():
    talk = two_entries()
    at = load_lecture(app(), talk)
    walked = [(at.session_state["pg_scenario"], at.session_state["pg_state"].step)]
    for _ in range(5):
        step(at)
        walked.append((at.session_state["pg_scenario"], at.session_state["pg_state"].step))
    first, second = talk.entries
    assert [(s == first.scenario, n) for s, n in walked[:3]] == [(True, 1), (True, 2), (True, 3)]
    assert [(s == second.scenario, n) for s, n in walked[3:]] == [(True, 0), (True, 1), (True, 1)]
    assert "end of the lecture" in notice(at)
    assert at.radio(key="pg_verification").value == "block"  # the sidebar follows the entry
    assert data(at)["bounds"] == [0, 1]  # the player steps within the entry; beyond it, it asks
    back(at, 2)
    assert at.session_state["pg_scenario"] == first.scenario and at.session_state["pg_state"].step == 3
    assert "entry 1/2 · steps 2 to 4 · rejection" in captions(at)


def test_a_bad_lecture_file_names_entry_and_field():
    at = app()
    open_tab(at, SHARE_TAB)
    data = lecture.lecture_to_dict(two_entries())
    data["entries"][1]["scenario"]["depth"] = "3"
    at.file_uploader(key="pg_lecture_upload").upload("l.json", json.dumps(data).encode(), "application/json").run()
    errors = " ".join(e.value for e in at.error)
    assert "entries[1].scenario.depth: expected a whole number, got a string '3'" in errors
    assert "pg_lecture" not in at.session_state or at.session_state["pg_lecture"] is None


def test_end_lecture_and_add_this_step():
    at = load_lecture(app(), two_entries())
    assert "entry 1/2 · steps 2 to 4 · rejection" in captions(at)  # loading opens the animation with the lecture's line
    press(at, "lecture", to="end")
    assert at.session_state["pg_lecture"] is None
    before = at.session_state["pg_state"].step
    step(at)
    assert at.session_state["pg_state"].step == before + 1  # plain stepping again
    open_tab(at, SHARE_TAB)
    at.button(key="pg_lecture_add").click().run()
    drafted = at.session_state["pg_lecture_draft"]
    assert len(drafted) == 1 and drafted[0].step == before + 1


# --- side by side -------------------------------------------------------------------------------------------
def test_the_side_by_side_tab_shows_both_rules_on_the_same_drafts():
    s = scenario("far apart", seed=5, depth=4)
    at = app(share.scenario_to_query(s, 0))
    open_tab(at, COMPARE_TAB)
    assert not at.exception and not at.error
    text = page_text(at)
    from specviz.playground import compare

    c = compare.compare(s, (), 0)
    for side in c.sides:
        assert side.summary() in text
        for line in compare.trace_lines(side, s.vocab):
            assert line.replace("<", "&lt;") in text or line in text
    assert [c.key for c in at.get("plotly_chart")] == ["pg_compare_seeds_chart"]  # the seeds' differences
    assert "(empty)" not in text and "from the start of the text" in text  # tokens as the Playground prints them
    assert compare.tokens_text(s.vocab, c.drafts) in text
    assert any("Same streams, different draws" in cap.value for cap in at.caption)


def test_compare_shows_the_exact_expectations_and_the_seeds_honestly():
    """Sun et al.'s example: 10/9 against 11/9 drafts per round exactly; over 40 seeds a quarter differ, and block
    keeps fewer in half of those (the tab says so); at seed 10 tokenwise keeps 2 of 2, block 0 of 2."""
    from specviz import gallery

    example = gallery.BY_SLUG["block-verification"].scenario.with_changes(seed=10)
    at = app(share.scenario_to_query(example, 0))
    open_tab(at, COMPARE_TAB)
    assert not at.exception and not at.error
    text = page_text(at) + "\n".join(cap.value for cap in at.caption)
    assert "2 of 2 drafts accepted" in text and "0 of 2 drafts kept" in text
    assert "E[drafts accepted] = 10/9" in text and "E[drafts kept] = 11/9" in text
    at.radio(key="pg_compare_seeds").set_value(40).run()
    text = page_text(at)
    assert "Over 40 seeds (10 to 49)" in text and "block verification kept more at" in text
    assert "tokenwise kept more at" in text


def test_compare_in_tree_mode_compares_the_tree_too_and_says_what_is_compared():
    s = scenario("far apart", seed=3, depth=3, verification="multi:2")
    at = app(share.scenario_to_query(s, 0))
    open_tab(at, COMPARE_TAB)
    assert not at.exception and not at.error
    text = page_text(at)
    from specviz.playground import compare

    c = compare.compare(s, (), 0)
    assert [side.rule.name for side in c.sides] == ["token", "block", "multi:2"] and not c.same_drafts
    assert "drafts a tree of its own from the same proposal stream" in text
    assert c.side("multi:2").summary() in text and "drafted nodes accepted" in text
    assert {ch.key for ch in at.get("plotly_chart")} == {"pg_compare_tree", "pg_compare_seeds_chart"}


def test_a_link_wider_than_the_switch_is_refused_in_words():
    at = app(share.scenario_to_query(scenario(verification="multi:8", depth=1), 0))
    errors = " ".join(e.value for e in at.error)
    assert "cannot be opened" in errors
    assert "'multi:8' drafts 8 children per node; the Playground draws trees of 1 to 4" in errors
    assert "the Playground keeps the scenario it showed" in errors
    assert not [s for s in at.slider if s.key == "pg_tree_width"]  # nothing of the refused link was loaded


def test_many_rounds_says_it_does_not_simulate_a_tree():
    at = app(share.scenario_to_query(scenario(verification="multi:2"), 0))
    open_tab(at, "📊 Many rounds")
    assert any("Many rounds** simulates tokenwise and block verification only" in i.value for i in at.info)
    assert not [b for b in at.button if b.key == "pg_many_run"]


def query_of(at) -> dict[str, str]:
    return {k: (v[0] if isinstance(v, list) else v) for k, v in dict(at.query_params).items()}


def test_the_banner_counts_steps_from_1_like_the_step_counter():
    at = load_lecture(app(), two_entries())
    assert "entry 1/2 · steps 2 to 4 · rejection" in captions(at)  # step 1..3 of the file, shown from 1
    assert caption(at).startswith("Step 2 · round 1")


def test_a_reload_keeps_the_lecture_by_its_id_in_the_link():
    talk = two_entries()
    at = load_lecture(app(), talk)
    step(at, 3)  # into the second entry
    query = query_of(at)
    assert query["lecture"] and query["entry"] == "1" and query["verification"] == "block"
    again = app(query)  # a reload: a new session reads the same link
    assert again.session_state["pg_lecture"] == talk and again.session_state["pg_lecture_entry"] == 1
    assert "entry 2/2 · steps 1 to 2 · bonus" in captions(again)
    step(again)
    assert again.session_state["pg_state"].step == 1
    assert not any("lecture script is no longer" in i.value for i in again.info) and not notice(again)


def test_a_lecture_link_the_server_no_longer_knows_opens_its_scenario_and_says_so():
    query = share.scenario_to_query(scenario("far apart", seed=1), 2) | {"lecture": "0" * 16, "entry": "1"}
    at = app(query)
    assert "pg_lecture" not in at.session_state and at.session_state["pg_state"].step == 2
    assert "lecture script is no longer on the server" in page_text(at) + " ".join(i.value for i in at.info)


def test_presenter_alone_in_the_link_opens_presenter_mode():
    at = app({"presenter": "1"})
    assert at.session_state["pg_presenter"] is True
    assert query_of(at)["presenter"] == "1" and "vocab" in query_of(at)


def test_collected_entries_are_listed_reordered_and_removed():
    at = app(share.scenario_to_query(scenario("far apart", seed=1), 2))
    open_tab(at, SHARE_TAB)
    at.button(key="pg_lecture_add").click().run()
    assert "**My lecture** (1 entry," in page_text(at) and "1 entries" not in page_text(at)
    at.session_state["pg_seed"] = "7"
    at.run()
    at.button(key="pg_lecture_add").click().run()
    drafted = at.session_state["pg_lecture_draft"]
    assert [e.scenario.seed for e in drafted] == [1, 7] and "**My lecture** (2 entries," in page_text(at)
    assert "far apart · tokenwise · depth 3 · seed 7" in page_text(at)
    at.button(key="pg_lecture_mine_up_1").click().run()
    assert [e.scenario.seed for e in at.session_state["pg_lecture_draft"]] == [7, 1]
    at.button(key="pg_lecture_mine_remove_0").click().run()
    assert [e.scenario.seed for e in at.session_state["pg_lecture_draft"]] == [1]
    at.button(key="pg_lecture_mine_open_0").click().run()
    assert at.session_state["pg_scenario"].seed == 1 and at.session_state["pg_state"].step == 2


def test_the_weights_are_enlarged_in_presenter_mode():
    at = app(share.scenario_to_query(scenario("far apart"), 0) | {"presenter": "1"})
    open_tab(at, "✏️ p and q weights, mask, stop tokens")
    assert not at.exception and not at.error
    large = [m.value for m in at.markdown if "specviz-weights-large" in m.value]
    assert large and "<table" in large[0] and "p normalized" in large[0] and "q normalized" in large[0]
    assert [e.label for e in at.expander] == ["Edit the weights (the editors, at their usual size)"]
    normal = app(share.scenario_to_query(scenario("far apart"), 0))
    open_tab(normal, "✏️ p and q weights, mask, stop tokens")
    assert not any("specviz-weights-large" in m.value for m in normal.markdown) and not normal.expander
