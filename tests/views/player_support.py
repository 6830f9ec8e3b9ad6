"""The step player under AppTest: its data read from the page, and the browser's messages sent back.

AppTest runs no browser, so these helpers play the browser's part: they read the component's data (the session's
part and the round's frames) and answer as player.js does: a step within the round is reported as the state
``at``, a step past the round (or any button that needs the server) as the trigger ``action``. Both go through the
same session slot the component's callbacks fill (``pg_player_inbox``), so the page's own code handles them.
"""

from __future__ import annotations

import json
from typing import Any

INBOX = "pg_player_inbox"


def _players(at) -> list:
    """The step players on the page (the component with a round as its data; its reporter carries none)."""
    return [e for e in at.get("bidi_component") if e.proto.WhichOneof("data") == "bytes"]


def data(at) -> dict[str, Any]:
    """The player's data on the page (the last step player drawn)."""
    found = _players(at)
    assert found, "no step player on the page"
    return json.loads(found[-1].proto.bytes)


def has_player(at) -> bool:
    return bool(_players(at))


def frame(at) -> dict[str, Any]:
    """The frame the player opens at (its data's step)."""
    d = data(at)
    return d["round"]["frames"][d["step"] - d["round"]["first"]]


def headline(at) -> str:
    return frame(at)["headline"]


def caption(at) -> str:
    return frame(at)["caption"]


def notice(at) -> str:
    return data(at)["notice"]


def lines(at) -> str:
    """The narration's lines as the page reads them (bold marks dropped)."""
    return "\n".join("".join(line) for line in frame(at)["lines"])


def text(at) -> str:
    """Everything the step shows in words: caption, headline, lines, exact values, chips, tables, notice."""
    f, d = frame(at), data(at)
    chart = f.get("chart") or {}
    parts = [f["caption"], f["headline"], lines(at), chart.get("title", ""), (f.get("strip") or {}).get("title", ""),
             " ".join(f"{n} = {v}" for n, v in f["exact"]), " ".join(c["text"] for c in f["text"]["chips"]),
             " ".join(" ".join(r) for r in [f["stats"]["head"], *f["stats"]["rows"]]), f["stats"]["note"],
             d["notice"], (d.get("lecture") or {}).get("text", "")]
    return "\n".join(parts)


def send(at, message: dict[str, Any]):
    """Run the page after the browser said ``message`` (with the shown scenario's token)."""
    d = data(at)
    at.session_state[INBOX] = [*_inbox(at), {"token": d["token"], **message}]
    at.run()
    assert not at.exception, at.exception
    return at


def _inbox(at) -> list:
    try:
        return list(at.session_state[INBOX])
    except KeyError:
        return []


def _bounds(d: dict[str, Any]) -> tuple[int, int]:
    r = d["round"]
    lo, hi = r["first"], r["last"]
    if d.get("bounds"):
        lo, hi = max(lo, d["bounds"][0]), min(hi, d["bounds"][1])
    return lo, hi


def step(at, times: int = 1):
    """Step as the browser does: within the round a report of the new step, past it a request."""
    for _ in range(times):
        d = data(at)
        lo, hi = _bounds(d)
        if d["step"] + 1 <= hi:
            send(at, {"name": "at", "step": d["step"] + 1})
        else:
            send(at, {"name": "step", "dir": 1, "step": d["step"], "playing": False})
    return at


def back(at, times: int = 1):
    for _ in range(times):
        d = data(at)
        lo, hi = _bounds(d)
        if d["step"] - 1 >= lo:
            send(at, {"name": "at", "step": d["step"] - 1})
        else:
            send(at, {"name": "step", "dir": -1, "step": d["step"], "playing": False})
    return at


def press(at, name: str, **fields: Any):
    """A button that needs the server (next_round, reset, new_seed, jump, lecture), from the shown step."""
    return send(at, {"name": name, "step": data(at)["step"], **fields})


def jump(at, target: str):
    """Jump to, as the browser does: a target within the round is found there, any other asked for."""
    d = data(at)
    r, here = d["round"], d["step"] - d["round"]["first"]
    frames = r["frames"]
    found = None
    if target == "first check":
        found = next((i for i, f in enumerate(frames) if target in f["flags"]), None)
    elif target == "first rejection":
        if r["first_rejection"] is not None and r["first_rejection"] >= r["first"]:
            found = r["first_rejection"] - r["first"]
    else:
        start = here if target == "round end" else here + 1
        found = next((i for i in range(start, len(frames)) if target in frames[i]["flags"]), None)
    if found is not None:
        return send(at, {"name": "at", "step": r["first"] + found})
    return press(at, "jump", target=target)
