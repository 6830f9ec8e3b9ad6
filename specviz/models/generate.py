"""The round loop: propose with the draft, prefetch the block on the target, verify exactly, roll back."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from specviz.core import MAX_DEPTH, Owner, Processor, RandomStreams, Trace, Verifier, identity_processor, propose
from specviz.core.processors import TopK, TopP, compose
from specviz.models.drafts import Draft, DraftSpec, build_draft
from specviz.models.lm import CausalLM, Prefix
from specviz.models.loading import LoadedModel
from specviz.models.target import TargetModel, encode_prompt
from specviz.models.view import event_views

ACCEPTED, CORRECTED, BONUS = "accepted", "correction", "bonus"


@dataclass(frozen=True)
class Settings:
    """Everything that decides a generation (with the prompt and the models)."""

    depth: int = 4
    seed: int = 1
    max_new_tokens: int = 64
    temperature: float = 1.0
    top_k: int = 0
    top_p: float = 1.0
    draft_top_k: int = 0
    chat: bool = True
    request_id: str = "specviz"
    ignore_eos: bool = False


@dataclass
class RoundRecord:
    """One round: what was drafted and committed, exact alpha per checked position, and where time went."""

    round_id: int
    start: int
    drafted: tuple[int, ...]
    tokens: tuple[int, ...]
    origins: tuple[str, ...]
    accepted: int
    rejected: bool
    stopped: bool
    alphas: tuple[float, ...]
    draft_forward_s: float
    draft_exact_s: float
    target_forward_s: float
    verify_s: float
    wall_s: float
    target_forwards: int
    events: list[dict] | None = None
    views: list[dict] | None = None
    trace: Trace | None = None


@dataclass
class Generation:
    """A finished (or running) generation: the committed tokens with their origins, and the rounds."""

    prompt_ids: tuple[int, ...]
    tokens: list[int] = field(default_factory=list)
    origins: list[str] = field(default_factory=list)
    rounds: list[RoundRecord] = field(default_factory=list)
    stopped: bool = False
    device: str = ""
    context_id: str = ""


def origins_of(accepted: int, rejected: bool, n_tokens: int) -> tuple[str, ...]:
    """accepted drafts, then one corrected token after a rejection or one bonus token after full acceptance."""
    tail = [CORRECTED] if rejected else [BONUS] * (n_tokens - accepted)
    return tuple([ACCEPTED] * accepted + tail)[:n_tokens]


def alpha_np(p: np.ndarray, q: np.ndarray) -> float:
    """sum_x min(p(x), q(x)): the chance a draft from q is accepted against p (floats, for statistics)."""
    return float(np.minimum(p, q).sum())


def target_processor(settings: Settings) -> Processor:
    """Exact top-k then top-p on the target (temperature is applied to the logits before the softmax)."""
    steps: list[Processor] = []
    if settings.top_k:
        steps.append(TopK(settings.top_k))
    if settings.top_p < 1.0:
        steps.append(TopP(settings.top_p))
    return compose(*steps) if steps else identity_processor


def context_id(target: LoadedModel, draft: Draft, settings: Settings) -> str:
    """Names the model, draft and processing: the verifier refuses blocks from another context."""
    return (f"{target.name}|T={settings.temperature:g}|top_k={settings.top_k}|top_p={settings.top_p:g}"
            f"|draft={draft.label}|draft_top_k={settings.draft_top_k}")


class Session:
    """One speculative generation on real models; iterate `rounds()` to animate, or call `run()`."""

    def __init__(self, target: LoadedModel, draft_spec: DraftSpec, settings: Settings, prompt: str | Prefix, *,
                 draft_model: LoadedModel | None = None, top_n: int | None = 10, keep_raw: bool = False,
                 view_top_n: int | None = None):
        if not 1 <= settings.depth <= MAX_DEPTH:
            raise ValueError(f"depth must be in 1..{MAX_DEPTH}")
        self.target = target
        self.settings = settings
        self.top_n = top_n
        self.keep_raw = keep_raw
        self.view_top_n = view_top_n
        self.target_lm = CausalLM(target.model, target.vocab_size, target.device, settings.temperature)
        self.target_model = TargetModel(self.target_lm)
        self.processor = target_processor(settings)
        self.draft = build_draft(draft_spec, target, self.target_model, target_processor=self.processor,
                                 top_k=settings.top_k, top_p=settings.top_p, draft_top_k=settings.draft_top_k,
                                 draft_model=draft_model)
        if isinstance(prompt, str):
            prompt = encode_prompt(target.tokenizer, prompt, chat=settings.chat and target.is_chat)
        self.owner = Owner(settings.request_id, 0)
        self.stop_ids = frozenset() if settings.ignore_eos else frozenset(target.stop_ids)
        ctx = context_id(target, self.draft, settings)
        self.context = ctx if len(ctx) < 200 else hashlib.sha256(ctx.encode()).hexdigest()
        self.verifier = Verifier(self.owner, tuple(prompt), self.context, self.target_model,
                                 processor=self.processor, stop_ids=self.stop_ids)
        self.generation = Generation(tuple(prompt), device=target.device_name, context_id=self.context)

    def _lms(self) -> list[CausalLM]:
        """The distinct language models this session runs (the target's, and the draft's if separate)."""
        draft_lm = self.draft.lm
        return [self.target_lm] + ([draft_lm] if draft_lm is not None and draft_lm is not self.target_lm else [])

    def _clock(self) -> tuple[float, int]:
        """Total forward seconds over every LM, and the target's forward count."""
        return sum(lm.forward_seconds for lm in self._lms()), self.target_lm.forwards

    def step(self, round_id: int) -> RoundRecord:
        """Play one round: propose, prefetch, verify, roll back."""
        s, gen = self.settings, self.generation
        remaining = s.max_new_tokens - len(gen.tokens)
        depth = max(1, min(s.depth, remaining - 1))
        prefix = self.verifier.prefix
        streams = RandomStreams(s.seed, self.owner, round_id)
        trace = Trace()
        began = time.perf_counter()
        fwd0, count0 = self._clock()
        block = propose(self.draft, prefix, streams, depth=depth, context_id=self.context,
                        stop_ids=self.stop_ids, trace=trace)
        drafted = tuple(p.token for p in block.proposals)
        t1 = time.perf_counter()
        fwd1, count1 = self._clock()
        self.target_model.prefetch(prefix, drafted)
        result = self.verifier.verify(block, streams, trace=trace)
        t2 = time.perf_counter()
        fwd2, count2 = self._clock()
        self.target_model.sync(self.verifier.prefix)
        self.draft.sync(self.verifier.prefix)
        wall = time.perf_counter() - began
        alphas = tuple(alpha_np(e.p.to_numpy(), e.q.to_numpy()) for e in trace.of_kind("check"))
        tokens = result.tokens[:remaining]
        record = RoundRecord(
            round_id=round_id, start=len(gen.tokens), drafted=drafted, tokens=tokens,
            origins=origins_of(result.accepted_drafts, result.rejected, len(result.tokens))[: len(tokens)],
            accepted=result.accepted_drafts, rejected=result.rejected, stopped=result.stopped, alphas=alphas,
            draft_forward_s=fwd1 - fwd0, draft_exact_s=(t1 - began) - (fwd1 - fwd0),
            target_forward_s=fwd2 - fwd1, verify_s=(t2 - t1) - (fwd2 - fwd1), wall_s=wall,
            target_forwards=count2 - count0, trace=trace if self.keep_raw else None,
            events=trace.to_dict(self.top_n)["events"] if self.top_n else None,
            views=event_views(trace, self.view_top_n) if self.view_top_n else None,
        )
        gen.tokens.extend(tokens)
        gen.origins.extend(record.origins)
        gen.rounds.append(record)
        gen.stopped = result.stopped
        return record

    def rounds(self) -> Iterator[RoundRecord]:
        """Play rounds until a stop token or max_new_tokens."""
        round_id = 0
        while not self.generation.stopped and len(self.generation.tokens) < self.settings.max_new_tokens:
            yield self.step(round_id)
            round_id += 1

    def run(self, on_round: Callable[[RoundRecord], None] | None = None) -> Generation:
        """Play every round and return the generation."""
        for record in self.rounds():
            if on_round is not None:
                on_round(record)
        return self.generation


def generate(target: LoadedModel, prompt: str | Prefix, draft: DraftSpec | None = None,
             settings: Settings | None = None, *, draft_model: LoadedModel | None = None,
             top_n: int | None = 10, keep_raw: bool = False,
             on_round: Callable[[RoundRecord], None] | None = None) -> Generation:
    """Exact speculative sampling on a real model: the whole generation in one call."""
    session = Session(target, draft or DraftSpec(), settings or Settings(), prompt,
                      draft_model=draft_model, top_n=top_n, keep_raw=keep_raw)
    return session.run(on_round)
