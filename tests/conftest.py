"""Shared fixtures: Streamlit caches (and the Playground's built rounds) persist across AppTest runs, so
every test starts clean."""

import os

import pytest
from hypothesis import settings

# no time limit on an example: a shared 2-core machine can take 300 ms for what takes 3 ms alone, and a
# timed failure says nothing about behaviour (tests check behaviour; bench/ measures speed)
settings.register_profile("specviz", deadline=None)
settings.load_profile("specviz")

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
