"""Shared fixtures: Streamlit caches (and the Playground's built rounds) persist across AppTest runs, so
every test starts clean."""

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(autouse=True)
def _clear_streamlit_caches():
    try:
        import streamlit as st
    except ImportError:  # the core tests need no Streamlit
        yield
        return
    st.cache_data.clear()
    st.cache_resource.clear()
    from specviz.app.playground import round_cache

    round_cache.rounds.clear()  # built rounds are shared by every session (a test may patch their builder)
    yield
