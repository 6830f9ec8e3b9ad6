"""Why the output is exactly p: the draft's proposals split into accepted and rejected mass (left), and
the committed token's law stacked from accepted mass and corrections until it rebuilds p (right).

Pure builders: ``specviz.playground.proof.Proof`` in, plotly figure out; every hover is exact.
"""

from __future__ import annotations

from fractions import Fraction

import plotly.graph_objects as go  # noqa: F401 - the return type

from .. import formats
from ..playground.proof import Proof
from . import style


def exact(value: Fraction) -> str:
    return formats.fraction_fit(value, 24)


def short(value: Fraction) -> str:
    """An axis-title value: the fraction when short (9/13), else ≈ 4 significant digits."""
    return formats.fit(value, 9)


def _bars(name: str, x: list[str], values, marker: dict, axis: str, hover: str, **extra) -> dict:
    return {"type": "bar", "name": name, "x": x, "y": [float(v) for v in values],
            "customdata": [exact(v) for v in values], "marker": marker,
            "hovertemplate": f"%{{x}}: {hover} = %{{customdata}}<extra></extra>",
            "xaxis": f"x{axis}", "yaxis": f"y{axis}", **extra}


def title(proof: Proof) -> str:
    """The claim, then the acceptance rate in its own parenthesis: nothing reads as a product with p. For an
    engine rule: the law it commits against p, with the exact distance when it is not p."""
    if not proof.names.rule:
        return (f"Why the committed token is distributed as p (acceptance rate α = Σ min(p, q) = "
                f"{short(proof.alpha)})")
    if proof.distance:
        return (f"{proof.names.rule} commits its own law, not p: TV to p = {exact(proof.distance)} "
                f"(kept {short(proof.alpha)})")
    return f"Why {proof.names.rule} commits exactly p (kept {short(proof.alpha)})"


HALF_TICK_CHARACTERS = 8  # two charts side by side: a tick longer than this is cut with '…'


def proof_figure(proof: Proof, corrections_shown: int | None = None, *, presenter: bool = False,
                 height: int | None = None, width: float | None = None) -> go.Figure:
    """Left: q = min(p, q) + (q − p)+ (what was proposed, accepted or rejected). Right: min(p, q) stacked with
    (1 − α)·r(x), token by token for the first ``corrections_shown`` tokens (all when None), against p.

    The title is wrapped to ``width`` px (default: the page's main column) at its separators: never cut."""
    x = style.token_labels(proof.vocab)
    v = len(x)
    shown = v if corrections_shown is None else max(0, min(corrections_shown, v))
    corrected = [c if i < shown else Fraction(0) for i, c in enumerate(proof.corrected)]
    accepted_cue, rejected_cue = style.origin("accepted"), style.origin("correction")
    n = proof.names
    kept, rejected, instead = n.legends
    data = [
        _bars(kept, x, proof.accepted, style.bar_marker(accepted_cue), "", n.accepted, legendgroup="acc"),
        _bars(rejected, x, proof.rejected_draft, style.bar_marker("q", opacity=0.55), "", n.rejected),
        _bars(kept, x, proof.accepted, style.bar_marker(accepted_cue), "2", n.accepted, legendgroup="acc",
              showlegend=False),
        _bars(instead, x, corrected, style.bar_marker(rejected_cue), "2", n.corrected),
        {"type": "scatter", "name": "target p", "x": x, "y": [float(p) for p in proof.p], "mode": "markers",
         "marker": {"symbol": "line-ew", "size": 44, "line": {"width": 4, "color": style.role("p").color}},
         "customdata": [exact(p) for p in proof.p], "xaxis": "x2", "yaxis": "y2",
         "hovertemplate": "%{x}: p = %{customdata}<extra></extra>"},
    ]
    top = float(max(max(proof.p), max(proof.q))) * 1.15 or 1.0
    axis = style.category_axis(x, characters=HALF_TICK_CHARACTERS)
    if shown < v:
        rebuilt = f"{n.axes[2]} for {shown} of {v} tokens"
    else:
        rebuilt = "= p exactly" if not proof.distance else f"≠ p (TV {short(proof.distance)})"
    small = {"size": round(style.font_size(presenter) * 0.8)}  # each title stays under its own half
    layout = style.layout(
        title=title(proof), presenter=presenter,
        height=height, barmode="stack", bargap=0.2,
        xaxis={**axis, "domain": [0, 0.46],
               "title": {"text": f"{n.axes[0]} {short(proof.rejection)}", "font": small}},
        yaxis={"range": [0, top], "title": {"text": "probability"}, "fixedrange": True},
        xaxis2={**axis, "domain": [0.54, 1], "anchor": "y2",
                "title": {"text": f"{n.axes[1]} {rebuilt}", "font": small}},
        yaxis2={"range": [0, top], "anchor": "x2", "fixedrange": True, "matches": "y"},
    )
    layout["margin"]["b"] = 70
    return style.fit_title(style.figure(data, layout), width or style.PAGE_WIDTH[presenter], presenter)


def verdict(proof: Proof, *, complete: bool = True) -> str:
    """The sentence under the picture (markdown): the identity that rebuilds p, or for an engine rule the law it
    commits and its exact distance from p."""
    mass = exact(proof.rejection)
    if not proof.names.rule:
        return (f"Rejected draft mass Σ (q − p)+ = **1 − α = {mass}** = Σ (p − q)+, the mass the corrections "
                f"add back: min(p, q)(x) + (1 − α)·r(x) = **p(x)** for every token"
                + (": p rebuilt exactly." if complete else "."))
    law = ", ".join(f"{style.markdown_text(style.token_label(label))} {short(v)}"
                    for label, v in zip(proof.vocab, proof.rebuilt, strict=True))
    if not proof.distance:
        return (f"{proof.names.rule} keeps a draft with probability **{exact(proof.alpha)}** and commits instead "
                f"with **{mass}**: kept(x) + instead(x) = **p(x)** for every token, so it commits p exactly.")
    return (f"{proof.names.rule} keeps a draft with probability **{exact(proof.alpha)}** and commits instead with "
            f"**{mass}**; kept + instead is the law it commits, **not p**: {law}. Its total variation from p is "
            f"**{exact(proof.distance)}** (exactly), the gap between the stacked bars and p's ticks.")


def proof_rows(proof: Proof) -> list[dict[str, str]]:
    """One table row per token: p = min(p, q) + (1 − α)·r(x) (an engine rule: kept + instead = its law, beside
    p), each as an exact fraction."""
    n = proof.names
    instead = n.corrected if n.corrected == n.corrected_is else f"{n.corrected} = {n.corrected_is}"
    return [{"token": label, n.accepted: exact(a), instead: exact(c), "sum": exact(a + c), "p": exact(p)}
            for label, a, c, p in zip(proof.vocab, proof.accepted, proof.corrected, proof.p, strict=True)]
