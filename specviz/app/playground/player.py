"""The step player in the Playground: registered once with Streamlit's custom components v2, sent a whole round.

``show`` mounts the player (``specviz/player/browser``: its HTML, CSS and ES module, read as strings) with the
current round's frames (``round_cache``: built once per scenario, round and mode for every session of the
process) and the session's side of it: the step to open at, a lecture's bounds and banner, a notice. The browser
steps within the round with no server round trip; it speaks to Python only

* through the state ``at`` ({token, step}) of its reporter (a second, invisible component mounted with the page:
  ``mount_reporter``), set just before the user touches anything else on the page, so that every other part of
  the page (the tabs, the link, Share) reads the step the browser shows; and
* through the trigger ``action`` ({name, step, ...}) when it needs what it does not hold: the next or previous
  round, Next round, Reset to round 1, New seed, a jump beyond the round, a lecture's other entry.

Their callbacks only store what arrived (``inbox``); ``adopt`` applies it at the top of the page's run and of the
Animation fragment's, so a test can put the same messages in the session and run the page (AppTest cannot run
the browser). Python bumps ``seq`` whenever the step it sends is not the browser's own: the browser takes the
sent step only then, and otherwise keeps stepping where it is.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from functools import lru_cache
from typing import Any

import streamlit as st

from ...player import browser_files as files
from ...playground import jump, lecture, share, state
from ...plots import step_page
from ...scenario import Scenario
from . import lecture_walk as lectures
from . import round_cache, transport
from .session import Keys, PlaygroundSession, session

NAME = "specviz.player"
SCHEMA = 1  # the data's format (browser/player.js: SCHEMA)
LINK = {"key": share.STEP_KEY, "offset": 1, "drop": [share.OLD_STEP_KEY], "path": "playground"}


@lru_cache(maxsize=1)
def component():
    """The player's mounting command (its files read once; registering twice would only warn)."""
    return st.components.v2.component(NAME, html=files.html(), css=files.css(), js=files.js())


@lru_cache(maxsize=1)
def feed():
    """The player's feed (browser/feed.js): the element that carries each round's data to the player, so that the
    player's own element (its module, HTML and CSS) never changes and Streamlit sends it once per session."""
    return st.components.v2.component(NAME + "_feed", js=files.text("feed.js"))


@lru_cache(maxsize=1)
def reporter():
    """The player's reporter (browser/reporter.js): mounted with the page, outside the Animation fragment, so that
    the step the browser reports reruns the whole page in the same batch as the click it precedes."""
    return st.components.v2.component(NAME + "_reporter", js=files.text("reporter.js"))


def mount_reporter() -> None:
    """The reporter, with no visible content; its state ``at`` is the browser's step (``on_at``)."""
    reporter()(key=Keys.player_at, on_at_change=on_at, height=0, width=1)


@lru_cache(maxsize=256)
def token(scenario: Scenario) -> str:
    """A short name of the scenario, so that a report about another scenario is never taken for this one's."""
    return hashlib.sha1(share.query_string(share.scenario_to_query(scenario)).encode()).hexdigest()[:16]


# --- messages from the browser ------------------------------------------------------------------------------------
def _value(key: str, name: str) -> Any:
    found = st.session_state.get(key)
    return None if found is None else found.get(name)


def on_at() -> None:
    """The browser's step, reported before the user touched another part of the page."""
    value = _value(Keys.player_at, "at")
    if isinstance(value, dict):
        session().player_inbox = [*session().player_inbox, {"name": "at", **value}]


def on_action() -> None:
    """Something the browser needs from Python (another round, scenario, lecture entry)."""
    value = _value(Keys.player, "action")
    if isinstance(value, dict):
        session().player_inbox = [*session().player_inbox, value]


def adopt(pg: PlaygroundSession) -> None:
    """Apply what the browser said since the last run: its step, then what it asked for (in order)."""
    messages = pg.take("player_inbox")
    for message in messages:
        step = message.get("step")
        if message.get("token") != token(pg.scenario) or type(step) is not int or step < 0:
            continue  # about a scenario no longer shown (or not a step): nothing to take
        pg.state = state.clamp(replace(pg.state, step=step, notice=""), pg.scenario)
        pg.player_browser = pg.state.step
        if message["name"] != "at":
            act(pg, message)
            pg.player_seq = pg.player_seq + 1  # the browser waits for the answer: always send one


def act(pg: PlaygroundSession, message: dict) -> None:
    """One request of the browser, as the transport's buttons did it."""
    name = message["name"]
    if name == "step":
        (transport.on_step if message.get("dir", 1) > 0 else transport.on_back)()
        if message.get("playing") and not pg.state.notice:
            pg.state = replace(pg.state, playing=True)  # Play goes on into the next round
    elif name == "next_round":
        transport.move(state.next_round)
    elif name == "reset":
        transport.move(state.reset)
    elif name == "new_seed":
        transport.on_new_seed()
    elif name == "jump" and message.get("target") in jump.TARGETS:
        transport.on_jump(message["target"])
    elif name == "lecture" and pg.lecture is not None:
        {"previous": lambda: lectures.entry_button(-1), "next": lambda: lectures.entry_button(1),
         "end": lectures.end_lecture}.get(message.get("to"), lambda: None)()


# --- data to the browser ----------------------------------------------------------------------------------------
def session_data(pg: PlaygroundSession, scenario: Scenario, presenter: bool) -> dict[str, Any]:
    """The session's side of the data: where to open, a lecture's bounds and banner, the notice, the menus."""
    if pg.state.step != pg.player_browser:
        pg.player_seq = pg.player_seq + 1  # Python moved the step: the browser takes it
    pg.player_browser = pg.state.step
    data: dict[str, Any] = {
        "schema": SCHEMA, "token": token(scenario), "seq": pg.player_seq, "step": pg.state.step,
        "presenter": presenter, "playing": pg.state.playing, "notice": pg.state.notice,
        "bounds": None, "lecture": None, "link": LINK, "filename": step_page.filename(scenario, 0).rsplit("-", 1)[0],
        "targets": [{"key": t, "label": t.capitalize(), "help": jump.HELP[t]} for t in jump.TARGETS],
    }
    if pg.lecture is not None:
        entry = pg.lecture.entries[pg.lecture_entry]
        data["bounds"] = [entry.step, lecture.entry_end(entry)]
        data["lecture"] = {"text": lectures.progress(pg.lecture, pg.lecture_entry), "previous": pg.lecture_entry > 0,
                           "next": pg.lecture_entry + 1 < len(pg.lecture.entries)}
    pg.state = replace(pg.state, playing=False, notice="")  # said once: the browser plays and shows it from here
    return data


def payload(pg: PlaygroundSession, scenario: Scenario, presenter: bool) -> bytes:
    """The data the player is mounted with: the session's part and the round's cached frames, as UTF-8 JSON."""
    pg.state = state.clamp(pg.state, scenario)  # the rounds up to the step played (a refusal is raised here)
    round_id = state.timeline_for(scenario).round_of(pg.state.step)
    frames = round_cache.rounds.get(scenario, round_id, presenter)
    head = json.dumps(session_data(pg, scenario, presenter), ensure_ascii=False, separators=(",", ":"))
    return head[:-1].encode() + b',"round":' + frames + b"}"


# shown, in place of Streamlit's own error, only when the browser could not run the player's module (CSS :has)
_BROKEN = f".st-key-{Keys.player_box}:has([data-testid='stAlertContentError'])"
FAILED = ("<style>.specviz-player-failed {display: none; color: #B00020; font-weight: 600;}"
          f" {_BROKEN} .specviz-player-failed {{display: block;}} {_BROKEN} .stBidiComponent {{display: none;}}"
          "</style><div class='specviz-player-failed' role='alert'>The step player could not load in this browser, so "
          "the round cannot be shown here: reload the page; if this line stays, use a current Chrome, Edge, Firefox "
          "or Safari, or the deck of <code>python -m specviz export</code>.</div>")


def show(pg: PlaygroundSession, scenario: Scenario, presenter: bool) -> None:
    """Mount the player at the session's step (clamped) with its round; one line instead if it cannot load."""
    data = payload(pg, scenario, presenter)
    with st.container(key=Keys.player_box, gap=None):
        component()(key=Keys.player, on_action_change=on_action, height="content")  # the same element every run
        feed()(key=Keys.player_feed, data=data, height=0, width=1)  # this round, for this session
        st.html(FAILED)
