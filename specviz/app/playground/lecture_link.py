"""A running lecture in the Playground's link, so that a reload keeps it: ``lecture=<id>&entry=<n>``.

The link carries the lecture's id (a digest of its file) and the entry on screen; the server keeps the script
itself in a bounded store (``keep`` and ``kept``), for as long as the server process runs (``make serve``'s
sticky sessions bring a reload back to the same process). The link stays short; a server that restarted
says so (``reopen``) and the link's scenario opens without the lecture.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

from ...playground import lecture
from ...playground.lecture import Lecture
from .session import PlaygroundSession

LINK_KEYS = ("lecture", "entry")  # the link's keys of a running lecture (read by links, not by share)
STORE_SIZE = 64  # lectures the server keeps for reloads (the oldest goes first)
_STORE: OrderedDict[str, Lecture] = OrderedDict()
_LOCK = threading.Lock()


def lecture_id(talk: Lecture) -> str:
    """The lecture's id: a digest of its file, so the same script has the same id in every session."""
    return hashlib.sha256(lecture.lecture_to_json(talk).encode()).hexdigest()[:16]


def keep(talk: Lecture) -> str:
    """Keep the lecture for reloads (bounded: the least recently used goes first); its id."""
    key = lecture_id(talk)
    with _LOCK:
        _STORE[key] = talk
        _STORE.move_to_end(key)
        while len(_STORE) > STORE_SIZE:
            _STORE.popitem(last=False)
    return key


def kept(key: str) -> Lecture | None:
    with _LOCK:
        talk = _STORE.get(key)
        if talk is not None:
            _STORE.move_to_end(key)
        return talk


def link_query(pg: PlaygroundSession) -> dict[str, str]:
    """The link's lecture keys while a lecture runs (none otherwise)."""
    if pg.lecture is None or not pg.lecture_id:
        return {}
    return {"lecture": pg.lecture_id, "entry": str(pg.lecture_entry)}


def reopen(pg: PlaygroundSession, params: dict[str, str]) -> str:
    """A link's lecture back in the session (a reload); '' or one line saying why it could not be."""
    key = params.get("lecture", "")
    if not key:
        return ""
    talk = kept(key)
    if talk is None:
        return ("This link's lecture script is no longer on the server (it was restarted): the link's scenario "
                "is open; load the script again in the Share tab to walk it.")
    entry = params.get("entry", "0")
    index = int(entry) if entry.isdigit() else 0
    pg.lecture, pg.lecture_id = talk, key
    pg.lecture_entry = min(index, len(talk.entries) - 1)
    return ""
