"""The Playground's session state, declared in one place: every key with its type, default and lifetime.

``PlaygroundSession`` wraps ``st.session_state`` (or any mutable mapping, for tests) with one typed
attribute per key. Three lifetimes:

* ``widget``: the value of a widget (a slider, a box, the tabs). Streamlit drops a widget's state
  on any run that does not draw the widget: presenter mode, a closed tab, and every run of another
  page. ``init`` re-assigns these keys at the top of each Playground run (so a hidden widget keeps
  its value) and restores them from a copy that ``remember`` keeps under a plain key, so that
  Playground -> another page -> Playground comes back to the same scenario and step.
* ``plain``: values only the code sets (the scenario, the animation state, the tables); Streamlit
  keeps them for the whole session.
* ``once``: messages and flags consumed by the next run.

Keys of elements that hold no state (buttons, charts) are in ``Keys``; keys made per table version or
token come from the functions below; the tabs' labels (the values of the ``tab`` key) are in ``Tab``.
Nothing else in the app spells a "pg_" key.
"""

from __future__ import annotations

import functools
from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, overload

from ...core.verification import declared, families

T = TypeVar("T")
PREFIX = "pg_"
SHADOW = "pg_kept__"  # plain copies of widget values, which Streamlit never drops
_MISSING: Any = object()

WIDGET, PLAIN, ONCE = "widget", "plain", "once"


@dataclass(frozen=True)
class Slot(Generic[T]):
    """One session key: its name, its default (a value or a factory), and its lifetime."""

    key: str
    default: Any = _MISSING
    lifetime: str = PLAIN

    @property
    def widget(self) -> bool:
        return self.lifetime == WIDGET

    def default_value(self) -> T:
        if self.default is _MISSING:
            raise AssertionError(f"session key {self.key!r} has no default and was never set")  # a bug in a page
        return self.default() if callable(self.default) else self.default

    @overload
    def __get__(self, obj: None, owner: type) -> Slot[T]: ...

    @overload
    def __get__(self, obj: PlaygroundSession, owner: type) -> T: ...

    def __get__(self, obj, owner):
        if obj is None:
            return self
        store = obj.store
        if self.key in store:
            return store[self.key]
        return self.default_value()

    def __set__(self, obj: PlaygroundSession, value: T) -> None:
        obj.store[self.key] = value


def _widget(key: str, default: Any = _MISSING) -> Any:
    return Slot(PREFIX + key, default, WIDGET)


def _plain(key: str, default: Any = _MISSING) -> Any:
    return Slot(PREFIX + key, default, PLAIN)


def _once(key: str, default: Any) -> Any:
    return Slot(PREFIX + key, default, ONCE)


class PlaygroundSession:
    """The Playground's keys as typed attributes over a session-state mapping."""

    # --- widgets: the sidebar, the tabs, the transport row, many rounds (values survive page changes)
    presenter: bool = _widget("presenter", False)
    preset: str = _widget("preset")  # default set by init: presets.DEFAULT_PRESET
    mode: str = _widget("mode")
    vocab: str = _widget("vocab")
    verification: str = _widget("verification")  # the switch's choice: a playable family (rule_switch.CHOICES)
    depth: int = _widget("depth")
    draft_topk: int = _widget("draft_topk")
    temperature: float = _widget("temperature")
    top_k: int = _widget("top_k")
    top_p: float = _widget("top_p")
    fp32: bool = _widget("fp32")
    seed: str = _widget("seed")
    request: str = _widget("request")
    generation: int = _widget("generation")
    sliders: bool = _widget("sliders", False)
    many_n: int = _widget("many_n", 10_000)
    many_bug: str = _widget("many_bug", "none")
    many_seed: int = _widget("many_seed", 0)
    tab: str = _widget("tab")  # st.tabs' selection (absent: the first tab)
    # the rule switch's parameter controls ("tree_width", "threshold_acc", ...): one slot per declared parameter,
    # added below from the rules' declarations (rule_slots)
    compare_seeds: int = _widget("compare_seeds", 40)  # Compare: the seeds the same round is played under

    # --- plain: what the code sets
    scenario: Any = _plain("scenario")  # the shown Scenario (the last that worked)
    state: Any = _plain("state")  # its PlayState (step, playing, notice)
    tables: Any = _plain("tables")  # form.Tables: the weights as edited text
    table_vocab: tuple[str, ...] = _plain("table_vocab")
    context: str = _plain("context", "")
    editor_version: int = _plain("editor_version", 0)  # bumped to redraw the data editors
    editor_base: Any = _plain("editor_base", None)  # (editor_version, form.Tables): what the editors were drawn from
    preset_before: str = _plain("preset_before")
    preset_undo: tuple | None = _plain("preset_undo", None)  # (scenario, step, preset name)
    last_query: dict | None = _plain("last_query", None)  # the query string read or written last
    player_inbox: list = _plain("player_inbox", list)  # what the step player said since the last run (player.adopt)
    player_seq: int = _plain("player_seq", 0)  # bumped when Python sends a step the browser must take
    player_browser: int = _plain("player_browser", -1)  # the step the browser shows, as far as Python knows
    many_bug_kept: str | None = _plain("many_bug_kept", None)  # the bug set aside while block is on
    many: tuple | None = _plain("many", None)  # (key, ManyRounds) of the last run
    refused_scenario: Any = _plain("refused_scenario", None)  # the refused scenario a link or card asked for
    lecture: Any = _plain("lecture", None)  # the loaded lecture.Lecture (None: no lecture)
    lecture_entry: int = _plain("lecture_entry", 0)  # the lecture entry on screen
    lecture_problem: Any = _plain("lecture_problem", None)  # explain.Problem: why the last lecture file was refused
    lecture_draft: list = _plain("lecture_draft", list)  # entries collected with "Add this scenario and step"
    lecture_id: str = _plain("lecture_id", "")  # the loaded lecture's id in the link (lecture.kept finds it)

    # --- once: consumed by the next run
    link_problems: list = _once("link_problems", list)
    link_note: str = _once("link_note", "")
    link_unreadable: bool = _once("link_unreadable", False)  # the link or file could not be read at all
    mode_note: str = _once("mode_note", "")
    full_rerun: bool = _once("full_rerun", False)

    def __init__(self, store: MutableMapping[str, Any]):
        self.store = store

    @classmethod
    def slots(cls) -> dict[str, Slot]:
        return _slots(cls)

    def has(self, name: str) -> bool:
        return self.slots()[name].key in self.store

    def take(self, name: str) -> Any:
        """The value (or its default) and the key removed."""
        slot = self.slots()[name]
        return self.store.pop(slot.key) if slot.key in self.store else slot.default_value()

    def drop(self, name: str) -> None:
        self.store.pop(self.slots()[name].key, None)

    def setdefault(self, name: str, value: Any) -> None:
        slot = self.slots()[name]
        if slot.key not in self.store:
            self.store[slot.key] = value

    def init(self, preset: str) -> None:
        """Top of every Playground run: keep hidden widgets alive, restore dropped ones, set defaults."""
        for slot in self.slots().values():
            if not slot.widget:
                continue
            if slot.key in self.store:
                self.store[slot.key] = self.store[slot.key]  # a hidden widget keeps its value
            elif SHADOW + slot.key in self.store:
                self.store[slot.key] = self.store[SHADOW + slot.key]  # dropped on another page's run
        for name in ("presenter", "sliders", "many_n", "many_bug", "many_seed"):
            self.setdefault(name, self.slots()[name].default_value())
        self.setdefault("preset", preset)
        self.setdefault("preset_before", self.preset)
        self.setdefault("link_problems", [])
        self.setdefault("link_note", "")

    def controls_complete(self) -> bool:
        """Whether every control that shows the scenario has a value (load() sets them all)."""
        return all(SCENARIO_CONTROLS[name].key in self.store for name in SCENARIO_CONTROLS)

    def remember(self, *names: str) -> None:
        """End of a Playground run: copy every widget's value (or the named ones') under a plain key Streamlit
        never drops."""
        slots = self.slots()
        for slot in (slots[name] for name in names) if names else slots.values():
            if slot.widget and slot.key in self.store:
                self.store[SHADOW + slot.key] = self.store[slot.key]


def rule_slot(family: str, field: str) -> str:
    """The session slot of one declared parameter of a playable rule (a control of the switch): "<family>_<field>"."""
    return f"{family}_{field}".replace("-", "_")  # "exact-match" -> "exact_match_width": a Python name


def rule_slots() -> tuple[str, ...]:
    """A slot per declared parameter of every playable family (core.verification.PARAMS_BY_FAMILY), in order."""
    return tuple(rule_slot(family, field) for family in families("playable") for field in declared(family).fields)


@functools.cache
def _slots(cls: type) -> dict[str, Slot]:
    """The declaration, read once (every Step asks for it)."""
    return {name: value for name, value in vars(cls).items() if isinstance(value, Slot)}


def add_rule_slots() -> tuple[str, ...]:
    """Give PlaygroundSession a widget slot per declared rule parameter it lacks (a control's value survives presenter
    mode and other pages); run at import, and again by whoever changes a declaration (a test). The slots added."""
    added = tuple(name for name in rule_slots() if name not in vars(PlaygroundSession))
    for name in added:
        setattr(PlaygroundSession, name, _widget(name))
    _slots.cache_clear()
    return added


add_rule_slots()


SCENARIO_CONTROLS: dict[str, Slot] = {name: PlaygroundSession.slots()[name] for name in (
    "mode", "vocab", "verification", "depth", "draft_topk", "temperature", "top_k", "top_p", "fp32", "seed",
    "request", "generation")}


class Tab:
    """The Playground's tabs, in order: their labels are the values of the ``tab`` key."""

    animation = "▶ Animation"
    proof = "🧮 Why exactly p"
    many_rounds = "📊 Many rounds"
    compare = "⚖️ Compare"  # tokenwise vs block on the same drafts
    weights = "✏️ p and q weights, mask, stop tokens"
    share = "🔗 Share, download, load"
    ALL = (animation, proof, many_rounds, compare, weights, share)


class Keys:
    """Keys of elements that hold no value worth keeping: buttons, charts, the uploader."""

    player = PREFIX + "player"  # the step player (its trigger "action": app/playground/player.py)
    player_at = PREFIX + "player_at"  # the player's reporter (its state "at", the browser's step)
    player_box = PREFIX + "player_box"  # the container of the player and its one line if it cannot load
    player_feed = PREFIX + "player_feed"  # the element that carries each round's data to the player
    undo, undo_preset, many_run, upload, download = (PREFIX + k for k in (
        "undo", "undo_preset", "many_run", "upload", "download"))
    proof_chart, many_chart = PREFIX + "proof_chart", PREFIX + "many_chart"
    lecture_upload, lecture_example = PREFIX + "lecture_upload", PREFIX + "lecture_example"
    lecture_add, lecture_mine = PREFIX + "lecture_add", PREFIX + "lecture_mine"
    compare_chart_token, compare_chart_block = PREFIX + "compare_token", PREFIX + "compare_block"
    compare_chart_tree, compare_chart_seeds = PREFIX + "compare_tree", PREFIX + "compare_seeds_chart"
    compare_chart_rrs, compare_chart_traversal = PREFIX + "compare_rrs", PREFIX + "compare_traversal"


EDITOR_TABLES = ("fixed", "tokens", "p", "q")


def editor_key(table: str, version: int) -> str:
    """A data editor's key: a new version (after a load or an edit) draws a fresh editor."""
    return f"{PREFIX}{table}_{version}"


def weight_slider_key(model: str, token: int) -> str:
    return f"{PREFIX}w{model}_{token}"


def proof_slider_key(vocab_size: int) -> str:
    return f"{PREFIX}proof_k_{vocab_size}"


def session(store: MutableMapping[str, Any] | None = None) -> PlaygroundSession:
    """The Playground's state over st.session_state (or over ``store``)."""
    if store is None:
        import streamlit as st

        store = st.session_state
    return PlaygroundSession(store)

