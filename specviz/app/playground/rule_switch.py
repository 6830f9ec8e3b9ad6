"""The Playground's Verification switch: which rule the scenario plays, and that rule's parameter controls.

The scenario's ``verification`` holds the registry name ("token", "block", "multi:K", "multi-distinct:K"),
as links, files and the command line write it. The switch is a radio of ``CHOICES``, one per family of
playable rules; a family with parameters (the tree: width and distinct) draws its controls under the
radio. ``show`` sets the radio and the controls from a name when a scenario is loaded (preset, link,
file, lecture entry); ``chosen`` reads the name back for the scenario; ``switch_problems`` says what the
Playground cannot animate of a rule.

A new playable rule is one ``Choice`` in ``CHOICES`` (its label, how its controls make its name, and
how a name sets them), plus a slot in ``session.py`` for each control it draws: ``SWITCH_BY_FAMILY`` is the layer's
FamilyTable, so the completeness test names a family the switch forgets.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from ...core import MAX_WIDTH
from ...core.verification import FamilyTable, Rule, number_name, read_number, rule
from ...playground.explain import Problem
from ...plots.tree import MAX_TREE_NODES, tree_nodes
from ...scenario import Scenario
from .session import PlaygroundSession, session

S = PlaygroundSession
MAX_PLAYGROUND_WIDTH = 4


def _nothing(*_: object) -> None:
    return None


def _plays(scenario: Scenario, found: Rule) -> list[Problem]:
    return []


@dataclass(frozen=True)
class Choice:
    """One option of the switch. ``key`` is the radio's value and the registry family it plays."""

    key: str
    label: str  # what the radio shows
    help: str  # its clause of the switch's help
    name: Callable[[PlaygroundSession], str]  # the registry name the controls describe
    show: Callable[[PlaygroundSession, Rule], None] = _nothing  # set the controls from a rule being loaded
    controls: Callable[[PlaygroundSession], None] = _nothing  # draw the parameter widgets under the radio
    problems: Callable[[Scenario, Rule], list[Problem]] = _plays  # what the Playground cannot animate
    defaults: tuple[tuple[str, object], ...] = ()  # (session slot, value) of each control before first use
    exact: bool = True  # every rule of the choice commits tokens distributed exactly as p


# --- the tree: width and distinct ---------------------------------------------------------------------------
def _tree_name(pg: PlaygroundSession) -> str:
    width = int(pg.tree_width)
    return f"multi-distinct:{width}" if pg.tree_distinct else f"multi:{width}"


def _tree_show(pg: PlaygroundSession, found: Rule) -> None:
    # a wider tree (a link's multi:8) is refused by _tree_problems; the slider holds 4 at most
    pg.tree_width, pg.tree_distinct = min(found.width, MAX_PLAYGROUND_WIDTH), found.distinct


def _tree_controls(pg: PlaygroundSession) -> None:
    st.slider("Drafts per node (width)", 1, MAX_PLAYGROUND_WIDTH, key=S.tree_width.key)
    st.toggle("Distinct drafts (without replacement)", key=S.tree_distinct.key,
              help="on: a node's children are drawn without replacement (q renormalized over the tokens not "
                   "drawn yet); off: i.i.d. from q")


def _tree_problems(scenario: Scenario, found: Rule) -> list[Problem]:
    """A tree wider than the switch offers, or too large to animate, in words (empty: it plays; a chain too)."""
    if found.width > MAX_PLAYGROUND_WIDTH:
        return [Problem(
            "The draft tree is wider than the Playground offers",
            f"verification {found.name!r} drafts {found.width} children per node; the Playground's switch offers "
            f"1 to {MAX_PLAYGROUND_WIDTH} (the command line and the library take up to {MAX_WIDTH}).",
            f"choose a width of {MAX_PLAYGROUND_WIDTH} or less.")]
    nodes = tree_nodes(scenario.depth, found.width)
    if nodes <= MAX_TREE_NODES:
        return []
    fits = max(d for d in range(1, scenario.depth + 1) if tree_nodes(d, found.width) <= MAX_TREE_NODES)
    return [Problem(
        "The draft tree is too large to animate",
        f"A tree of width {found.width} and depth {scenario.depth} drafts {nodes} tokens per round; the Playground "
        f"draws trees of at most {MAX_TREE_NODES} drafted tokens, one step per token.",
        f"lower the depth to {fits} or fewer, or the width (drafts per node).")]


# --- the engine rules: their numbers on sliders of canonical stops -------------------------------------------
SQRT_EPS = "√ε"  # Medusa's δ when the name gives none: √ε, its recommended default
WEIGHTS = ("0.1", "0.25", "0.5", "0.75", "0.9", "1")
THRESHOLDS = ("0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1")
EPSILONS = ("0.01", "0.03", "0.05", "0.09", "0.15", "0.2", "0.3", "0.5")
DELTAS = (SQRT_EPS, "0.1", "0.2", "0.3", "0.5", "0.7", "1")


def stops(grid: tuple[str, ...], current: object) -> list[str]:
    """A slider's stops: the grid, with the current value added in its order when a link brought another one
    (a link's ensemble:1/3 is shown as 1/3, never moved to a grid stop)."""
    values = list(grid)
    if isinstance(current, str) and current not in values and read_number(current) is not None:
        values.append(current)
    return sorted(values, key=lambda v: (-1 if v == SQRT_EPS else read_number(v)))


def _number_slider(label: str, grid: tuple[str, ...], slot: str, pg: PlaygroundSession, help: str) -> None:
    st.select_slider(label, stops(grid, getattr(pg, slot)), key=getattr(S, slot).key, help=help)


def _chains_only(why: str) -> None:
    """The width control of a rule verified on chains: held at 1, disabled, and saying why (a tree is refused)."""
    st.slider("Drafts per node (width)", 1, MAX_PLAYGROUND_WIDTH, 1, disabled=True,
              help=f"Chains only: {why}. A tree would be refused, not narrowed to a chain.")
    st.caption(f"Chains only (width 1): {why}.")


def _ensemble_name(pg: PlaygroundSession) -> str:
    return f"ensemble:{pg.ensemble_weight}"


def _ensemble_show(pg: PlaygroundSession, found: Rule) -> None:
    pg.ensemble_weight = number_name(found.settings.weight)


def _ensemble_controls(pg: PlaygroundSession) -> None:
    _number_slider("Ensemble weight W", WEIGHTS, "ensemble_weight", pg,
                   "v = W·p + (1 − W)·q is what the drafts are judged against and what the text follows; "
                   "W = 1 is tokenwise (transformers takes W in (0, 1))")
    _chains_only("transformers' assisted decoding verifies one drafted chain per round")


def _threshold_name(pg: PlaygroundSession) -> str:
    width = int(pg.threshold_width)
    return f"threshold:{pg.threshold_single},{pg.threshold_acc}" + (f",{width}" if width > 1 else "")


def _threshold_show(pg: PlaygroundSession, found: Rule) -> None:
    pg.threshold_single = number_name(found.settings.single)
    pg.threshold_acc = number_name(found.settings.acc)
    pg.threshold_width = min(found.width, MAX_PLAYGROUND_WIDTH)  # a wider tree is refused by _tree_problems


def _threshold_controls(pg: PlaygroundSession) -> None:
    left, right = st.columns(2)
    with left:
        _number_slider("S", THRESHOLDS, "threshold_single", pg,
                       "--speculative-accept-threshold-single: a child with p(x) ≥ S is kept whatever the coin "
                       "(SGLang's default 1)")
    with right:
        _number_slider("A", THRESHOLDS, "threshold_acc", pg,
                       "--speculative-accept-threshold-acc: a child is kept when the coin u ≤ (its and its earlier "
                       "siblings' target mass) / A (default 1)")
    st.slider("Drafts per node (distinct, SGLang's top-k)", 1, MAX_PLAYGROUND_WIDTH, key=S.threshold_width.key,
              help="1: a chain; more: a tree whose children are distinct tokens (drawn from q without replacement), "
                   "as SGLang's EAGLE top-k tree; one coin per node")


def _typical_name(pg: PlaygroundSession) -> str:
    family = "typical" if pg.typical_fast else "typical-sample"
    delta = "" if pg.typical_delta == SQRT_EPS else f",{pg.typical_delta}"
    return f"{family}:{pg.typical_eps}{delta}"


def _typical_show(pg: PlaygroundSession, found: Rule) -> None:
    settings = found.settings
    pg.typical_eps = number_name(settings.eps)
    pg.typical_delta = SQRT_EPS if settings.delta is None else number_name(settings.delta)
    pg.typical_fast = settings.fast


def _typical_controls(pg: PlaygroundSession) -> None:
    left, right = st.columns(2)
    with left:
        _number_slider("ε", EPSILONS, "typical_eps", pg,
                       "posterior_threshold: a draft is kept when p(x) > min(ε, δ·exp(−H)), H = −Σ p log(p + 1e-5) "
                       "(Medusa's entropy)")
    with right:
        _number_slider("δ", DELTAS, "typical_delta", pg,
                       "posterior_alpha: δ = √ε, Medusa's recommended default; or its own setting")
    st.toggle("fast (argmax after a rejection, Medusa's default)", key=S.typical_fast.key,
              help="on: after a rejection (and as the bonus) Medusa commits argmax p; off (fast=False): a sample of "
                   "p above the threshold, and a draft is kept when it equals such a sample")
    _chains_only("Medusa keeps the longest accepted path of its heads' top-k tree; this rule is verified here on "
                 "drafted chains only")


def _exact_match_name(pg: PlaygroundSession) -> str:
    width = int(pg.exact_match_width)
    return "exact-match" if width == 1 else f"exact-match:{width}"


def _exact_match_show(pg: PlaygroundSession, found: Rule) -> None:
    pg.exact_match_width = min(found.width, MAX_PLAYGROUND_WIDTH)  # a wider tree is refused by _tree_problems


def _exact_match_controls(pg: PlaygroundSession) -> None:
    st.slider("Drafts per node (distinct)", 1, MAX_PLAYGROUND_WIDTH, key=S.exact_match_width.key,
              help="1: a chain; more: a tree whose children are distinct tokens drawn from q without replacement; "
                   "at each node the target samples one token and the child equal to it is kept")


CHOICES: tuple[Choice, ...] = (
    Choice("token", "tokenwise", "tokenwise: each draft accepted on its own with min(1, p/q)",
           name=lambda pg: "token"),
    Choice("block", "block", "block (Sun et al. 2025): the block's running weights decide how many drafts to keep "
                             "at once", name=lambda pg: "block"),
    Choice("tree", "tree", "tree: every node gets K drafted children, checked one after another against a "
                           "shrinking residual (recursive rejection sampling, as SpecInfer and llama.cpp)",
           name=_tree_name, show=_tree_show, controls=_tree_controls, problems=_tree_problems,
           defaults=(("tree_width", 2), ("tree_distinct", False))),
    Choice("ensemble", "ensemble", "ensemble (transformers' assistant_ensemble_weight W): a draft is accepted with "
                                   "min(1, 1 − W + W·p/q) and corrected from (p − q)+, so the text follows "
                                   "W·p + (1 − W)·q (W = 1 is tokenwise)",
           name=_ensemble_name, show=_ensemble_show, controls=_ensemble_controls,
           defaults=(("ensemble_weight", "0.5"),), exact=False),
    Choice("threshold", "SGLang", "SGLang (thresholds S and A): a node's one coin keeps a child when u ≤ (siblings' "
                                  "target mass)/A or p(x) ≥ S, the draft probabilities unused; S = A = 1 (its "
                                  "default) is exact",
           name=_threshold_name, show=_threshold_show, controls=_threshold_controls, problems=_tree_problems,
           defaults=(("threshold_single", "1"), ("threshold_acc", "1"), ("threshold_width", 1)), exact=False),
    Choice("typical", "Medusa", "Medusa (typical acceptance): a draft is kept when p(x) > min(ε, δ·exp(−H)), δ = √ε "
                                "by default (Medusa's recommended default); argmax p after a rejection",
           name=_typical_name, show=_typical_show, controls=_typical_controls,
           defaults=(("typical_eps", "0.09"), ("typical_delta", SQRT_EPS), ("typical_fast", True)), exact=False),
    Choice("exact-match", "exact match", "exact match (mlx-lm, vLLM's strict): the target samples its own token at "
                                         "each node and the draft equal to it is kept, else that sample is "
                                         "committed (exact whatever q; a tree of distinct drafts keeps the child "
                                         "equal to it)",
           name=_exact_match_name, show=_exact_match_show, controls=_exact_match_controls, problems=_tree_problems,
           defaults=(("exact_match_width", 1),)),
)
BY_KEY: dict[str, Choice] = {choice.key: choice for choice in CHOICES}
# the switch per family of playable rules (the choice's key is the family it plays)
SWITCH_BY_FAMILY: FamilyTable[Choice] = FamilyTable("app.playground.rule_switch.SWITCH_BY_FAMILY", BY_KEY,
                                                     scope="playable")
_LOSSY = [choice.label for choice in CHOICES if not choice.exact]
HELP = "; ".join(choice.help for choice in CHOICES) + (
    f". Lossy (not exactly p, at some settings): {', '.join(_LOSSY)}." if _LOSSY else ". All are exact.")


def _defaults(pg: PlaygroundSession) -> None:
    """Every choice's controls hold a value, so a switch to it (or a name read back) has one."""
    for choice in CHOICES:
        for name, value in choice.defaults:
            pg.setdefault(name, value)


def show(pg: PlaygroundSession, name: str) -> None:
    """Set the switch to a registry name (loading a scenario): the choice, and its controls; the other choices'
    controls keep their last values for the next switch to them."""
    found = rule(name)
    choice = SWITCH_BY_FAMILY[found]
    pg.verification = choice.key
    choice.show(pg, found)
    _defaults(pg)


def chosen(pg: PlaygroundSession) -> str:
    """The registry name the switch describes (the scenario's ``verification``)."""
    _defaults(pg)
    return BY_KEY[pg.verification].name(pg)


def verification_controls() -> None:
    """The switch, and under it the chosen rule's parameter controls."""
    pg = session()
    st.radio("Verification", list(BY_KEY), key=S.verification.key, horizontal=True,
             format_func=lambda key: BY_KEY[key].label, help=HELP)
    _defaults(pg)
    BY_KEY[pg.verification].controls(pg)


def switch_problems(scenario: Scenario) -> list[Problem]:
    """What the Playground cannot animate of the scenario's rule, in words (empty: it plays)."""
    found = rule(scenario.verification)
    return SWITCH_BY_FAMILY[found].problems(scenario, found)
