"""Edge-case gallery: small scenarios, what happens and why, each one click from the Playground."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from specviz import gallery
from specviz.playground import share

PLAYGROUND = "views/playground.py"
LAB = "views/exactness_lab.py"


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
        rows, exact = gallery.fact_table(card, observed(card.slug))  # the verdict column comes first
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch",
                     column_config={"": st.column_config.TextColumn(width=36, help="exact values agree")})
        if exact:
            st.caption("Exact: " + " · ".join(exact))
        if card.opens == "rules":  # the lab's rules view, on the card's scenario
            if st.button("Open in the Exactness lab: every rule", key=f"open_{card.slug}", icon="🧪"):
                st.switch_page(LAB, query_params={**share.scenario_to_query(card.scenario), "view": "rules"})
        elif st.button("Open in the Playground", key=f"open_{card.slug}", icon="▶️"):
            st.switch_page(PLAYGROUND, query_params=share.scenario_to_query(card.scenario))
