"""Real models: the same exact verifier on small language models at real vocabulary sizes.

Thin page: widgets, calls into specviz.models, rendering. Figures live in specviz.plots.real_models.
"""

from __future__ import annotations

import streamlit as st

from specviz.core import MAX_DEPTH
from specviz.models import DraftSpec, ModelLoadError, Session, Settings, TokenizerMismatchError, load_model
from specviz.models.device import available_devices
from specviz.models.stats import TIME_LABELS, summarize
from specviz.models.text import token_label, token_pieces
from specviz.plots import real_models as plots
from specviz.plots import style

ss = st.session_state
BUNDLED, CUSTOM = "SmolLM2-135M-Instruct (bundled, offline)", "Hub id, local folder or .gguf file"
DRAFTS = {"Early exit (first k layers)": "early-exit", "Target re-processed (temperature, top-k)": "target",
          "Prompt lookup (n-gram, one-hot q)": "lookup", "Second model (same tokenizer)": "model"}


@st.cache_resource(show_spinner=False, max_entries=3)
def cached_model(spec: str, device: str | None):
    """Load once per process."""
    return load_model(spec, device)


def get_model(spec: str, device: str | None):
    """The loaded model, or None after explaining what went wrong."""
    try:
        with st.status(f"Loading {spec} …", expanded=False) as status:
            model = cached_model(spec, device)
            status.update(label=f"Model: {spec} — {model.n_layers} layers, vocabulary {model.vocab_size}, "
                          f"on {model.device_name} (loaded in {model.load_seconds:.1f}s)", state="complete")
        return model
    except ModelLoadError as error:
        st.error(str(error))
        st.info("The rest of the app works without this model. Pick the bundled SmolLM2 (installed by "
                "`make run`), or give a local folder saved with `save_pretrained`.")
        return None


def labeler(tokenizer):
    """token id -> short visible label, memoised."""
    memo: dict[int, str] = {}

    def label(token: int) -> str:
        if token not in memo:
            memo[token] = token_label(tokenizer, token)
        return memo[token]
    return label


def render_round(record, label, container, prefix: str) -> None:
    """Every event of one round: charts and the exact acceptance test."""
    with container:
        committed = " ".join(f"{style.origin(o).glyph} {label(t)!r}" for t, o in zip(record.tokens, record.origins))
        st.markdown(f"**Round {record.round_id + 1}** — drafted {len(record.drafted)}, accepted "
                    f"{record.accepted}; committed {committed}")
        for view in record.views or []:
            if view["kind"] == "draft":
                continue
            fig = plots.view_figure(view, label)
            if fig is not None:
                st.plotly_chart(fig, key=f"rm_{prefix}_{record.round_id}_{view['kind']}_{view['position']}",
                                theme=None)
            if view["kind"] == "check":
                st.markdown(plots.check_text(view, label))


st.title("Real models")
st.caption("The same exact verifier, on a real language model with a real vocabulary: p and q are the models' "
           "FP32 softmax, turned into exact integer tickets before any draw.")

left, right = st.columns([2, 1])
with right:
    choice = st.radio("Target model", [BUNDLED, CUSTOM], key="rm_model")
    custom = st.text_input("Hub id or folder", key="rm_custom", placeholder="HuggingFaceTB/SmolLM2-360M-Instruct",
                           disabled=choice != CUSTOM)
    device = st.selectbox("Device", ["auto", *available_devices()], key="rm_device")
spec = "smollm2" if choice == BUNDLED else custom.strip()
if not spec:
    st.info("Type a hub id or a local folder to load a model.")
    st.stop()
target = get_model(spec, None if device == "auto" else device)
if target is None:
    st.stop()
label = labeler(target.tokenizer)

with left:
    prompt = st.text_area("Prompt", "Write a short poem about the sea.", key="rm_prompt")
    chat = st.checkbox("Chat template", value=True, key="rm_chat", disabled=not target.is_chat)
    draft_name = st.selectbox("Draft", list(DRAFTS), key="rm_draft")
kind = DRAFTS[draft_name]
with right:
    if kind == "early-exit":
        ss.rm_layers = min(ss.get("rm_layers", min(8, target.n_layers)), target.n_layers)
        layers = st.slider("Early-exit layers k (k = all: q = p)", 1, target.n_layers, key="rm_layers")
        draft = DraftSpec("early-exit", layers=layers)
    elif kind == "target":
        draft = DraftSpec("target", temperature=st.slider("Draft temperature", 0.1, 3.0, 1.5, key="rm_draft_t"),
                          top_k=st.number_input("Draft top-k (0: off)", 0, 1000, 0, key="rm_draft_k"))
    elif kind == "lookup":
        draft = DraftSpec("lookup", ngram=st.slider("Longest n-gram", 1, 8, 3, key="rm_ngram"))
    else:
        draft = DraftSpec("model", model=st.text_input("Draft hub id or folder", key="rm_draft_model").strip())

cols = st.columns(4)
depth = cols[0].slider("Depth", 1, MAX_DEPTH, 4, key="rm_depth")
draft_top_k = cols[0].number_input("Draft top-k (0: off)", 0, 5000, 0, key="rm_draft_top_k")
temperature = cols[1].slider("Target temperature", 0.1, 2.0, 1.0, 0.05, key="rm_temperature")
top_k = cols[1].number_input("Target top-k (0: off)", 0, 5000, 0, key="rm_top_k")
top_p = cols[2].slider("Target top-p", 0.05, 1.0, 1.0, 0.05, key="rm_top_p")
seed = cols[2].number_input("Seed", 0, 2**31 - 1, 1, key="rm_seed")
max_new = cols[3].slider("Max new tokens", 4, 256, 48, key="rm_max_new")
top_n = cols[3].slider("Top-N bars", 3, 30, 10, key="rm_top_n")
animate = st.checkbox("Show every round while generating", value=True, key="rm_animate")

if st.button("Generate", type="primary", key="rm_generate"):
    draft_model = None
    if kind == "model":
        if not draft.model:
            st.error("Type the draft model's hub id or folder.")
            st.stop()
        draft_model = get_model(draft.model, None if device == "auto" else device)
        if draft_model is None:
            st.stop()
    settings = Settings(depth=depth, seed=int(seed), max_new_tokens=max_new, temperature=temperature,
                        top_k=int(top_k), top_p=top_p, draft_top_k=int(draft_top_k), chat=chat)
    try:
        session = Session(target, draft, settings, prompt, draft_model=draft_model, top_n=None, view_top_n=top_n)
    except (TokenizerMismatchError, ValueError) as error:
        st.error(str(error))
        st.stop()
    text_box, progress, round_box = st.empty(), st.progress(0.0), st.empty()
    for record in session.rounds():
        gen = session.generation
        text_box.markdown(plots.tokens_html(token_pieces(target.tokenizer, gen.tokens), gen.origins),
                          unsafe_allow_html=True)
        progress.progress(min(1.0, len(gen.tokens) / max_new), text=f"{len(gen.tokens)}/{max_new} tokens")
        if animate:
            render_round(record, label, round_box.container(), "live")
    text_box.empty()  # the finished result is drawn below, once
    progress.empty()
    round_box.empty()
    ss.rm_result = {"gen": session.generation, "depth": depth, "spec": spec, "draft": draft.label()}

result = ss.get("rm_result")
if result and result["spec"] == spec:
    gen = result["gen"]
    summary = summarize(gen, result["depth"])
    st.subheader(f"Generated with {result['draft']}")
    st.markdown(style.legend_html(), unsafe_allow_html=True)
    st.markdown(plots.tokens_html(token_pieces(target.tokenizer, gen.tokens), gen.origins), unsafe_allow_html=True)
    m = st.columns(5)
    m[0].metric("Tokens", summary.tokens)
    m[1].metric("Accepted drafts", f"{summary.accepted}/{summary.drafted}")
    m[2].metric("Tokens per target forward", f"{summary.tokens_per_target_forward:.2f}")
    m[3].metric("Tokens/s", f"{summary.tokens_per_s:.1f}")
    m[4].metric("Device", summary.device.split(" (")[0], help=summary.device)
    c1, c2 = st.columns(2)
    c1.plotly_chart(plots.acceptance_figure(summary.acceptance_by_position, summary.alpha_by_position,
                                            summary.reached), key="rm_acceptance", theme=None)
    c2.plotly_chart(plots.tokens_per_round_figure([(r.origins.count("accepted"), r.origins[-1] if r.origins else "")
                                                   for r in gen.rounds], summary.expected_tokens_per_round),
                    key="rm_per_round", theme=None)
    st.plotly_chart(plots.time_split_figure(summary.time_s, TIME_LABELS), key="rm_time", theme=None)
    if gen.rounds:
        shown = st.slider("Inspect round", 1, len(gen.rounds), 1, key="rm_round") if len(gen.rounds) > 1 else 1
        render_round(gen.rounds[shown - 1], label, st.container(), "inspect")
