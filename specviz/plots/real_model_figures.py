"""Figures of the Real models page: pure functions from round views and summaries to plotly Figures.

Distributions are shown at real vocabulary size as their top-N tokens plus one bar for
the rest of the mass; colours and patterns are the Playground's (``specviz.plots.style``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import plotly.graph_objects as go

from .. import formats
from . import style

Label = Callable[[int], str]
REST = "(rest)"
# A committed token sampled from the target alone (no draft this round, or the race's plain leg).
PLAIN = style.Cue("target sample (no draft)", "#555555", "-", "circle-open", "solid", "○")
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def origin_cue(origin: str) -> style.Cue:
    """The Playground's cue for accepted / correction / bonus, and the plain target sample's."""
    return PLAIN if origin == "target" else style.origin(origin)


def short_int(n: int, digits: int = formats.FULL_DIGITS) -> str:
    """An integer with thousands separators, or as m.mmm×10ⁿ (k digits) when it is longer than `digits`."""
    text = str(abs(n))
    if len(text) <= digits:
        return f"{n:,}"
    sign = "-" if n < 0 else ""
    return f"{sign}{text[0]}.{text[1:4]}×10{str(len(text) - 1).translate(_SUPERSCRIPT)} ({len(text)} digits)"


def short_prob(x: float) -> str:
    """A probability readable at any size: 0.4213, 0.0031, 6.9×10⁻⁵, 0."""
    if x == 0:
        return "0"
    if x >= 0.001:
        return f"{x:.4f}".rstrip("0").rstrip(".") if x < 1 else "1"
    mantissa, exponent = f"{x:.1e}".split("e")
    return f"{mantissa}×10{str(int(exponent)).translate(_SUPERSCRIPT)}"


def _labels(tokens: Sequence[int], label: Label) -> list[str]:
    """Unique category labels: the token's text, with its id where two texts collide."""
    texts = [label(t) for t in tokens]
    return [f"{x} #{t}" if texts.count(x) > 1 else x for x, t in zip(texts, tokens)] + [REST]


def _bar(name: str, cue: str, x: list[str], values: list[float], highlight: list[bool]) -> go.Bar:
    return go.Bar(name=name, x=x, y=values, marker=style.bar_marker(cue, highlight=highlight),
                  hovertemplate="%{x}: %{y:.6f}<extra>" + name + "</extra>")


def bars_figure(bars: dict[str, Any], label: Label, *, names: Sequence[tuple[str, str]], token: int | None,
                title: str, presenter: bool = False) -> go.Figure:
    """Top-N bars (+ rest) of one or two aligned distributions; `token` is outlined."""
    tokens = bars["tokens"]
    x = _labels(tokens, label)
    highlight = [t == token for t in tokens] + [False]
    fig = go.Figure()
    for i, (name, cue) in enumerate(names):
        fig.add_trace(_bar(name, cue, x, bars[f"values{i}"] + [bars[f"rest{i}"]], highlight))
    fig.update_layout(barmode="group", yaxis={"range": [0, 1.05], "title": "probability"},
                      xaxis={"type": "category", "tickangle": -40})
    return style.apply_layout(fig, title=title, presenter=presenter)


def view_figure(view: dict[str, Any], label: Label, *, presenter: bool = False) -> go.Figure | None:
    """The chart of one event view (draft, check, correction, bonus); None for the others."""
    kind, token = view["kind"], view.get("token")
    where = f"position {view['position']}"
    if kind == "draft":
        return bars_figure(view["q"], label, names=[("draft q", "q")], token=token, presenter=presenter,
                           title=f"Draft at {where}: sampled {label(token)!r} from q")
    if kind == "check":
        verdict = "accepted" if view["accepted"] else "rejected"
        return bars_figure(view["pq"], label, names=[("target p", "p"), ("draft q", "q")], token=token,
                           presenter=presenter, title=f"Check at {where}: {label(token)!r} {verdict}")
    if kind == "tree_check":
        verdict = "accepted" if view["accepted"] else "rejected"
        return bars_figure(view["pq"], label, names=[("target p", "p"), ("draft q", "q")], token=token,
                           presenter=presenter, title=f"Tree check at depth {view['position']}, child "
                                                   f"{view['sibling'] + 1} of {view['siblings']}: {label(token)!r} "
                                                   f"{verdict}")
    if kind == "block_check":
        verdict = "draw hits" if view["hit"] else "draw misses"
        return bars_figure(view["pq"], label, names=[("target p", "p"), ("draft q", "q")], token=token,
                           presenter=presenter, title=f"Block check at {where}: {label(token)!r}, {verdict}")
    if kind == "correction" and view.get("matched_none"):
        return bars_figure(view["residual"], label, names=[("p without the drafts, normalized", "residual")],
                           token=token, presenter=presenter,
                           title=f"No draft at {where} equals the target's sample: {label(token)!r} committed (no "
                                 "second draw)")
    if kind == "correction":
        mass = view["residual_mass"]["float"]
        scaled = view.get("scale", {"float": 1.0})["float"] != 1.0
        name = "residual (w·p − q)+, normalized" if scaled else "residual (p − q)+, normalized"
        return bars_figure(view["residual"], label, names=[(name, "residual")],
                           token=token, presenter=presenter,
                           title=f"Correction at {where}: residual mass {short_prob(mass)}, drew {label(token)!r}")
    if kind == "bonus" and view.get("plain"):
        return bars_figure(view["p"], label, names=[("target p", "p")], token=token, presenter=presenter,
                           title=f"No draft this round: drew {label(token)!r} from p")
    if kind == "bonus":
        return bars_figure(view["p"], label, names=[("target p", "p")], token=token, presenter=presenter,
                           title=f"Bonus at {where}: every draft accepted, drew {label(token)!r} from p")
    return None


def acceptance_figure(acceptance: Sequence[float | None], alpha: Sequence[float | None],
                      reached: Sequence[int], *, presenter: bool = False) -> go.Figure:
    """Measured acceptance rate by draft position against the mean exact alpha(p, q) at those positions."""
    x = [str(i) for i in range(len(acceptance))]
    fig = go.Figure()
    fig.add_trace(go.Bar(name="measured acceptance", x=x, y=[a if a is not None else 0 for a in acceptance],
                         marker=style.bar_marker("empirical"), customdata=list(reached),
                         hovertemplate="position %{x}: %{y:.3f} over %{customdata} checks<extra></extra>"))
    fig.add_trace(go.Scatter(name="theory: mean alpha(p, q)", x=x, y=list(alpha), mode="lines+markers",
                             marker=style.scatter_marker("theory"), line={"color": style.role("theory").color,
                                                                          "dash": style.role("theory").dash}))
    fig.update_layout(yaxis={"range": [0, 1.05], "title": "acceptance rate"}, xaxis={"title": "draft position"})
    return style.apply_layout(fig, title="Acceptance by draft position", presenter=presenter)


def tokens_per_round_figure(rounds: Sequence[tuple[int, str]], expected: float | None, *,
                            presenter: bool = False) -> go.Figure:
    """Committed tokens per round: accepted drafts plus one correction or bonus, with the theory line."""
    x = list(range(len(rounds)))
    fig = go.Figure()
    fig.add_trace(go.Bar(name=style.origin("accepted").label, x=x, y=[a for a, _ in rounds],
                         marker=style.bar_marker("accepted")))
    for origin in ("correction", "bonus", "target"):
        if origin == "target" and all(o != origin for _, o in rounds):
            continue
        cue = origin_cue(origin)
        fig.add_trace(go.Bar(name=cue.label, x=x, y=[1 if o == origin else 0 for _, o in rounds],
                             marker=style.bar_marker(cue)))
    if expected is not None:  # a legend entry, not a label over the bars
        fig.add_trace(go.Scatter(name=f"theory: {expected:.2f} per drafting round", x=[-0.5, max(len(rounds), 1) - 0.5],
                                 y=[expected, expected], mode="lines", hoverinfo="skip",
                                 line={"color": style.role("theory").color, "dash": "dash"}))
    fig.update_layout(barmode="stack", xaxis={"title": "round"}, yaxis={"title": "tokens"})
    return style.apply_layout(fig, title="Tokens per round", presenter=presenter)


def time_split_figure(parts: dict[str, float], labels: dict[str, str], *, presenter: bool = False) -> go.Figure:
    """Where the wall time went: draft forward, draft sampling, target forward, exact verification."""
    colors = [style.OKABE_ITO["orange"], style.OKABE_ITO["yellow"], style.OKABE_ITO["blue"],
              style.OKABE_ITO["bluish_green"]]
    patterns = ["/", ".", "", "x"]
    fig = go.Figure()
    for (key, seconds), color, pattern in zip(parts.items(), colors, patterns):
        fig.add_trace(go.Bar(name=labels[key], y=["time"], x=[seconds], orientation="h",
                             marker={"color": color, "pattern": {"shape": pattern}},
                             hovertemplate=f"{labels[key]}: %{{x:.3f}} s<extra></extra>"))
    fig.update_layout(barmode="stack", xaxis={"title": "seconds"}, height=240)
    return style.apply_layout(fig, title="Time split", presenter=presenter, height=260)


def race_figure(legs: Sequence[tuple[str, float]], predicted: float | None = None, *,
                presenter: bool = False) -> go.Figure:
    """Tokens per second of each leg of one race (plain first, the speculative run last), and the speed the
    cost model predicted for the speculative run; the title states each leg's speed over plain."""
    names = [name for name, _ in legs]
    values = [tps for _, tps in legs]
    plain = values[0]
    colors = [PLAIN.color] + [style.OKABE_ITO["sky_blue"]] * (len(legs) - 2) + [style.origin("accepted").color]
    patterns = [PLAIN.pattern] + ["."] * (len(legs) - 2) + [""]
    if predicted is not None:
        names.append("predicted by the cost model")
        values.append(predicted * plain)
        colors.append(style.role("theory").color)
        patterns.append("/")
    fig = go.Figure(go.Bar(x=values, y=names, orientation="h", text=[f"{v:.1f}" for v in values],
                           textposition="auto",
                           marker={"color": colors, "pattern": {"shape": patterns, "fgcolor": "#FFFFFF"}},
                           hovertemplate="%{y}: %{x:.1f} tokens/s<extra></extra>"))
    fig.update_layout(xaxis={"title": "tokens per second"}, yaxis={"autorange": "reversed"}, showlegend=False)
    ratios = ", ".join(f"{name.split(' (')[0]} {tps / plain:.2f}x" for name, tps in legs[1:]) if plain else ""
    return style.apply_layout(fig, title=f"The median race, vs plain: {ratios}" if ratios else "The race",
                              presenter=presenter, height=230 + 30 * max(0, len(names) - 3))


def tokens_html(pieces: Sequence[str], origins: Sequence[str]) -> str:
    """The generated text as HTML, each token coloured (and titled) by its origin."""
    import html

    spans = []
    for piece, origin in zip(pieces, origins):
        cue = origin_cue(origin)
        text = html.escape(piece).replace("\n", "⏎<br>")
        underline = {"accepted": "", "correction": "text-decoration:underline wavy;",
                     "bonus": "text-decoration:underline double;", "target": "", "plain": ""}[origin]
        spans.append(f"<span title='{cue.label}' style='{cue.css()}{underline}'>{text}</span>")
    return "<div style='font-size:1.15em;line-height:1.7;white-space:pre-wrap'>" + "".join(spans) + "</div>"


def match_text(view: dict[str, Any], label: Label) -> str:
    """Exact match's test in words: the target's own sample y against the draft (the chance they are equal)."""
    x, y = label(view["token"]), label(view["sample"])
    which = f"Child {view['sibling'] + 1} of {view['siblings']}, drafted" if "sibling" in view else "Drafted"
    given = "" if view.get("sibling", 0) == 0 else ", given it is no earlier sibling"
    return (f"{which} {x!r}: the target's own sample is y = {y!r} (draw {short_int(view['draw'])} of its tickets, "
            f"uniform on 0 … {short_int(view['draw_range'] - 1)}); the chance y = x{given} is "
            f"{short_prob(view['acceptance']['float'])} → {'**accepted**' if view['accepted'] else '**rejected**'} "
            f"(exact match: y {'=' if view['accepted'] else '≠'} x).")


def check_text(view: dict[str, Any], label: Label) -> str:
    """The acceptance test of a check view in words, with the exact values (long integers abbreviated)."""
    if "sample" in view:
        return match_text(view, label)
    a = view["acceptance"]
    numerator = int(a["exact"].split("/")[0])
    accepted = view["accepted"]
    verdict = "**accepted**" if accepted else "**rejected**"
    relation = "<" if accepted else ">="
    return (
        f"Drafted {label(view['token'])!r}: p(x) = {short_prob(view['p_token']['float'])}, "
        f"q(x) = {short_prob(view['q_token']['float'])}, acceptance min(1, p/q) = {short_prob(a['float'])}. "
        f"Exact test: draw {short_int(view['draw'])} {relation} numerator {short_int(numerator)} "
        f"(the draw is uniform on 0 … {short_int(view['draw_range'] - 1)}) → {verdict}."
    )


def tree_check_text(view: dict[str, Any], label: Label) -> str:
    """Recursive rejection sampling's test at one child in words: r(x), q'(x), the acceptance, the draw."""
    if "sample" in view:
        return match_text(view, label)
    a = view["acceptance"]
    numerator = int(a["exact"].split("/")[0])
    accepted = view["accepted"]
    first = view["sibling"] == 0
    r_words = "r = p before any rejection" if first else "r: the residual left by the rejected siblings"
    return (
        f"Child {view['sibling'] + 1} of {view['siblings']}, drafted {label(view['token'])!r}: "
        f"r(x) = {short_prob(view['r_token']['float'])} ({r_words}), q'(x) = {short_prob(view['q_token']['float'])}, "
        f"acceptance min(1, r/q') = {short_prob(a['float'])}. Exact test: draw {short_int(view['draw'])} "
        f"{'<' if accepted else '>='} numerator {short_int(numerator)} (uniform on 0 … "
        f"{short_int(view['draw_range'] - 1)}) → {'**accepted**' if accepted else '**rejected**'}."
    )


def block_check_text(view: dict[str, Any], label: Label) -> str:
    """Block verification's test at one draft in words: the running weight, the stop probability, the draw."""
    h = view["stop_probability"]
    numerator = int(h["exact"].split("/")[0])
    hit = view["hit"]
    if view["last"]:
        what = f"h = w (the whole block) = {short_prob(h['float'])}"
    else:
        what = (f"scaled residual mass ρ = {short_prob(view['residual_mass']['float'])}, "
                f"h = ρ / (ρ + 1 − w) = {short_prob(h['float'])}")
    relation = "<" if hit else ">="
    verdict = "**hit** (keep at least this far)" if hit else "**miss**"
    return (
        f"Drafted {label(view['token'])!r}: p(x) = {short_prob(view['p_token']['float'])}, "
        f"q(x) = {short_prob(view['q_token']['float'])}; weight w = min(1, "
        f"{short_prob(view['previous_weight']['float'])}·p/q) = {short_prob(view['weight']['float'])}; {what}. "
        f"Exact test: draw {short_int(view['draw'])} {relation} numerator {short_int(numerator)} "
        f"(uniform on 0 … {short_int(view['draw_range'] - 1)}) → {verdict}."
    )


def block_decision_text(view: dict[str, Any]) -> str:
    """Block verification's decision: keep the drafts up to the last hit."""
    tau, g = view["accepted_drafts"], len(view["drafts"])
    then = {"correction": "then one token from the scaled residual", "bonus": "then a bonus token from p",
            "stop": "the last is a stop token: nothing follows"}[view["ending"]]
    kept = f"{tau} draft is kept" if tau == 1 else f"{tau} drafts are kept"
    return f"Decision: the last hit is at draft {tau} of {g}, so **{kept}**; {then}."


def legend_html(plain: bool = False) -> str:
    """The origin legend of the coloured text, with the plain target sample where the text has one."""
    extra = f" &nbsp; <span style='{PLAIN.css()}font-weight:600'>{PLAIN.glyph} {PLAIN.label}</span>" if plain else ""
    return style.legend_html() + extra
