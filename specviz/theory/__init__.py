"""Theory of speculative sampling, exactly: acceptance rate, expected tokens, speedup, and the
exact distribution of everything one verification round can commit.

One module per concept (``from specviz import theory`` re-exports every public name):

* ``closed_forms``: ``alpha(p, q)`` = sum_x min(p(x), q(x)), ``expected_tokens(alpha, g)`` =
  (1 - alpha^(g+1)) / (1 - alpha), ``speedup`` (Leviathan, Kalman and Matias 2023), ``optimal_depth``;
* ``round_models``: what one round depends on (``RoundModels``, ``round_models``), and the exact numbers
  at each context (``NodeCache``; ``support`` and ``law_of`` of a Categorical);
* ``node_laws``: every verification rule node by node (``NodeLaw``, the core's: trees of i.i.d. or distinct
  drafts, exact match, greedy drafts; the engine rules' laws are their core modules'), and
  ``optimal_multi_draft``, the best acceptance any exact scheme with K i.i.d. drafts can reach;
* ``enumeration``: every outcome of one tokenwise or block round in Fractions (``Outcome``,
  ``RoundAnalysis``), the target's own law, marginals and total variation;
* ``expectation``: expected accepted drafts and tokens per round without listing sequences;
* ``rules``: what each family of rules is to theory (``THEORY_BY_FAMILY``), and the functions that read
  it: ``node_law``, ``first_token_law``, ``analyze_round``, ``block_distribution``, ``round_expectation``,
  ``expected_accepted_drafts``;
* ``exactness``: ``exactness_report``, the round's law against the target's (every difference an exact 0);
* ``comparison``: tokenwise against block verification, depth by depth (``compare_verifications``);
* ``limits``: theory's errors, its limits and the checks that refuse past them (``TheoryLimitError``)
  before the slow work.

Enumeration is exponential in the depth (V^(depth+1) sequences) and meant for toy vocabularies. Every
computation that could grow without bound states its limit (MAX_EXACT_DEPTH, MAX_BLOCK_DEPTH,
MAX_BLOCK_WORK, MAX_ROUND_WORK, MAX_VOCABULARY, MAX_ENUMERATED_DEPTH, MAX_ENUMERATED_OUTCOMES, MAX_ROUND_NODES,
MAX_REJECTION_PATHS) and refuses past it with a ``TheoryLimitError`` before the slow work; no walk
recurses once per position except the enumerations, which stop at MAX_ENUMERATED_DEPTH.
"""

from .closed_forms import LEVIATHAN_ALPHAS, alpha, expected_tokens, optimal_depth, speedup, table_grid
from .comparison import VerificationRow, compare_verifications
from .enumeration import (
    Outcome,
    RoundAnalysis,
    complete_with_target,
    first_token_marginal,
    length_distribution,
    mean_length,
    target_distribution,
    total_variation,
)
from .exactness import ExactnessReport, PositionRow, SequenceRow, exactness_report
from .expectation import RoundExpectation, ideal_accepted_drafts
from .node_laws import (
    NodeLaw,
    greedy_token,
    law_distance,
    optimal_multi_draft,
    optimal_multi_draft_acceptance,
)
from .round_models import (
    Law,
    RoundModels,
    Sequence_,
    Source,
    add_mass,
    law_of,
    round_models,
    scenario_state,
    support,
)
from .rule_theory import (
    THEORY_BY_FAMILY,
    RuleTheory,
    analyze_round,
    block_distribution,
    can_enumerate,
    expected_accepted_drafts,
    first_token_law,
    node_by_node,
    node_law,
    round_expectation,
    traversal_first_token,
)
from .theory_limits import (
    DEPTH_SEARCH_LIMIT,
    MAX_BLOCK_DEPTH,
    MAX_BLOCK_WORK,
    MAX_ENUMERATED_DEPTH,
    MAX_ENUMERATED_OUTCOMES,
    MAX_EXACT_DEPTH,
    MAX_REJECTION_PATHS,
    MAX_ROUND_NODES,
    MAX_ROUND_WORK,
    MAX_VOCABULARY,
    TheoryError,
    TheoryLimitError,
    TheoryTypeError,
    rejection_paths,
)

__all__ = [
    "DEPTH_SEARCH_LIMIT", "LEVIATHAN_ALPHAS", "MAX_BLOCK_DEPTH", "MAX_BLOCK_WORK", "MAX_ENUMERATED_DEPTH",
    "MAX_ENUMERATED_OUTCOMES", "MAX_EXACT_DEPTH", "MAX_REJECTION_PATHS", "MAX_ROUND_NODES", "MAX_ROUND_WORK",
    "MAX_VOCABULARY",
    "THEORY_BY_FAMILY", "ExactnessReport", "Law", "NodeLaw", "Outcome", "PositionRow", "RoundAnalysis",
    "RoundExpectation", "RoundModels", "RuleTheory", "SequenceRow", "Sequence_", "Source", "TheoryError",
    "TheoryLimitError", "TheoryTypeError", "VerificationRow", "add_mass", "alpha", "analyze_round",
    "block_distribution", "can_enumerate", "compare_verifications", "complete_with_target",
    "exactness_report", "expected_accepted_drafts", "expected_tokens", "first_token_law", "first_token_marginal",
    "greedy_token", "ideal_accepted_drafts", "law_distance", "law_of", "length_distribution", "mean_length",
    "node_by_node", "node_law", "optimal_depth", "optimal_multi_draft", "optimal_multi_draft_acceptance",
    "rejection_paths", "round_expectation", "round_models", "scenario_state", "speedup", "support",
    "table_grid", "target_distribution", "total_variation", "traversal_first_token",
]
