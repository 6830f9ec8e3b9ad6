"""specviz: exact speculative sampling, visualised. Run with `make run` (or `streamlit run app.py`)."""

import streamlit as st

st.set_page_config(page_title="specviz: exact speculative sampling", page_icon="🎯", layout="wide")

PAGES = [
    st.Page("pages/home.py", title="Overview", icon="🎯", default=True),
]

st.navigation(PAGES).run()
