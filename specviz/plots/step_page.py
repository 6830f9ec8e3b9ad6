"""A step's plotly chart, for the PNG of ``python -m specviz export``: built from the step view in one pure call.

The Playground's step is the step player's (``specviz.player``: frames of plain data, drawn in the browser); what a
PNG exported through kaleido shows is this page's chart: ``build(view, scenario, presenter)`` turns a
``playground.narrative.StepView`` into a ``StepPage`` (the caption, the headline, the main chart with its title
wrapped to the column it had on the page, and a file name). ``layout_of`` says how a step is laid out (the player
reads it for its frames too). A function of (scenario, step, presenter), the link's state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import plotly.graph_objects as go  # noqa: F401 - the field types

from ..scenario import Scenario
from . import step_figures as figures
from . import step_html, style

if TYPE_CHECKING:  # the step view is this module's input; nothing here calls back into it
    from ..playground.narrative import StepView

PRESENTER_CHART_HEIGHT = 420  # the plots' presenter height is 470: 50 px go to the committed text
# the main chart's width at 1280 px per layout and mode (its title is wrapped to it, never clipped)
CHART_WIDTH = {("split", False): 480, ("wide", False): 820, ("split", True): 640, ("even", True): 540}
Layout = Literal["split", "even", "wide"]


@dataclass(frozen=True)
class StepPage:
    """One step's chart, ready for an image: its figure, and the words that name it."""

    caption: str  # 'Step 4 · round 1 · event 4 of 9 · Checking'
    headline: str
    figure: go.Figure  # the step's main chart
    # split: chart and words side by side (3 : 2); even: 1 : 1 (a presenter's block check narrates w_k, ρ_k,
    # h_k); wide: the chart spans the page (the residual's two panels), words and draw beneath
    layout: Layout
    filename: str = "specviz-step"  # a downloaded figure's name: 'specviz-block-step-4'


def layout_of(event_kind: str, presenter: bool) -> Layout:
    if presenter:
        return "even" if event_kind == "block_check" else "split"
    return "wide" if event_kind == "correction" else "split"


def build(view: StepView, scenario: Scenario, presenter: bool) -> StepPage:
    """The step's chart (and its caption and headline), as the page had it before the step player drew it."""
    event = view.event
    figure, _ = figures.event_figures(event, view.round_events, scenario.vocab, scenario.depth, presenter=presenter)
    if presenter:  # a little shorter, so the committed text fits beneath it on a 1280x800 screen
        figure.update_layout(height=PRESENTER_CHART_HEIGHT)
    layout = layout_of(event.kind, presenter)
    style.fit_title(figure, CHART_WIDTH[layout, presenter], presenter)
    return StepPage(caption=step_html.caption(view), headline=view.headline, figure=figure, layout=layout,
                    filename=filename(scenario, view.step))


def filename(scenario: Scenario, step: int) -> str:
    """A downloaded figure's file name: the rule and the step as the counter shows it ('specviz-block-step-4')."""
    rule = "".join(ch if ch.isalnum() else "-" for ch in scenario.verification)
    return f"specviz-{rule}-step-{step + 1}"
