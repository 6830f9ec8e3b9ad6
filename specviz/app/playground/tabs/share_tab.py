"""The Playground's Share tab: the link of this scenario and step, the JSON download, the file loader."""

from __future__ import annotations

import streamlit as st

from ....playground import share, state
from ....scenario import Scenario
from .. import links
from ..session import Keys


def sharing(scenario: Scenario, step: int) -> None:
    """The link of this scenario at this step, the JSON download (with the trace so far), the file loader."""
    query = share.scenario_to_query(scenario, step)
    base = (st.context.url or "").split("?")[0]  # None without a browser (AppTest)
    st.markdown("**Copy link** (the copy icon is at the right of the box): it reopens this scenario at this step.")
    st.code(base + share.query_string(query), language=None, wrap_lines=True)
    trace = state.trace_upto(scenario, step)
    st.download_button("⬇ Download scenario + trace (JSON)", share.export_json(scenario, step, trace),
                       file_name=f"specviz-playground-seed{scenario.seed}.json", mime="application/json",
                       key=Keys.download)
    st.file_uploader("Load a downloaded scenario (JSON)", type=["json"], key=Keys.upload,
                     on_change=links.on_upload)
