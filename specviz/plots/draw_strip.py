"""The exact draw on [0, 1) as a strip of labelled segments, drawn as inline SVG.

A draw strip is plain data (segments with exact fractional ends, the integer draw, the chosen
segment); ``svg`` turns it into one SVG element. The Playground shows a strip at every step that
draws, and a browser paints this SVG in about a millisecond where a plotly figure of the same
strip cost about 40 ms of each Step on a 2-core machine. Every segment and the draw carry their
exact values as a hover title.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from fractions import Fraction

from .. import formats
from . import style


@dataclass(frozen=True)
class Segment:
    label: str
    start: Fraction
    end: Fraction
    cue: str  # a key of style.ROLES or style.ORIGINS


@dataclass(frozen=True)
class DrawStrip:
    """Segments covering [0, 1) in order, the draw ``draw`` of 0..draw_range-1, and the segment it chose."""

    title: str
    segments: tuple[Segment, ...]
    draw: int
    draw_range: int
    chosen: int | None

    @property
    def u(self) -> Fraction:
        return Fraction(self.draw, self.draw_range)


def exact(value: Fraction) -> str:
    """A fraction as n/d ≈ decimal (an integer as itself)."""
    return formats.fraction(value)


# the page's column widths at 1280 px: the strip is drawn at this size and scales with its column (up to
# MAX_SCALE times it)
WIDTH = {False: 320, True: 440}
MAX_SCALE = {False: 1.15, True: 1.05}
PRESENTER_TITLE_SCALE = 1.1
_PATTERN_LINES = {  # plotly pattern shapes as SVG strokes in a 10 px tile
    "/": ["M0,10 L10,0", "M-2,2 L2,-2", "M8,12 L12,8"],
    "\\": ["M0,0 L10,10", "M-2,8 L2,12", "M8,-2 L12,2"],
    "x": ["M0,10 L10,0", "M0,0 L10,10"],
    "-": ["M0,5 L10,5"],
    "|": ["M5,0 L5,10"],
    "+": ["M0,5 L10,5", "M5,0 L5,10"],
}


def _pattern(name: str) -> str:
    """An SVG pattern of white strokes (or dots) for one cue, overlaid on its colour."""
    shape = style.cue_named(name).pattern
    if shape == ".":
        body = "<circle cx='5' cy='5' r='1.6' fill='#FFFFFF'/>"
    else:
        body = "".join(f"<path d='{d}' stroke='#FFFFFF' stroke-width='1.6'/>" for d in _PATTERN_LINES[shape])
    return (f"<pattern id='specviz-draw-{name}' width='10' height='10' patternUnits='userSpaceOnUse'>"
            f"{body}</pattern>")


def _text(x: float, y: float, text: str, size: float, anchor: str = "middle", **attributes: str) -> str:
    extra = "".join(f" {k.replace('_', '-')}='{v}'" for k, v in attributes.items())
    return (f"<text x='{x:.1f}' y='{y:.1f}' font-size='{size:.0f}' text-anchor='{anchor}'{extra}>"
            f"{html.escape(text)}</text>")


def _tick_marks(x_of, top: float, axis_y: float, size: int, presenter: bool) -> list[str]:
    parts = []
    for tick in (0, 0.2, 0.4, 0.6, 0.8, 1.0) if presenter else (0, 0.5, 1.0):
        x = x_of(tick)
        parts.append(f"<line x1='{x:.1f}' x2='{x:.1f}' y1='{top:.1f}' y2='{axis_y + 4:.1f}' stroke='#C8D4E3' "
                     "stroke-width='1'/>")
        parts.append(_text(x, axis_y + size * 1.05, f"{tick:.1f}", size * 0.9))
    return parts


_CHAR = 0.58  # a bold glyph's width as a share of the font size (Source Sans), a little generous


def _fits_inside(s: Segment, x0: float, x1: float, size: int) -> float | None:
    """The font size that fits the label inside its segment (None: smaller than anyone reads)."""
    fit = min(size * 0.85, (x1 - x0 - 6) / (_CHAR * max(1, len(s.label))))
    return fit if fit >= size * 0.55 else None


def _segment(s: Segment, picked: bool, x0: float, x1: float, bar_y: float, bar_h: float, size: int) -> list[str]:
    """One segment: colour, its pattern, outline (black when chosen), its label inside when it fits."""
    cue = style.cue_named(s.cue)
    box = f"x='{x0:.2f}' y='{bar_y:.1f}' width='{max(x1 - x0, 0.0):.2f}' height='{bar_h:.1f}'"
    hover = f"<title>{html.escape(f'{s.label}: [{exact(s.start)}, {exact(s.end)})')}</title>"
    pattern = f"<rect {box} fill='url(#specviz-draw-{s.cue})' opacity='0.6'/>" if cue.pattern else ""
    outline = (f"stroke='{style.HIGHLIGHT_LINE['color']}' stroke-width='{style.HIGHLIGHT_LINE['width']}'"
               if picked else "stroke='#FFFFFF' stroke-width='1'")
    parts = [f"<g opacity='{0.9 if picked else 0.55}'>{hover}<rect {box} fill='{cue.color}'/>{pattern}</g>",
             f"<rect {box} fill='none' {outline}><title>{html.escape(s.label)}</title></rect>"]
    fit = _fits_inside(s, x0, x1, size)
    if fit is not None:
        parts.append(_text((x0 + x1) / 2, bar_y + bar_h / 2 + fit * 0.35, s.label, fit, fill="#FFFFFF",
                           font_weight="600", pointer_events="none"))
    return parts


def _callouts(strip: DrawStrip, x_of, width: float, size: int) -> list[tuple[Segment, float, float, str, bool]]:
    """Labels of segments too narrow for them, placed under the bar: (segment, centre, text x, anchor, picked).

    The chosen segment's label goes first, then the others left to right; a label that would overlap one
    already placed is left to the hover. Each stays inside the strip: near an edge it leans inwards.
    """
    small = size * 0.85
    order = sorted(range(len(strip.segments)), key=lambda i: (i != strip.chosen, i))
    placed: list[tuple[float, float]] = []
    out = []
    for i in order:
        s = strip.segments[i]
        x0, x1 = x_of(s.start), x_of(s.end)
        if _fits_inside(s, x0, x1, size) is not None:
            continue
        centre, half = (x0 + x1) / 2, _CHAR * small * len(s.label) / 2
        left = min(max(centre - half, 2.0), width - 2 - 2 * half)
        if left < 0 or any(left < b + 8 and left + 2 * half > a - 8 for a, b in placed):
            continue
        placed.append((left, left + 2 * half))
        out.append((s, centre, left, "start", i == strip.chosen))
    return out


def svg(strip: DrawStrip, *, presenter: bool = False) -> str:
    """The strip as one SVG element: title, u marked above the segments (colour + pattern + label), the axis.

    A label too long for its segment is written under the bar, in the segment's colour with a short
    leader, as long as it does not overlap another; every label stays inside the strip.
    """
    size = style.font_size(presenter)
    width, left, right = WIDTH[presenter], 24, 24
    plot = width - left - right
    # presenter mode is compact (a smaller title, a lower bar, no axis title: the ticks and "u = …" say it),
    # so that the draw and every line of the narration fit one 800 px screen beside the chart
    title_scale = PRESENTER_TITLE_SCALE if presenter else style.TITLE_SCALE
    title_y = size * title_scale + 2
    u_label_y = title_y + size * (1.3 if presenter else 1.6)
    bar_y = u_label_y + (24 if presenter else 30)
    bar_h = size * (2.1 if presenter else 2.8)

    def x_of(value: Fraction | float) -> float:
        return left + plot * float(value)

    callouts = _callouts(strip, x_of, width, size)
    callout_h = size * 1.4 if callouts else 0.0
    axis_y = bar_y + bar_h + callout_h
    height = axis_y + (size * 1.3 + 4 if presenter else size * 2.4 + 6)
    # a long title shrinks to the strip's width rather than run past its edge (its numbers stay whole)
    title_size = min(size * title_scale, (width - 8) / (0.52 * max(1, len(strip.title))))
    parts = [_text(4, title_y, strip.title, title_size, "start")]
    patterns = sorted({s.cue for s in strip.segments if style.cue_named(s.cue).pattern})
    if patterns:
        parts.append("<defs>" + "".join(_pattern(name) for name in patterns) + "</defs>")
    parts += _tick_marks(x_of, bar_y - 6, axis_y, size, presenter)
    for index, s in enumerate(strip.segments):
        parts += _segment(s, index == strip.chosen, x_of(s.start), x_of(s.end), bar_y, bar_h, size)
    for s, centre, text_x, anchor, picked in callouts:
        colour = style.cue_named(s.cue).color
        under = bar_y + bar_h
        parts.append(f"<line x1='{centre:.1f}' x2='{centre:.1f}' y1='{under:.1f}' y2='{under + size * 0.35:.1f}' "
                     f"stroke='{colour}' stroke-width='2'/>")
        parts.append(_text(text_x, under + size * 1.15, s.label, size * 0.85, anchor, fill=colour,
                           font_weight="700" if picked else "600"))
    if not presenter:
        parts.append(_text(left + plot / 2, axis_y + size * 2.3, "u on [0, 1)", size))
    u = strip.u
    ux = x_of(u)
    tip = f"draw {strip.draw} of 0..{strip.draw_range - 1}, u = {exact(u)}"
    anchor = "end" if u > 0.8 else "start" if u < 0.2 else "middle"  # near an end the label leans inwards
    label_x = ux + (14 if anchor == "start" else -14 if anchor == "end" else 0)
    marker = f"M{ux - 11:.1f},{bar_y - 24:.1f} L{ux + 11:.1f},{bar_y - 24:.1f} L{ux:.1f},{bar_y - 2:.1f} Z"
    parts.append(f"<g><title>{html.escape(tip)}</title><path d='{marker}' fill='{style.OKABE_ITO['black']}'/>"
                 + _text(label_x, u_label_y, f"u = {formats.decimal(u)}", size, anchor) + "</g>")
    return (f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {width} {height:.0f}' width='100%' "
            f"role='img' aria-label='{html.escape(strip.title)}: u = {formats.decimal(u)}' "
            f'style="font-family:{style.FONT_FAMILY};max-width:{width * MAX_SCALE[presenter]:.0f}px">'
            + "".join(parts) + "</svg>")
