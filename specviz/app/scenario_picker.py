"""The scenario picker the lab and theory pages share: a followed link's scenario (a gallery card's), the
Playground's scenario, or a preset (in the sidebar)."""

from __future__ import annotations

import json

import streamlit as st

from ..playground import presets
from ..playground.presets import preset_scenario
from ..scenario import Scenario, scenario_from_dict, scenario_to_dict
from .measured import playground_scenario

PLAYGROUND = "The Playground's scenario"
PRESET = "A preset"
LINKED = "The link's scenario"


def follow_link(key: str) -> None:
    """A link was just followed (a gallery card): the sidebar's source becomes the link's scenario."""
    st.session_state[f"{key}_source"] = LINKED


def pick(key: str, *, linked: Scenario | None = None, default_preset: str = "close", default_vocab: int = 6,
         default_depth: int = 3) -> Scenario:
    """Widgets in the sidebar; returns the scenario the page should analyse (``linked``: a followed link's, offered
    first, so that the sidebar always names the scenario the page shows)."""
    ss = st.session_state
    from_playground = playground_scenario(ss)
    with st.sidebar:
        st.subheader("Scenario")
        options = ([LINKED] if linked is not None else []) + ([PLAYGROUND] if from_playground is not None else [])
        options.append(PRESET)
        if ss.get(f"{key}_source") not in options:
            ss.pop(f"{key}_source", None)  # a source that is gone (the link was left): the first one
        source = st.radio("Analyse", options, key=f"{key}_source")
        if source == LINKED and linked is not None:
            st.caption(f"The scenario of the link you followed ({linked.vocab_size} tokens, depth {linked.depth}); "
                       "choose another source to analyse it instead.")
            return linked
        if source == PLAYGROUND and from_playground is not None:
            st.caption("Open the Playground to change it; its settings carry over here.")
            return from_playground
        if from_playground is None:
            st.caption("No Playground scenario in this session yet: pick a preset (or open the Playground).")
        name = st.selectbox("Preset", list(presets.PRESETS), index=list(presets.PRESETS).index(default_preset),
                            key=f"{key}_preset")
        st.caption(presets.PRESETS[name].description)
        vocab_size = st.slider("Vocabulary size V", 2, 8, default_vocab, key=f"{key}_vocab")
        depth = st.slider("Depth g", 1, 5, default_depth, key=f"{key}_depth")
        markov = st.toggle("Markov (p, q depend on the previous token)", key=f"{key}_markov")
    return preset_scenario(name, vocab_size, depth, markov)


def to_key(scenario: Scenario) -> str:
    """A JSON text that identifies the scenario exactly (for st.cache_data)."""
    return json.dumps(scenario_to_dict(scenario), sort_keys=True)


def from_key(text: str) -> Scenario:
    return scenario_from_dict(json.loads(text))
