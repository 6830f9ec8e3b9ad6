"""The Playground's Animation tab: the transport row and the fragment that draws one event of the trace."""

from __future__ import annotations

import dataclasses
import html
import time

import streamlit as st

from ..core.verification import rule
from ..playground import explain, state
from ..playground import narrative as view
from ..plots import committed_text, draw_strip, style
from ..plots import playground as plots
from ..scenario import Scenario
from . import playground_actions as actions
from . import playground_lecture as lecture
from .playground_state import Keys, PlaygroundSession, session

S = PlaygroundSession
SPEEDS = {"slow": 2.0, "normal": 1.0, "fast": 0.5}
NO_BAR = {"displayModeBar": False}
PRESENTER_CHIPS = 7  # one line of presenter-size chips in the chart's column at 1280 px
PRESENTER_CHART_HEIGHT = 420  # the plots' presenter height is 470: 50 px go to the committed text


def transport() -> None:
    """Back, Step, Play, speed, Reset, Next round, New seed: one horizontal row (fewer elements to redraw)."""
    playing = session().state.playing
    row = st.container(horizontal=True, gap="small", vertical_alignment="center")
    row.button("Back", icon=":material/arrow_back:", on_click=lecture.on_back,
               shortcut="Left", width="stretch", key=Keys.back, help="Step back one event (Left arrow, PageUp)")
    row.button("Step", icon=":material/arrow_forward:", on_click=lecture.on_step,
               shortcut="Right", width="stretch", key=Keys.forward, type="primary",
               help="Step forward one event (Right arrow, PageDown, Space); past a round's end it plays the "
                    "next round; in a lecture, past an entry's end it opens the next entry")
    row.button("Pause" if playing else "Play", icon=":material/pause:" if playing else ":material/play_arrow:",
               on_click=actions.move_and_rerun_page, args=(state.toggle_play,), width="stretch", key=Keys.play)
    row.selectbox("Speed", list(SPEEDS), key=S.speed.key, label_visibility="collapsed", on_change=actions.on_speed,
                  help="Play speed: one event every 2 s, 1 s or 0.5 s", width=110)
    row.button("Reset", icon=":material/restart_alt:", on_click=actions.move, args=(state.reset,),
               width="stretch", key=Keys.reset, help="Back to the first event of round 0")
    row.button("Next round", icon=":material/skip_next:", on_click=actions.move, args=(state.next_round,),
               width="stretch", key=Keys.next_round, help="Draft the next block from the committed text")
    row.button("New seed", icon=":material/casino:", on_click=actions.new_seed, width="stretch",
               key=Keys.new_seed, help="Seed + 1: new draws, same distributions")


def tick(pg: PlaygroundSession, scenario: Scenario) -> None:
    """Play's timer: one step when a tick is due; the page reruns when the animation stops."""
    interval = SPEEDS[pg.speed]
    now = time.monotonic()
    if pg.state.playing and state.due(pg.last_tick, now, interval):
        pg.state = state.play_tick(pg.state, scenario)
        pg.last_tick = state.next_tick(pg.last_tick, now, interval)
        if not pg.state.playing:
            st.rerun()  # stop the timer
    pg.state = state.clamp(pg.state, scenario)


def animation(presenter: bool) -> None:
    """The fragment body: the transport buttons, one event of the trace, its charts, the text so far, history
    and stats. Step, Back, Reset and Next round rerun only this fragment (the sidebar and the tabs stay)."""
    pg = session()
    if pg.take("full_rerun"):
        st.rerun()  # Play, Pause, speed or New seed: the page's timer or sidebar changes
    transport()
    scenario = pg.scenario
    tick(pg, scenario)
    try:
        step_view = view.step_view(scenario, pg.state.step)
    except Exception as error:  # noqa: BLE001 - refusals become messages, never tracebacks
        st.error(explain.explain(error, scenario=scenario).markdown())
        return
    actions.write_link(scenario, step_view.step)
    if pg.state.notice:
        st.info(pg.state.notice)
    event_view(step_view, scenario, presenter)
    rounds_and_stats(step_view, scenario, presenter)
    pg.remember()  # the speed box lives in this fragment


def event_view(step_view, scenario: Scenario, presenter: bool) -> None:
    """The step's caption and headline, its charts, its narration and the committed text."""
    event = step_view.event
    # the caption line also holds the "jump to" menu, right under Step (the transport row is full at 1280 px)
    line = st.container(horizontal=True, vertical_alignment="center", gap="small")
    lecture.jump_box(line)  # first rejection, next correction, next bonus, round end
    line.caption(f"Step {step_view.step + 1} · round {step_view.round_id} · event {step_view.position_in_round + 1} "
                 f"of {step_view.events_in_round} · {view.PHASE_TITLES[step_view.phase]}")
    lecture.banner(line)  # a lecture's entry and the buttons to the others, on the same line
    st.subheader(step_view.headline)
    figure, draw = plots.event_figures(event, step_view.round_events, scenario.vocab, scenario.depth,
                                       presenter=presenter)
    if presenter:  # distributions left, the draw and the numbers right: all of it on one 1280x800 screen
        # a block check narrates more numbers (w_i, ρ_i, h_i): its words get half the width
        main, side = st.columns([1, 1] if event.kind == "block_check" else [3, 2])
        draw_box = side
    elif event.kind == "correction":  # full width (the residual has two panels); words beneath
        main = st.container()
        side, draw_box = st.columns(2)
    else:
        main, side = st.columns([3, 2])
        draw_box = side
    if presenter:  # a little shorter, so the committed text fits beneath it on a 1280x800 screen
        figure.update_layout(height=PRESENTER_CHART_HEIGHT)
    main.plotly_chart(figure, key=Keys.main_chart, config=NO_BAR, theme=None)
    if draw is not None:  # inline SVG: a plotly figure here cost ~40 ms of every Step in the browser
        draw_box.container(key=Keys.draw_chart).markdown(draw_strip.svg(draw, presenter=presenter),
                                                         unsafe_allow_html=True)
    # the narration, its exact values (folded), the committed text and the rounds table are each one
    # markdown element: every element is redrawn on each Step, and fewer make the step land sooner
    exact = view.exact_values_html(view.exact_values(event, scenario.vocab))
    lines = "\n".join(f"- {html.escape(line, quote=False)}" for line in step_view.lines)  # text stays text
    side.markdown(lines + ("\n\n" + exact if exact else ""), unsafe_allow_html=True)
    # presenter mode: under the chart, where the first screen still shows it; else the page's full width
    (main if presenter else st).container(key=Keys.committed).markdown(
        committed_markdown(step_view, scenario, presenter), unsafe_allow_html=True)


def presenter_tail(step_view: view.StepView) -> view.StepView:
    """The step with only its last committed tokens: with the pending drafts, PRESENTER_CHIPS chips at most."""
    keep = max(PRESENTER_CHIPS - len(view.pending_drafts(step_view)), 2)
    if len(step_view.committed) <= keep:
        return step_view
    return dataclasses.replace(step_view, committed=step_view.committed[-keep:])


def committed_markdown(step_view, scenario: Scenario, presenter: bool) -> str:
    """The committed text as chips, under a legend of their colours (in presenter mode a smaller one-line
    legend, so legend and chips fit under the chart's column)."""
    legend = (style.legend_html() + f" &nbsp; <span style='color:{style.role('q').color}'>{style.role('q').glyph} "
              "drafted, not yet checked</span>")
    if presenter:  # one line of chips under the chart: the last few tokens, and how many there are
        shown = presenter_tail(step_view)
        chips = committed_text.committed_html(shown, scenario.vocab, large=True)
        total = len(step_view.committed)
        count = f" (last {len(shown.committed)} of {total})" if len(shown.committed) < total else ""
        return (f"<div style='font-size:0.95rem;white-space:nowrap'><b>Committed text</b>{count} &nbsp; {legend}"
                f"</div>{chips}")
    chips = committed_text.committed_html(step_view, scenario.vocab)
    return f"**Committed text** &nbsp; {legend}\n\n{chips}"


def rounds_and_stats(step_view, scenario: Scenario, presenter: bool) -> None:
    """The finished rounds, the running statistics and (outside presenter mode) the history chart."""
    stats = step_view.stats
    left, right = st.columns([1, 1] if presenter else [3, 2])  # six columns of rounds need the room
    block = rule(scenario.verification).family == "block"
    left.markdown(view.rounds_html(step_view, block, last=4 if presenter else 8), unsafe_allow_html=True)
    note = f"\n\n<span style='color:#555'>{html.escape(stats.note)}</span>" if stats.note else ""
    right.markdown(view.compact(view.stats_markdown(stats)) + note, unsafe_allow_html=True)
    if not presenter and step_view.history:
        st.plotly_chart(plots.history_figure(state.history_points(step_view.history), scenario.depth,
                                             stats.expected),
                        key=Keys.history_chart, config=NO_BAR, theme=None)
