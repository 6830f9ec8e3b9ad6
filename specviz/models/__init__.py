"""Real language models for the exact speculative sampler (torch lives here, never in the core).

    from specviz.models import load_model, generate, parse_draft, GenerationSettings
    target = load_model("smollm2")
    gen = generate(target, "Write a haiku", parse_draft("early-exit:8"), GenerationSettings(depth=4, seed=1))
    tree = generate(target, "Write a haiku", parse_draft("lookup:3"),
                    GenerationSettings(depth=4, verification="multi-distinct:2"))
"""

from specviz.models.drafts import DraftSpec, TokenizerMismatchError, parse_draft
from specviz.models.errors import ModelSettingError
from specviz.models.generate import Generation, GenerationSettings, RoundRecord, Session, generate
from specviz.models.limits import ContextLengthError
from specviz.models.loading import BUNDLED, LoadedModel, ModelLoadError, check_before_load, load_model

__all__ = [
    "BUNDLED", "ContextLengthError", "DraftSpec", "Generation", "GenerationSettings", "LoadedModel", "ModelLoadError",
    "ModelSettingError", "RoundRecord", "Session", "TokenizerMismatchError", "check_before_load", "generate",
    "load_model", "parse_draft",
]
