"""The Playground: p, q, depth and top-k in front of the exact verifier, animated event by event.

Thin page: widgets and layout only. Scenario editing lives in specviz.playground.form,
transitions in .state, the narrative in .view, links and files in .share, refusals in
.explain, the proof of exactness in .proof, many rounds in .many_rounds, figures in
specviz.plots.
"""

from __future__ import annotations

import html
import time

import streamlit as st

from specviz.core import MAX_DEPTH
from specviz.playground import explain, form, many_rounds, presets, proof, share, state
from specviz.playground import narrative as view
from specviz.plots import draw_strip, style
from specviz.plots import many_rounds as many_plots
from specviz.plots import playground as plots
from specviz.plots import proof as proof_plots

ss = st.session_state
FIXED, MARKOV = "Same p, q at every position", "Markov: p, q depend on the previous token"
SPEEDS = {"slow": 2.0, "normal": 1.0, "fast": 0.5}
VERIFICATION_NAMES = {"token": "tokenwise", "block": "block"}
WEIGHT_SLIDER_MAX = 50
TAB_ANIMATION, TAB_PROOF, TAB_MANY = "▶ Animation", "🧮 Why exactly p", "📊 Many rounds"
TAB_WEIGHTS, TAB_SHARE = "✏️ p and q weights, mask, stop tokens", "🔗 Share, download, load"
TABS = (TAB_ANIMATION, TAB_PROOF, TAB_MANY, TAB_WEIGHTS, TAB_SHARE)
# widget keys kept alive while presenter mode or a closed tab hides their widgets
KEPT = ("pg_mode", "pg_vocab", "pg_verification", "pg_depth", "pg_draft_topk", "pg_temperature", "pg_top_k",
        "pg_top_p", "pg_fp32", "pg_seed", "pg_request", "pg_generation", "pg_presenter", "pg_speed", "pg_sliders",
        "pg_preset", "pg_many_n", "pg_many_bug", "pg_many_seed")
MARKOV_COPY_NOTE = ("Markov mode: every row after a token starts as a copy of the start row, so nothing looks "
                    "different yet. Edit the rows in the weights tab, or pick a preset: presets have a Markov "
                    "form.")
# PageDown/PageUp (and Space) from a presentation clicker step the animation where no text field has focus;
# stepping replaces the browser-history entry instead of adding one per step
KEYS_JS = """
<script>
(() => {
  const w = window.parent;
  if (!w || w.__specvizPlaygroundKeys) return;
  w.__specvizPlaygroundKeys = true;
  const onPlayground = () => w.location.pathname.replace(/\\/$/, "").endsWith("/playground");
  const push = w.history.pushState.bind(w.history);
  w.history.pushState = (data, title, url) => {
    try {
      const next = new URL(url, w.location.href);
      if (onPlayground() && next.pathname === w.location.pathname) return w.history.replaceState(data, title, url);
    } catch (e) {}
    return push(data, title, url);
  };
  w.document.addEventListener("keydown", (event) => {
    if (!onPlayground() || event.altKey || event.ctrlKey || event.metaKey) return;
    const el = w.document.activeElement;
    const typing = el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName)
      || el.closest('[data-testid="stDataFrame"], [data-testid="stDataEditor"], [role="grid"]'));
    if (typing) return;
    let key = null;
    if (event.key === "PageDown" || (event.key === " " && !(el && el.tagName === "BUTTON"))) key = "pg_forward";
    if (event.key === "PageUp") key = "pg_back";
    if (!key) return;
    const button = w.document.querySelector(".st-key-" + key + " button");
    if (button) { event.preventDefault(); event.stopPropagation(); button.click(); }
  }, true);
})();
</script>
"""
PRESENTER_CSS = """<style>
.stMainBlockContainer {padding-top: 3.2rem !important; padding-bottom: 1rem !important;}
.stMainBlockContainer .stMarkdown p, .stMainBlockContainer .stMarkdown li {font-size: 1.3rem !important;}
.stMainBlockContainer [data-testid='stCaptionContainer'] p {font-size: 1.05rem !important;}
.stMainBlockContainer h3 {font-size: 1.65rem !important; padding: 0.1rem 0 0.3rem 0 !important;}
.stMainBlockContainer [data-testid='stTable'] td, .stMainBlockContainer [data-testid='stTable'] th
  {font-size: 1.2rem !important;}
.stMainBlockContainer [data-testid='stMarkdownContainer'] table td,
.stMainBlockContainer [data-testid='stMarkdownContainer'] table th {font-size: 1.2rem !important;}
</style>"""


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
    ss.pg_verification = settings.verification
    ss.pg_depth = _clip(settings.depth, 1, MAX_DEPTH)
    ss.pg_draft_topk = v if settings.draft_topk is None else _clip(settings.draft_topk, 1, v)
    ss.pg_temperature = _clip(float(settings.temperature), *form.TEMPERATURE_RANGE)
    ss.pg_top_k = v if settings.top_k is None else _clip(settings.top_k, 1, v)
    ss.pg_top_p = _clip(float(settings.top_p), *form.TOP_P_RANGE)
    ss.pg_fp32 = settings.fp32
    ss.pg_seed = str(_clip(int(settings.seed), 0, form.SEED_MAX))
    ss.pg_request = settings.request_id
    ss.pg_generation = _clip(int(settings.generation), 0, form.SEED_MAX)


def load_preset() -> None:
    """The preset box applies its choice at once; the scenario before it is kept for Undo."""
    if ss.pg_preset not in presets.PRESETS:  # "custom (from a link or file)": nothing to load
        return
    current = ss.pg_scenario
    markov = ss.pg_mode == MARKOV
    try:
        vocab = form.parse_vocab(ss.pg_vocab)
    except explain.PlaygroundError:
        vocab = current.vocab
    scenario = presets.apply_preset(current.with_changes(vocab=vocab), ss.pg_preset, markov)
    ss.pg_preset_undo = (current, ss.pg_state.step, ss.get("pg_preset_before", presets.CUSTOM))
    ss.pg_preset_before = ss.pg_preset
    load(scenario, good=not explain.check_scenario(scenario))


def undo_preset() -> None:
    scenario, step, name = ss.pop("pg_preset_undo")
    load(scenario, step)
    ss.pg_preset = ss.pg_preset_before = name


def on_mode_change() -> None:
    """Switching to Markov: a preset's weights take its Markov form; other weights are copied row by row."""
    ss.pg_mode_note = ""
    markov = ss.pg_mode == MARKOV
    current = ss.pg_scenario
    name = presets.matching_preset(current)
    if markov and name is not None:
        load(presets.apply_preset(current, name, True))
    elif markov:
        ss.pg_mode_note = MARKOV_COPY_NOTE


def undo() -> None:
    load(ss.pg_scenario, ss.pg_state.step)
    ss.pg_link_problems = []
    ss.pg_link_note = ""


def open_scenario(scenario, step: int, source: str) -> None:
    """Open a link's or file's scenario: fitted to the controls (each change said in one line), then checked."""
    scenario, notes = form.fit_to_controls(scenario, MAX_DEPTH)
    ss.pg_link_note = form.alterations_line(notes, source) if notes else ""
    problems = explain.check_scenario(scenario)
    load(scenario, step, good=not problems)
    ss.pg_preset = ss.pg_preset_before = presets.matching_preset(scenario) or presets.CUSTOM
    ss.pop("pg_preset_undo", None)
    ss.pg_link_problems = problems


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
    open_scenario(scenario, step, "link")
    if ss.pg_link_problems and "pg_scenario" not in ss:
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
    ss.pg_seed = str(scenario.seed)
    ss.pg_full_rerun = True  # the sidebar's seed box shows the new seed


def move_and_rerun_page(transition) -> None:
    """Play/Pause: the page decides the animation's timer, so the whole page reruns, not just the animation."""
    move(transition)
    ss.pg_full_rerun = True


def on_speed() -> None:
    ss.pg_full_rerun = bool(ss.pg_state.playing)  # only a running timer needs the page to set its new interval


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
    open_scenario(scenario, step, "file")


# --- the controls --------------------------------------------------------------------------------
def sidebar_controls(presenter: bool) -> None:
    with st.sidebar:
        st.toggle("Presenter mode (larger type, fewer controls)", key="pg_presenter")
        st.selectbox("Preset (applies at once)", [*presets.PRESETS, presets.CUSTOM], key="pg_preset",
                     on_change=load_preset,
                     help="\n\n".join(f"**{p.name}**: {p.description}" for p in presets.PRESETS.values()))
        st.caption(presets.describe(ss.pg_preset))
        if "pg_preset_undo" in ss:
            st.button(f"↩ Undo preset (back to {ss.pg_preset_undo[2]})", on_click=undo_preset, key="pg_undo_preset",
                      width="stretch")
        v = len(ss.pg_table_vocab)
        st.radio("Verification", list(VERIFICATION_NAMES), key="pg_verification", horizontal=True,
                 format_func=VERIFICATION_NAMES.get,
                 help="tokenwise: each draft accepted on its own with min(1, p/q); block (Sun et al. 2025): the "
                      "block's running weights decide how many drafts to keep at once. Both are exact.")
        st.slider("Depth (drafted tokens per round)", 1, MAX_DEPTH, key="pg_depth")
        st.text_input("Seed", key="pg_seed", help=f"a whole number from 0 to {form.SEED_MAX:,}; "
                      "New seed (under the chart) adds 1")
        if presenter:
            return
        st.radio("Mode", (FIXED, MARKOV), key="pg_mode", on_change=on_mode_change)
        st.text_input("Vocabulary (2 to 12 labels, comma-separated)", key="pg_vocab")
        ss.pg_draft_topk = _clip(ss.pg_draft_topk, 1, v)
        ss.pg_top_k = _clip(ss.pg_top_k, 1, v)
        st.slider(f"Draft top-k (support chosen before sampling; {v} = keep all)", 1, v, key="pg_draft_topk")
        st.markdown("**Target processor**")
        st.slider("Temperature (1 = unchanged)", *form.TEMPERATURE_RANGE, step=0.05, key="pg_temperature")
        st.slider(f"Target top-k ({v} = keep all)", 1, v, key="pg_top_k")
        st.slider("Target top-p (1 = keep all)", *form.TOP_P_RANGE, step=0.05, key="pg_top_p")
        filters = [f"{name} {k}" for name, k in (("draft top-k", ss.pg_draft_topk), ("target top-k", ss.pg_top_k))
                   if k < v]
        if filters:
            st.caption("Active filters: " + ", ".join(filters) + " (kept when the vocabulary changes).")
        st.toggle("FP32 quantization (weights rounded to float32 first)", key="pg_fp32")
        st.text_input("Request id", key="pg_request")
        st.number_input("Generation", min_value=0, step=1, key="pg_generation")


def weight_editors() -> None:
    vocab = ss.pg_table_vocab
    tables = ss.pg_tables
    version = ss.pg_editor_version
    fp32 = bool(ss.pg_fp32)
    if ss.get("pg_mode_note") and tables.markov:
        st.info(ss.pg_mode_note)
    if not tables.markov:
        sliders = st.toggle("Edit weights with sliders", key="pg_sliders")
        if sliders and weight_sliders(tables, vocab):
            return
        key = f"pg_fixed_{version}"
        normalized = "normalized, as FP32 rounds it" if fp32 else "normalized"
        st.data_editor(
            form.fixed_frame(tables, vocab, fp32), key=key, on_change=on_table_edit, args=(key, "fixed"),
            disabled=[form.PN_COL, form.QN_COL], width="stretch",
            column_config={
                form.P_COL: st.column_config.TextColumn(help="a number ≥ 0: 3, 0.25 or 1/3"),
                form.PN_COL: st.column_config.TextColumn(help=f"p {normalized}; ⚠ marks a refused weight"),
                form.Q_COL: st.column_config.TextColumn(help="a number ≥ 0: 3, 0.25 or 1/3"),
                form.QN_COL: st.column_config.TextColumn(help=f"q {normalized}; ⚠ marks a refused weight"),
                form.ALLOW_COL: st.column_config.CheckboxColumn(help="the target mask (a grammar)"),
                form.STOP_COL: st.column_config.CheckboxColumn(help="a stop token ends the request"),
            })
        if fp32:
            st.caption("FP32 on: the normalized columns show the weights as float32 holds them; a weight FP32 "
                       "flushes to 0 or keeps as a subnormal is marked.")
        return
    key = f"pg_tokens_{version}"
    st.data_editor(form.token_frame(tables, vocab), key=key, on_change=on_table_edit, args=(key, "tokens"))
    # at V = 12 every column must fit beside the sidebar at 1280 px: narrow fixed widths
    width = "small" if len(vocab) <= 8 else 54
    columns = {f"t{i}": st.column_config.TextColumn(style.token_label(label), width=width)
               for i, label in enumerate(vocab)}
    side_by_side = len(vocab) <= 6  # wider tables go one under the other so no column is cut off at 1280
    for model, name in (("p", "Target p"), ("q", "Draft q")):
        key = f"pg_{model}_{version}"
        left, right = st.columns(2) if side_by_side else (st.container(), st.container())
        left.markdown(f"**{name}: one row per previous token** (raw weights)")
        left.data_editor(form.markov_frame(tables, model, vocab), key=key, on_change=on_table_edit,
                         args=(key, model), column_config=columns)
        right.markdown(f"**{name}, normalized**" + (" (as FP32 rounds it)" if fp32 else ""))
        right.dataframe(form.markov_frame(tables, model, vocab, normalized=True, fp32=fp32,
                                          compact=not side_by_side), column_config=columns)


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
        normalized = form.normalized_text(getattr(tables, model)[0], bool(ss.pg_fp32))
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
        old_v, v = len(ss.pg_table_vocab), len(vocab)
        if old_v != v:  # "keep all" stays keep all; a filter the user set is kept
            ss.pg_draft_topk = form.resize_topk(ss.pg_draft_topk, old_v, v)
            ss.pg_top_k = form.resize_topk(ss.pg_top_k, old_v, v)
        ss.pg_tables, ss.pg_table_vocab = fitted, vocab
        ss.pg_editor_version += 1
    try:
        seed = form.seed_from_text(ss.pg_seed)
    except explain.PlaygroundError as error:
        return None, [explain.explain(error)]
    v = len(vocab)
    settings = form.Settings(ss.pg_depth, min(ss.pg_draft_topk, v), ss.pg_temperature, min(ss.pg_top_k, v),
                             ss.pg_top_p, ss.pg_fp32, seed, ss.pg_request, int(ss.pg_generation), ss.pg_verification)
    try:
        scenario = form.to_scenario(vocab, fitted, settings, ss.pg_context)
    except explain.PlaygroundError as error:
        return None, [explain.explain(error)]
    return scenario, explain.check_scenario(scenario)


def show_problems(problems, heading: str, caption: str) -> None:
    """One box for every refusal of this run, with one Undo; refused weight cells are named."""
    box = st.container(border=True)
    box.markdown(f"### ⚠️ {heading}")
    for problem in problems:
        box.error(problem.markdown())
    cells = form.flagged_cells(ss.pg_tables, ss.pg_table_vocab, bool(ss.pg_fp32))
    if cells:
        box.markdown("**Refused cells** (marked ⚠ in the weights tab): " + "; ".join(cells))
    box.caption(caption)
    box.button("↩ Undo last edit", on_click=undo, key="pg_undo")


# --- the animation -------------------------------------------------------------------------------
def transport() -> None:
    playing = ss.pg_state.playing
    # one horizontal row (not seven columns): every element here is re-sent and redrawn on each Step
    row = st.container(horizontal=True, gap="small", vertical_alignment="center")
    row.button("Back", icon=":material/arrow_back:", on_click=move, args=(state.step_back,), shortcut="Left",
               width="stretch", key="pg_back", help="Step back one event (Left arrow, PageUp)")
    row.button("Step", icon=":material/arrow_forward:", on_click=move, args=(state.step_forward,),
               shortcut="Right", width="stretch", key="pg_forward", type="primary",
               help="Step forward one event (Right arrow, PageDown, Space); past a round's end it plays the "
                    "next round")
    row.button("Pause" if playing else "Play", icon=":material/pause:" if playing else ":material/play_arrow:",
               on_click=move_and_rerun_page, args=(state.toggle_play,), width="stretch", key="pg_play")
    row.selectbox("Speed", list(SPEEDS), key="pg_speed", label_visibility="collapsed", on_change=on_speed,
                  help="Play speed: one event every 2 s, 1 s or 0.5 s", width=110)
    row.button("Reset", icon=":material/restart_alt:", on_click=move, args=(state.reset,), width="stretch",
               key="pg_reset", help="Back to the first event of round 0")
    row.button("Next round", icon=":material/skip_next:", on_click=move, args=(state.next_round,),
               width="stretch", key="pg_next", help="Draft the next block from the committed text")
    row.button("New seed", icon=":material/casino:", on_click=new_seed, width="stretch", key="pg_new_seed",
               help="Seed + 1: new draws, same distributions")


def animation(presenter: bool) -> None:
    """The fragment body: the transport buttons, one event of the trace, its charts, the text so far, history
    and stats. Step, Back, Reset and Next round rerun only this fragment (the sidebar and the tabs stay)."""
    if ss.pop("pg_full_rerun", False):
        st.rerun()  # Play, Pause, speed or New seed: the page's timer or sidebar changes
    transport()
    scenario = ss.pg_scenario
    interval = SPEEDS[ss.pg_speed]
    now = time.monotonic()
    if ss.pg_state.playing and state.due(ss.get("pg_last_tick", 0.0), now, interval):
        ss.pg_state = state.play_tick(ss.pg_state, scenario)
        ss.pg_last_tick = state.next_tick(ss.get("pg_last_tick", 0.0), now, interval)
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
    main.plotly_chart(figure, key="pg_main_chart", config={"displayModeBar": False}, theme=None)
    if draw is not None:  # inline SVG: a plotly figure here cost ~40 ms of every Step in the browser
        draw_box.container(key="pg_draw_chart").markdown(draw_strip.svg(draw, presenter=presenter),
                                                         unsafe_allow_html=True)
    # the narration, its exact values (folded), the committed text and the rounds table are each one
    # markdown element: every element is redrawn on each Step, and fewer make the step land sooner
    exact = view.exact_values_html(view.exact_values(event, scenario.vocab))
    lines = "\n".join(f"- {html.escape(line, quote=False)}" for line in step_view.lines)  # text stays text
    side.markdown(lines + ("\n\n" + exact if exact else ""), unsafe_allow_html=True)
    st.markdown("**Committed text** &nbsp; " + style.legend_html() +
                f" &nbsp; <span style='color:{style.role('q').color}'>{style.role('q').glyph} drafted, not yet "
                "checked</span>\n\n" + view.committed_html(step_view, scenario.vocab, large=presenter),
                unsafe_allow_html=True)

    stats = step_view.stats
    left, right = st.columns([1, 1] if presenter else [3, 2])  # six columns of rounds need the room
    left.markdown(view.rounds_html(step_view, scenario.verification == "block", last=4 if presenter else 8),
                  unsafe_allow_html=True)
    note = f"\n\n<span style='color:#555'>{html.escape(stats.note)}</span>" if stats.note else ""
    right.markdown(view.compact(view.stats_markdown(stats)) + note, unsafe_allow_html=True)
    if not presenter and step_view.history:
        last = []
        for h in step_view.history:
            kind = "correction" if h.rejected_at is not None else ("none" if h.tokens == h.accepted else "bonus")
            last.append((h.round_id, h.accepted, kind))
        st.plotly_chart(plots.history_figure(last, scenario.depth, stats.expected), key="pg_history_chart",
                        config={"displayModeBar": False}, theme=None)


# --- why the output is exactly p ---------------------------------------------------------------------
def proof_tab(presenter: bool) -> None:
    scenario = ss.pg_scenario
    timeline = state.timeline_for(scenario)
    st_state = state.clamp(ss.pg_state, scenario)
    prefix: tuple[int, ...] = ()
    if timeline.events:
        event = timeline.events[st_state.step]
        prefix = proof.event_prefix(event, timeline.rounds[timeline.round_of(st_state.step)].trace.events)
    try:
        pr = proof.proof_at(scenario, prefix)
    except Exception as error:  # noqa: BLE001 - a refusal is a message
        st.error(explain.explain(error, scenario=scenario).markdown())
        return
    if scenario.verification == "block":
        st.info(proof.BLOCK_NOTE)
    after = "at the start (nothing before)" if not prefix else \
        f"after **{view.text_of(scenario, prefix)}** (the animation's current position)"
    if scenario.target.rows is None:
        after = "at every position (fixed mode)"
    v = scenario.vocab_size
    left, right = st.columns([3, 2], vertical_alignment="bottom")
    left.markdown(f"A drafted token is committed either **accepted** (mass min(p, q)) or, after a **rejection** "
                  f"(total 1 − α), as a **correction** from r = (p − q)+ / (1 − α). Here p and q {after}, with "
                  "the target's processors and mask and the draft's top-k.")
    shown = right.slider("Add the corrections token by token", 0, v, value=v, key=f"pg_proof_k_{v}",
                         help="0: only the accepted mass; each step stacks one token's correction mass on top")
    st.plotly_chart(proof_plots.proof_figure(pr, shown, presenter=presenter, height=430 if presenter else 420),
                    key="pg_proof_chart", config={"displayModeBar": False}, theme=None)
    mass = proof_plots.exact(pr.rejection)
    st.markdown(f"Rejected draft mass Σ (q − p)+ = **1 − α = {mass}** = Σ (p − q)+, the mass the corrections "
                f"add back: min(p, q)(x) + (1 − α)·r(x) = **p(x)** for every token"
                + (": p rebuilt exactly." if shown == v else "."))
    with st.expander("Every token as exact fractions"):
        import pandas as pd

        st.dataframe(pd.DataFrame(proof_plots.proof_rows(pr), dtype="string"), hide_index=True, width="stretch")


# --- many rounds at once --------------------------------------------------------------------------------
def many_rounds_tab(presenter: bool) -> None:
    scenario = ss.pg_scenario
    cols = st.columns([2, 2, 1, 1], vertical_alignment="bottom")
    n = cols[0].select_slider("Rounds N", many_rounds.ROUND_CHOICES, key="pg_many_n",
                              format_func=lambda x: f"{x:,}")
    block = scenario.verification == "block"
    if block and ss.pg_many_bug != "none":  # the injected bugs are tokenwise engines: off, and said so
        ss.pg_many_bug_kept, ss.pg_many_bug = ss.pg_many_bug, "none"
    elif not block and "pg_many_bug_kept" in ss:  # back to tokenwise: the bug chosen before returns
        ss.pg_many_bug = ss.pop("pg_many_bug_kept")
    bug = cols[1].selectbox("Inject an engine bug", list(many_rounds.BUG_NAMES), key="pg_many_bug",
                            format_func=lambda b: many_rounds.BUG_NAMES[b], disabled=block,
                            help=many_rounds.BLOCK_BUG_NOTE if block else None)
    seed = cols[2].number_input("MC seed", min_value=0, max_value=2**32 - 1, step=1, key="pg_many_seed")
    run = cols[3].button("Run", type="primary", key="pg_many_run", width="stretch")
    key = (scenario, n, bug, int(seed))
    if block:
        kept = ss.get("pg_many_bug_kept")
        st.caption("Block verification (Sun et al. 2025): the rounds run the exact block Monte Carlo. "
                   + many_rounds.BLOCK_BUG_NOTE
                   + (f" Your choice “{many_rounds.BUG_NAMES[kept]}” returns with tokenwise." if kept else ""))
    chart = st.empty()
    if run:
        def show(result: many_rounds.ManyRounds) -> None:
            chart.plotly_chart(many_plots.histogram_figure(result, presenter=presenter, height=420),
                               config={"displayModeBar": False}, theme=None)

        try:
            result = many_rounds.run(scenario, n, bug, int(seed), chunks=10, on_chunk=show)
        except Exception as error:  # noqa: BLE001 - a refusal is a message
            st.error(explain.explain(error, scenario=scenario).markdown())
            return
        ss.pg_many = (key, result)
    stored = ss.get("pg_many")
    if stored is None or stored[0] != key:
        chart.info("Press **Run**: N independent rounds from the empty text, each exact (integer tickets, "
                   "vectorized), and the histogram of the first committed token against p.")
        return
    result = stored[1]
    if not run:
        chart.plotly_chart(many_plots.histogram_figure(result, presenter=presenter, height=420),
                           key="pg_many_chart", config={"displayModeBar": False}, theme=None)
    st.markdown(many_plots.summary(result))
    hint = many_rounds.hint(bug, result.distance, scenario.draft_topk)
    if hint:
        st.caption(hint)
    st.caption(f"Error bars: ±1.96 binomial standard deviations of p's frequency: with an exact sampler a bar "
               f"reaches p's tick 95% of the time. Sampler: {result.method}.")


# --- sharing -----------------------------------------------------------------------------------------
def sharing(scenario, step: int) -> None:
    query = share.scenario_to_query(scenario, step)
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
    ss.setdefault("pg_preset_before", ss.pg_preset)
    ss.setdefault("pg_link_problems", [])
    ss.setdefault("pg_link_note", "")
    ss.setdefault("pg_many_n", 10_000)
    ss.setdefault("pg_many_bug", "none")
    ss.setdefault("pg_many_seed", 0)
    read_link()
    if "pg_scenario" not in ss:
        load(presets.default_scenario())
    apply_pending_edits()
    presenter = ss.pg_presenter
    # presenter mode: the sidebar collapses (its arrow brings it back) and the type grows
    st.set_page_config(initial_sidebar_state="collapsed" if presenter else "auto")
    if presenter:
        st.html(PRESENTER_CSS)
    else:  # one short header line, so the first screen at 1280x800 holds the whole chart
        st.markdown("#### 🎛️ Playground :gray[· draft q proposes, target p verifies, exactly]")
    candidate, problems = candidate_scenario()
    link_problems = ss.pg_link_problems
    ss.pg_link_problems = []  # shown once, on the run that opened the link or file
    note, ss.pg_link_note = ss.pg_link_note, ""  # said once, on the run that opened the link or file
    messages = st.container()  # always here, so the tabs below keep their place (and their selection)
    if link_problems or problems:
        with messages:
            unique = list(dict.fromkeys([*link_problems, *problems]))
            heading = "The link or file asked for settings that are refused" if link_problems else \
                "This setting is refused"
            caption = ("The animation plays the nearest settings the controls allow; your other settings are "
                       "kept." if link_problems and not problems else
                       "The animation still shows the last scenario that worked; your other settings are kept.")
            show_problems(unique, heading, caption)
    if not problems and candidate != ss.pg_scenario:
        ss.pg_state = state.after_edit(ss.pg_state, ss.pg_scenario, candidate)
        ss.pg_scenario = candidate
    if note:
        messages.info(note)

    sidebar_controls(presenter)
    tabs = dict(zip(TABS, st.tabs(TABS, key="pg_tab", on_change="rerun"), strict=True))
    if tabs[TAB_ANIMATION].open is not False:
        with tabs[TAB_ANIMATION]:
            ss.pop("pg_full_rerun", None)  # this run is the whole page
            playing = ss.pg_state.playing
            st.fragment(animation, run_every=SPEEDS[ss.pg_speed] if playing else None)(presenter)
    if tabs[TAB_PROOF].open:
        with tabs[TAB_PROOF]:
            proof_tab(presenter)
    if tabs[TAB_MANY].open:
        with tabs[TAB_MANY]:
            many_rounds_tab(presenter)
    if tabs[TAB_WEIGHTS].open:
        with tabs[TAB_WEIGHTS]:
            weight_editors()
    if tabs[TAB_SHARE].open:
        with tabs[TAB_SHARE]:
            sharing(ss.pg_scenario, ss.pg_state.step)
    st.iframe(KEYS_JS, height=1)  # no visible content: installs the clicker keys once per browser tab


main()
