"""The Playground's controls and its scenario: a scenario put into every control, and the scenario they describe.

``load`` fills the sidebar, the switch and the weight tables from a scenario (a preset, a link, a file, an
undo); ``candidate_scenario`` reads them back into a Scenario (or the problems that refuse it). The preset
box, its Undo, the Markov switch and the refusal box's Undo are callbacks here. Every function reads and
writes the typed session state (``session``) and calls the pure library (``specviz.playground``).
"""

from __future__ import annotations

from ...core import MAX_DEPTH
from ...narration import problems
from ...playground import explain, form, presets, state
from ...scenario import Scenario
from . import rule_switch
from .session import PlaygroundSession, session

FIXED, MARKOV = "Same p, q at every position", "Markov: p, q depend on the previous token"
MARKOV_COPY_NOTE = ("Markov mode: every row after a token starts as a copy of the start row, so nothing looks "
                    "different yet. Edit the rows in the weights tab, or pick a preset: presets have a Markov "
                    "form.")


def _clip(value, low, high):
    return min(max(value, low), high)


def load(scenario: Scenario, step: int = 0, good: bool = True) -> None:
    """Put a scenario into every control (preset, link, file, undo); good ones become the shown scenario."""
    pg = session()
    settings = form.settings_from_scenario(scenario)
    v = scenario.vocab_size
    if good:
        pg.scenario = scenario
        pg.state = state.PlayState(step=step)
        pg.refused_scenario = None
    pg.tables = form.tables_from_scenario(scenario)
    pg.table_vocab = scenario.vocab
    pg.context = scenario.context_id
    pg.editor_version = pg.editor_version + 1
    pg.vocab = form.vocab_text(scenario.vocab)
    pg.mode = MARKOV if scenario.target.rows is not None else FIXED
    rule_switch.show(pg, settings.verification)  # the switch, and the rule's parameter controls
    pg.depth = _clip(settings.depth, 1, MAX_DEPTH)
    pg.draft_topk = v if settings.draft_topk is None else _clip(settings.draft_topk, 1, v)
    pg.temperature = _clip(float(settings.temperature), *form.TEMPERATURE_RANGE)
    pg.top_k = v if settings.top_k is None else _clip(settings.top_k, 1, v)
    pg.top_p = _clip(float(settings.top_p), *form.TOP_P_RANGE)
    pg.fp32 = settings.fp32
    pg.seed = str(_clip(int(settings.seed), 0, form.SEED_MAX))
    pg.request = settings.request_id
    pg.generation = _clip(int(settings.generation), 0, form.SEED_MAX)


def candidate_scenario(pg: PlaygroundSession) -> tuple[Scenario | None, list[problems.Problem]]:
    """The scenario the controls describe, or the problems that refuse it."""
    try:
        vocab = form.parse_vocab(pg.vocab)
    except explain.PlaygroundError as error:
        return None, [problems.problem_of(error)]
    fitted = form.refit_controls(pg.tables, pg.table_vocab, vocab, pg.mode == MARKOV, pg.draft_topk, pg.top_k)
    if fitted.changed:
        pg.draft_topk, pg.top_k = fitted.draft_topk, fitted.top_k
        pg.tables, pg.table_vocab = fitted.tables, vocab
        pg.editor_version = pg.editor_version + 1
    try:
        seed = form.seed_from_text(pg.seed)
    except explain.PlaygroundError as error:
        return None, [problems.problem_of(error)]
    v = len(vocab)
    settings = form.SidebarSettings(pg.depth, min(pg.draft_topk, v), pg.temperature, min(pg.top_k, v), pg.top_p,
                                    pg.fp32, seed, pg.request, int(pg.generation), rule_switch.chosen(pg))
    try:
        scenario = form.to_scenario(vocab, fitted.tables, settings, pg.context)
    except explain.PlaygroundError as error:
        return None, [problems.problem_of(error)]
    # a tree too large to animate is refused like any other setting
    return scenario, explain.check_scenario(scenario) + rule_switch.switch_problems(scenario)


def sync_preset_box(pg: PlaygroundSession) -> None:
    """The Preset box names the preset while the weights are its own, 'custom (from close)' once edited."""
    label = presets.box_label(pg.preset, pg.refused_scenario or pg.scenario)
    if label != pg.preset:
        pg.preset = label


# --- callbacks --------------------------------------------------------------------------------------------
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
    """The refusal box's Undo: the controls show the last scenario that worked again."""
    pg = session()
    load(pg.scenario, pg.state.step)
    pg.link_problems = []
    pg.link_note = ""
