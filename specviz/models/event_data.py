"""Round events as small display data: top-N entries of each distribution (aligned for p vs q) plus the rest."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from specviz import formats
from specviz.core import Categorical, Trace


def _exact(value: Fraction) -> dict[str, Any]:
    """A value as JSON-ready data: its exact text (every digit) and its float."""
    return {"exact": formats.exact(value), "float": float(value)}


def _top(c: Categorical, n: int, extra: tuple[int, ...] = ()) -> list[int]:
    """The n most probable tokens of c, then any extra tokens not among them."""
    tokens = [t for t, _ in c.top(n)]
    return tokens + [t for t in extra if t not in tokens]


def _bars(tokens: list[int], *dists: Categorical) -> dict[str, Any]:
    """Per distribution: probabilities of tokens (floats) and the exact rest of the mass."""
    out: dict[str, Any] = {"tokens": tokens}
    for i, c in enumerate(dists):
        values = [c.prob(t) for t in tokens]
        out[f"values{i}"] = [float(v) for v in values]
        out[f"rest{i}"] = float(1 - sum(values, Fraction()))
    return out


def event_views(trace: Trace, top_n: int = 10) -> list[dict[str, Any]]:
    """One display dict per event of a round's trace (exact match's events also carry the target's ``sample``, or
    ``matched_none`` at its correction, which is that sample: no second draw)."""
    views: list[dict[str, Any]] = []
    for e in trace.events:
        base: dict[str, Any] = {"kind": e.kind, "position": e.position}
        if hasattr(e, "sample"):  # exact match's checks carry the target's sample
            base["sample"] = e.sample
        elif e.kind == "correction" and e.sample_committed:
            base["matched_none"] = True
        if e.kind in ("draft", "tree_draft"):
            bars = _bars(_top(e.q, top_n, (e.token,)), e.q)
            views.append({**base, "token": e.token, "q": bars, "draw": e.draw, "draw_range": e.draw_range,
                          "path": list(getattr(e, "path", ()))})
        elif e.kind == "tree_check":
            tokens = _top(e.p, top_n, (e.token,))
            tokens += [t for t in _top(e.q, top_n) if t not in tokens]
            views.append({**base, "token": e.token, "pq": _bars(tokens, e.p, e.q), "p_token": _exact(e.p_token),
                          "r_token": _exact(e.r_token), "q_token": _exact(e.q_token),
                          "acceptance": _exact(e.acceptance), "draw": e.draw, "draw_range": e.draw_range,
                          "accepted": e.accepted, "path": list(e.path), "sibling": e.sibling,
                          "siblings": e.siblings})
        elif e.kind == "check":
            tokens = _top(e.p, top_n, (e.token,))
            tokens += [t for t in _top(e.q, top_n) if t not in tokens]
            views.append({**base, "token": e.token, "pq": _bars(tokens, e.p, e.q), "p_token": _exact(e.p_token),
                          "q_token": _exact(e.q_token), "acceptance": _exact(e.acceptance), "draw": e.draw,
                          "draw_range": e.draw_range, "accepted": e.accepted})
        elif e.kind == "block_check":
            tokens = _top(e.p, top_n, (e.token,))
            tokens += [t for t in _top(e.q, top_n) if t not in tokens]
            views.append({**base, "token": e.token, "pq": _bars(tokens, e.p, e.q), "p_token": _exact(e.p_token),
                          "q_token": _exact(e.q_token), "previous_weight": _exact(e.previous_weight),
                          "weight": _exact(e.weight),
                          "residual_mass": None if e.residual_mass is None else _exact(e.residual_mass),
                          "stop_probability": _exact(e.stop_probability), "draw": e.draw,
                          "draw_range": e.draw_range, "hit": e.hit, "last": e.last})
        elif e.kind == "block_decision":
            views.append({**base, "accepted_drafts": e.accepted_drafts, "drafts": list(e.drafts),
                          "hits": list(e.hits), "ending": e.ending})
        elif e.kind == "correction":
            views.append({**base, "token": e.token, "residual": _bars(_top(e.residual, top_n, (e.token,)), e.residual),
                          "residual_mass": _exact(e.residual_mass), "draw": e.draw, "draw_range": e.draw_range,
                          "scale": _exact(getattr(e, "scale", Fraction(1)))})
        elif e.kind == "bonus":
            views.append({**base, "token": e.token, "p": _bars(_top(e.p, top_n, (e.token,)), e.p),
                          "draw": e.draw, "draw_range": e.draw_range})
        elif e.kind == "stop":
            views.append({**base, "token": e.token, "stage": e.stage})
        else:
            views.append({**base, "tokens": list(e.tokens), "accepted_drafts": e.accepted_drafts,
                          "rejected": e.rejected, "stopped": e.stopped})
    return views
