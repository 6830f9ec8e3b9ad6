"""Everything the Playground's Animation tab draws at one step, built from the step view in one pure call.

``build(view, scenario, presenter)`` turns a ``playground.narrative.StepView`` (plain data) into a
``StepPage``: the main chart and the draw strip's SVG of the step's event, the caption, the narration,
the committed text, the rounds table and the statistics as HTML, and (outside presenter mode) the
history chart. The page only lays these out; nothing here reads session state or calls back into the
step view, so a page is a function of (scenario, step, presenter), the link's state, and can be cached
by it (treat a cached page's figures as read-only).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

import plotly.graph_objects as go  # noqa: F401 - the field types

from ..scenario import Scenario
from . import draw_strip, step_html, style
from . import playground as figures

if TYPE_CHECKING:  # the step view is this module's input; nothing here calls back into it
    from ..playground.narrative import StepView

PRESENTER_CHART_HEIGHT = 420  # the plots' presenter height is 470: 50 px go to the committed text
# the main chart's width at 1280 px per layout and mode (its title is wrapped to it, never clipped)
CHART_WIDTH = {("split", False): 480, ("wide", False): 820, ("split", True): 640, ("even", True): 540}
ROUNDS_SHOWN = {False: 8, True: 4}  # finished rounds in the table (presenter mode shows fewer, larger)
TABLES_RATIO = {False: (3, 2), True: (1, 1)}  # rounds : statistics (six columns of rounds need the room)
HISTORY_WIDTH = CHART_WIDTH["wide", False]  # the history chart spans the page (outside presenter mode)
ELEMENT_GAP = {False: "1rem", True: "0.7rem"}  # Streamlit's gap between elements; presenter mode's CSS tightens it
Layout = Literal["split", "even", "wide"]


@dataclass(frozen=True)
class StepPage:
    """One step, ready to render: figures, an SVG and HTML strings, and how to lay them out."""

    caption: str  # 'Step 4 · round 0 · event 4 of 9 · Checking'
    headline: str
    figure: go.Figure  # the step's main chart
    draw_svg: str | None  # the step's draw on [0, 1) (None: the step draws nothing)
    narration: str  # the sentences (markdown) and the folded exact values (HTML)
    words: str  # the draw and the narration laid out as one element (step_html.words)
    committed: str  # the committed text as chips under their legend (in its named div)
    tables: str  # the finished rounds (HTML table) beside measured against theory with its caveat: one element
    history: go.Figure | None  # tokens per round (outside presenter mode, once a round has finished)
    # split: chart and words side by side (3 : 2); even: 1 : 1 (a presenter's block check narrates w_k, ρ_k,
    # h_k); wide: the chart spans the page (the residual's two panels), words and draw beneath
    layout: Layout
    filename: str = "specviz-step"  # a downloaded figure's name: 'specviz-block-step-4'


def layout_of(event_kind: str, presenter: bool) -> Layout:
    if presenter:
        return "even" if event_kind == "block_check" else "split"
    return "wide" if event_kind == "correction" else "split"


def build(view: StepView, scenario: Scenario, presenter: bool) -> StepPage:
    """The step's page: every figure and HTML string the Animation tab shows at this step."""
    event = view.event
    figure, draw = figures.event_figures(event, view.round_events, scenario.vocab, scenario.depth,
                                         presenter=presenter)
    if presenter:  # a little shorter, so the committed text fits beneath it on a 1280x800 screen
        figure.update_layout(height=PRESENTER_CHART_HEIGHT)
    layout = layout_of(event.kind, presenter)
    style.fit_title(figure, CHART_WIDTH[layout, presenter], presenter)
    history = None
    if not presenter and view.history:
        points = tuple((h.round_id, h.accepted, h.ending) for h in view.history)
        history = _history_figure(points, scenario.depth, view.stats.expected)
    # inline SVG: a plotly figure here cost ~40 ms of every Step in the browser
    draw_svg = None if draw is None else draw_strip.svg(draw, presenter=presenter)
    narration = step_html.narration_markdown(view.lines, event, scenario.vocab)
    return StepPage(
        caption=step_html.caption(view),
        headline=view.headline,
        figure=figure,
        draw_svg=draw_svg,
        narration=narration,
        words=step_html.words(draw_svg, narration, beside=layout == "wide", gap=ELEMENT_GAP[presenter]),
        committed=step_html.named(step_html.COMMITTED_CLASS,
                                  step_html.committed_markdown(view, scenario.vocab, presenter)),
        tables=step_html.side_by_side(
            step_html.rounds_html(view.history, scenario.verification, last=ROUNDS_SHOWN[presenter]),
            step_html.stats_html(view.stats), TABLES_RATIO[presenter]),
        history=history,
        layout=layout,
        filename=filename(scenario, view.step),
    )


@lru_cache(maxsize=64)
def _history_figure(points: tuple[tuple[int, int, str], ...], depth: int, expected: Fraction | None) -> go.Figure:
    """The history chart changes once a round, not once a Step: every step of a round shares it (read-only).

    Its margins reserved as the step charts' are (it spans the page), so the browser draws it once."""
    return figures.settle_margins(figures.history_figure(points, depth, expected), width=HISTORY_WIDTH)


def filename(scenario: Scenario, step: int) -> str:
    """A downloaded figure's file name: the rule and the step as the counter shows it ('specviz-block-step-4')."""
    rule = "".join(ch if ch.isalnum() else "-" for ch in scenario.verification)
    return f"specviz-{rule}-step-{step + 1}"
