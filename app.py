"""specviz: exact speculative sampling, visualised. Run with `make run` (or `streamlit run app.py`)."""

from pathlib import Path

import streamlit as st

from specviz.app import assets

# a presenter link's first page config already collapses the sidebar (the Playground says it again)
PRESENTER = st.query_params.get("presenter") == "1"
st.set_page_config(page_title="specviz: exact speculative sampling", page_icon="🎯", layout="wide",
                   initial_sidebar_state="collapsed" if PRESENTER else "auto")
st.html(f"<style>{(Path(__file__).parent / 'assets' / 'style.css').read_text()}</style>")
# figures for slides: an SVG and a PNG download on every chart's mode bar (a script in the top document, once a tab)
st.sidebar.html(assets.script_tag("plotly_downloads.js"), unsafe_allow_javascript=True)

PAGES = [
    st.Page("views/home.py", title="Overview", icon="🎯", default=True),
    st.Page("views/playground.py", title="Playground", icon="🎛️"),
    st.Page("views/exactness_lab.py", title="Exactness lab", icon="🧪"),
    st.Page("views/theory.py", title="Theory and speedup", icon="📈"),
    st.Page("views/edge_cases.py", title="Edge-case gallery", icon="🃏"),
    st.Page("views/real_models.py", title="Real models", icon="🤖"),
]

st.navigation(PAGES).run()
