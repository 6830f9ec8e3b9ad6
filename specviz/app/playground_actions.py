"""What the Playground's controls do: load a scenario into the controls, presets, links, files, the transport.

Every function here reads and writes the typed session state (``playground_state``) and calls the
pure library (``specviz.playground``) for the logic itself; the callbacks are handed to widgets.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import streamlit as st

from ..core import MAX_DEPTH
from ..playground import explain, form, presets, share, state
from ..scenario import Scenario
from . import playground_tree
from .playground_state import EDITOR_TABLES, Keys, PlaygroundSession, editor_key, session, weight_slider_key

FIXED, MARKOV = "Same p, q at every position", "Markov: p, q depend on the previous token"
MARKOV_COPY_NOTE = ("Markov mode: every row after a token starts as a copy of the start row, so nothing looks "
                    "different yet. Edit the rows in the weights tab, or pick a preset: presets have a Markov "
                    "form.")
Transition = Callable[[state.PlayState, Scenario], state.PlayState]


def _clip(value, low, high):
    return min(max(value, low), high)


# --- loading a scenario into the controls ------------------------------------------------------
def load(scenario: Scenario, step: int = 0, good: bool = True) -> None:
    """Put a scenario into every control (preset, link, file, undo); good ones become the shown scenario."""
    pg = session()
    settings = form.settings_from_scenario(scenario)
    v = scenario.vocab_size
    if good:
        pg.scenario = scenario
        pg.state = state.PlayState(step=step)
    pg.tables = form.tables_from_scenario(scenario)
    pg.table_vocab = scenario.vocab
    pg.context = scenario.context_id
    pg.editor_version = pg.editor_version + 1
    pg.vocab = form.vocab_text(scenario.vocab)
    pg.mode = MARKOV if scenario.target.rows is not None else FIXED
    playground_tree.show(pg, settings.verification)  # the switch, and a tree's width and distinct
    pg.depth = _clip(settings.depth, 1, MAX_DEPTH)
    pg.draft_topk = v if settings.draft_topk is None else _clip(settings.draft_topk, 1, v)
    pg.temperature = _clip(float(settings.temperature), *form.TEMPERATURE_RANGE)
    pg.top_k = v if settings.top_k is None else _clip(settings.top_k, 1, v)
    pg.top_p = _clip(float(settings.top_p), *form.TOP_P_RANGE)
    pg.fp32 = settings.fp32
    pg.seed = str(_clip(int(settings.seed), 0, form.SEED_MAX))
    pg.request = settings.request_id
    pg.generation = _clip(int(settings.generation), 0, form.SEED_MAX)


def load_preset() -> None:
    """The preset box applies its choice at once; the scenario before it is kept for Undo."""
    pg = session()
    if pg.preset not in presets.PRESETS:  # "custom (...)": nothing to load
        return
    current = pg.scenario
    try:
        vocab = form.parse_vocab(pg.vocab)
    except explain.PlaygroundError:
        vocab = current.vocab
    scenario = presets.apply_preset(current.with_changes(vocab=vocab), pg.preset, pg.mode == MARKOV)
    pg.preset_undo = (current, pg.state.step, pg.preset_before)
    pg.preset_before = pg.preset
    load(scenario, good=not explain.check_scenario(scenario))


def undo_preset() -> None:
    pg = session()
    scenario, step, name = pg.take("preset_undo")
    load(scenario, step)
    pg.preset = pg.preset_before = name


def on_mode_change() -> None:
    """Switching to Markov: a preset's weights take its Markov form; other weights are copied row by row."""
    pg = session()
    pg.mode_note = ""
    markov = pg.mode == MARKOV
    current = pg.scenario
    name = presets.matching_preset(current)
    if markov and name is not None:
        load(presets.apply_preset(current, name, True))
    elif markov:
        pg.mode_note = MARKOV_COPY_NOTE


def undo() -> None:
    pg = session()
    load(pg.scenario, pg.state.step)
    pg.link_problems = []
    pg.link_note = ""


def open_scenario(scenario: Scenario, step: int, source: str) -> None:
    """Open a link's or file's scenario: fitted to the controls (each change said in one line), then checked."""
    pg = session()
    scenario, notes = form.fit_to_controls(scenario, MAX_DEPTH)
    pg.link_note = form.alterations_line(notes, source) if notes else ""
    problems = explain.check_scenario(scenario)
    load(scenario, step, good=not problems)
    pg.preset = pg.preset_before = presets.matching_preset(scenario) or presets.CUSTOM
    pg.drop("preset_undo")
    pg.link_problems = problems


def read_link() -> None:
    """Open the scenario of the query string when it is new (a shared link, or the gallery's switch_page)."""
    pg = session()
    params = st.query_params.to_dict()
    if not share.has_scenario(params) or params == pg.last_query:
        return
    pg.last_query = params
    pg.presenter = params.get("presenter") == "1"
    try:
        scenario, step = share.scenario_from_query(params)
    except explain.PlaygroundError as error:
        pg.link_problems = [explain.explain(error)]
        return
    open_scenario(scenario, step, "link")
    if pg.link_problems and not pg.has("scenario"):
        pg.scenario, pg.state = presets.default_scenario(), state.PlayState()


def write_link(scenario: Scenario, step: int) -> None:
    pg = session()
    query = share.scenario_to_query(scenario, step)
    if pg.presenter:
        query["presenter"] = "1"
    if query != pg.last_query:
        st.query_params.from_dict(query)
        pg.last_query = query


def on_upload() -> None:
    pg = session()
    upload = pg.store.get(Keys.upload)
    if upload is None:
        return
    try:
        scenario, step = share.import_json(upload.getvalue())
    except explain.PlaygroundError as error:
        pg.link_problems = [explain.explain(error)]
        return
    open_scenario(scenario, step, "file")


# --- transport callbacks (state transitions live in specviz.playground.state) --------------------
def move(transition: Transition) -> None:
    pg = session()
    pg.state = transition(pg.state, pg.scenario)
    pg.last_tick = time.monotonic()


def new_seed() -> None:
    pg = session()
    scenario, pg.state = state.new_seed(pg.scenario)
    pg.scenario = scenario
    pg.seed = str(scenario.seed)
    pg.full_rerun = True  # the sidebar's seed box shows the new seed


def move_and_rerun_page(transition: Transition) -> None:
    """Play/Pause: the page decides the animation's timer, so the whole page reruns, not just the animation."""
    move(transition)
    session().full_rerun = True


def on_speed() -> None:
    pg = session()
    pg.full_rerun = bool(pg.state.playing)  # only a running timer needs the page to set its new interval


# --- weight edits ---------------------------------------------------------------------------------
def on_table_edit(key: str, table: str) -> None:
    pg = session()
    pg.tables = form.apply_edits(pg.tables, pg.store[key].get("edited_rows", {}), table)
    pg.editor_version = pg.editor_version + 1


def apply_pending_edits() -> None:
    """Edits not applied by a callback yet (AppTest sets editor state directly) are applied at the top of a run."""
    pg = session()
    for table in EDITOR_TABLES:
        key = editor_key(table, pg.editor_version)
        edits = pg.store[key].get("edited_rows") if key in pg.store else None
        if edits:
            on_table_edit(key, table)
            return


def on_weight_slider(model: str, token: int) -> None:
    pg = session()
    pg.tables = form.set_weight(pg.tables, model, 0, token, str(pg.store[weight_slider_key(model, token)]))
    pg.editor_version = pg.editor_version + 1


# --- the scenario the controls describe ------------------------------------------------------------
def candidate_scenario(pg: PlaygroundSession) -> tuple[Scenario | None, list[explain.Problem]]:
    """The scenario the controls describe, or the problems that refuse it."""
    try:
        vocab = form.parse_vocab(pg.vocab)
    except explain.PlaygroundError as error:
        return None, [explain.explain(error)]
    fitted = form.refit_controls(pg.tables, pg.table_vocab, vocab, pg.mode == MARKOV, pg.draft_topk, pg.top_k)
    if fitted.changed:
        pg.draft_topk, pg.top_k = fitted.draft_topk, fitted.top_k
        pg.tables, pg.table_vocab = fitted.tables, vocab
        pg.editor_version = pg.editor_version + 1
    try:
        seed = form.seed_from_text(pg.seed)
    except explain.PlaygroundError as error:
        return None, [explain.explain(error)]
    v = len(vocab)
    settings = form.Settings(pg.depth, min(pg.draft_topk, v), pg.temperature, min(pg.top_k, v), pg.top_p, pg.fp32,
                             seed, pg.request, int(pg.generation), playground_tree.chosen(pg))
    try:
        scenario = form.to_scenario(vocab, fitted.tables, settings, pg.context)
    except explain.PlaygroundError as error:
        return None, [explain.explain(error)]
    # a tree too large to animate is refused like any other setting
    return scenario, explain.check_scenario(scenario) + playground_tree.tree_problems(scenario)
