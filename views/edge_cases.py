"""Edge-case gallery: small scenarios, what happens and why, each one click from the Playground."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from specviz import gallery
from specviz.playground import share

PLAYGROUND = "views/playground.py"


@st.cache_data(show_spinner=False)
def observed(slug: str) -> dict:
    return gallery.observe(gallery.BY_SLUG[slug])


st.title("Edge-case gallery")
st.markdown("Each card is a small scenario. The facts are exact: the expected value is written on the card, "
            "the computed one comes from enumerating every way a round can go.")

columns = st.columns(2)
for index, card in enumerate(gallery.CARDS):
    with columns[index % 2].container(border=True):
        st.subheader(card.title)
        st.markdown(card.text)
        seen = observed(card.slug)
        rows = [{"fact": k, "expected": gallery.format_fact(v), "computed": gallery.format_fact(seen.get(k)),
                 "": "✓" if seen.get(k) == v else "✗"} for k, v in card.expected.items()]
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
        if st.button("Open in the Playground", key=f"open_{card.slug}", icon="▶️"):
            st.switch_page(PLAYGROUND, query_params=share.scenario_to_query(card.scenario))
