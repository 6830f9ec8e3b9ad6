"""Real language models for the exact speculative sampler (torch lives here, never in the core).

    from specviz.models import load_model, generate, parse_draft, Settings
    target = load_model("smollm2")
    gen = generate(target, "Write a haiku", parse_draft("early-exit:8"), Settings(depth=4, seed=1))
"""

from specviz.models.drafts import DraftSpec, TokenizerMismatchError, parse_draft
from specviz.models.generate import Generation, RoundRecord, Session, Settings, generate
from specviz.models.limits import ContextLengthError
from specviz.models.loading import BUNDLED, LoadedModel, ModelLoadError, check_before_load, load_model

__all__ = [
    "BUNDLED", "ContextLengthError", "DraftSpec", "Generation", "LoadedModel", "ModelLoadError", "RoundRecord",
    "Session", "Settings", "TokenizerMismatchError", "check_before_load", "generate", "load_model", "parse_draft",
]
