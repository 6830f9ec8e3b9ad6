"""The exact core: rational distributions, integer-ticket sampling, the speculative verifier.

Pure Python and numpy: no UI, no torch. Same names, signatures, semantics and
exception types (as subclasses) as the reference oracle, draw for draw.
"""

from .arithmetic import acceptance, residual, residual_mass, residual_with_mass
from .block_verifier import (
    BlockNumbers,
    BlockVerifier,
    block_numbers,
    scaled_residual_mass,
    scaled_residual_with_mass,
)
from .categorical import Categorical, fp32_weights
from .errors import (
    BlockError,
    MaskError,
    ModelOutputError,
    ProcessorError,
    ProcessorOutputError,
    ProposalError,
    SessionError,
    SpecvizError,
    SupportError,
    TokenError,
    TopKError,
    VerificationError,
    VocabularyMismatchError,
    WeightTypeError,
    WeightValueError,
)
from .streams import Owner, RandomStreams
from .trace import Trace
from .tree import Tree, TreeNode, TreeVerifier, propose_tree
from .verification import Rule, check_verification, draft_round, playable_names, rule, verifier_class
from .verifier import (
    MAX_DEPTH,
    MAX_WIDTH,
    Block,
    Model,
    Prefix,
    Processor,
    Proposal,
    Result,
    Verifier,
    identity_processor,
    propose,
)

__all__ = [
    "MAX_DEPTH", "MAX_WIDTH", "Rule", "draft_round", "playable_names", "rule",
    "ModelOutputError", "ProcessorOutputError", "Tree", "TreeNode", "TreeVerifier", "propose_tree",
    "Block", "BlockError", "BlockNumbers", "BlockVerifier", "VerificationError",
    "block_numbers", "check_verification", "scaled_residual_mass", "scaled_residual_with_mass", "verifier_class",
    "Categorical", "MaskError", "Model", "Owner", "Prefix",
    "Processor", "ProcessorError", "Proposal", "ProposalError", "RandomStreams", "Result",
    "SessionError", "SpecvizError", "SupportError", "TokenError", "TopKError", "Trace", "Verifier",
    "VocabularyMismatchError", "WeightTypeError", "WeightValueError", "acceptance", "fp32_weights",
    "identity_processor", "propose", "residual", "residual_mass", "residual_with_mass",
]
