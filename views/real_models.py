"""Real models: the same exact verifier on a real language model, raced against plain sampling.

Thin page: widgets, calls into specviz.models, rendering. Page parts live in specviz.app.real_models_page,
figures in specviz.plots.real_model_figures.
"""

from __future__ import annotations

import streamlit as st

from specviz.app import real_models_page as app
from specviz.core.errors import SpecvizError
from specviz.models import GenerationSettings, Session
from specviz.models.device import available_devices
from specviz.models.model_presets import PRESETS, by_name
from specviz.models.race import SPECULATIVE, TRIALS, race, run_leg
from specviz.narration.problems import refusal_line

ss = st.session_state

# --- model ----------------------------------------------------------------------------------------------------
st.title("Real models")
st.caption("The same exact verifier on a real language model, raced against plain sampling: p and q are the "
           "models' FP32 softmax, turned into exact integer tickets before any draw. Rounds and draft positions "
           "count from 0, as in the Playground.")
spec = app.model_choice()
with st.expander("Device", expanded=False):
    device = st.selectbox("Device", ["auto", *available_devices()], key="rm_device")
if not spec:
    st.stop()
device_choice = None if device == "auto" else device
target = app.get_model(spec, device_choice)
if target is None:
    st.stop()
label = app.labeler(target.tokenizer)
app.open_on_first_preset(PRESETS[0], target.n_layers)

# --- preset, verification, Generate --------------------------------------------------------------------------
top = st.columns([2.6, 2.3, 1.1, 1.0], vertical_alignment="bottom")
preset_name = top[0].selectbox("Preset", [p.name for p in PRESETS], key="rm_preset", on_change=app.apply_preset)
verification = app.verification_widget(top[1])
race_on = top[2].toggle("Race", value=True, key="rm_race",
                        help=f"Race plain target sampling against the speculative run, {TRIALS} times, interleaved "
                             "over consecutive seeds, and compare their speeds (median and spread); a tree also "
                             "races the same draft as a chain")
clicked = top[3].button("Generate", type="primary", key="rm_generate", width="stretch")
context = f", context {target.context_length:,} tokens" if target.context_length else ""
st.caption(f"{by_name(preset_name).lesson} Model: {spec} — {target.n_layers} layers, vocabulary "
           f"{target.vocab_size:,}{context}, on {target.device_name}.")
widgets = app.settings_widgets(target)
kind, draft = widgets["kind"], widgets["draft"]
slot = st.empty()  # the live view, then the result, in the same place: right under Generate


def settings() -> GenerationSettings:
    """The generation settings the widgets describe."""
    return GenerationSettings(depth=ss.rm_depth, seed=int(ss.rm_seed), max_new_tokens=ss.rm_max_new,
                              temperature=ss.rm_temperature, top_k=int(ss.rm_top_k), top_p=ss.rm_top_p,
                              draft_top_k=int(ss.rm_draft_top_k), chat=ss.rm_chat, verification=verification)


def generate() -> dict | None:
    """Run the races (or the speculative run alone); None after explaining a refusal (the old result stays)."""
    draft_model = None
    if kind == "model":
        if not draft.model:
            st.error("Type the draft model's hub id or folder.")
            return None
        draft_model = app.get_model(draft.model, device_choice, "draft model")
        if draft_model is None:
            return None
    chosen = settings()
    try:
        live = app.live_view(slot, target.tokenizer, draft.label(), chosen, race_on)
        if race_on:
            result = race(target, ss.rm_prompt, draft, chosen, draft_model=draft_model, progress=live.progress,
                          keep_raw=True, stage=live.stage)
            leg = result.speculative
        else:
            result = None
            live.stage("Starting the run")
            leg = run_leg(SPECULATIVE, Session(target, draft, chosen, ss.rm_prompt, draft_model=draft_model,
                                               top_n=None, keep_raw=True), live.progress)
    except SpecvizError as error:  # a refusal (context length, draft, verification): one line, the old result stays
        slot.empty()
        st.error(refusal_line(error))  # as `specviz generate` says it
        return None
    except Exception as error:  # noqa: BLE001 - anything else is a bug: said as one, with a line to copy
        slot.empty()
        app.show_bug(error, "Generate")
        return None
    return {"race": result, "leg": leg, "depth": chosen.depth, "spec": spec, "draft": draft.label(),
            "verification": verification}


if clicked:
    produced = generate()
    if produced is not None:
        ss.rm_result = produced
        app.publish(produced)

result = ss.get("rm_result")
if result and result["spec"] == spec:
    leg, outcome = result["leg"], result["race"]
    with slot.container():
        if outcome is not None:
            app.show_race(outcome, result, target.tokenizer)
        else:
            app.show_alone(leg, result, target.tokenizer)
        st.markdown(app.plots.legend_html(plain=leg.summary.plain_rounds > 0), unsafe_allow_html=True)
    app.show_measured(leg.summary, leg, outcome, result["draft"])
    rounds = leg.generation.rounds
    if rounds:
        shown = st.slider("Inspect round", 0, len(rounds) - 1, 0, key="rm_round") if len(rounds) > 1 else 0
        app.render_round(rounds[shown], label, ss.rm_top_n)
