"""A simulated browser tab on a Streamlit page: it speaks Streamlit's websocket protocol as the frontend does.

`PageModel` reads the ForwardMsgs a page sends (its widgets with the values the frontend would report, its
buttons with their fragments, the Playground's step player: the round its feed carries and the trigger its
element listens on, the link) and writes the BackMsg of a click or of the player's request; `Tab` holds the
websocket, opens the page, steps as the player does (within a round in the browser, with no message at all; past
the round's end a request for the next round) and times each answer. The Playground is found by what it shows,
never by file names: the player's component names and the frames' labels ("Step N · round R · event E of M").
Traffic goes to the host it is given (the benchmark passes 127.0.0.1 only); every wait has a time limit.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.NumberInput_pb2 import NumberInput
from streamlit.proto.Slider_pb2 import Slider
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

STEP_CAPTION = re.compile(r"^Step (\d+) · round (\d+) · event (\d+) of (\d+)")
FINISHED = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_SUCCESSFULLY")
FINISHED_FRAGMENT = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_FRAGMENT_RUN_SUCCESSFULLY")
FINISHED_EARLY = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_EARLY_FOR_RERUN")
CLOSED = -1  # not a Streamlit status: the websocket closed while a run was awaited
ERROR_ALERT = 1  # Alert.Format.ERROR: an st.error box
PLAYER, FEED = "specviz.player", "specviz.player_feed"  # the step player's component and its feed (the round)
TRIGGER_PREFIX, TRIGGER_EVENTS = "$$STREAMLIT_INTERNAL_KEY_", "__events"  # a component's trigger widget id
PLAY_S = {"slow": 2.0, "normal": 1.0, "fast": 0.5}  # the player's Play: one step per interval (player.js SPEEDS)
OP_TIMEOUT_S = 60.0


def now() -> float:
    return time.perf_counter()


def user_key(element_id: str) -> str:
    """The key a page gave a widget: Streamlit's ids read "$$ID-<hash>-<key>"."""
    parts = element_id.split("-", 2)
    return parts[2] if element_id.startswith("$$ID-") and len(parts) == 3 else element_id


@dataclass(frozen=True)
class Caption:
    """The Playground's step caption: step N (from 1), round, event E of M in the round."""

    step: int
    round: int
    event: int
    events: int


def _choice(w: Any, state: WidgetState) -> WidgetState | None:
    if w.set_value and w.HasField("raw_value"):
        state.string_value = w.raw_value
    elif w.HasField("default") and 0 <= w.default < len(w.options):
        state.string_value = w.options[w.default]
    else:
        return None  # no selection: the frontend sends nothing either
    return state


def _slider(w: Any, state: WidgetState) -> WidgetState:
    values = list(w.value) if w.set_value else list(w.default)
    if w.type == Slider.SELECT_SLIDER:
        state.string_array_value.data.extend(w.options[int(i)] for i in values)
    else:
        state.double_array_value.data.extend(values)
    return state


def _checkbox(w: Any, state: WidgetState) -> WidgetState:
    state.bool_value = w.value if w.set_value else w.default
    return state


def _text(w: Any, state: WidgetState) -> WidgetState:
    state.string_value = w.value if w.set_value and w.HasField("value") else w.default
    return state


def _number(w: Any, state: WidgetState) -> WidgetState | None:
    value = w.value if w.set_value and w.HasField("value") else (w.default if w.HasField("default") else None)
    if value is None:
        return None
    if w.data_type == NumberInput.INT:
        state.int_value = int(value)
    else:
        state.double_value = value
    return state


def _strings(w: Any, state: WidgetState) -> WidgetState:
    values = list(w.raw_values) if w.set_value else [w.options[i] for i in w.default]
    state.string_array_value.data.extend(values)
    return state


# the widget kinds whose value a tab reports (the frontend sends each one's value with every rerun)
WIDGET_VALUES: dict[str, Callable[[Any, WidgetState], WidgetState | None]] = {
    "checkbox": _checkbox, "selectbox": _choice, "radio": _choice, "slider": _slider, "text_input": _text,
    "text_area": _text, "number_input": _number, "multiselect": _strings, "button_group": _strings,
}
# widgets whose value this client does not model; a page that shows one is reported, not silently misread
UNMODELLED = frozenset({"date_input", "time_input", "color_picker", "file_uploader", "camera_input", "chat_input",
                        "arrow_data_frame", "audio_input", "component_instance"})


@dataclass
class Player:
    """The step player as the browser holds it: the round its feed sent, where it stands, how to ask for more."""

    trigger_id: str = ""  # the player element's trigger widget
    fragment_id: str = ""  # the fragment the player lives in (its requests rerun only that)
    token: str = ""
    seq: int = -1
    step: int = 0  # where the browser stands (global step index)
    first: int = 0  # the round's steps: first..last
    last: int = -1
    round: int = -1
    captions: list[str] = field(default_factory=list)
    bounds: tuple[int, int] | None = None

    def take(self, data: dict) -> None:
        """A new feed: the browser takes its step when Python sent a new seq or another round or scenario."""
        same = data["token"] == self.token and data["round"]["first"] == self.first
        if not same or data["seq"] != self.seq:
            self.step = data["step"]
        self.token, self.seq = data["token"], data["seq"]
        self.first, self.last, self.round = data["round"]["first"], data["round"]["last"], data["round"]["round"]
        self.captions = [frame["caption"] for frame in data["round"]["frames"]]
        self.bounds = tuple(data["bounds"]) if data.get("bounds") else None

    @property
    def caption(self) -> Caption | None:
        index = self.step - self.first
        found = STEP_CAPTION.match(self.captions[index]) if 0 <= index < len(self.captions) else None
        return Caption(*(int(x) for x in found.groups())) if found else None

    def can_step(self) -> bool:
        """Whether the next step is in the round the browser holds (no server needed)."""
        hi = self.last if self.bounds is None else min(self.last, self.bounds[1])
        return self.step + 1 <= hi


def widget_state(kind: str, proto: Any) -> WidgetState | None:
    """The value the frontend reports for a widget: the value the server set, else the widget's default."""
    value = WIDGET_VALUES.get(kind)
    return None if value is None else value(proto, WidgetState(id=proto.id))


@dataclass
class PageModel:
    """What a tab knows of its page from the messages received: widgets, buttons, caption, link, errors."""

    widgets: dict[str, WidgetState] = field(default_factory=dict)
    buttons: dict[str, tuple[str, str]] = field(default_factory=dict)  # key -> (widget id, fragment id)
    tabs: dict[str, tuple[int, list[str]]] = field(default_factory=dict)  # stateful st.tabs: id -> default, labels
    player: Player = field(default_factory=Player)
    query: str = ""
    page_hash: str = ""
    session_id: str = ""
    app_errors: list[str] = field(default_factory=list)
    unmodelled: set[str] = field(default_factory=set)
    auto_rerun: tuple[float, str] | None = None  # Play's timer: (interval s, fragment id)
    _last_tabs: str = ""

    def feed(self, msg: ForwardMsg) -> int | None:
        """Take one message in; returns the run's status when it is a script_finished."""
        kind = msg.WhichOneof("type")
        if kind == "delta":
            self._delta(msg.delta)
        elif kind == "new_session":
            self.session_id = msg.new_session.initialize.session_id or self.session_id
        elif kind == "navigation":
            self.page_hash = msg.navigation.page_script_hash
        elif kind == "page_info_changed":
            self.query = msg.page_info_changed.query_string
        elif kind == "auto_rerun":
            self.auto_rerun = (msg.auto_rerun.interval, msg.auto_rerun.fragment_id)
        elif kind == "stop_auto_rerun":
            self.auto_rerun = None
        elif kind == "page_not_found":
            self.app_errors.append("page not found")
        elif kind == "session_event" and msg.session_event.WhichOneof("type") == "script_compilation_exception":
            self.app_errors.append("script compilation exception")
        elif kind == "script_finished":
            return msg.script_finished
        return None

    def _delta(self, delta: Any) -> None:
        part = delta.WhichOneof("type")
        if part == "add_block":
            self._block(delta.add_block)
        elif part == "new_element":
            self._element(delta.new_element, delta.fragment_id)

    def _block(self, block: Any) -> None:
        kind = block.WhichOneof("type")
        if kind == "tab_container" and block.tab_container.id:
            self.tabs[block.tab_container.id] = (block.tab_container.default_tab_index, [])
            self._last_tabs = block.tab_container.id
        elif kind == "tab" and self._last_tabs in self.tabs:
            self.tabs[self._last_tabs][1].append(block.tab.label)
        elif kind == "popover" and block.popover.id:
            self.widgets[block.popover.id] = WidgetState(id=block.popover.id, bool_value=block.popover.open)

    @property
    def caption(self) -> Caption | None:
        """The step player's label where the browser stands (None before a player was sent)."""
        return self.player.caption if self.player.captions else None

    def _element(self, element: Any, fragment_id: str) -> None:
        kind = element.WhichOneof("type")
        if kind == "button":
            self.buttons[user_key(element.button.id)] = (element.button.id, fragment_id)
        elif kind == "bidi_component":
            self._component(element.bidi_component, fragment_id)
        elif kind == "exception":
            self.app_errors.append("exception: " + element.exception.message[:200])
        elif kind == "alert" and element.alert.format == ERROR_ALERT:
            self.app_errors.append("st.error: " + element.alert.body[:200])
        elif kind in WIDGET_VALUES:
            proto = getattr(element, kind)
            if proto.id not in self.widgets or proto.set_value:  # a widget keeps what the user (or server) set
                state = widget_state(kind, proto)
                if state is not None:
                    self.widgets[proto.id] = state
        elif kind in UNMODELLED:
            self.unmodelled.add(kind)

    def _component(self, proto: Any, fragment_id: str) -> None:
        """The player's element (its trigger), or its feed (the round, as JSON bytes)."""
        if proto.component_name == PLAYER:
            self.player.trigger_id = f"{TRIGGER_PREFIX}{proto.id}{TRIGGER_EVENTS}"
            self.player.fragment_id = fragment_id
        elif proto.component_name == FEED and proto.WhichOneof("data") == "bytes":
            self.player.take(json.loads(proto.bytes))

    def widget_states(self) -> list[WidgetState]:
        """Every value the frontend would send with a rerun (the open tab of a stateful st.tabs included)."""
        states = list(self.widgets.values())
        for tabs_id, (default, labels) in self.tabs.items():
            if 0 <= default < len(labels):
                states.append(WidgetState(id=tabs_id, string_value=labels[default]))
        return states

    def request(self, url: str, action: dict) -> bytes:
        """The BackMsg of the player's request (its trigger ``action``), rerunning the player's fragment."""
        back = BackMsg()
        run = back.rerun_script
        run.query_string = self.query
        info = run.context_info
        info.timezone, info.timezone_offset, info.locale, info.url = "UTC", 0, "en-US", url
        info.is_embedded, info.color_scheme = False, "light"
        run.page_script_hash = self.page_hash
        run.widget_states.widgets.extend(self.widget_states())
        payload = [{"event": "action", "value": {**action, "token": self.player.token}}]
        run.widget_states.widgets.append(WidgetState(id=self.player.trigger_id, json_trigger_value=json.dumps(payload)))
        run.fragment_id = self.player.fragment_id
        return back.SerializeToString()

    def rerun(self, url: str, trigger: str | None = None, fragment_id: str = "", auto: bool = False,
              page_name: str = "") -> bytes:
        """The BackMsg of a rerun: the first one names the page; a click adds the button's trigger and fragment."""
        back = BackMsg()
        run = back.rerun_script
        run.widget_states.SetInParent()
        run.query_string = self.query
        info = run.context_info
        info.timezone, info.timezone_offset, info.locale, info.url = "UTC", 0, "en-US", url
        info.is_embedded, info.color_scheme = False, "light"
        if page_name:
            run.page_name = page_name
            return back.SerializeToString()
        run.page_script_hash = self.page_hash
        run.widget_states.widgets.extend(self.widget_states())
        if trigger is not None:
            widget_id, fragment_id = self.buttons[trigger]
            run.widget_states.widgets.append(WidgetState(id=widget_id, trigger_value=True))
        if fragment_id:
            run.fragment_id = fragment_id
        run.is_auto_rerun = auto
        return back.SerializeToString()


@dataclass
class StepOutcome:
    """One Step: where it was served (the browser, or the server for a new round), its latency, and what went wrong
    if anything (a lost step is a problem, not a crash)."""

    ok: bool
    latency_s: float = 0.0
    nbytes: int = 0
    problem: str = ""
    server: bool = False  # the step needed the server: the next round


@dataclass
class PlayOutcome:
    """A stretch of Play: each request for the next round it made, and the steps the label moved."""

    ok: bool
    click_s: float = 0.0
    ticks_s: list[float] = field(default_factory=list)  # the requests for a next round, each one's latency
    steps: int = 0
    problem: str = ""


class Tab:
    """One browser tab: a websocket to host:port, the page model, and timed clicks."""

    def __init__(self, host: str, port: int, page: str = "playground", query: str = "",
                 cookies: dict[str, str] | None = None, op_timeout_s: float = OP_TIMEOUT_S) -> None:
        self.host, self.port, self.page, self.op_timeout_s = host, port, page, op_timeout_s
        self.model = PageModel(query=query)
        self.cookies = dict(cookies or {})
        self.url = f"http://{host}:{port}/{page}" + (f"?{query}" if query else "")
        self.ws: ClientConnection | None = None
        self.bytes_in = 0
        self.closed_by_server = False
        self._finished: asyncio.Queue[tuple[int, float]] = asyncio.Queue()
        self._reader: asyncio.Task[None] | None = None
        self._closing = False

    async def connect(self) -> None:
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())} if self.cookies else None
        self.ws = await connect(f"ws://{self.host}:{self.port}/_stcore/stream", subprotocols=["streamlit"],
                                compression=None, max_size=None, ping_interval=None, open_timeout=self.op_timeout_s,
                                proxy=None, additional_headers=headers, user_agent_header=None)
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.ws is not None
        try:
            async for raw in self.ws:
                if isinstance(raw, bytes):
                    self.bytes_in += len(raw)
                    msg = ForwardMsg()
                    msg.ParseFromString(raw)
                    status = self.model.feed(msg)
                    if status is not None:
                        self._finished.put_nowait((status, now()))
        except ConnectionClosed:
            pass
        finally:
            self.closed_by_server = not self._closing
            self._finished.put_nowait((CLOSED, now()))

    async def _await_run(self) -> tuple[int, float]:
        """The status and time of the script_finished that ends a request (a run cut short for another is skipped)."""
        deadline = now() + self.op_timeout_s
        for _ in range(10_000):
            status, at = await asyncio.wait_for(self._finished.get(), max(0.001, deadline - now()))
            if status != FINISHED_EARLY:
                return status, at
        raise TimeoutError("too many interrupted runs")

    async def send_run(self, message: bytes) -> tuple[int, float, int]:
        """Send a rerun; (status, seconds to its script_finished, bytes received meanwhile)."""
        if self.ws is None:
            raise ConnectionError("not connected")
        while not self._finished.empty():
            self._finished.get_nowait()
        before, start = self.bytes_in, now()
        await self.ws.send(message)
        status, at = await self._await_run()
        return status, at - start, self.bytes_in - before

    async def open(self) -> float:
        """Connect and run the page as a first visit does; the seconds until its first run finished."""
        start = now()
        await self.connect()
        status, _, _ = await self.send_run(self.model.rerun(self.url, page_name=self.page))
        if status != FINISHED:
            raise RuntimeError(f"the first run finished with status {status}")
        return now() - start

    async def click(self, key: str) -> tuple[int, float, int]:
        return await self.send_run(self.model.rerun(self.url, trigger=key))

    async def step(self) -> StepOutcome:
        """Step as the player does: within its round in the browser (no message at all), past the round's end a
        request for the next round, whose label must read the next step and whose link must carry it."""
        player = self.model.player
        if not player.captions or not player.trigger_id:
            return StepOutcome(False, problem="no step player on the page")
        if player.can_step():
            player.step += 1
            return StepOutcome(True)
        return await self.next_round(playing=False)

    async def next_round(self, playing: bool) -> StepOutcome:
        """The player's request past its round's end: the next round must come with the next step."""
        player = self.model.player
        before = player.caption
        action = {"name": "step", "dir": 1, "step": player.step, "playing": playing}
        try:
            status, latency, nbytes = await self.send_run(self.model.request(self.url, action))
        except (TimeoutError, ConnectionError, ConnectionClosed) as error:
            return StepOutcome(False, problem=f"next round: {type(error).__name__} {error}", server=True)
        if status == CLOSED:
            return StepOutcome(False, latency, nbytes, "websocket closed during a request", server=True)
        after = player.caption
        if status != FINISHED_FRAGMENT:
            return StepOutcome(False, latency, nbytes, f"the request finished with status {status}", server=True)
        if before is None or after is None or after.step != before.step + 1:
            return StepOutcome(False, latency, nbytes, f"label step {before and before.step} -> {after and after.step}",
                               server=True)
        if not re.search(rf"(^|&)at={after.step}(&|$)", self.model.query):
            return StepOutcome(False, latency, nbytes, f"link lacks at={after.step}: ...{self.model.query[-40:]}",
                               server=True)
        return StepOutcome(True, latency, nbytes, server=True)

    async def play(self, until: float, speed: str = "normal") -> PlayOutcome:
        """Press Play: one step per interval in the browser, a request for each next round (which plays on), until
        the clock reads `until`. Counts the steps the label moved."""
        first = self.model.caption
        if first is None:
            return PlayOutcome(False, problem="no step player on the page")
        outcome, interval = PlayOutcome(True), PLAY_S[speed]
        for _ in range(100_000):
            if now() + interval >= until:
                break
            await asyncio.sleep(interval)
            if self.model.player.can_step():
                self.model.player.step += 1
                continue
            asked = await self.next_round(playing=True)
            outcome.ticks_s.append(asked.latency_s)
            if not asked.ok:
                return dataclasses.replace(outcome, ok=False, problem=asked.problem)
        last = self.model.caption
        outcome.steps = (last.step - first.step) if last else 0
        return outcome

    async def close(self) -> None:
        self._closing = True
        if self.ws is not None:
            try:
                await asyncio.wait_for(self.ws.close(), 5)
            except (TimeoutError, ConnectionClosed, OSError):
                pass
        if self._reader is not None:
            self._reader.cancel()


async def http_get(host: str, port: int, path: str, cookies: dict[str, str] | None = None, gzip: bool = True,
                   timeout_s: float = OP_TIMEOUT_S) -> tuple[int, int, dict[str, str]]:
    """GET path (HTTP/1.1, one connection): (status, body bytes on the wire, cookies set). Loopback only."""
    reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout_s)
    lines = [f"GET {path} HTTP/1.1", f"Host: {host}:{port}", "Connection: close"]
    if gzip:
        lines.append("Accept-Encoding: gzip")
    if cookies:
        lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in cookies.items()))
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    try:
        data = await asyncio.wait_for(reader.read(), timeout_s)  # to EOF: Connection: close
    finally:
        writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    head_lines = head.decode("latin-1").split("\r\n")
    status = int(head_lines[0].split()[1]) if head_lines and len(head_lines[0].split()) > 1 else 0
    set_cookies = {}
    for line in head_lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "set-cookie":
            pair = value.strip().split(";", 1)[0]
            if "=" in pair:
                k, v = pair.split("=", 1)
                set_cookies[k.strip()] = v.strip()
    return status, len(body), set_cookies
