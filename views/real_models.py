"""Real models: the same exact verifier on a real language model, raced against plain sampling.

Thin page: widgets, calls into specviz.models, rendering. Figures live in specviz.plots.real_models,
session-state plumbing in specviz.models.page_support.
"""

from __future__ import annotations

import streamlit as st

from specviz.core import MAX_DEPTH
from specviz.models import ModelLoadError, Session, Settings, TokenizerMismatchError, load_model
from specviz.models.device import available_devices
from specviz.models.event_data import event_views
from specviz.models.page_support import (
    DRAFT_CHOICES,
    BackgroundLoad,
    Throttle,
    draft_from_widgets,
    follow,
    preset_state,
)
from specviz.models.presets import PRESETS, by_name
from specviz.models.race import PLAIN, SPECULATIVE, Leg, race, run_leg
from specviz.models.stats import TIME_LABELS
from specviz.models.text import token_label, token_pieces
from specviz.plots import real_models as plots

ss = st.session_state
VERIFICATIONS = {"token": "tokenwise", "block": "block"}
BUNDLED, CUSTOM = "SmolLM2-135M-Instruct (bundled, offline)", "Hub id, local folder or .gguf file"
BUNDLED_NOTE = ("The bundled SmolLM2-135M is de-quantized from its GGUF file once per app process (usually "
                "16–35 s on a laptop CPU); after that it stays in memory and every visit is instant.")


@st.cache_resource(show_spinner=False, max_entries=3)
def model_load(spec: str, device: str | None) -> BackgroundLoad:
    """Start loading once per process; every visitor follows the same load."""
    return BackgroundLoad(lambda stage: load_model(spec, device, stage=stage))


def get_model(spec: str, device: str | None, what: str = "model"):
    """The loaded model, or None after explaining what went wrong."""
    slot = st.empty()
    box = slot.container()
    note, bar = box.empty(), box.progress(0.0)

    def report(progress) -> None:
        extra = f" {BUNDLED_NOTE}" if spec == "smollm2" else ""
        note.info(f"Loading the {what} {spec!r}: {progress.text} … {progress.elapsed:.0f} s.{extra}")
        bar.progress(min(1.0, progress.fraction), text=progress.text)

    try:
        model = follow(model_load(spec, device), report)
    except ModelLoadError as error:
        model_load.clear(spec, device)  # a later attempt (a download, a fixed path) starts afresh
        slot.empty()
        st.error(str(error))
        st.info("The rest of the app works without this model. Pick the bundled SmolLM2 (installed by "
                "`make run`), or give a local folder saved with `save_pretrained`.")
        return None
    slot.empty()
    return model


def labeler(tokenizer):
    """token id -> short visible label, memoised."""
    memo: dict[int, str] = {}

    def label(token: int) -> str:
        if token not in memo:
            memo[token] = token_label(tokenizer, token)
        return memo[token]
    return label


def apply_preset() -> None:
    """Set every widget the chosen preset decides."""
    for key, value in preset_state(by_name(ss.rm_preset), ss.get("rm_n_layers", 30)).items():
        ss[key] = value


def render_round(record, label, top_n: int) -> None:
    """Every event of one round (charts and the exact acceptance test), built only for this round."""
    committed = " ".join(f"{plots.origin_cue(o).glyph} {label(t)!r}" for t, o in zip(record.tokens, record.origins))
    what = "no n-gram match: a plain target sample" if record.plain else \
        f"drafted {len(record.drafted)}, accepted {record.accepted}"
    st.markdown(f"**Round {record.round_id}** — {what}; committed {committed}")
    if record.trace is None:
        return
    for view in event_views(record.trace, top_n):
        if view["kind"] == "draft":
            continue
        view["plain"] = record.plain
        fig = plots.view_figure(view, label)
        if fig is not None:
            st.plotly_chart(fig, key=f"rm_{record.round_id}_{view['kind']}_{view['position']}", theme=None)
        if view["kind"] == "check":
            st.markdown(plots.check_text(view, label))
        elif view["kind"] == "block_check":
            st.markdown(plots.block_check_text(view, label))
        elif view["kind"] == "block_decision":
            st.markdown(plots.block_decision_text(view))


def leg_text(leg: Leg, tokenizer) -> str:
    return plots.tokens_html(token_pieces(tokenizer, leg.generation.tokens), leg.generation.origins)


def leg_metrics(leg: Leg, container) -> None:
    s = leg.summary
    m = container.columns(3)
    m[0].metric("Tokens/s", f"{s.tokens_per_s:.1f}", help=f"{s.tokens} tokens in {s.wall_s:.2f} s")
    m[1].metric("Verify passes", s.target_forwards,
                help="Target verification passes: each checks a drafted block or samples one token without a "
                     "draft (target passes spent drafting are not counted)")
    m[2].metric("Tokens/pass", f"{s.tokens_per_target_forward:.2f}", help="Tokens per verification pass")


# --- model ----------------------------------------------------------------------------------------------------
st.title("Real models")
st.caption("The same exact verifier on a real language model, raced against plain sampling: p and q are the "
           "models' FP32 softmax, turned into exact integer tickets before any draw. Rounds and draft positions "
           "count from 0, as in the Playground.")
with st.expander("Model and device", expanded=False):
    choice = st.radio("Target model", [BUNDLED, CUSTOM], key="rm_model", horizontal=True)
    custom = st.text_input("Hub id or folder", key="rm_custom", placeholder="HuggingFaceTB/SmolLM2-360M-Instruct",
                           disabled=choice != CUSTOM)
    device = st.selectbox("Device", ["auto", *available_devices()], key="rm_device")
spec = "smollm2" if choice == BUNDLED else custom.strip()
if not spec:
    st.info("Type a hub id or a local folder to load a model.")
    st.stop()
device_choice = None if device == "auto" else device
target = get_model(spec, device_choice)
if target is None:
    st.stop()
ss.rm_n_layers = target.n_layers
label = labeler(target.tokenizer)
for key, value in preset_state(PRESETS[0], target.n_layers).items():
    ss.setdefault(key, value)  # the first visit opens on the first preset
ss.setdefault("rm_preset", PRESETS[0].name)

# --- preset, Generate ----------------------------------------------------------------------------------------
top = st.columns([3, 1.5, 1.2, 1], vertical_alignment="bottom")
preset_name = top[0].selectbox("Preset", [p.name for p in PRESETS], key="rm_preset", on_change=apply_preset)
verification = top[1].radio("Verification", list(VERIFICATIONS), key="rm_verification", horizontal=True,
                            format_func=VERIFICATIONS.get,
                            help="Tokenwise checks each draft on its own; block verification (Sun et al. 2025) "
                                 "decides how many drafts to keep from the whole block: never fewer in "
                                 "expectation, same target pass, still exact")
race_on = top[2].toggle("Race plain", value=True, key="rm_race",
                        help="Run plain target sampling first, then the speculative run, and compare their speeds")
clicked = top[3].button("Generate", type="primary", key="rm_generate", width="stretch")
st.caption(f"{by_name(preset_name).lesson} Model: {spec} — {target.n_layers} layers, vocabulary "
           f"{target.vocab_size:,}, on {target.device_name}.")

with st.expander("Prompt and settings (set by the preset; change any)", expanded=False):
    left, right = st.columns([2, 1])
    prompt = left.text_area("Prompt", key="rm_prompt", height=120)
    chat = left.checkbox("Chat template", value=True, key="rm_chat", disabled=not target.is_chat)
    draft_name = right.selectbox("Draft", list(DRAFT_CHOICES), key="rm_draft")
    kind = DRAFT_CHOICES[draft_name]
    if kind == "early-exit":
        ss.rm_layers = min(ss.get("rm_layers", min(8, target.n_layers)), target.n_layers)
        right.slider("Early-exit layers k (k = all: q = p)", 1, target.n_layers, key="rm_layers")
    elif kind == "target":
        right.slider("Draft temperature", 0.1, 3.0, 1.5, key="rm_draft_t")
        right.number_input("Draft top-k (0: off)", 0, 1000, 0, key="rm_draft_k")
    elif kind == "lookup":
        right.slider("Longest n-gram", 1, 8, key="rm_ngram")
    elif kind == "model":
        right.text_input("Draft hub id or folder", key="rm_draft_model")
    cols = st.columns(4)
    depth = cols[0].slider("Depth", 1, MAX_DEPTH, key="rm_depth")
    draft_top_k = cols[0].number_input("Draft top-k (0: off)", 0, 5000, key="rm_draft_top_k")
    temperature = cols[1].slider("Target temperature", 0.1, 2.0, step=0.05, key="rm_temperature")
    top_k = cols[1].number_input("Target top-k (0: off)", 0, 5000, key="rm_top_k")
    top_p = cols[2].slider("Target top-p", 0.05, 1.0, step=0.05, key="rm_top_p")
    seed = cols[2].number_input("Seed", 0, 2**31 - 1, 1, key="rm_seed")
    max_new = cols[3].slider("Max new tokens", 4, 256, key="rm_max_new")
    top_n = cols[3].slider("Top-N bars", 3, 30, 10, key="rm_top_n")
draft = draft_from_widgets(kind, dict(ss), target.n_layers)
slot = st.empty()  # the live view, then the result, in the same place: right under Generate


def live_view(with_plain: bool):
    """Progress bar and running text per leg, side by side; returns the progress callback."""
    box = slot.container()
    columns = box.columns(2) if with_plain else [box]
    legs = ([PLAIN] if with_plain else []) + [SPECULATIVE]
    places, throttle = {}, Throttle(0.2)
    for leg, column in zip(legs, columns):
        column.markdown(f"**{'Plain sampling' if leg == PLAIN else f'Speculative ({draft.label()})'}**")
        places[leg] = (column.progress(0.0, text="waiting"), column.empty())

    def progress(leg: str, session, record) -> None:
        gen = session.generation
        done = gen.stopped or len(gen.tokens) >= max_new
        if not throttle(force=done or record.round_id == 0):
            return
        bar, text = places[leg]
        bar.progress(min(1.0, len(gen.tokens) / max_new), text=f"{len(gen.tokens)}/{max_new} tokens")
        text.markdown(plots.tokens_html(token_pieces(target.tokenizer, gen.tokens), gen.origins),
                      unsafe_allow_html=True)
    return progress


def generate() -> dict | None:
    """Run the race (or the speculative run alone); None after explaining a refusal (the old result stays)."""
    draft_model = None
    if kind == "model":
        if not draft.model:
            st.error("Type the draft model's hub id or folder.")
            return None
        draft_model = get_model(draft.model, device_choice, "draft model")
        if draft_model is None:
            return None
    settings = Settings(depth=depth, seed=int(seed), max_new_tokens=max_new, temperature=temperature,
                        top_k=int(top_k), top_p=top_p, draft_top_k=int(draft_top_k), chat=chat,
                        verification=verification)
    try:
        progress = live_view(race_on)
        if race_on:
            result = race(target, prompt, draft, settings, draft_model=draft_model, progress=progress,
                          keep_raw=True)
            leg = result.speculative
        else:
            result = None
            leg = run_leg(SPECULATIVE, Session(target, draft, settings, prompt, draft_model=draft_model,
                                               top_n=None, keep_raw=True), progress)
    except (TokenizerMismatchError, ValueError) as error:
        slot.empty()
        st.error(str(error))
        return None
    return {"race": result, "leg": leg, "depth": depth, "spec": spec, "draft": draft.label(),
            "verification": verification}


def publish(result: dict) -> None:
    """Leave the measurement where the Theory page finds it."""
    leg, outcome = result["leg"], result["race"]
    ss.rm_summary = leg.summary
    if outcome is not None and outcome.prediction is not None and outcome.cost is not None:
        s = leg.summary
        drafted = [len(r.drafted) for r in leg.generation.rounds if r.drafted]
        g = max(1, round(sum(drafted) / len(drafted))) if drafted else depth
        ss.theory_speedups = {f"Real model, {result['draft']}": {
            "acceptance_rate": s.acceptance_rate or 0.0, "cost_ratio": outcome.cost.draft_ratio(result["draft"]),
            "depth": g, "verify_ratio": outcome.cost.pass_ratio(g + 1), "measured_speedup": outcome.speedup,
            "predicted_speedup": outcome.prediction.speedup}}


if clicked:
    produced = generate()
    if produced is not None:
        ss.rm_result = produced
        publish(produced)

result = ss.get("rm_result")
if result and result["spec"] == spec:
    leg, outcome = result["leg"], result["race"]
    summary = leg.summary
    with slot.container():
        if outcome is not None:
            wins = outcome.speedup >= 1.0
            headline = f"**{outcome.line()}**"
            (st.success if wins else st.warning)(headline)
            columns = st.columns(2)
            speculative_title = f"Speculative ({result['draft']}, {VERIFICATIONS[result['verification']]})"
            for column, one, title in ((columns[0], outcome.plain, "Plain sampling (exact core)"),
                                       (columns[1], outcome.speculative, speculative_title)):
                column.markdown(f"**{title}**")
                leg_metrics(one, column)
                column.markdown(leg_text(one, target.tokenizer), unsafe_allow_html=True)
            if outcome.explanation:
                st.info(outcome.explanation)
        else:
            st.subheader(f"Generated with {result['draft']}, {VERIFICATIONS[result['verification']]} verification")
            leg_metrics(leg, st)
            st.markdown(leg_text(leg, target.tokenizer), unsafe_allow_html=True)
        st.markdown(plots.legend_html(plain=summary.plain_rounds > 0), unsafe_allow_html=True)

    st.subheader("What the speculative run measured")
    m = st.columns(5)
    m[0].metric("Tokens", summary.tokens)
    m[1].metric("Accepted drafts", f"{summary.accepted}/{summary.drafted}")
    m[2].metric("Tokens/verify pass", f"{summary.tokens_per_target_forward:.2f}",
                help="Tokens per target verification pass: counts only passes that verify a block (or sample "
                     "without a draft)")
    m[3].metric("Drafting passes", summary.drafting_forwards,
                help="Target passes spent drafting, when the draft is the target itself (q = p, or the target "
                     "re-processed)")
    m[4].metric("No-draft rounds", summary.plain_rounds,
                help="Rounds where prompt lookup found no n-gram match and sampled the target alone")
    if outcome is not None:
        st.plotly_chart(plots.race_figure(outcome.plain.tokens_per_s, outcome.speculative.tokens_per_s,
                                          result["draft"], outcome.prediction.speedup if outcome.prediction else None),
                        key="rm_race_chart", theme=None)
    c1, c2 = st.columns(2)
    c1.plotly_chart(plots.acceptance_figure(summary.acceptance_by_position, summary.alpha_by_position,
                                            summary.reached), key="rm_acceptance", theme=None)
    c2.plotly_chart(plots.tokens_per_round_figure([(r.origins.count("accepted"), r.origins[-1] if r.origins else "")
                                                   for r in leg.generation.rounds], summary.expected_tokens_per_round),
                    key="rm_per_round", theme=None)
    st.plotly_chart(plots.time_split_figure(summary.time_s, TIME_LABELS), key="rm_time", theme=None)
    rounds = leg.generation.rounds
    if rounds:
        shown = st.slider("Inspect round", 0, len(rounds) - 1, 0, key="rm_round") if len(rounds) > 1 else 0
        render_round(rounds[shown], label, top_n)
