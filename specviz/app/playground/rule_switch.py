"""The Playground's Verification switch: which rule the scenario plays, and that rule's parameter controls.

The scenario's ``verification`` holds the registry name ("token", "block", "multi:K", "ensemble:W", ...), as links,
files and the command line write it. The switch is a radio of ``CHOICES``, one per family of playable rules; under
it, the chosen family's parameter controls, built from the family's declaration (``core.verification.
PARAMS_BY_FAMILY``: each parameter's label, stops, default and help, declared once beside the rule's settings): a
slider of canonical stops per number (a link's other value added as it is), a slider per count (K, up to the
Playground's width), a toggle for the flag (``sglang``/``threshold``), and for a rule with settings but no width a
disabled width that says why it checks chains only. Each control's session slot is ``session.rule_slot(family,
field)``. ``show`` sets the radio and the controls from a name when a scenario is loaded (preset, link, file,
lecture entry); ``chosen`` reads the name back for the scenario; ``switch_problems`` says what the Playground cannot
animate of a rule.

A new playable rule is one ``Choice`` in ``CHOICES`` (its label, its clause of the help, what the Playground cannot
animate of it): ``SWITCH_BY_FAMILY`` is the layer's FamilyTable, so the completeness test names a family the switch
forgets; its controls and slots come from its declaration.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from ...core import MAX_WIDTH
from ...core.medusa import SQRT_STOP
from ...core.rule_params import Param, RuleParams
from ...core.verification import FamilyTable, Rule, declared, read_number, rule
from ...playground.explain import Problem
from ...plots.tree_figures import MAX_TREE_NODES, tree_nodes
from ...scenario import Scenario
from .session import PlaygroundSession, rule_slot, session

S = PlaygroundSession
MAX_PLAYGROUND_WIDTH = 4


def _plays(scenario: Scenario, found: Rule) -> list[Problem]:
    return []


@dataclass(frozen=True)
class Choice:
    """One option of the switch. ``key`` is the radio's value and the registry family it plays; its parameters are
    the family's declaration (``params``)."""

    key: str
    label: str  # what the radio shows
    help: str  # its clause of the switch's help
    problems: Callable[[Scenario, Rule], list[Problem]] = _plays  # what the Playground cannot animate
    exact: bool = True  # every rule of the choice commits tokens distributed exactly as p

    @property
    def params(self) -> RuleParams:
        return declared(self.key)

    def slot(self, field: str) -> str:
        return rule_slot(self.key, field)

    def name(self, pg: PlaygroundSession) -> str:
        """The registry name the controls describe (a family without parameters is named by itself)."""
        if not self.params.heads:
            return self.key
        return self.params.name({field: getattr(pg, self.slot(field)) for field in self.params.fields})

    def show(self, pg: PlaygroundSession, found: Rule) -> None:
        """Set the controls from a rule being loaded (a wider tree than the slider holds is refused by
        ``_tree_problems``; the slider holds the Playground's widest)."""
        for field, value in self.params.controls(found.settings).items():
            setattr(pg, self.slot(field), min(value, MAX_PLAYGROUND_WIDTH) if _is_count(self.params, field) else value)

    def defaults(self) -> tuple[tuple[str, object], ...]:
        """(session slot, value) of each control before first use: the declared defaults."""
        return tuple((self.slot(field), value) for field, value in self.params.defaults().items())


def _is_count(params: RuleParams, field: str) -> bool:
    return any(p.field == field and p.count for p in params.params)


# --- what the Playground cannot animate of a tree -------------------------------------------------------------
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


# --- the controls, from the family's declaration ---------------------------------------------------------------
SQRT_EPS = SQRT_STOP  # Medusa's δ as its code comment recommends (typical:EPS,sqrt), as core.medusa declares it


def stops(grid: tuple[str, ...], current: object) -> list[str]:
    """A slider's stops: the grid, with the current value added in its order when a link brought another one
    (a link's ensemble:1/3 is shown as 1/3, never moved to a grid stop); a word's stop (√ε) first."""
    values = list(grid)
    if isinstance(current, str) and current not in values and read_number(current) is not None:
        values.append(current)
    return sorted(values, key=lambda v: (-1 if read_number(v) is None else read_number(v)))


def _number_slider(choice: Choice, param: Param, pg: PlaygroundSession) -> None:
    slot = choice.slot(param.field)
    st.select_slider(param.label, stops(param.stops, getattr(pg, slot)), key=getattr(S, slot).key,
                     help=param.help or None)


def _count_slider(choice: Choice, param: Param) -> None:
    st.slider(param.label, 1, min(int(param.high), MAX_PLAYGROUND_WIDTH), key=getattr(S, choice.slot(param.field)).key,
              help=param.help or None)


def _chains_only(why: str) -> None:
    """The width control of a rule verified on chains: held at 1, disabled, and saying why (a tree is refused)."""
    st.slider("Drafts per node (width)", 1, MAX_PLAYGROUND_WIDTH, 1, disabled=True,
              help=f"Chains only: {why}. A tree would be refused, not narrowed to a chain.")
    st.caption(f"Chains only (width 1): {why}.")


def chains_only(choice: Choice) -> str | None:
    """Why a family with settings but no width checks chains only (its verifier says it), or None."""
    params = choice.params
    if not params.params or any(p.count for p in params.params):
        return None
    verifier = rule(params.name(params.defaults())).verifier_class
    return getattr(verifier, "chains_only", None)


def parameter_controls(choice: Choice, pg: PlaygroundSession) -> None:
    """The family's controls under the radio: its numbers side by side (two to a row), its counts, its flag, and a
    chains-only width for a rule with settings but no width."""
    params = choice.params
    numbers = [p for p in params.params if not p.count]
    for row in range(0, len(numbers), 2):
        pair = numbers[row: row + 2]
        if len(pair) == 1:
            _number_slider(choice, pair[0], pg)
            continue
        for column, param in zip(st.columns(2), pair, strict=True):
            with column:
                _number_slider(choice, param, pg)
    for param in params.params:
        if param.count:
            _count_slider(choice, param)
    if params.flag is not None:
        st.toggle(params.flag.label, key=getattr(S, choice.slot(params.flag.field)).key, help=params.flag.help)
    why = chains_only(choice)
    if why:
        _chains_only(why)


CHOICES: tuple[Choice, ...] = (
    Choice("token", "tokenwise", "tokenwise: each draft accepted on its own with min(1, p/q) (vLLM's "
                                 "rejection_sample_method=\"probabilistic\")"),
    Choice("block", "block", "block (Sun et al. 2025): the block's running weights decide how many drafts to keep "
                             "at once (vLLM's rejection_sample_method=\"block\")"),
    Choice("tree", "tree", "tree: every node gets K drafted children, checked one after another against a "
                           "shrinking residual (recursive rejection sampling, as SpecInfer and llama.cpp)",
           problems=_tree_problems),
    Choice("traversal", "traversal", "traversal (Weng et al. 2025, no engine ships it): the same tree as tree's, "
                                     "walked from the leaves up; a node is tested against the weight of its whole "
                                     "path once its children were rejected, so a good child can save a rejected "
                                     "parent's subtree",
           problems=_tree_problems),
    Choice("ensemble", "ensemble", "ensemble (transformers' assistant_ensemble_weight W): a draft is accepted with "
                                   "min(1, 1 − W + W·p/q) and corrected from (p − q)+, so the text follows "
                                   "W·p + (1 − W)·q (W = 1 is tokenwise)", exact=False),
    Choice("threshold", "SGLang", "SGLang (--speculative-accept-threshold-single S and -acc A): a node's one coin "
                                  "keeps a child when u ≤ (siblings' target mass)/A or p(x) ≥ S, the draft "
                                  "probabilities unused; S = A = 1 (its default) is exact; on SGLang's own top-K "
                                  "drafts (sglang:S,A[,K]) or on drafts sampled from q (threshold:S,A[,K])",
           problems=_tree_problems, exact=False),
    Choice("typical", "Medusa", "Medusa (typical acceptance): a draft is kept when p(x) > min(ε, δ·exp(−H)), δ = 0.3 "
                                "by default (medusa_generate's posterior_alpha); argmax p after a rejection",
           exact=False),
    Choice("exact-match", "exact match", "exact match (mlx-lm, vLLM's rejection_sample_method=\"strict\"): the "
                                         "target samples its own token at each node and the draft equal to it is "
                                         "kept, else that sample is committed (exact whatever q; a tree of distinct "
                                         "drafts keeps the child equal to it)",
           problems=_tree_problems),
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
        for name, value in choice.defaults():
            pg.setdefault(name, value)


def show(pg: PlaygroundSession, name: str) -> None:
    """Set the switch to a registry name (loading a scenario): the choice, and its controls; the other choices'
    controls keep their last values for the next switch to them."""
    found = rule(name)
    if SWITCH_BY_FAMILY.supports(found):  # a rule the switch does not offer leaves it as it is (refused below)
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
    parameter_controls(BY_KEY[pg.verification], pg)


def switch_problems(scenario: Scenario) -> list[Problem]:
    """What the Playground cannot animate of the scenario's rule, in words (empty: it plays)."""
    found = rule(scenario.verification)
    if not SWITCH_BY_FAMILY.supports(found):  # a family the switch does not offer: said, not drawn
        why = SWITCH_BY_FAMILY.why_not(found) or "the Playground's switch does not offer it"
        return [Problem(f"{found.label.capitalize()} is not animated in the Playground",
                        f"verification {found.name!r}: {why}.", "choose another rule under Verification.")]
    return SWITCH_BY_FAMILY[found].problems(scenario, found)
