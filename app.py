"""specviz: exact speculative sampling, visualised. Run with `make run` (or `streamlit run app.py`)."""

from pathlib import Path

import streamlit as st

st.set_page_config(page_title="specviz: exact speculative sampling", page_icon="🎯", layout="wide")
st.html(f"<style>{(Path(__file__).parent / 'assets' / 'style.css').read_text()}</style>")

PAGES = [
    st.Page("pages/home.py", title="Overview", icon="🎯", default=True),
    st.Page("pages/playground.py", title="Playground", icon="🎛️"),
    st.Page("pages/exactness_lab.py", title="Exactness lab", icon="🧪"),
    st.Page("pages/theory.py", title="Theory and speedup", icon="📈"),
    st.Page("pages/edge_cases.py", title="Edge-case gallery", icon="🃏"),
    st.Page("pages/real_models.py", title="Real models", icon="🤖"),
]

st.navigation(PAGES).run()
