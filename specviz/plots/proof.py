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
    """The claim, then the acceptance rate in its own parenthesis: nothing reads as a product with p."""
    return f"Why the committed token is distributed as p (acceptance rate α = Σ min(p, q) = {short(proof.alpha)})"


def proof_figure(proof: Proof, corrections_shown: int | None = None, *, presenter: bool = False,
                 height: int | None = None) -> go.Figure:
    """Left: q = min(p, q) + (q − p)+ (what was proposed, accepted or rejected). Right: min(p, q) stacked with
    (1 − α)·r(x), token by token for the first ``corrections_shown`` tokens (all when None), against p."""
    x = style.token_labels(proof.vocab)
    v = len(x)
    shown = v if corrections_shown is None else max(0, min(corrections_shown, v))
    corrected = [c if i < shown else Fraction(0) for i, c in enumerate(proof.corrected)]
    accepted_cue, rejected_cue = style.origin("accepted"), style.origin("correction")
    data = [
        _bars("accepted: min(p, q)", x, proof.accepted, style.bar_marker(accepted_cue), "", "min(p, q)",
              legendgroup="acc"),
        _bars("rejected draft: (q − p)+", x, proof.rejected_draft, style.bar_marker("q", opacity=0.55), "",
              "(q − p)+"),
        _bars("accepted: min(p, q)", x, proof.accepted, style.bar_marker(accepted_cue), "2", "min(p, q)",
              legendgroup="acc", showlegend=False),
        _bars("correction: (1 − α)·r(x)", x, corrected, style.bar_marker(rejected_cue), "2", "(1 − α)·r(x)"),
        {"type": "scatter", "name": "target p", "x": x, "y": [float(p) for p in proof.p], "mode": "markers",
         "marker": {"symbol": "line-ew", "size": 44, "line": {"width": 4, "color": style.role("p").color}},
         "customdata": [exact(p) for p in proof.p], "xaxis": "x2", "yaxis": "y2",
         "hovertemplate": "%{x}: p = %{customdata}<extra></extra>"},
    ]
    top = float(max(max(proof.p), max(proof.q))) * 1.15 or 1.0
    axis = {"type": "category", "categoryorder": "array", "categoryarray": x, "fixedrange": True,
            "range": [-0.5, v - 0.5]}
    rebuilt = "= p exactly" if shown == v else f"corrections for {shown} of {v} tokens"
    small = {"size": round(style.font_size(presenter) * 0.8)}  # each title stays under its own half
    layout = style.layout(
        title=title(proof), presenter=presenter,
        height=height, barmode="stack", bargap=0.2,
        xaxis={**axis, "domain": [0, 0.46],
               "title": {"text": f"draft q; rejected area 1 − α = {short(proof.rejection)}", "font": small}},
        yaxis={"range": [0, top], "title": {"text": "probability"}, "fixedrange": True},
        xaxis2={**axis, "domain": [0.54, 1], "anchor": "y2",
                "title": {"text": f"committed: min(p, q) + (1 − α)·r {rebuilt}", "font": small}},
        yaxis2={"range": [0, top], "anchor": "x2", "fixedrange": True, "matches": "y"},
    )
    layout["margin"]["b"] = 70
    return style.figure(data, layout)


def proof_rows(proof: Proof) -> list[dict[str, str]]:
    """One table row per token: p = min(p, q) + (1 − α)·r(x), each as an exact fraction."""
    return [{"token": label, "min(p, q)": exact(a), "(1 − α)·r(x) = (p − q)+": exact(c), "sum": exact(a + c),
             "p": exact(p)}
            for label, a, c, p in zip(proof.vocab, proof.accepted, proof.corrected, proof.p, strict=True)]
