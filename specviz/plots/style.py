"""Shared chart style: the Okabe–Ito colour-blind-safe palette, a second cue per origin, projector fonts.

Every page draws with these constants so that "target p", "draft q", "accepted draft",
"correction" and "bonus" look the same everywhere. Colour is never the only cue: each
origin also has a bar pattern and a marker symbol, and each role a pattern.

Usage::

    from specviz.plots import style
    fig.add_bar(x=..., y=..., marker=style.bar_marker("p"))
    style.apply_layout(fig, title="...", presenter=True)
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

from ..scenario.labels import is_mark, mark_name, shown_label

# Okabe & Ito (2008), "Color Universal Design": distinguishable under the common colour deficiencies.
OKABE_ITO: dict[str, str] = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
}
GREY = "#999999"
LIGHT_GREY = "#DDDDDD"


@dataclass(frozen=True)
class Cue:
    """How one kind of thing looks: a colour plus a non-colour cue (bar pattern, marker, dash, text glyph)."""

    label: str
    color: str
    pattern: str  # plotly bar pattern shape: "", "/", "\\", "x", "-", "|", "+", "."
    symbol: str  # plotly marker symbol
    dash: str  # plotly line dash
    glyph: str  # a text glyph for tables and inline text

    def css(self) -> str:
        """Inline CSS for a token chip in HTML text."""
        return f"color:{self.color};"


# --- roles: the distributions on the charts ------------------------------------------------
ROLES: dict[str, Cue] = {
    "p": Cue("target p", OKABE_ITO["blue"], "", "circle", "solid", "●"),
    "q": Cue("draft q", OKABE_ITO["orange"], "/", "diamond", "dash", "◆"),
    "residual": Cue("residual (p − q)+", OKABE_ITO["vermillion"], "x", "triangle-up", "dot", "▲"),
    "overlap": Cue("min(p, q)", GREY, "", "square", "solid", "■"),
    "theory": Cue("theory", OKABE_ITO["black"], "", "line-ew", "dash", "—"),
    "empirical": Cue("measured", OKABE_ITO["sky_blue"], ".", "circle-open", "solid", "○"),
    "removed": Cue("taken out", GREY, "-", "x-thin", "dot", "⊘"),  # mass a rule takes out of p (SGLang's rejected)
}

# --- origins: where a committed token came from ---------------------------------------------
ORIGINS: dict[str, Cue] = {
    "accepted": Cue("accepted draft", OKABE_ITO["bluish_green"], "", "circle", "solid", "✓"),
    "correction": Cue("correction", OKABE_ITO["vermillion"], "x", "x", "dash", "✗"),
    "bonus": Cue("bonus", OKABE_ITO["reddish_purple"], ".", "star", "dot", "★"),
    "prompt": Cue("earlier round", OKABE_ITO["black"], "", "circle-open", "solid", "·"),
}

# the token under discussion (drafted, proposed, drawn) is outlined in black
HIGHLIGHT_LINE = {"color": OKABE_ITO["black"], "width": 3}

# --- fonts --------------------------------------------------------------------------------
FONT_FAMILY = "Inter, 'Source Sans Pro', Arial, sans-serif"
FONT_SIZE = 18  # readable from the back of a lecture room
PRESENTER_FONT_SIZE = 24
TITLE_SCALE = 1.25
CHART_HEIGHT = 380
PRESENTER_CHART_HEIGHT = 470  # the Playground's chart fits under the headline at 1280x800
TITLE_PAD = 6  # px above and below a chart title


def role(name: str) -> Cue:
    return ROLES[name]


def origin(name: str) -> Cue:
    return ORIGINS[name]


def font_size(presenter: bool = False) -> int:
    return PRESENTER_FONT_SIZE if presenter else FONT_SIZE


def cue_named(name: str) -> Cue:
    """A role's or an origin's cue by its key ("p", "q", "residual", "accepted", "correction", ...)."""
    return ROLES.get(name) or ORIGINS[name]


def bar_marker(cue: Cue | str, *, highlight: list[bool] | None = None, opacity: float = 1.0) -> dict[str, Any]:
    """A plotly bar ``marker`` dict with the cue's colour and pattern; highlighted bars get a black outline."""
    if isinstance(cue, str):
        cue = cue_named(cue)
    marker: dict[str, Any] = {
        "color": cue.color,
        "opacity": opacity,
        "pattern": {"shape": cue.pattern, "fgcolor": "#FFFFFF" if cue.pattern else cue.color,
                    "solidity": 0.35, "fillmode": "overlay"},
        "line": {"color": cue.color, "width": 1},
    }
    if highlight is not None:
        marker["line"] = {
            "color": [HIGHLIGHT_LINE["color"] if h else cue.color for h in highlight],
            "width": [HIGHLIGHT_LINE["width"] if h else 1 for h in highlight],
        }
    return marker


def scatter_marker(cue: Cue | str, size: int = 14) -> dict[str, Any]:
    if isinstance(cue, str):
        cue = cue_named(cue)
    return {"color": cue.color, "symbol": cue.symbol, "size": size,
            "line": {"color": OKABE_ITO["black"], "width": 1}}


def _template() -> dict[str, Any]:
    """A small plotly_white-like template as plain data (a template *name* is only resolved by plotly's
    validation, which ``figure`` skips; the full plotly_white costs ~9 ms to copy per figure)."""
    grid = "#E5ECF6"
    axis = {"gridcolor": grid, "linecolor": grid, "zerolinecolor": grid, "ticks": "", "automargin": True,
            "title": {"standoff": 12}}
    return {
        "layout": {"paper_bgcolor": "white", "plot_bgcolor": "white", "xaxis": dict(axis), "yaxis": dict(axis),
                   "hovermode": "closest", "colorway": list(OKABE_ITO.values())[1:]},
        "data": {"bar": [{"marker": {"pattern": {"fillmode": "overlay", "size": 10, "solidity": 0.2}}}]},
    }


def title_space(title: str | None, presenter: bool = False) -> int:
    """Pixels from the top of the figure to the bottom of its title (0 without a title)."""
    if not title:
        return 0
    line = font_size(presenter) * TITLE_SCALE * 1.3
    text = line + sum(line * (0.55 if "<sup>" in part else 1.0) for part in title.split("<br>")[1:])
    return TITLE_PAD + round(text) + TITLE_PAD


PAGE_WIDTH = {False: 820, True: 1120}  # px of a chart spanning the main column at 1280x800 (presenter: no sidebar)
MODEBAR = 64  # px the mode bar (its download buttons) takes at the top right: a title stays left of it
TITLE_CHAR = 0.45  # a title glyph's width as a share of its font size (measured: 0.42 in Chromium, a margin kept)


def title_pieces(title: str) -> list[str]:
    """The title cut where a line may break: after ': ' or ', ' and before ' (', outside parentheses only, so that
    'min(p, q)' or '(kept 2/3)' stays whole."""
    pieces, start, depth = [], 0, 0
    for i, char in enumerate(title):
        if char == "(":
            if depth == 0 and i > start and title[i - 1] == " ":
                pieces.append(title[start:i - 1])
                start = i
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        elif char == " " and depth == 0 and i > start and title[i - 1] in ":,":
            pieces.append(title[start:i])
            start = i + 1
    return [*pieces, title[start:]]


def wrap_title(title: str, width: float, presenter: bool = False) -> str:
    """The title broken into lines that fit ``width`` px, at ``title_pieces``' breaks only, so a number and its name
    ('w_2 = 1/1296') always stay whole on one line (plotly clips a title at the figure's edge instead)."""
    if "<br>" in title:
        return title
    limit = max(8, int((width - 16 - MODEBAR) / (TITLE_CHAR * font_size(presenter) * TITLE_SCALE)))
    if len(title) <= limit:
        return title
    lines: list[str] = []
    line = ""
    for piece in title_pieces(title):
        if line and len(line) + 1 + len(piece) > limit:
            lines.append(line)
            line = piece
        else:
            line = f"{line} {piece}" if line else piece
    return "<br>".join([*lines, line])


def fit_title(fig: Any, width: float, presenter: bool = False) -> Any:
    """Wrap the figure's title to ``width`` px (``wrap_title``): the title band, the legend under it and the top
    margin grow by the lines added. For figures laid out by ``layout``; returns the figure."""
    title = fig.layout.title.text
    if not title:
        return fig
    wrapped = wrap_title(title, width, presenter)
    if wrapped == title:
        return fig
    before, top, total = title_space(title, presenter), title_space(wrapped, presenter), fig.layout.height
    fig.layout.title.text = wrapped
    fig.layout.title.y = 1 - top / 2 / total
    if fig.layout.legend.yref == "container":
        fig.layout.legend.y = 1 - top / total
    fig.layout.margin.t = (fig.layout.margin.t or 0) + top - before
    return fig


def layout(*, title: str | None = None, presenter: bool = False, height: int | None = None,
           **extra: Any) -> dict[str, Any]:
    """The shared layout as a plain dict (projector fonts, white background, legend on top); extra keys win.

    The title sits at the very top of the figure; the legend hangs from just below it (positioned in
    container pixels), so a legend that wraps onto more rows in a narrow column pushes the plot area
    down (plotly's legend automargin) instead of growing up into the title.
    """
    size = font_size(presenter)
    total = height or (PRESENTER_CHART_HEIGHT if presenter else CHART_HEIGHT)
    top = title_space(title, presenter)
    base: dict[str, Any] = {
        "template": _template(),
        "font": {"family": FONT_FAMILY, "size": size, "color": OKABE_ITO["black"]},
        "height": total,
        "margin": {"l": 60, "r": 20, "t": top + round(size * 0.6), "b": 60},
        "legend": {"orientation": "h", "yref": "container", "y": 1 - top / total, "yanchor": "top",
                   "xanchor": "left", "x": 0, "font": {"size": size}},
        "hoverlabel": {"font": {"size": size, "family": FONT_FAMILY}},
    }
    if title:
        base["title"] = {"text": title, "font": {"size": round(size * TITLE_SCALE)}, "x": 0.01, "xanchor": "left",
                         # centred in its band: plotly anchors a multi-line title's "top" at its first line
                         "yref": "container", "y": 1 - top / 2 / total, "yanchor": "middle"}
    base.update(extra)
    return base


def apply_layout(fig: Any, *, title: str | None = None, presenter: bool = False,
                 height: int | None = None, **extra: Any) -> Any:
    """Apply ``layout(...)`` to a plotly figure; returns the figure for chaining.

    Validated figures get the full ``plotly_white`` template by name (``figure`` uses the small one).
    """
    settings = layout(title=title, presenter=presenter, height=height, **extra)
    if "template" not in extra:
        settings["template"] = "plotly_white"
    fig.update_layout(settings)
    return fig


def figure(data: list[dict[str, Any]], layout_dict: dict[str, Any]) -> Any:
    """A plotly Figure from plain trace and layout dicts, without per-property validation.

    Validation costs milliseconds per property, too slow for a re-render budget; tests
    validate the figures instead (``plotly.graph_objects.Figure(fig.to_dict())``).
    """
    import plotly.graph_objects as go

    return go.Figure(data=data, layout=layout_dict, _validate=False)


def legend_html(names: tuple[str, ...] = ("accepted", "correction", "bonus")) -> str:
    """An inline HTML legend of origins (colour + glyph), for committed-text displays."""
    parts = [
        f"<span style='{ORIGINS[n].css()}font-weight:600'>{ORIGINS[n].glyph} {ORIGINS[n].label}</span>"
        for n in names
    ]
    return " &nbsp; ".join(parts)


def token_label(label: str) -> str:
    """A token as people read it (``scenario.shown_label``: ``‘.’ period``), plain text: for tables and HTML that
    escape it themselves. Quoting a label already quoted changes nothing."""
    if len(label) > 1 and label[0] == "‘" and (label[-1] == "’" or "’ " in label):
        return label
    return shown_label(label)


def chart_text(text: str) -> str:
    """Text for plotly, which reads its own subset of HTML in every title, tick, legend, annotation and hover:
    '<', '>' and '&' escaped, so that a label such as <b>x</b> is drawn as written (and no tag can break a chart)."""
    return html.escape(text, quote=False)


def markdown_text(text: str) -> str:
    """Text inside Streamlit markdown, read literally: every markdown and HTML mark backslash-escaped."""
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|<>~$])", r"\\\1", text)


def plain_text(text: str) -> str:
    """``chart_text``'s inverse: a chart's label back as plain text, for an SVG or HTML that escapes it itself."""
    return html.unescape(text)


def token_labels(vocab) -> list[str]:
    """The labels as a chart draws them: shown as people read them, escaped for plotly (``chart_text``)."""
    return [chart_text(token_label(v)) for v in vocab]


TICK_CHARACTERS = 16  # a longer label's tick ends in '…': plotly would grow the margin and crush the bars


def tick_text(chart_label: str, characters: int = TICK_CHARACTERS) -> str:
    """A chart label as an axis tick: a punctuation mark's name on a line of its own ('‘.’<br>period'), so the
    name reads from the back of the room and the axis keeps its width; a label over ``characters`` cut to them
    with '…' (the hover and the tables keep it whole); any other label as it is."""
    found = re.fullmatch(r"‘(.+)’ ([a-z ]+)", chart_label)
    if found and is_mark(plain_text(found[1])) and mark_name(plain_text(found[1])) == found[2]:
        return f"‘{found[1]}’<br>{found[2]}"
    plain = plain_text(chart_label)
    if len(plain) > characters:  # cut as plain text, so no escape ('&lt;') is cut in two
        return chart_text(plain[:characters - 1] + "…")
    return chart_label


def category_axis(chart_labels, characters: int = TICK_CHARACTERS, **extra: Any) -> dict[str, Any]:
    """A category axis over chart labels (``token_labels``) in their order, each tick as ``tick_text`` writes it
    (a half-width chart passes fewer ``characters``: its turned ticks would take the bars' height)."""
    labels = list(chart_labels)
    return {"type": "category", "categoryorder": "array", "categoryarray": labels, "tickmode": "array",
            "tickvals": labels, "ticktext": [tick_text(label, characters) for label in labels],
            "range": [-0.5, len(labels) - 0.5], "fixedrange": True, **extra}
