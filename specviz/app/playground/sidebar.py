"""The Playground's sidebar: presenter mode, the preset box, verification, depth, seed and (outside presenter
mode) the vocabulary, the filters and the session's names."""

from __future__ import annotations

import streamlit as st

from ...core import MAX_DEPTH
from ...playground import form, presets
from . import controls
from .rule_switch import verification_controls
from .session import Keys, PlaygroundSession, session

S = PlaygroundSession  # class attributes are the slots: S.depth.key is the depth slider's key


def sidebar_controls(presenter: bool) -> None:
    """Every control of the sidebar; presenter mode keeps the first four (the others keep their values)."""
    pg = session()
    with st.sidebar:
        st.toggle("Presenter mode (larger type, fewer controls)", key=S.presenter.key)
        preset_box(pg)
        verification_controls()  # tokenwise / block / tree (width, distinct): rule_switch
        st.slider("Depth (drafted tokens per round)", 1, MAX_DEPTH, key=S.depth.key)
        st.text_input("Seed", key=S.seed.key, help=f"a whole number from 0 to {form.SEED_MAX:,}; "
                      "New seed (under the chart) adds 1")
        if presenter:
            return
        st.radio("Mode", (controls.FIXED, controls.MARKOV), key=S.mode.key, on_change=controls.on_mode_change)
        st.text_input("Vocabulary (2 to 12 labels, comma-separated)", key=S.vocab.key)
        filter_controls(pg)
        st.toggle("FP32 quantization (weights rounded to float32 first)", key=S.fp32.key)
        st.text_input("Request id", key=S.request.key)
        st.number_input("Generation", min_value=0, step=1, key=S.generation.key)


def preset_box(pg: PlaygroundSession) -> None:
    custom = pg.preset if pg.preset not in presets.PRESETS else presets.CUSTOM  # 'custom (from close)' or a link's
    st.selectbox("Preset (applies at once)", [*presets.PRESETS, custom], key=S.preset.key,
                 on_change=controls.load_preset,
                 help="\n\n".join(f"**{p.name}**: {p.description}" for p in presets.PRESETS.values()))
    st.caption(presets.describe(pg.preset))
    if pg.preset_undo is not None:
        st.button(f"↩ Undo preset (back to {pg.preset_undo[2]})", on_click=controls.undo_preset,
                  key=Keys.undo_preset, width="stretch")


def filter_controls(pg: PlaygroundSession) -> None:
    """The draft's top-k and the target's processors, and one caption naming the filters in force."""
    v = len(pg.table_vocab)
    pg.draft_topk = min(max(pg.draft_topk, 1), v)
    pg.top_k = min(max(pg.top_k, 1), v)
    st.slider(f"Draft top-k (support chosen before sampling; {v} = keep all)", 1, v, key=S.draft_topk.key)
    st.markdown("**Target processor**")
    st.slider("Temperature (1 = unchanged)", *form.TEMPERATURE_RANGE, step=0.05, key=S.temperature.key)
    st.slider(f"Target top-k ({v} = keep all)", 1, v, key=S.top_k.key)
    st.slider("Target top-p (1 = keep all)", *form.TOP_P_RANGE, step=0.05, key=S.top_p.key)
    filters = [f"{name} {k}" for name, k in (("draft top-k", pg.draft_topk), ("target top-k", pg.top_k)) if k < v]
    if pg.top_p < 1:
        filters.append(f"target top-p {pg.top_p:g}")
    if filters:
        st.caption("Active filters: " + ", ".join(filters) + " (kept when the vocabulary changes).")
