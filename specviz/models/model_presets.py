"""Presets that tell the story of when speculative decoding pays off, on the bundled SmolLM2.

Each sets the prompt, the draft, the depth, the temperature and the processors; the page opens on
the first, and `bench/real_model.py` measures every one of them.
"""

from __future__ import annotations

from dataclasses import dataclass

from specviz.models.drafts import DraftSpec, parse_draft
from specviz.models.model_errors import ModelSettingError
from specviz.models.round_loop import GenerationSettings

COPY_TEXT = (
    "The lighthouse keeper climbed the narrow stairs every evening at dusk. He cleaned the great lens, "
    "trimmed the wick, and wrote the weather in his logbook. Ships passed far out at sea, and none of them "
    "ever knew his name."
)

# a list whose lines share beginnings: after "The red fox ran to the" the earlier lines continue "barn", "river" and
# "hill", so prompt lookup's n-gram continuations disagree (what a lookup tree drafts all of)
LIST_TEXT = (
    "The red fox ran to the barn.\nThe red fox ran to the river.\nThe red fox ran to the hill.\n"
    "The old man sat by the door.\nThe old man sat by the fire.\nThe old man sat by the sea.\n"
    "The small bird flew over the wall.\nThe small bird flew over the field.\nThe small bird flew over the town."
)
LIST_PROMPT = f"Repeat this list exactly:\n\n{LIST_TEXT}"


@dataclass(frozen=True)
class ModelPreset:
    """A named set of generation settings with the lesson it teaches."""

    name: str
    prompt: str
    draft: str
    depth: int
    temperature: float
    max_new_tokens: int
    lesson: str
    top_k: int = 0
    top_p: float = 1.0
    verification: str = "token"

    @property
    def draft_spec(self) -> DraftSpec:
        return parse_draft(self.draft)

    def settings(self, seed: int = 1, **changes) -> GenerationSettings:
        """The generation settings of this preset (seed and any other field may be overridden)."""
        base = {"depth": self.depth, "seed": seed, "max_new_tokens": self.max_new_tokens,
                "temperature": self.temperature, "top_k": self.top_k, "top_p": self.top_p,
                "verification": self.verification}
        return GenerationSettings(**{**base, **changes})


PRESETS: tuple[ModelPreset, ...] = (
    ModelPreset(
        name="Copy a text with prompt lookup",
        prompt=f"Repeat this text exactly:\n\n{COPY_TEXT}",
        draft="lookup:3", depth=5, temperature=0.5, max_new_tokens=48,
        lesson="The answer copies the prompt, so an n-gram match proposes the next tokens for free and the "
               "target accepts most of them: several tokens per verification pass, which should show as a speedup.",
    ),
    ModelPreset(
        name="A list whose lines share beginnings (tree)",
        prompt=LIST_PROMPT,
        draft="lookup:3", depth=5, temperature=0.5, max_new_tokens=48, verification="exact-match:3",
        lesson="Each line of the list begins like two others (\"The red fox ran to the …\"), so where a line "
               "branches prompt lookup finds three continuations: a chain drafts one and is often rejected there, a "
               "tree of width 3 drafts all three, the target scores the whole tree in one pass, and exact match "
               "keeps the branch the target's own sample takes: on the same draws it never commits less than the "
               "chain. The race runs plain, the chain and the tree.",
    ),
    ModelPreset(
        name="Open-ended story with early exit",
        prompt="Write a short story about a lighthouse keeper who finds a message in a bottle.",
        draft="early-exit:8", depth=4, temperature=1.0, max_new_tokens=48,
        lesson="SmolLM2 was not trained to exit early: its first 8 layers draft poorly, so few drafts are "
               "accepted, and every round still pays for the draft and a wider target pass: theory expects a "
               "slowdown.",
    ),
    ModelPreset(
        name="The target as its own draft (q = p)",
        prompt="Write a short story about a lighthouse keeper who finds a message in a bottle.",
        draft="early-exit:30", depth=4, temperature=1.0, max_new_tokens=48,
        lesson="Every draft is accepted (q = p), yet theory expects no gain: each draft step is a full target "
               "pass, so a round of depth + 1 tokens costs depth + 1 passes and the cost model predicts about "
               "1.00x. The race below says what this machine measured, within its spread.",
    ),
    ModelPreset(
        name="The same model in bfloat16 as the draft",
        prompt="Write a short story about a lighthouse keeper who finds a message in a bottle.",
        draft="bf16", depth=4, temperature=1.0, max_new_tokens=48,
        lesson="Lower precision keeps q very close to p (nearly every draft accepted), but the draft is the "
               "whole model again: it can pay off only as far as bfloat16 is cheaper than FP32 on this device. "
               "The cost model below predicts by how much; the races say whether it was measurable.",
    ),
)
DEFAULT = PRESETS[0]


def by_name(name: str) -> ModelPreset:
    """The preset with this name; ModelSettingError naming the choices otherwise."""
    for preset in PRESETS:
        if preset.name == name:
            return preset
    raise ModelSettingError(f"unknown preset {name!r}; one of: {', '.join(p.name for p in PRESETS)}")
