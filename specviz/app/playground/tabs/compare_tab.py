"""The Playground's Compare tab: the rules on the animation's round side by side, their exact expectations beside
the one round, and the same round under many seeds (how often the rules differ, and which keeps more). A traversal
scenario compares its drafted tree verified two ways: token-level recursive rejection sampling and traversal."""

from __future__ import annotations

import html

import streamlit as st

from .... import formats
from ....narration.counting import nth
from ....playground import compare, state
from ....plots import committed_text, step_html
from ....plots import step_figures as figures
from ....plots import tree_figures as tree
from ... import figure_config
from ..session import Keys, PlaygroundSession, session

S = PlaygroundSession


def _value(value) -> str:
    return "—" if value is None else formats.fraction_folded(value, 3)


def intro(result: compare.Comparison, vocab: tuple[str, ...]) -> str:
    """What is compared, in words: the round, its prefix, the shared drafts (and a tree's own)."""
    chain = next(s for s in result.sides if s.chain is not None)
    drafted, where = compare.tokens_text(vocab, chain.chain), compare.prefix_text(vocab, result.prefix)
    text = (f"**Round {nth(result.round_id)}** (the animation's round), drafted {where}. "
            f"Tokenwise and block verification verify the same drafted block, **{drafted}**, with the same "
            "acceptance and correction streams (seed, request and round): every difference comes from the rule.")
    for side in result.sides:
        if side.chain is None:
            text += (f" The tree (**{side.rule.label}**) drafts a tree of its own from the same proposal stream "
                     f"({side.drafted} nodes; its first child is the chain's first draft, the rest differ), so its "
                     "round is compared by what it keeps, not draw for draw.")
    return text


def side_column(side: compare.Side, expected: compare.Expected, scenario, presenter: bool, key: str) -> None:
    """One rule: its counts, its committed tokens, (a tree: the tree) its decisions and its exact expectation."""
    st.markdown(f"#### {side.rule.label.capitalize()}")
    st.markdown(f"**{side.summary()}**")
    ending = "correction" if side.result.rejected else "bonus"
    st.markdown(committed_text.round_chips_html(side.result.tokens, side.kept, ending, scenario.vocab, presenter),
                unsafe_allow_html=True)
    if side.chain is None:  # the tree at the end of its round
        events = side.trace.events
        figure = tree.tree_figure(events, len(events) - 1, scenario.vocab, presenter=presenter,
                                  title="The round's tree")
        st.plotly_chart(figure, key=key, config=figure_config.config(f"specviz-compare-{side.rule.name}"),
                        theme=None)
    st.markdown(step_html.bullets(compare.trace_lines(side, scenario.vocab)))
    if expected.kept is not None:
        st.caption(f"Exact, from this prefix: E[drafts {side.rule.kept_verb}] = {_value(expected.kept)} per round, "
                   f"E[tokens] = {_value(expected.tokens)}.")
    else:
        st.caption(f"No exact expectation here: {expected.why_not}")


def seeds_table(seeds: compare.OverSeeds, expected: dict[str, compare.Expected], labels: dict[str, str]) -> str:
    """Exact expectations beside the means measured over the seeds (with their standard errors)."""
    head = ("<tr><th>rule</th><th>E[drafts kept], exact</th><th>mean over the seeds (± 1 s.e.)</th>"
            "<th>E[tokens], exact</th><th>mean over the seeds</th></tr>")
    body = ""
    for name, label in labels.items():
        exact = expected[name]
        body += (f"<tr><td>{html.escape(label)}</td><td>{_value(exact.kept)}</td>"
                 f"<td>{float(seeds.mean(name)):.3f} ± {seeds.standard_error(name):.3f}</td>"
                 f"<td>{_value(exact.tokens)}</td><td>{float(seeds.mean_tokens(name)):.3f}</td></tr>")
    return step_html.compact(f"<table style='width:100%;margin:0'><thead>{head}</thead><tbody>{body}</tbody></table>")


def seeds_count(pg: PlaygroundSession, help_text: str) -> int:
    """The many-seeds section's heading and its count of seeds (kept across reruns)."""
    st.markdown("#### The same round under many seeds")
    pg.setdefault("compare_seeds", S.compare_seeds.default_value())
    return st.radio("Seeds", compare.SEEDS, key=S.compare_seeds.key, horizontal=True, help=help_text)


def seeds_chart(seeds: compare.OverSeeds, more: tuple[str, str], less: tuple[str, str], presenter: bool):
    """The seeds by how many more drafts ``more`` kept than ``less`` (each a rule name and its label) in the left
    column; the right column, returned, for its caption."""
    left, right = st.columns([3, 2])
    figure = figures.seed_difference_figure(seeds.differences(more[0], less[0]), more[1], less[1],
                                            presenter=presenter)
    left.plotly_chart(figure, key=Keys.compare_chart_seeds, config=figure_config.config("specviz-compare-seeds"),
                      theme=None)
    return right


def many_seeds(pg: PlaygroundSession, scenario, result: compare.Comparison, presenter: bool) -> None:
    """The same round under many seeds: the counts measured, the exact expectations, the differences drawn."""
    count = seeds_count(pg, "The same prefix and round under this many seeds, from the scenario's own: one seed is "
                            "one draw of the streams; the exact expectation is their limit")
    names = tuple(s.rule.name for s in result.sides)
    seeds = compare.over_seeds(scenario, result.prefix, result.round_id, count, names)
    expected = compare.expectations(scenario, result.prefix, names)
    st.markdown(compare.seeds_sentence(seeds))
    st.markdown(seeds_table(seeds, expected, {s.rule.name: s.rule.label for s in result.sides}),
                unsafe_allow_html=True)
    right = seeds_chart(seeds, ("block", "block"), ("token", "tokenwise"), presenter)
    token, block = expected["token"], expected["block"]
    if token.kept is not None and block.kept is not None:
        right.caption(f"Each bar counts the seeds at which block verification kept that many more drafts than "
                      f"tokenwise (fewer, left of 0) on the same drafts and streams. Exactly, block keeps at least as "
                      f"many on average (E = {_value(block.kept)} against {_value(token.kept)}; Sun et al. 2025); at a "
                      "single seed either rule can keep more, as the counts show.")


# --- a traversal scenario: one drafted tree, verified top-down and from the leaves up -----------------------------
def trees_intro(result: compare.Comparison, vocab: tuple[str, ...]) -> str:
    rrs, walk = result.sides
    where = compare.prefix_text(vocab, result.prefix)
    return (f"**Round {nth(result.round_id)}** (the animation's round), drafted {where}: **one drafted tree** of "
            f"{walk.drafted} nodes (the same drafting from the same proposal stream), verified two ways with the same "
            f"acceptance and correction streams: top-down by token-level **{compare.tree_name(rrs.rule)}**, and from "
            f"the leaves up by **{compare.tree_name(walk.rule)}** (Weng et al. 2025).")


def trees_table(rows: list[dict[str, str]]) -> str:
    head = "".join(f"<th>{html.escape(name)}</th>" for name in rows[0])
    body = "".join("<tr>" + "".join(f"<td>{html.escape(value)}</td>" for value in row.values()) + "</tr>"
                   for row in rows)
    return step_html.compact(f"<table style='width:100%;margin:0'><thead><tr>{head}</tr></thead>"
                             f"<tbody>{body}</tbody></table>")


def trees_side(side: compare.Side, scenario, presenter: bool, key: str) -> None:
    """One verification of the shared tree: its counts, its committed tokens, the tree as it ended, its decisions."""
    st.markdown(f"#### {compare.tree_name(side.rule).capitalize()}")
    st.markdown(f"**{side.summary()}**")
    ending = "correction" if side.result.rejected else "bonus"
    st.markdown(committed_text.round_chips_html(side.result.tokens, side.kept, ending, scenario.vocab, presenter),
                unsafe_allow_html=True)
    events = side.trace.events
    figure = tree.tree_figure(events, len(events) - 1, scenario.vocab, presenter=presenter, title="The round's tree")
    st.plotly_chart(figure, key=key, config=figure_config.config(f"specviz-compare-{side.rule.name}"), theme=None)
    st.markdown(step_html.bullets(compare.trace_lines(side, scenario.vocab)))


def trees_seeds(pg: PlaygroundSession, scenario, result: compare.Comparison, presenter: bool) -> None:
    """The same round and tree drafting under many seeds: drafts kept by each verification, measured."""
    count = seeds_count(pg, "The same prefix and round under this many seeds, from the scenario's own: each seed "
                            "drafts one tree, verified both ways; the exact expectation is their limit")
    rrs, walk = (s.rule.name for s in result.sides)
    seeds = compare.over_seeds(scenario, result.prefix, result.round_id, count, (rrs, walk))
    expected = compare.expectations(scenario, result.prefix, (rrs, walk))
    st.markdown(compare.seeds_sentence(seeds, walk, rrs))
    st.markdown(seeds_table(seeds, expected, {s.rule.name: compare.tree_name(s.rule) for s in result.sides}),
                unsafe_allow_html=True)
    right = seeds_chart(seeds, (walk, "traversal"), (rrs, "recursive rejection sampling"), presenter)
    right.caption(f"Each bar counts the seeds (of {count}) at which traversal kept that many more drafts than "
                  "recursive rejection sampling (fewer, left of 0) on the same drafted tree and streams.")


def trees_compare(pg: PlaygroundSession, scenario, round_id: int, presenter: bool) -> None:
    """Traversal verification's Compare: the round's tree verified two ways, exact expectations side by side."""
    result = compare.trees_at(scenario, round_id)
    names = tuple(s.rule.name for s in result.sides)
    expected = compare.expectations(scenario, result.prefix, names)
    st.markdown(trees_intro(result, scenario.vocab))
    st.markdown(trees_table(compare.trees_rows(result, expected, scenario.vocab)), unsafe_allow_html=True)
    st.markdown(compare.trees_sentence(result, expected))
    st.caption(compare.WHY_TREE_DRAWS_DIFFER)
    keys = (Keys.compare_chart_rrs, Keys.compare_chart_traversal)
    for column, side, key in zip(st.columns(2), result.sides, keys, strict=True):
        with column:
            trees_side(side, scenario, presenter, key)
    trees_seeds(pg, scenario, result, presenter)


def compare_tab(presenter: bool) -> None:
    """The animation's current round under each rule, then the same round under many seeds (traversal: its tree
    verified two ways)."""
    pg = session()
    scenario = pg.scenario
    timeline = state.timeline_for(scenario)
    at = state.clamp(pg.state, scenario)
    round_id = timeline.round_of(at.step) if timeline.events else 0
    if compare.is_traversal(scenario.verification):
        trees_compare(pg, scenario, round_id, presenter)
        return
    result = compare.compare_at(scenario, round_id)  # a refusal is shown in the tab's place (messages.failures)
    names = tuple(s.rule.name for s in result.sides)
    expected = compare.expectations(scenario, result.prefix, names)
    st.markdown(intro(result, scenario.vocab))
    st.caption(compare.why_draws_differ(names))
    keys = (Keys.compare_chart_token, Keys.compare_chart_block, Keys.compare_chart_tree)
    for column, side, key in zip(st.columns(len(result.sides)), result.sides, keys, strict=False):
        with column:
            side_column(side, expected[side.rule.name], scenario, presenter, key)
    many_seeds(pg, scenario, result, presenter)
