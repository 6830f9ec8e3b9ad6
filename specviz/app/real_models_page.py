"""The Real models page's Streamlit side: model loads with progress, the widgets' state, live view, results.

The page (views/real_models.py) reads the top widgets and calls these; the race, the statistics and
the cost model live in specviz.models, the figures in specviz.plots.real_model_figures.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import streamlit as st

from specviz.core import MAX_DEPTH
from specviz.core.errors import SpecvizError
from specviz.core.verification import playable_names, rule
from specviz.models import load_model
from specviz.models.bundled import BUNDLED_MODELS, Bundled, bundled, models_dir
from specviz.models.drafts import MAX_NGRAM, DraftSpec, parse_draft
from specviz.models.event_data import event_views
from specviz.models.model_presets import ModelPreset, by_name
from specviz.models.race import (
    CHAIN,
    PLAIN,
    SAME_LAW,
    SPECULATIVE,
    TRIALS,
    Leg,
    RaceResult,
    chain_rule,
    theory_point,
)
from specviz.models.round_loop import GenerationSettings
from specviz.models.round_shapes import MAX_TREE_WIDTH
from specviz.models.stats import TIME_LABELS, Summary, acceptance_words, same_draws_words
from specviz.models.text import token_label, token_pieces
from specviz.narration import problems
from specviz.plots import real_model_figures as plots

LOAD_NOTES = {
    "smollm2": "The bundled SmolLM2-135M is de-quantized from its GGUF file once per app process (usually 16–35 s on a "
               "laptop CPU); after that it stays in memory and every visit is instant.",
    "gemma3-270m": "Gemma 3 270M is de-quantized from its GGUF file once per app process (about 55 s on a quiet 2-core "
                   "CPU, up to 4 minutes on a busy one; 1.6–1.8 GB of memory after the load, up to 3.3 GB while "
                   "loading); its first load also assembles the file from the installed packages into {folder} "
                   "(about 253 MB; remove it any time, it is assembled again).",
}
CUSTOM = "Hub id, local folder or .gguf file"


def model_label(model: Bundled) -> str:
    """A bundled model as the page's model choice names it: its title and vocabulary size."""
    return f"{model.title}, vocabulary {model.vocab_size:,}" + (" (opt-in extra)" if model.extra else " (bundled)")


MODEL_CHOICES: dict[str, str] = {model_label(m): m.name for m in BUNDLED_MODELS}  # label -> --model name
# widget key -> draft kind, in the order of the page's draft selector
DRAFT_CHOICES = {"Prompt lookup (n-gram, one-hot q)": "lookup", "Early exit (first k layers)": "early-exit",
                 "Target re-processed (temperature, top-k)": "target", "Same model in bfloat16": "bf16",
                 "Second model (same tokenizer)": "model"}
DRAFT_NAMES = {kind: name for name, kind in DRAFT_CHOICES.items()}
# the page's verification menu, in the registry's names: every fixed playable rule, then the trees at every width
# real models run; a parameterised rule adds its names here (how its rounds run is its entry in ROUNDS_BY_FAMILY)
VERIFICATIONS: tuple[str, ...] = (*playable_names(),
                                  *(f"{family}:{k}" for family in ("exact-match", "multi-distinct", "multi")
                                    for k in range(2, MAX_TREE_WIDTH + 1)))
TREE_NOTE = ("When a lookup tree pays, measured on eight prompts this project was not developed on (lists, code, "
             "prose, a copy task: bench/lookup_suite.py, docs/performance.md; a 2-core CPU): verified by exact match "
             "it never committed fewer tokens than its chain on the same draws (ahead in 126 of 1,135 rounds, behind "
             "in none): 43–66% more where lines or phrases repeat with different endings, 10–30% on most prompts, "
             "0–3% where the text copies without branching or prompt lookup finds nothing. In wall time it ran 0.98x "
             "the chain on SmolLM2 and 1.03x on Gemma 3 (the median prompt; 0.70–1.31x over the prompts): each "
             "extra node costs a row of logits, so it pays only where continuations branch often. An early-exit "
             "draft's full tree (13 or 37 nodes a pass) accepts no more and runs 0.36–0.69x the chain.")


# --- widget state -----------------------------------------------------------------------------------------
def preset_state(preset: ModelPreset, n_layers: int) -> dict[str, Any]:
    """The page's widget values for a preset (early-exit layers clipped to the model's depth)."""
    spec = parse_draft(preset.draft)
    state: dict[str, Any] = {"rm_prompt": preset.prompt, "rm_draft": DRAFT_NAMES[spec.kind], "rm_depth": preset.depth,
                             "rm_temperature": preset.temperature, "rm_top_k": preset.top_k, "rm_top_p": preset.top_p,
                             "rm_max_new": preset.max_new_tokens, "rm_draft_top_k": 0,
                             "rm_verification": rule(preset.verification).name}
    if spec.kind == "early-exit":
        state["rm_layers"] = min(spec.layers, n_layers)
    if spec.kind == "lookup":
        state["rm_ngram"] = spec.ngram
    return state


def draft_from_widgets(kind: str, values: dict[str, Any], n_layers: int) -> DraftSpec:
    """The DraftSpec the page's draft widgets describe."""
    if kind == "early-exit":
        return DraftSpec("early-exit", layers=min(int(values.get("rm_layers", 8)), n_layers))
    if kind == "target":
        return DraftSpec("target", temperature=float(values.get("rm_draft_t", 1.5)),
                         top_k=int(values.get("rm_draft_k", 0)))
    if kind == "lookup":
        return DraftSpec("lookup", ngram=int(values.get("rm_ngram", 3)))
    if kind == "bf16":
        return DraftSpec("bf16")
    return DraftSpec("model", model=str(values.get("rm_draft_model", "")).strip())


def apply_preset() -> None:
    """Set every widget the chosen preset decides (the preset box's on_change)."""
    ss = st.session_state
    for key, value in preset_state(by_name(ss.rm_preset), ss.get("rm_n_layers", 30)).items():
        ss[key] = value


def open_on_first_preset(first: ModelPreset, n_layers: int) -> None:
    """The first visit opens on the first preset; later visits keep the widgets as they were."""
    st.session_state.rm_n_layers = n_layers
    for key, value in preset_state(first, n_layers).items():
        st.session_state.setdefault(key, value)
    st.session_state.setdefault("rm_preset", first.name)


def verification_widget(column) -> str:
    """The verification menu (tokenwise, block, exact match, trees of width 2..4); returns the rule's name."""
    return column.selectbox("Verification", VERIFICATIONS, key="rm_verification",
                            format_func=lambda name: rule(name).short,  # the full labels would be cut in the box
                            help="Tokenwise checks each draft on its own; block verification (Sun et al. 2025) "
                                 "decides how many drafts to keep from the whole block; exact match keeps a draft "
                                 "when the target's own sample equals it (mlx-lm, vLLM's strict), and over a tree "
                                 "keeps the child equal to that sample: the rule of a lookup tree, which has no "
                                 "draft distribution; the other trees draft K children per node (i.i.d., or "
                                 "distinct) and check them by recursive rejection sampling. A tree is scored in one "
                                 "target pass. All exact.")


def model_choice() -> str | None:
    """The target model chooser (each bundled model with its vocabulary size, or a hub id, folder or .gguf file);
    the --model name, or None after saying why nothing can load (a missing extra names its install line)."""
    ss = st.session_state
    choice = st.radio("Target model", [*MODEL_CHOICES, CUSTOM], key="rm_model", horizontal=True)
    if choice == CUSTOM:
        spec = st.text_input("Hub id, folder or .gguf file", key="rm_custom",
                             placeholder="HuggingFaceTB/SmolLM2-360M-Instruct").strip()
        if not spec:
            st.info("Type a hub id, a local folder or a .gguf file to load a model.")
        return spec or None
    named = bundled(MODEL_CHOICES[choice])
    assert named is not None  # every choice names a bundled model
    if not named.installed():
        st.error(str(named.missing()))
        st.info("The rest of the page works with the bundled SmolLM2; nothing was downloaded or changed.")
        return None
    if named.terms:
        st.caption(f"{named.terms}.")
    ss.setdefault("rm_custom", "")
    return named.name


def show_bug(error: BaseException, where: str) -> None:
    """Anything but a refusal is a bug in specviz: said as one, with its type and one line to copy."""
    st.error(f"**{problems.BUG_TITLE}** ({where} raised {type(error).__name__}); nothing was changed. Please "
             "report it with this line:")
    st.code(problems.bug_line(error), language=None)


# --- loading ----------------------------------------------------------------------------------------------
class BackgroundLoad:
    """A model load running in a worker thread; the page polls `text`, `fraction` and `elapsed`.

    Cached per model spec by the page, so every visitor waits on the same load.
    """

    def __init__(self, load: Callable[..., Any]):
        self.text, self.fraction = "Starting", 0.0
        self.began = time.perf_counter()
        self._result: Any = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._work, args=(load,), name="specviz-model-load", daemon=True)
        self._thread.start()

    def _stage(self, text: str, fraction: float) -> None:
        self.text, self.fraction = text, fraction

    def _work(self, load: Callable[..., Any]) -> None:
        try:
            self._result = load(stage=self._stage)
        except BaseException as error:  # noqa: BLE001 - handed to whoever asks for the result
            self._error = error

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.began

    @property
    def done(self) -> bool:
        return not self._thread.is_alive()

    def wait(self, seconds: float) -> None:
        self._thread.join(seconds)

    def result(self) -> Any:
        """The loaded model; raises the load's error (waits if still loading)."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._result


def follow(load: BackgroundLoad, report: Callable[[BackgroundLoad], None], *, poll_s: float = 0.25) -> Any:
    """Report the load's progress until it finishes, then return its result (or raise its error)."""
    while not load.done:
        report(load)
        load.wait(poll_s)
    return load.result()


class Throttle:
    """True at most every `interval` seconds (and always when forced): cheap live rendering."""

    def __init__(self, interval: float = 0.2, clock: Callable[[], float] = time.perf_counter):
        self.interval = interval
        self.clock = clock
        self.last = -float("inf")

    def __call__(self, force: bool = False) -> bool:
        now = self.clock()
        if force or now - self.last >= self.interval:
            self.last = now
            return True
        return False


@st.cache_resource(show_spinner=False, max_entries=3)
def model_load(spec: str, device: str | None) -> BackgroundLoad:
    """Start loading once per process; every visitor follows the same load."""
    return BackgroundLoad(lambda stage: load_model(spec, device, stage=stage))


def get_model(spec: str, device: str | None, what: str = "model"):
    """The loaded model, or None after explaining what went wrong."""
    slot = st.empty()
    box = slot.container()
    note, bar = box.empty(), box.progress(0.0)

    def report(progress: BackgroundLoad) -> None:
        extra = f" {LOAD_NOTES[spec].format(folder=models_dir())}" if spec in LOAD_NOTES else ""
        note.info(f"Loading the {what} {spec!r}: {progress.text} … {progress.elapsed:.0f} s.{extra}")
        bar.progress(min(1.0, progress.fraction), text=progress.text)

    try:
        model = follow(model_load(spec, device), report)
    except SpecvizError as error:  # ModelLoadError, a device that is not here: a refusal
        model_load.clear(spec, device)  # a later attempt (a download, a fixed path) starts afresh
        slot.empty()
        st.error(problems.refusal_line(error))  # as `specviz generate` says it
        st.info("The rest of the app works without this model. Pick the bundled SmolLM2 (installed by "
                "`make run`), or give a local folder saved with `save_pretrained`.")
        return None
    except Exception as error:  # noqa: BLE001 - anything else is a bug: shown as one, the page goes on
        model_load.clear(spec, device)
        slot.empty()
        show_bug(error, f"loading {spec!r}")
        return None
    slot.empty()
    return model


# --- widgets ----------------------------------------------------------------------------------------------
def settings_widgets(target) -> dict[str, Any]:
    """The prompt and settings expander; returns the values the page needs."""
    ss = st.session_state
    with st.expander("Prompt and settings (set by the preset; change any)", expanded=False):
        left, right = st.columns([2, 1])
        left.text_area("Prompt", key="rm_prompt", height=120)
        left.checkbox("Chat template", value=True, key="rm_chat", disabled=not target.is_chat)
        kind = DRAFT_CHOICES[right.selectbox("Draft", list(DRAFT_CHOICES), key="rm_draft")]
        if kind == "early-exit":
            ss.rm_layers = min(ss.get("rm_layers", min(8, target.n_layers)), target.n_layers)
            right.slider("Early-exit layers k (k = all: q = p)", 1, target.n_layers, key="rm_layers")
        elif kind == "target":
            right.slider("Draft temperature", 0.1, 3.0, 1.5, key="rm_draft_t")
            right.number_input("Draft top-k (0: off)", 0, 1000, 0, key="rm_draft_k")
        elif kind == "lookup":
            right.slider("Longest n-gram", 1, MAX_NGRAM, key="rm_ngram")
        elif kind == "model":
            right.text_input("Draft hub id or folder", key="rm_draft_model")
        cols = st.columns(4)
        cols[0].slider("Depth", 1, MAX_DEPTH, key="rm_depth")
        cols[0].number_input("Draft top-k (0: off)", 0, 5000, key="rm_draft_top_k")
        cols[1].slider("Target temperature", 0.1, 2.0, step=0.05, key="rm_temperature")
        cols[1].number_input("Target top-k (0: off)", 0, 5000, key="rm_top_k")
        cols[2].slider("Target top-p", 0.05, 1.0, step=0.05, key="rm_top_p")
        cols[2].number_input("Seed", 0, 2**31 - 1, 1, key="rm_seed")
        cols[3].slider("Max new tokens", 4, 256, key="rm_max_new")
        cols[3].slider("Top-N bars", 3, 30, 10, key="rm_top_n")
    return {"kind": kind, "draft": draft_from_widgets(kind, dict(ss), target.n_layers)}


# --- live view ----------------------------------------------------------------------------------------------
LEG_TITLES = {PLAIN: "Plain sampling", CHAIN: "Chain"}


def leg_names(with_plain: bool, tree: bool) -> list[str]:
    """The legs a run shows, left to right: plain (when racing), the chain (when racing a tree), the run."""
    return ([PLAIN] if with_plain else []) + ([CHAIN] if with_plain and tree else []) + [SPECULATIVE]


def _leg_title(leg: str, found, draft_label: str) -> str:
    """A run's title in the live view (the chain: its own rule, as the race runs it)."""
    if leg == CHAIN:
        return f"Chain ({draft_label}, {chain_rule(found).short})"
    if leg in LEG_TITLES:
        return LEG_TITLES[leg]
    return f"{found.short.capitalize()} ({draft_label})" if found.width > 1 else \
        f"Speculative ({draft_label}, {found.short})"


class LiveView:
    """The races as they run: one overall bar (which race of how many, which run, what happens between runs) and a
    bar and running text per run, each saying its state (queued, running, done with its speed)."""

    def __init__(self, slot, tokenizer, draft_label: str, settings: GenerationSettings, with_plain: bool):
        self.tokenizer, self.settings = tokenizer, settings
        self.found = rule(settings.verification)
        self.legs = leg_names(with_plain, self.found.width > 1)
        self.races = TRIALS if with_plain else 1
        self.runs = self.races * len(self.legs)
        self.done = 0  # runs finished
        self.titles = {leg: _leg_title(leg, self.found, draft_label) for leg in self.legs}
        box = slot.container()
        self.overall = box.progress(0.0, text=f"Starting: {self.races} race{'s' if self.races > 1 else ''} of "
                                              f"{len(self.legs)} runs each")
        columns = box.columns(len(self.legs)) if len(self.legs) > 1 else [box]
        self.places = {}
        for leg, column in zip(self.legs, columns):
            column.markdown(f"**{self.titles[leg]}**")
            self.places[leg] = (column.progress(0.0, text=self._queued(1)), column.empty())
        self.throttle = Throttle(0.2)

    def _where(self, seed: int) -> str:
        number = seed - self.settings.seed + 1
        return f"race {number} of {self.races}, seed {seed}" if self.races > 1 else f"seed {seed}"

    def _queued(self, number: int) -> str:
        return f"race {number} of {self.races}: queued" if self.races > 1 else "queued"

    def stage(self, text: str) -> None:
        """Between runs: a race's sessions being made, the cost model measured (the overall bar says it)."""
        if text.startswith("Race "):
            number = int(text.split()[1])
            for leg in self.legs:
                self.places[leg][0].progress(0.0, text=self._queued(number))
        self.overall.progress(min(1.0, self.done / self.runs), text=text)

    def progress(self, leg: str, session, record) -> None:
        """A run starts (record None) or plays a round."""
        gen, max_new = session.generation, self.settings.max_new_tokens
        bar, text = self.places[leg]
        where = self._where(session.settings.seed)
        if record is None:
            self.overall.progress(min(1.0, self.done / self.runs),
                                  text=f"{where[0].upper()}{where[1:]}: {self.titles[leg]} running (run "
                                       f"{self.done + 1} of {self.runs})")
            bar.progress(0.0, text=f"{where}: running")
            return
        finished = gen.stopped or len(gen.tokens) >= max_new
        if not self.throttle(force=finished or record.round_id == 0):
            return
        fraction = min(1.0, len(gen.tokens) / max_new)
        if finished:
            self.done += 1
            wall = sum(r.wall_s for r in gen.rounds)
            bar.progress(1.0, text=f"{where}: done, {len(gen.tokens)} tokens in {wall:.1f} s "
                                   f"({len(gen.tokens) / wall if wall else 0:.1f} tokens/s)")
        else:
            bar.progress(fraction, text=f"{where}: {len(gen.tokens)}/{max_new} tokens")
        self.overall.progress(min(1.0, (self.done + (0 if finished else fraction)) / self.runs),
                              text=f"{where[0].upper()}{where[1:]}: {self.titles[leg]} "
                                   f"{'done' if finished else 'running'} (run {self.done + (0 if finished else 1)} "
                                   f"of {self.runs})")
        text.markdown(plots.tokens_html(token_pieces(self.tokenizer, gen.tokens), gen.origins), unsafe_allow_html=True)


def live_view(slot, tokenizer, draft_label: str, settings: GenerationSettings, with_plain: bool) -> LiveView:
    """Progress per race and per run, side by side; pass ``.progress`` and ``.stage`` to the race."""
    return LiveView(slot, tokenizer, draft_label, settings, with_plain)


# --- results ------------------------------------------------------------------------------------------------
def labeler(tokenizer) -> Callable[[int], str]:
    """token id -> short visible label, memoised."""
    memo: dict[int, str] = {}

    def label(token: int) -> str:
        if token not in memo:
            memo[token] = token_label(tokenizer, token)
        return memo[token]
    return label


def leg_metrics(leg: Leg, container) -> None:
    """Tokens/s and tokens per verification pass of one leg, each with its denominator, and the counts."""
    s = leg.summary
    m = container.columns(2)
    m[0].metric("Tokens/s", f"{s.tokens_per_s:.1f}", help=f"{s.tokens} tokens in {s.wall_s:.2f} s")
    m[1].metric("Tokens/pass", f"{s.tokens_per_target_forward:.2f}",
                help=f"{s.tokens} tokens / {s.target_forwards} target verification passes: each checks a drafted "
                     "block or tree, or samples one token without a draft (passes spent drafting not counted)")
    nodes = f", {s.nodes_per_pass:.1f} drafted nodes per pass" if s.tree_width > 1 and s.nodes_per_pass else ""
    container.caption(f"{s.tokens} tokens in {s.target_forwards} target verification passes, "
                      f"{s.wall_s:.2f} s{nodes}")


def leg_title(name: str, result: dict) -> str:
    """A leg's heading: plain, the chain (same draft, as the tree's rule verifies a chain) or the speculative run."""
    if name == PLAIN:
        return "Plain sampling (exact core)"
    if name == CHAIN:
        return f"Chain ({result['draft']}, {chain_rule(result['verification']).short})"
    found = rule(result["verification"])
    if found.width > 1:  # short enough for a third of the page on one line
        return f"{found.short.capitalize()} ({result['draft']})"
    return f"Speculative ({result['draft']}, {found.label})"


def show_race(outcome: RaceResult, result: dict, tokenizer) -> None:
    """The verdict banner, every leg of the median race side by side, the explanation."""
    banner = {"wins": st.success, "loses": st.warning}.get(outcome.verdict, st.info)
    banner(f"**{outcome.line()}**")
    trial = outcome.median_trial
    names = [n for n in (PLAIN, CHAIN, SPECULATIVE) if n in trial.legs]
    for column, name in zip(st.columns(len(names)), names):
        one = trial.legs[name]
        column.markdown(f"**{leg_title(name, result)}**")
        leg_metrics(one, column)
        column.markdown(plots.tokens_html(token_pieces(tokenizer, one.generation.tokens), one.generation.origins),
                        unsafe_allow_html=True)
    st.caption(f"Texts and figures above: the median race (seed {trial.seed}; its speedup is the median of "
               f"{len(outcome.trials)}). Every race: "
               + "; ".join(f"seed {t.seed} ({t.first} first) {t.speedup:.2f}x" for t in outcome.trials)
               + f". {SAME_LAW}")
    same = same_draws_words(trial.speculative.summary)
    if same is not None:  # the rule's gain alone, free of timing noise: the tree's rounds against its chain's
        st.caption(f"The tree against its chain, draw for draw (the median race's tree run): {same}.")
    if outcome.explanation:
        st.info(outcome.explanation)


def show_alone(leg: Leg, result: dict, tokenizer) -> None:
    """The speculative run without a race."""
    st.subheader(f"Generated with {result['draft']}, {rule(result['verification']).label}")
    leg_metrics(leg, st)
    st.markdown(plots.tokens_html(token_pieces(tokenizer, leg.generation.tokens), leg.generation.origins),
                unsafe_allow_html=True)


def measured_metrics(summary: Summary) -> None:
    """The speculative run's counts, each with its denominator in its help (short labels: nothing is cut)."""
    tree = summary.tree_width > 1
    m = st.columns(5)
    m[0].metric("Tokens", summary.tokens, help=f"{summary.tokens} tokens in {summary.rounds} rounds")
    m[1].metric("Checks passed", f"{summary.accepted}/{summary.checked_drafts}",
                help=f"{summary.accepted} accepted of {summary.checked_drafts} checked drafts"
                     + (" (siblings included)" if tree else "")
                     + f"; {summary.drafted} drafted, {summary.drafted - summary.checked_drafts} of them never checked "
                       "(after a rejection, or below a node whose other child was kept)"
                     + f". {acceptance_words(summary)}")
    m[2].metric("Tokens/pass", f"{summary.tokens_per_target_forward:.2f}",
                help=f"{summary.tokens} tokens / {summary.target_forwards} target verification passes (passes spent "
                     "drafting are not counted)")
    if tree:
        m[3].metric("Nodes/pass", "-" if summary.nodes_per_pass is None else f"{summary.nodes_per_pass:.1f}",
                    help=f"{summary.nodes} drafted tree nodes scored by the target, per verification pass of a "
                         "round that drafted")
    else:
        m[3].metric("Drafting passes", summary.drafting_forwards,
                    help="Target passes spent drafting, when the draft is the target itself (q = p, or the target "
                         "re-processed)")
    m[4].metric("No-draft rounds", summary.plain_rounds,
                help="Rounds where prompt lookup found no n-gram match and sampled the target alone")


def show_measured(summary: Summary, leg: Leg, outcome: RaceResult | None, draft: str) -> None:
    """What the speculative run measured: counts with their denominators, then the charts."""
    st.subheader("What the speculative run measured")
    measured_metrics(summary)
    drafting = summary.rounds - summary.plain_rounds
    theory = (f"Theory line in 'Tokens per round': {summary.expected_tokens_per_round:.2f} tokens per drafting "
              f"round ({summary.expected_basis}, over {drafting} drafting rounds)."
              if summary.expected_tokens_per_round is not None else
              "No theory line in 'Tokens per round': no formula here covers a tree round.")
    st.caption(f"Drafts: {acceptance_words(summary)}. {theory}")
    if summary.tree_scoring is not None:
        scoring = summary.tree_scoring
        (st.caption if scoring["one_pass"] else st.warning)(
            f"Tree scoring: {scoring['words']}; {scoring['reason']}. {TREE_NOTE}")
    if outcome is not None:
        predicted = outcome.prediction.speedup if outcome.prediction else None
        speeds = outcome.chart_speeds()
        names = {PLAIN: "plain sampling", CHAIN: f"chain ({draft})",
                 SPECULATIVE: f"{rule(outcome.verification).short} ({draft})"}
        st.plotly_chart(plots.race_figure([(names[k], v) for k, v in speeds.items()], predicted),
                        key="rm_race_chart", theme=None)
        st.caption(f"The race chart: each leg's tokens/s in the median race (seed {outcome.median_trial.seed}), the "
                   "race whose speedup is the median; the cost model's prediction is that speedup's plain speed "
                   "times the predicted speedup.")
        if outcome.calibration is not None and not outcome.calibration.reliable:
            st.warning(f"The cost model is unreliable for this run: {outcome.calibration.words}.")
    c1, c2 = st.columns(2)
    c1.plotly_chart(plots.acceptance_figure(summary.acceptance_by_position, summary.alpha_by_position,
                                            summary.reached), key="rm_acceptance", theme=None)
    per_round = [(r.origins.count("accepted"), r.origins[-1] if r.origins else "") for r in leg.generation.rounds]
    c2.plotly_chart(plots.tokens_per_round_figure(per_round, summary.expected_tokens_per_round),
                    key="rm_per_round", theme=None)
    st.plotly_chart(plots.time_split_figure(summary.time_s, TIME_LABELS), key="rm_time", theme=None)


def render_round(record, label: Callable[[int], str], top_n: int) -> None:
    """Every event of one round (charts and the exact acceptance test), built only for this round."""
    committed = " ".join(f"{plots.origin_cue(o).glyph} {label(t)!r}" for t, o in zip(record.tokens, record.origins))
    what = "no n-gram match: a plain target sample" if record.plain else \
        f"drafted a tree of {record.nodes} nodes (depth {record.depth}), accepted {record.accepted}" \
        if record.shape == "tree" else f"drafted {len(record.drafted)}, accepted {record.accepted}"
    st.markdown(f"**Round {record.round_id}** — {what}; committed {committed}")
    if record.trace is None:
        return
    narrate = {"check": lambda v: plots.check_text(v, label), "block_check": lambda v: plots.block_check_text(v, label),
               "block_decision": plots.block_decision_text, "tree_check": lambda v: plots.tree_check_text(v, label)}
    for index, view in enumerate(event_views(record.trace, top_n)):
        if view["kind"] in ("draft", "tree_draft"):
            continue
        view["plain"] = record.plain
        fig = plots.view_figure(view, label)
        if fig is not None:
            st.plotly_chart(fig, key=f"rm_{record.round_id}_{view['kind']}_{index}", theme=None)
        if view["kind"] in narrate:
            st.markdown(narrate[view["kind"]](view))


def publish(result: dict) -> None:
    """Leave the measurement where the Theory page finds it."""
    st.session_state.rm_summary = result["leg"].summary
    point = theory_point(result["race"], result["depth"]) if result["race"] is not None else None
    if point is not None:
        st.session_state.theory_speedups = {f"Real model, {result['draft']}": point}
