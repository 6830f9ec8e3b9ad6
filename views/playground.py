"""The Playground: p, q, depth and top-k in front of the exact verifier, animated event by event.

Thin page: widgets and layout only. Scenario editing lives in specviz.playground.form,
transitions in .state, the narrative in .view, links and files in .share, refusals in
.explain, figures in specviz.plots.playground.
"""

from __future__ import annotations

import time

import pandas as pd
import streamlit as st

from specviz.core import MAX_DEPTH
from specviz.playground import explain, form, presets, share, state, view
from specviz.plots import playground as plots
from specviz.plots import style

ss = st.session_state
FIXED, MARKOV = "Same p, q at every position", "Markov: p, q depend on the previous token"
SPEEDS = {"slow": 2.0, "normal": 1.0, "fast": 0.5}
WEIGHT_SLIDER_MAX = 50
# widget keys kept alive while presenter mode hides their widgets
KEPT = ("pg_mode", "pg_vocab", "pg_depth", "pg_draft_topk", "pg_temperature", "pg_top_k", "pg_top_p", "pg_fp32",
        "pg_seed", "pg_request", "pg_generation", "pg_presenter", "pg_speed", "pg_sliders", "pg_preset")


# --- loading a scenario into the controls ------------------------------------------------------
def _clip(value, low, high):
    return min(max(value, low), high)


def load(scenario, step: int = 0, good: bool = True) -> None:
    """Put a scenario into every control (preset, link, file, undo); good ones become the shown scenario."""
    settings = form.settings_from_scenario(scenario)
    v = scenario.vocab_size
    if good:
        ss.pg_scenario = scenario
        ss.pg_state = state.PlayState(step=step)
    ss.pg_tables = form.tables_from_scenario(scenario)
    ss.pg_table_vocab = scenario.vocab
    ss.pg_context = scenario.context_id
    ss.pg_editor_version = ss.get("pg_editor_version", 0) + 1
    ss.pg_vocab = form.vocab_text(scenario.vocab)
    ss.pg_mode = MARKOV if scenario.target.rows is not None else FIXED
    ss.pg_depth = _clip(settings.depth, 1, MAX_DEPTH)
    ss.pg_draft_topk = v if settings.draft_topk is None else _clip(settings.draft_topk, 1, v)
    ss.pg_temperature = _clip(float(settings.temperature), 0.1, 3.0)
    ss.pg_top_k = v if settings.top_k is None else _clip(settings.top_k, 1, v)
    ss.pg_top_p = _clip(float(settings.top_p), 0.05, 1.0)
    ss.pg_fp32 = settings.fp32
    ss.pg_seed = max(0, int(settings.seed))
    ss.pg_request = settings.request_id
    ss.pg_generation = max(0, int(settings.generation))


def load_preset() -> None:
    if ss.pg_preset not in presets.PRESETS:  # "custom (from a link or file)": nothing to load
        return
    current = ss.pg_scenario
    markov = ss.pg_mode == MARKOV
    try:
        vocab = form.parse_vocab(ss.pg_vocab)
    except explain.PlaygroundError:
        vocab = current.vocab
    scenario = presets.apply_preset(current.with_changes(vocab=vocab), ss.pg_preset, markov)
    load(scenario, good=not explain.check_scenario(scenario))


def undo() -> None:
    load(ss.pg_scenario, ss.pg_state.step)
    ss.pg_link_problems = []


def read_link() -> None:
    """Open the scenario of the query string when it is new (a shared link, or the gallery's switch_page)."""
    params = st.query_params.to_dict()
    if not share.has_scenario(params) or params == ss.get("pg_last_query"):
        return
    ss.pg_last_query = params
    ss.pg_presenter = params.get("presenter") == "1"
    try:
        scenario, step = share.scenario_from_query(params)
    except explain.PlaygroundError as error:
        ss.pg_link_problems = [explain.explain(error)]
        return
    problems = explain.check_scenario(scenario)
    load(scenario, step, good=not problems)
    ss.pg_preset = presets.matching_preset(scenario) or presets.CUSTOM  # honest: not "close" for any link
    ss.pg_link_problems = problems
    if problems and "pg_scenario" not in ss:
        ss.pg_scenario, ss.pg_state = presets.default_scenario(), state.PlayState()


def write_link(scenario, step: int) -> None:
    query = share.scenario_to_query(scenario, step)
    if ss.get("pg_presenter"):
        query["presenter"] = "1"
    if query != ss.get("pg_last_query"):
        st.query_params.from_dict(query)
        ss.pg_last_query = query


# --- transport callbacks (state transitions live in specviz.playground.state) --------------------
def move(transition) -> None:
    ss.pg_state = transition(ss.pg_state, ss.pg_scenario)
    ss.pg_last_tick = time.monotonic()


def new_seed() -> None:
    scenario, ss.pg_state = state.new_seed(ss.pg_scenario)
    ss.pg_scenario = scenario
    ss.pg_seed = scenario.seed


def on_table_edit(key: str, table: str) -> None:
    ss.pg_tables = form.apply_edits(ss.pg_tables, ss[key].get("edited_rows", {}), table)
    ss.pg_editor_version += 1


def apply_pending_edits() -> None:
    """Edits not applied by a callback yet (AppTest sets editor state directly) are applied at the top of a run."""
    version = ss.get("pg_editor_version", 0)
    for table in ("fixed", "tokens", "p", "q"):
        key = f"pg_{table}_{version}"
        edits = ss[key].get("edited_rows") if key in ss else None
        if edits:
            on_table_edit(key, table)
            return


def on_weight_slider(model: str, token: int) -> None:
    ss.pg_tables = form.set_weight(ss.pg_tables, model, 0, token, str(ss[f"pg_w{model}_{token}"]))
    ss.pg_editor_version += 1


def on_upload() -> None:
    upload = ss.get("pg_upload")
    if upload is None:
        return
    try:
        scenario, step = share.import_json(upload.getvalue())
    except explain.PlaygroundError as error:
        ss.pg_link_problems = [explain.explain(error)]
        return
    problems = explain.check_scenario(scenario)
    load(scenario, step, good=not problems)
    ss.pg_preset = presets.matching_preset(scenario) or presets.CUSTOM
    ss.pg_link_problems = problems


# --- the controls --------------------------------------------------------------------------------
def sidebar_controls(presenter: bool) -> None:
    with st.sidebar:
        st.toggle("Presenter mode (larger type, fewer controls)", key="pg_presenter")
        st.selectbox("Preset", [*presets.PRESETS, presets.CUSTOM], key="pg_preset",
                     help="\n\n".join(f"**{p.name}**: {p.description}" for p in presets.PRESETS.values()))
        st.button("Load preset", on_click=load_preset, width="stretch", disabled=ss.pg_preset not in presets.PRESETS)
        st.caption(presets.describe(ss.pg_preset))
        v = len(ss.pg_table_vocab)
        st.slider("Depth (drafted tokens per round)", 1, MAX_DEPTH, key="pg_depth")
        st.number_input("Seed", min_value=0, step=1, key="pg_seed")
        if presenter:
            return
        st.radio("Mode", (FIXED, MARKOV), key="pg_mode")
        st.text_input("Vocabulary (2 to 12 labels, comma-separated)", key="pg_vocab")
        ss.pg_draft_topk = _clip(ss.pg_draft_topk, 1, v)
        ss.pg_top_k = _clip(ss.pg_top_k, 1, v)
        st.slider(f"Draft top-k (support chosen before sampling; {v} = keep all)", 1, v, key="pg_draft_topk")
        st.markdown("**Target processor**")
        st.slider("Temperature (1 = unchanged)", 0.1, 3.0, step=0.05, key="pg_temperature")
        st.slider(f"Target top-k ({v} = keep all)", 1, v, key="pg_top_k")
        st.slider("Target top-p (1 = keep all)", 0.05, 1.0, step=0.05, key="pg_top_p")
        st.toggle("FP32 quantization (weights rounded to float32 first)", key="pg_fp32")
        st.text_input("Request id", key="pg_request")
        st.number_input("Generation", min_value=0, step=1, key="pg_generation")


def weight_editors(presenter: bool) -> None:
    vocab = ss.pg_table_vocab
    tables = ss.pg_tables
    version = ss.pg_editor_version
    with st.container():
        if not tables.markov:
            sliders = st.toggle("Edit weights with sliders", key="pg_sliders")
            if sliders and weight_sliders(tables, vocab):
                return
            key = f"pg_fixed_{version}"
            st.data_editor(
                form.fixed_frame(tables, vocab), key=key, on_change=on_table_edit, args=(key, "fixed"),
                disabled=[form.PN_COL, form.QN_COL], width="stretch",
                column_config={
                    form.P_COL: st.column_config.TextColumn(help="a number ≥ 0: 3, 0.25 or 1/3"),
                    form.Q_COL: st.column_config.TextColumn(help="a number ≥ 0: 3, 0.25 or 1/3"),
                    form.ALLOW_COL: st.column_config.CheckboxColumn(help="the target mask (a grammar)"),
                    form.STOP_COL: st.column_config.CheckboxColumn(help="a stop token ends the request"),
                })
            return
        key = f"pg_tokens_{version}"
        st.data_editor(form.token_frame(tables, vocab), key=key, on_change=on_table_edit, args=(key, "tokens"))
        columns = {f"t{i}": st.column_config.TextColumn(label) for i, label in enumerate(vocab)}
        for model, name in (("p", "Target p"), ("q", "Draft q")):
            left, right = st.columns(2)
            key = f"pg_{model}_{version}"
            left.markdown(f"**{name}: one row per previous token** (raw weights)")
            left.data_editor(form.markov_frame(tables, model, vocab), key=key, on_change=on_table_edit,
                             args=(key, model), column_config=columns)
            right.markdown(f"**{name}, normalized**")
            right.dataframe(form.markov_frame(tables, model, vocab, normalized=True), column_config=columns)


def weight_sliders(tables: form.Tables, vocab: tuple[str, ...]) -> bool:
    values = {}
    for model in ("p", "q"):
        for i, text in enumerate(getattr(tables, model)[0]):
            try:
                number = share.parse_weight(text)
            except explain.PlaygroundError:
                number = None
            if number is None or number != int(number) or not 0 <= number <= WEIGHT_SLIDER_MAX:
                st.info(f"Sliders take whole numbers 0..{WEIGHT_SLIDER_MAX}; ‘{text}’ needs the table.")
                return False
            values[model, i] = int(number)
    p_col, q_col = st.columns(2)
    for model, column in (("p", p_col), ("q", q_col)):
        normalized = form.normalized_text(getattr(tables, model)[0])
        column.markdown(f"**{'target p' if model == 'p' else 'draft q'}**")
        for i, label in enumerate(vocab):
            key = f"pg_w{model}_{i}"
            ss[key] = values[model, i]
            column.slider(f"{label} — {normalized[i]}", 0, WEIGHT_SLIDER_MAX, key=key,
                          on_change=on_weight_slider, args=(model, i))
    return True


def candidate_scenario():
    """The scenario the controls describe, or the problems that refuse it."""
    try:
        vocab = form.parse_vocab(ss.pg_vocab)
    except explain.PlaygroundError as error:
        return None, [explain.explain(error)]
    markov = ss.pg_mode == MARKOV
    fitted = form.fit_tables(ss.pg_tables, len(vocab), markov)
    if fitted != ss.pg_tables or vocab != ss.pg_table_vocab:
        ss.pg_tables, ss.pg_table_vocab = fitted, vocab
        ss.pg_editor_version += 1
    v = len(vocab)
    settings = form.Settings(ss.pg_depth, min(ss.pg_draft_topk, v), ss.pg_temperature, min(ss.pg_top_k, v),
                             ss.pg_top_p, ss.pg_fp32, int(ss.pg_seed), ss.pg_request, int(ss.pg_generation))
    try:
        scenario = form.to_scenario(vocab, fitted, settings, ss.pg_context)
    except explain.PlaygroundError as error:
        return None, [explain.explain(error)]
    return scenario, explain.check_scenario(scenario)


def show_problems(problems, heading: str, key: str) -> None:
    box = st.container(border=True)
    box.markdown(f"### ⚠️ {heading}")
    for problem in problems:
        box.error(problem.markdown())
    box.caption("The animation below still shows the last scenario that worked; your other settings are kept.")
    box.button("↩ Undo last edit", on_click=undo, key=key)


# --- the animation -------------------------------------------------------------------------------
def transport(presenter: bool) -> None:
    playing = ss.pg_state.playing
    cols = st.columns([1, 1, 1, 1, 1, 1.2, 1.1])
    cols[0].button("Back", icon=":material/arrow_back:", on_click=move, args=(state.step_back,), shortcut="Left",
                   width="stretch", key="pg_back", help="Step back one event (Left arrow)")
    cols[1].button("Step", icon=":material/arrow_forward:", on_click=move, args=(state.step_forward,),
                   shortcut="Right", width="stretch", key="pg_forward", type="primary",
                   help="Step forward one event (Right arrow); past a round's end it plays the next round")
    cols[2].button("Pause" if playing else "Play", icon=":material/pause:" if playing else ":material/play_arrow:",
                   on_click=move, args=(state.toggle_play,), width="stretch", key="pg_play")
    cols[3].selectbox("Speed", list(SPEEDS), key="pg_speed", label_visibility="collapsed",
                      help="Play speed: one event every 2 s, 1 s or 0.5 s")
    cols[4].button("Reset", icon=":material/restart_alt:", on_click=move, args=(state.reset,), width="stretch",
                   key="pg_reset", help="Back to the first event of round 0")
    cols[5].button("Next round", icon=":material/skip_next:", on_click=move, args=(state.next_round,),
                   width="stretch", key="pg_next", help="Draft the next block from the committed text")
    cols[6].button("New seed", icon=":material/casino:", on_click=new_seed, width="stretch", key="pg_new_seed",
                   help="Seed + 1: new draws, same distributions")


def animation(presenter: bool) -> None:
    """The fragment body: one event of the trace, its charts, the text so far, history and stats."""
    scenario = ss.pg_scenario
    interval = SPEEDS[ss.pg_speed]
    now = time.monotonic()
    if ss.pg_state.playing and state.due(ss.get("pg_last_tick", 0.0), now, interval):
        ss.pg_state = state.play_tick(ss.pg_state, scenario)
        ss.pg_last_tick = now
        if not ss.pg_state.playing:
            st.rerun()  # stop the timer
    ss.pg_state = state.clamp(ss.pg_state, scenario)
    try:
        step_view = view.step_view(scenario, ss.pg_state.step)
    except Exception as error:  # noqa: BLE001 - refusals become messages, never tracebacks
        problem = explain.explain(error, scenario=scenario)
        st.error(problem.markdown())
        return
    write_link(scenario, step_view.step)
    if ss.pg_state.notice:
        st.info(ss.pg_state.notice)

    event = step_view.event
    st.caption(f"Step {step_view.step + 1} · round {step_view.round_id} · event {step_view.position_in_round + 1} "
               f"of {step_view.events_in_round} · {view.PHASE_TITLES[step_view.phase]}")
    st.subheader(step_view.headline)
    if presenter or event.kind == "correction":  # full width (the residual has two panels); words beneath
        main = st.container()
        side, draw_box = st.columns(2)
    else:
        main, side = st.columns([3, 2])
        draw_box = side
    figure, draw = plots.event_figures(event, step_view.round_events, scenario.vocab, scenario.depth,
                                       presenter=presenter)
    main.plotly_chart(figure, key="pg_main_chart", config={"displaylogo": False}, theme=None)
    side.markdown("\n".join(f"- {line}" for line in step_view.lines))
    if draw is not None:
        draw_box.plotly_chart(draw, key="pg_draw_chart", config={"displayModeBar": False}, theme=None)

    st.markdown("**Committed text** &nbsp; " + style.legend_html() +
                f" &nbsp; <span style='color:{style.role('q').color}'>{style.role('q').glyph} drafted, not yet "
                "checked</span>", unsafe_allow_html=True)
    st.markdown(view.committed_html(step_view, scenario.vocab), unsafe_allow_html=True)

    stats = step_view.stats
    left, right = st.columns([1, 1])
    with left:
        st.markdown("**Rounds so far**")
        rows = [{"round": h.round_id, "drafted": h.drafted, "accepted": h.accepted,
                 "rejected at": "—" if h.rejected_at is None else h.rejected_at, "committed": h.committed,
                 "tokens": h.tokens} for h in step_view.history]
        st.dataframe(pd.DataFrame(rows, columns=["round", "drafted", "accepted", "rejected at", "committed",
                                                 "tokens"]), hide_index=True)
    with right:
        st.markdown(view.stats_markdown(stats))
        if stats.note:
            st.caption(stats.note)
    if not presenter and step_view.history:
        last = []
        for h in step_view.history:
            kind = "correction" if h.rejected_at is not None else ("none" if h.tokens == h.accepted else "bonus")
            last.append((h.round_id, h.accepted, kind))
        st.plotly_chart(plots.history_figure(last, scenario.depth, stats.expected), key="pg_history_chart",
                        config={"displayModeBar": False}, theme=None)


def sharing(scenario, step: int) -> None:
    with st.container():
        query = share.scenario_to_query(scenario, step)
        base = ""
        try:
            base = (st.context.url or "").split("?")[0]
        except Exception:  # noqa: BLE001 - no browser context (tests)
            base = ""
        st.markdown("**Copy link** (the copy icon is at the right of the box): it reopens this scenario at this step.")
        st.code(base + share.query_string(query), language=None, wrap_lines=True)
        timeline = state.timeline_for(scenario)
        trace = None
        if timeline.rounds:
            from specviz.core import Trace

            trace = Trace()
            upto = timeline.round_of(min(step, len(timeline.events) - 1))
            for played in timeline.rounds[: upto + 1]:
                trace.extend(played.trace)
        st.download_button("⬇ Download scenario + trace (JSON)", share.export_json(scenario, step, trace),
                           file_name=f"specviz-playground-seed{scenario.seed}.json", mime="application/json",
                           key="pg_download")
        st.file_uploader("Load a downloaded scenario (JSON)", type=["json"], key="pg_upload", on_change=on_upload)


# --- the page --------------------------------------------------------------------------------------
def main() -> None:
    for key in KEPT:
        if key in ss:
            ss[key] = ss[key]
    ss.setdefault("pg_presenter", False)
    ss.setdefault("pg_speed", "normal")
    ss.setdefault("pg_sliders", False)
    ss.setdefault("pg_preset", presets.DEFAULT_PRESET)
    ss.setdefault("pg_link_problems", [])
    read_link()
    if "pg_scenario" not in ss:
        load(presets.default_scenario())
    apply_pending_edits()
    presenter = ss.pg_presenter
    # one short header line (none in presenter mode), so the first screen at 1280x800 holds the whole chart
    if presenter:
        st.html("<style>.stMainBlockContainer .stMarkdown p, .stMainBlockContainer .stMarkdown li "
                "{font-size: 1.45rem !important;} .stMainBlockContainer [data-testid='stCaptionContainer'] p "
                "{font-size: 1.05rem !important;} .stMainBlockContainer h3 {font-size: 1.9rem !important;}</style>")
    else:
        st.markdown("#### 🎛️ Playground :gray[· draft q proposes, target p verifies, exactly]")
    candidate, problems = candidate_scenario()
    link_problems = ss.pg_link_problems
    ss.pg_link_problems = []  # shown once, on the run that opened the link or file
    if link_problems:
        show_problems(link_problems, "The link or file asked for settings that are refused", "pg_undo_link")
    if problems:
        show_problems(problems, "This setting is refused", "pg_undo")
    elif candidate != ss.pg_scenario:
        ss.pg_state = state.after_edit(ss.pg_state, ss.pg_scenario, candidate)
        ss.pg_scenario = candidate

    sidebar_controls(presenter)
    tab_animation, tab_weights, tab_share = st.tabs(["▶ Animation", "✏️ p and q weights, mask, stop tokens",
                                                     "🔗 Share, download, load"])
    with tab_weights:
        weight_editors(presenter)
    with tab_animation:
        transport(presenter)
        playing = ss.pg_state.playing
        st.fragment(animation, run_every=SPEEDS[ss.pg_speed] if playing else None)(presenter)
    with tab_share:
        sharing(ss.pg_scenario, ss.pg_state.step)


main()
