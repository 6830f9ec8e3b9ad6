"""The benchmark's tab reads a page's messages as the frontend does and writes the BackMsg of a click or of the
step player's request; it steps within a round as the browser does, with no message."""

from __future__ import annotations

import json

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.NumberInput_pb2 import NumberInput
from streamlit.proto.Slider_pb2 import Slider

from bench.streamlit_tab import FEED, FINISHED_FRAGMENT, PLAYER, Caption, PageModel, user_key, widget_state

FRAGMENT = "frag-1"


def element(kind: str, fragment: str = "", **fields) -> ForwardMsg:
    msg = ForwardMsg()
    msg.delta.fragment_id = fragment
    proto = getattr(msg.delta.new_element, kind)
    for name, value in fields.items():
        target = getattr(proto, name)
        if isinstance(value, list):
            target.extend(value)
        else:
            setattr(proto, name, value)
    return msg


def block(kind: str, **fields) -> ForwardMsg:
    msg = ForwardMsg()
    proto = getattr(msg.delta.add_block, kind)
    for name, value in fields.items():
        setattr(proto, name, value)
    return msg


def feed(step: int = 3, seq: int = 1, first: int = 0, frames: int = 8, token: str = "t1") -> ForwardMsg:
    """The player's feed: a round's frames (their labels) and where the browser is to open."""
    data = {"token": token, "seq": seq, "step": step, "bounds": None,
            "round": {"round": 0, "first": first, "last": first + frames - 1,
                      "frames": [{"caption": f"Step {first + i + 1} · round 1 · event {i + 1} of {frames} · Check"}
                                 for i in range(frames)]}}
    return element("bidi_component", fragment=FRAGMENT, component_name=FEED, id="$$ID-q-pg_player_feed",
                   bytes=json.dumps(data).encode())


def page() -> PageModel:
    """A small Playground-like page: the link, the sidebar's widgets, the tabs, the step player and its feed."""
    info, nav = ForwardMsg(), ForwardMsg()
    info.page_info_changed.query_string = "seed=0&at=4"
    nav.navigation.page_script_hash = "hash-playground"
    msgs = [nav, info,
            element("checkbox", id="$$ID-a-pg_presenter", default=False),
            element("checkbox", id="$$ID-b-pg_fp32", default=False, value=True, set_value=True),
            element("selectbox", id="$$ID-c-pg_preset", options=["close", "far"], default=0),
            element("radio", id="$$ID-d-pg_mode", options=["fixed", "Markov"], default=0, raw_value="Markov",
                    set_value=True),
            element("slider", id="$$ID-e-pg_depth", default=[3.0], type=Slider.SLIDER),
            element("slider", id="$$ID-f-pg_n", default=[1], options=["100", "1000"], type=Slider.SELECT_SLIDER),
            element("text_input", id="$$ID-g-pg_seed", default="0"),
            element("number_input", id="$$ID-h-pg_generation", default=0, data_type=NumberInput.INT),
            block("tab_container", id="$$ID-k-pg_tab"),
            block("tab", label="▶ Animation"),
            block("tab", label="🧮 Why exactly p"),
            element("bidi_component", fragment=FRAGMENT, component_name=PLAYER, id="$$ID-p-pg_player"),
            feed()]
    model = PageModel()
    for msg in msgs:
        model.feed(msg)
    return model


def test_a_key_is_read_from_streamlits_element_id():
    assert user_key("$$ID-6032cb572fb9b03a021a158900f555cc-pg_forward") == "pg_forward"
    assert user_key("$$ID-6032cb-pg-with-dashes") == "pg-with-dashes"
    assert user_key("plain") == "plain"


def test_widget_values_are_the_servers_else_the_defaults():
    model = page()
    values = {user_key(w.id): w for w in model.widget_states()}
    assert values["pg_presenter"].bool_value is False and values["pg_fp32"].bool_value is True
    assert values["pg_preset"].string_value == "close" and values["pg_mode"].string_value == "Markov"
    assert list(values["pg_depth"].double_array_value.data) == [3.0]
    assert list(values["pg_n"].string_array_value.data) == ["1000"]  # a select_slider reports its option
    assert values["pg_seed"].string_value == "0"
    assert values["pg_generation"].WhichOneof("value") == "int_value"
    assert values["pg_tab"].string_value == "▶ Animation"  # a stateful st.tabs reports its open tab


def test_a_widget_keeps_its_value_unless_the_server_sets_another():
    model = page()
    model.feed(element("checkbox", id="$$ID-b-pg_fp32", default=False))  # redrawn, no value set
    assert {user_key(w.id): w for w in model.widget_states()}["pg_fp32"].bool_value is True
    model.feed(element("checkbox", id="$$ID-b-pg_fp32", default=False, value=False, set_value=True))
    assert {user_key(w.id): w for w in model.widget_states()}["pg_fp32"].bool_value is False


def test_the_players_round_label_and_link_are_read():
    model = page()
    assert model.caption == Caption(step=4, round=1, event=4, events=8)
    assert model.query == "seed=0&at=4" and model.page_hash == "hash-playground"
    player = model.player
    assert player.trigger_id == "$$STREAMLIT_INTERNAL_KEY_$$ID-p-pg_player__events"
    assert (player.fragment_id, player.first, player.last, player.step) == (FRAGMENT, 0, 7, 3)


def test_the_browser_steps_within_its_round_and_keeps_its_step_until_python_sends_another():
    model = page()
    assert model.player.can_step()
    model.player.step = 7  # the round's last step: the next one needs the server
    assert not model.player.can_step()
    model.feed(feed(step=3, seq=1))  # a rerun for something else: the same round, the same seq
    assert model.player.step == 7
    model.feed(feed(step=8, seq=2, first=8))  # the next round, sent with a new seq: taken
    assert model.player.step == 8 and model.caption.step == 9 and model.player.can_step()


def test_the_players_request_is_the_frontends_backmsg():
    model = page()
    back = BackMsg()
    back.ParseFromString(model.request("http://127.0.0.1:1/playground", {"name": "step", "dir": 1, "step": 7}))
    run = back.rerun_script
    assert run.fragment_id == FRAGMENT and run.page_script_hash == "hash-playground"
    assert run.query_string == "seed=0&at=4" and not run.is_auto_rerun
    sent = [w for w in run.widget_states.widgets if w.WhichOneof("value") == "json_trigger_value"]
    assert [w.id for w in sent] == [model.player.trigger_id]
    assert json.loads(sent[0].json_trigger_value) == [
        {"event": "action", "value": {"name": "step", "dir": 1, "step": 7, "token": "t1"}}]
    assert len(run.widget_states.widgets) == 1 + len(model.widget_states())


def test_the_first_run_names_the_page_and_an_auto_rerun_its_fragment():
    model = page()
    first = BackMsg()
    first.ParseFromString(model.rerun("http://127.0.0.1:1/playground", page_name="playground"))
    assert first.rerun_script.page_name == "playground" and not first.rerun_script.widget_states.widgets
    tick = BackMsg()
    tick.ParseFromString(model.rerun("http://127.0.0.1:1/playground", fragment_id=FRAGMENT, auto=True))
    assert tick.rerun_script.is_auto_rerun and tick.rerun_script.fragment_id == FRAGMENT
    assert not [w for w in tick.rerun_script.widget_states.widgets if w.WhichOneof("value") == "trigger_value"]


def test_timers_errors_and_the_end_of_a_run_are_seen():
    model = page()
    timer = ForwardMsg()
    timer.auto_rerun.interval, timer.auto_rerun.fragment_id = 1.0, FRAGMENT
    assert model.feed(timer) is None and model.auto_rerun == (1.0, FRAGMENT)
    stop = ForwardMsg()
    stop.stop_auto_rerun.SetInParent()
    model.feed(stop)
    assert model.auto_rerun is None
    model.feed(element("exception", message="boom"))
    model.feed(element("alert", body="refused", format=1))
    model.feed(element("file_uploader", id="$$ID-l-pg_upload"))
    assert model.app_errors == ["exception: boom", "st.error: refused"] and model.unmodelled == {"file_uploader"}
    done = ForwardMsg()
    done.script_finished = FINISHED_FRAGMENT
    assert model.feed(done) == FINISHED_FRAGMENT


def test_an_unmodelled_widget_gives_no_value():
    msg = element("color_picker", id="$$ID-m-pg_color")
    assert widget_state("color_picker", msg.delta.new_element.color_picker) is None
