"""The Exactness lab's cached computations and its exact tables (page plumbing; the numbers come from
``specviz.theory`` and ``specviz.lab``)."""

from __future__ import annotations

import streamlit as st

from .. import theory
from ..lab import float_verifier as fv
from ..lab import montecarlo as mc
from ..plots import lab as plots
from ..plots import verification_figures as plots_verification
from . import scenario_picker as picker

MAX_SEQUENCES = 20_000  # V^(depth+1) above this: no sequence table (marginals only)
TABLE_ROWS = 300  # rows an exact table shows (the likeliest first); the verdict above covers them all


@st.cache_data(show_spinner="Enumerating every way one round can go, in Fractions…")
def exact_report(key: str) -> theory.ExactnessReport:
    return theory.exactness_report(picker.from_key(key))


@st.cache_data(show_spinner=False)
def exact_law(key: str) -> mc.ExactLaw:
    return mc.exact_law(picker.from_key(key), max_blocks=MAX_SEQUENCES)


@st.cache_data(show_spinner="Enumerating the float verifier and each engine bug…")
def engine_results(key: str, comparison: str) -> dict[str, fv.EngineComparison]:
    return fv.compare_all(picker.from_key(key), comparison=comparison)


@st.cache_data(show_spinner="Enumerating both verifications…")
def side_by_side(key: str, small: bool) -> list[dict]:
    return plots_verification.verification_table(picker.from_key(key), enumerate_sequences=small)


def _shown(rows: list, total: int) -> None:
    st.markdown(plots.html_table(rows, max_height=420), unsafe_allow_html=True)
    note = f"The likeliest {len(rows):,} of {total:,} rows. " if len(rows) < total else ""
    st.caption(note + "A short fraction is shown as it is, a longer one as a decimal: hover a number (dotted "
               "underline) for the exact value.")


def sequence_table(report: theory.ExactnessReport, labels: list[str]) -> None:
    ranked = sorted(report.sequences, key=lambda r: -r.target)[:TABLE_ROWS]
    _shown([{"sequence": plots.token_text(r.tokens, labels), "one round + target completion": r.speculative,
             "target": r.target, "difference": r.difference} for r in ranked], len(report.sequences))


def position_table(report: theory.ExactnessReport, labels: list[str]) -> None:
    rows = report.positions[:TABLE_ROWS]
    _shown([{"position k": r.position, "after": plots.token_text(r.context, labels), "token": labels[r.token],
             "P(y_k = token | reached)": r.conditional, "p(token | y_<k)": r.target, "difference": r.difference}
            for r in rows], len(report.positions))
