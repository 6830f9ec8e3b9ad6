"""The Playground's "Many rounds" tab: N exact rounds at once, the first token's histogram against p, engine bugs.

What the tab runs depends on the rule (``MANY_ROUNDS_TAB_BY_FAMILY``, this layer's FamilyTable): tokenwise rounds with
the lab's injectable engine bugs, block rounds with the bugs set aside (they are tokenwise), and for every other
rule nothing but its ``Unsupported`` entry's note pointing to the lab (the Monte Carlo here simulates tokenwise and
block rounds only).
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from ....core.verification import FamilyTable, Unsupported
from ....playground import many_rounds
from ....plots import many_rounds_figures as many_plots
from ....scenario import Scenario
from ..session import Keys, PlaygroundSession, session

S = PlaygroundSession
NO_BAR = {"displayModeBar": False}

TREE_NOTE = ("The draft tree is on. **Many rounds** simulates tokenwise and block verification only, so it "
             "runs nothing here rather than another rule's rounds; the Exactness lab's rules view compares "
             "the tree's exact law and a Monte Carlo with p. Switch the Verification to tokenwise or block "
             "to run many rounds.")
OTHER_NOTE = ("**Many rounds** simulates tokenwise and block verification only, so it runs nothing here rather than "
              "another rule's rounds: the Exactness lab's rules view runs this rule's own mechanism for up to "
              "1,000,000 rounds against its exact law and p, and *Why exactly p* shows that law with its exact "
              "distance from p.")
BLOCK_CAPTION = "Block verification (Sun et al. 2025): the rounds run the exact block Monte Carlo. "


@dataclass(frozen=True)
class TabRun:
    """How the tab runs a rule's rounds: whether the engine bugs apply, what it says under the controls."""

    bugs: bool = True  # the lab's engine bugs are tokenwise: under another rule they are set aside
    caption: str = ""  # said under the controls (block: which Monte Carlo, and why the bugs are off)


# what the tab runs per rule; a rule it does not run is an Unsupported entry whose words the tab shows instead
MANY_ROUNDS_TAB_BY_FAMILY: FamilyTable[TabRun] = FamilyTable(
    "app.playground.tabs.many_rounds_tab.MANY_ROUNDS_TAB_BY_FAMILY", {
    "token": TabRun(),
    "block": TabRun(bugs=False, caption=BLOCK_CAPTION + many_rounds.BLOCK_BUG_NOTE),
    "tree": Unsupported(TREE_NOTE),
}, scope="playable", otherwise=Unsupported(OTHER_NOTE))


def many_rounds_tab(presenter: bool) -> None:
    pg = session()
    scenario = pg.scenario
    note = MANY_ROUNDS_TAB_BY_FAMILY.why_not(scenario.verification)
    if note is not None:
        st.info(note)
        return
    sim = MANY_ROUNDS_TAB_BY_FAMILY[scenario.verification]
    bug, kept = many_rounds.bug_choice(not sim.bugs, pg.many_bug, pg.many_bug_kept)
    if kept != pg.many_bug_kept or bug != pg.many_bug:
        pg.many_bug, pg.many_bug_kept = bug, kept
    cols = st.columns([2, 2, 1, 1], vertical_alignment="bottom")
    n = cols[0].select_slider("Rounds N", many_rounds.ROUND_CHOICES, key=S.many_n.key,
                              format_func=lambda x: f"{x:,}")
    bug = cols[1].selectbox("Inject an engine bug", list(many_rounds.BUG_NAMES), key=S.many_bug.key,
                            format_func=lambda b: many_rounds.BUG_NAMES[b], disabled=not sim.bugs,
                            help=None if sim.bugs else many_rounds.BLOCK_BUG_NOTE)
    seed = cols[2].number_input("MC seed", min_value=0, max_value=2**32 - 1, step=1, key=S.many_seed.key)
    run = cols[3].button("Run", type="primary", key=Keys.many_run, width="stretch")
    if sim.caption:
        st.caption(sim.caption + (f" Your choice “{many_rounds.BUG_NAMES[kept]}” returns with tokenwise." if kept
                                  else ""))
    many_rounds_result(pg, scenario, (n, bug, int(seed)), run, presenter)


def many_rounds_result(pg: PlaygroundSession, scenario: Scenario, choice: tuple[int, str, int], run: bool,
                       presenter: bool) -> None:
    """Run (drawing the histogram as it fills), or show the last run of these settings, or say to press Run."""
    n, bug, seed = choice
    key = (scenario, n, bug, seed)
    chart = st.empty()
    if run:
        def show(result: many_rounds.ManyRounds) -> None:
            chart.plotly_chart(many_plots.histogram_figure(result, presenter=presenter, height=420),
                               config=NO_BAR, theme=None)

        # a refusal is shown in the tab's place (tabs: messages.failures)
        pg.many = (key, many_rounds.run(scenario, n, bug, seed, chunks=10, on_chunk=show))
    stored = pg.many
    if stored is None or stored[0] != key:
        chart.info("Press **Run**: N independent rounds from the empty text, each exact (integer tickets, "
                   "vectorized), and the histogram of the first committed token against p.")
        return
    result = stored[1]
    if not run:
        chart.plotly_chart(many_plots.histogram_figure(result, presenter=presenter, height=420),
                           key=Keys.many_chart, config=NO_BAR, theme=None)
    st.markdown(many_plots.summary(result))
    hint = many_rounds.hint(bug, result.distance, scenario.draft_topk)
    if hint:
        st.caption(hint)
    st.caption(f"Error bars: ±1.96 binomial standard deviations of p's frequency: with an exact sampler a bar "
               f"reaches p's tick 95% of the time. Sampler: {result.method}.")
