"""The round loop: propose with the draft, score the draft on the target, verify exactly, roll back.

What a round drafts (one chain, or a tree of K children per node) and how the target scores it
(one forward either way) is the rule's round shape (specviz.models.round_shapes.ROUNDS_BY_FAMILY). A session
without a draft (or a prompt-lookup round without a match) commits a plain target sample instead:
the same processed p, FP32 tickets and correction-or-bonus stream as a bonus token.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from specviz.core import (
    MAX_DEPTH,
    Categorical,
    Owner,
    Processor,
    RandomStreams,
    Result,
    Trace,
    identity_processor,
)
from specviz.core.block_verifier import tau_distribution
from specviz.core.exact_match import ExactMatchVerifier
from specviz.core.processors import TopK, TopP, compose
from specviz.core.trace import (
    BlockDecisionEvent,
    BonusEvent,
    ResultEvent,
    StopEvent,
)
from specviz.core.verification import Rule, check_verification, rule
from specviz.models.drafts import Draft, DraftSpec, LookupDraft, build_draft
from specviz.models.event_data import event_views
from specviz.models.lm import CausalLM, Prefix
from specviz.models.loading import LoadedModel
from specviz.models.lookup_tree import LookupTreeDraft, chain_on_same_draws
from specviz.models.model_errors import ModelSettingError
from specviz.models.model_limits import check_context
from specviz.models.round_shapes import Drafted, round_for
from specviz.models.target import TargetModel, encode_prompt
from specviz.models.tree_attention import TreeSupport

ACCEPTED, CORRECTED, BONUS, PLAIN = "accepted", "correction", "bonus", "target"
PLAIN_LABEL = "plain"
ALPHA_KINDS = ("check", "block_check", "tree_check")  # trace events whose (p, q) give a round's alpha statistics


@dataclass(frozen=True)
class GenerationSettings:
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
    verification: str = "token"


@dataclass
class RoundRecord:
    """One round: what was drafted and committed, exact alpha per checked position, and where time went."""

    round_id: int
    start: int
    drafted: tuple[int, ...]  # a chain's drafted tokens; a tree's nodes, level by level
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
    draft_target_forwards: int = 0
    plain: bool = False
    nodes: int = 0  # drafted nodes the target scored (a chain: its drafted tokens)
    shape: str = "chain"  # what the round drafted: "chain" or "tree" (specviz.models.round_shapes)
    depth: int = 0  # drafted levels (a chain's length, a tree's deepest node; 0: a plain sample)
    checked: int = 0  # drafts tested against the target (a tree's siblings included)
    expected_accepted: float | None = None  # block verification: E[kept drafts] on this drafted block (exact)
    chain_tokens: int | None = None  # an exact-match lookup tree: what the lookup chain commits on the same draws
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
    tree_scoring: TreeSupport | None = None  # how the target scored this session's trees (None: chains)
    verification: str = "token"  # the rule's canonical name


def origins_of(accepted: int, rejected: bool, n_tokens: int) -> tuple[str, ...]:
    """accepted drafts, then one corrected token after a rejection or one bonus token after full acceptance."""
    tail = [CORRECTED] if rejected else [BONUS] * (n_tokens - accepted)
    return tuple([ACCEPTED] * accepted + tail)[:n_tokens]


def block_expected_accepted(decision: BlockDecisionEvent) -> float:
    """E[tau], the drafts block verification keeps in expectation on this drafted block (from the exact h_i)."""
    return float(sum(i * w for i, w in enumerate(tau_distribution(decision.stop_probabilities))))


def alpha_np(p: np.ndarray, q: np.ndarray) -> float:
    """sum_x min(p(x), q(x)) as a correctly rounded float sum (math.fsum: the same on every CPU).

    numpy's own sum picks its summation order by the CPU's vector width, so the same probabilities can
    sum to 1.0 on one machine and 0.9999999999999999 on another; fsum cannot.
    """
    overlap = np.minimum(p, q)
    return min(1.0, math.fsum(overlap[overlap > 0].tolist()))


def alpha_of(p: Categorical, q: Categorical) -> float:
    """The chance a draft from q is accepted against p, for statistics: exactly 1.0 when q is p.

    The exact test reads tickets, never this float; q = p (a draft that reads the target's own pass)
    gives 1.0 on any CPU because the two distributions are compared exactly first.
    """
    return 1.0 if p == q else alpha_np(p.to_numpy(), q.to_numpy())


def match_alpha(p: Categorical, q: Categorical) -> float:
    """sum_x p(x)·q(x): the chance exact match keeps a draft from q (the target's own sample equals it)."""
    pn, qn = p.to_numpy(), q.to_numpy()
    both = pn * qn
    return min(1.0, math.fsum(both[both > 0].tolist()))


def round_alphas(trace: Trace) -> tuple[float, ...]:
    """alpha(p, q) at each checked depth of the round: one per drafted position a chain checks; for a tree,
    one per node the walk reached (its first sibling's check: every sibling shares the node's p and q). Under
    exact match alpha is sum p·q, its chance of keeping a draft from q, not tokenwise's sum min(p, q)."""
    return tuple((match_alpha if hasattr(e, "sample") else alpha_of)(  # exact match's checks carry its sample
        e.p, e.q) for e in trace.events if e.kind in ALPHA_KINDS and getattr(e, "sibling", 0) == 0)


def target_processor(settings: GenerationSettings) -> Processor:
    """Exact top-k then top-p on the target (temperature is applied to the logits before the softmax)."""
    steps: list[Processor] = []
    if settings.top_k:
        steps.append(TopK(settings.top_k))
    if settings.top_p < 1.0:
        steps.append(TopP(settings.top_p))
    return compose(*steps) if steps else identity_processor


def context_id(target: LoadedModel, draft: Draft | None, settings: GenerationSettings) -> str:
    """Names the model, draft and processing: the verifier refuses blocks from another context."""
    return (f"{target.name}|T={settings.temperature:g}|top_k={settings.top_k}|top_p={settings.top_p:g}"
            f"|draft={draft.label if draft else PLAIN_LABEL}|draft_top_k={settings.draft_top_k}")


def session_rule(settings: GenerationSettings, draft_kind: str | None = None) -> Rule:
    """The playable rule settings.verification names, checked against the depth and the draft (before any load).

    Every playable rule reads one target pass per round: a chain's one forward, a tree's one forward
    with a tree attention mask. An unknown name, a rule only theory evaluates, a tree too wide or
    (for a model draft) with too many nodes raises a SpecvizError naming what real models take.
    """
    if type(settings.depth) is not int or not 1 <= settings.depth <= MAX_DEPTH:
        raise ModelSettingError(f"depth must be a whole number in 1..{MAX_DEPTH}, got {settings.depth!r}")
    found = rule(check_verification(settings.verification))
    round_for(found).check(found, settings.depth, draft_kind)
    return found


def verifier_class(settings: GenerationSettings) -> type:
    """The core verifier for settings.verification, from the registry (specviz.core.verification)."""
    return session_rule(settings).verifier_class  # type: ignore[return-value]


def check_fits(target: LoadedModel, prompt_tokens: int, max_new_tokens: int,
               draft_model: LoadedModel | None = None) -> None:
    """ContextLengthError when the prompt plus max_new_tokens exceed the target's (or the draft model's) limit."""
    for model in (target, draft_model):
        if model is not None:
            check_context(prompt_tokens, max_new_tokens, model.context_length, model=repr(model.name))


class Session:
    """One generation on real models; iterate `rounds()` to animate, or call `run()`.

    `draft_spec=None` samples from the target alone (through the same exact core): the race's plain leg.
    """

    def __init__(self, target: LoadedModel, draft_spec: DraftSpec | None, settings: GenerationSettings,
                 prompt: str | Prefix, *, draft_model: LoadedModel | None = None, top_n: int | None = 10,
                 keep_raw: bool = False, view_top_n: int | None = None):
        self.rule = session_rule(settings, draft_spec.kind if draft_spec is not None else None)
        self.round = round_for(self.rule)
        if isinstance(prompt, str):
            prompt = encode_prompt(target.tokenizer, prompt, chat=settings.chat and target.is_chat)
        check_fits(target, len(prompt), settings.max_new_tokens, draft_model)  # before any draft is built
        self.target = target
        self.settings = settings
        self.top_n = top_n
        self.keep_raw = keep_raw
        self.view_top_n = view_top_n
        self.target_lm = CausalLM(target.model, target.vocab_size, target.device, settings.temperature)
        self.target_model = TargetModel(self.target_lm)
        self.processor = target_processor(settings)
        self.draft: Draft | None = None if draft_spec is None else self.round.adapt(build_draft(
            draft_spec, target, self.target_model, target_processor=self.processor, top_k=settings.top_k,
            top_p=settings.top_p, draft_top_k=settings.draft_top_k, draft_model=draft_model), self.rule)
        self.owner = Owner(settings.request_id, 0)
        self.stop_ids = frozenset() if settings.ignore_eos else frozenset(target.stop_ids)
        ctx = context_id(target, self.draft, settings)
        self.context = ctx if len(ctx) < 200 else hashlib.sha256(ctx.encode()).hexdigest()
        self.verifier = self.rule.verifier_class(self.owner, tuple(prompt), self.context,  # type: ignore[misc]
                                                 self.target_model, processor=self.processor,
                                                 stop_ids=self.stop_ids)
        scoring = self.round.support(self.target_model, self.draft) if self.draft is not None else None
        self.generation = Generation(tuple(prompt), device=target.device_name, context_id=self.context,
                                     tree_scoring=scoring, verification=self.rule.name)

    @property
    def label(self) -> str:
        """The draft's label, or 'plain' for target-only sampling."""
        return self.draft.label if self.draft is not None else PLAIN_LABEL

    def _lms(self) -> list[CausalLM]:
        """The distinct language models this session runs (the target's, and the draft's if separate)."""
        draft_lm = self.draft.lm if self.draft is not None else None
        return [self.target_lm] + ([draft_lm] if draft_lm is not None and draft_lm is not self.target_lm else [])

    def _clock(self) -> tuple[float, int]:
        """Total forward seconds over every LM, and the target's forward count."""
        return sum(lm.forward_seconds for lm in self._lms()), self.target_lm.forwards

    def round_depth(self, prefix: Prefix, remaining: int) -> int:
        """Drafted tokens this round, fixed before any draw: 0 means a plain target sample."""
        if self.draft is None:
            return 0
        depth = max(1, min(self.settings.depth, remaining - 1))
        if isinstance(self.draft, LookupDraft):  # drafts only as far as the n-gram match reaches
            return len(self.draft.plan(prefix, depth))
        return depth

    def _plain_sample(self, prefix: Prefix, streams: RandomStreams, trace: Trace) -> tuple[tuple[int, ...], bool]:
        """One token from the processed target, drawn exactly like a bonus token; commits it."""
        p = self.processor(prefix, self.target_model(prefix))
        token, draw = p.draw(streams.correction)
        stopped = token in self.stop_ids
        round_id = streams.round_id
        trace.append(BonusEvent(round_id, 0, prefix, p, draw, p.total, token))
        if stopped:
            trace.append(StopEvent(round_id, 0, token, "commit"))
        trace.append(ResultEvent(round_id, 1, prefix, (token,), 0, False, stopped))
        self.verifier.reset(prefix + (token,))  # the verifier continues from the committed token
        return (token,), stopped

    def _propose(self, prefix: Prefix, depth: int, streams: RandomStreams, trace: Trace) -> Drafted:
        """Draft this round (proposal stream): a chain or a tree, as the rule's round shape drafts."""
        return self.round.propose(self.draft, prefix, streams, self.rule, depth=depth,  # type: ignore[arg-type]
                                  context_id=self.context, stop_ids=self.stop_ids, trace=trace)

    def _verify(self, prefix: Prefix, drafted: Drafted, streams: RandomStreams, trace: Trace) -> Result:
        """One target pass over the draft (chain or tree), then exact verification (acceptance, correction)."""
        self.round.score(self.target_model, prefix, drafted)
        return self.verifier.verify(drafted.block, streams, trace=trace)

    def step(self, round_id: int) -> RoundRecord:
        """Play one round: propose, prefetch, verify, roll back (or one plain target sample)."""
        s, gen = self.settings, self.generation
        remaining = s.max_new_tokens - len(gen.tokens)
        prefix = self.verifier.prefix
        depth = self.round_depth(prefix, remaining)
        streams = RandomStreams(s.seed, self.owner, round_id)
        trace = Trace()
        began = time.perf_counter()
        fwd0, count0 = self._clock()
        drafted = Drafted(None, (), 0, 0)  # type: ignore[arg-type]
        if depth:
            drafted = self._propose(prefix, depth, streams, trace)
        t1 = time.perf_counter()
        fwd1, count1 = self._clock()
        if depth:
            result = self._verify(prefix, drafted, streams, trace)
            committed, accepted, rejected, stopped = result.tokens, result.accepted_drafts, result.rejected, \
                result.stopped
        else:
            committed, stopped = self._plain_sample(prefix, streams, trace)
            accepted, rejected = 0, False
        t2 = time.perf_counter()
        fwd2, count2 = self._clock()
        self.target_model.sync(self.verifier.prefix)
        if self.draft is not None:
            self.draft.sync(self.verifier.prefix)
        wall = time.perf_counter() - began
        alphas = round_alphas(trace)
        tokens = committed[:remaining]
        decisions = trace.of_kind("block_decision")
        origins = origins_of(accepted, rejected, len(committed)) if depth else (PLAIN,)
        record = RoundRecord(
            round_id=round_id, start=len(gen.tokens), drafted=drafted.tokens, nodes=drafted.nodes, depth=drafted.depth,
            shape=self.round.shape, checked=sum(e.kind in ALPHA_KINDS for e in trace.events), tokens=tokens,
            origins=origins[: len(tokens)], accepted=accepted, rejected=rejected, stopped=stopped, alphas=alphas,
            draft_forward_s=fwd1 - fwd0, draft_exact_s=(t1 - began) - (fwd1 - fwd0),
            target_forward_s=fwd2 - fwd1, verify_s=(t2 - t1) - (fwd2 - fwd1), wall_s=wall,
            target_forwards=count2 - count1, draft_target_forwards=count1 - count0, plain=not depth,
            expected_accepted=block_expected_accepted(decisions[0]) if decisions else None,
            chain_tokens=self._chain_tokens(trace, prefix, len(committed), bool(depth), remaining),
            trace=trace if self.keep_raw else None,
            events=trace.to_dict(self.top_n)["events"] if self.top_n else None,
            views=event_views(trace, self.view_top_n) if self.view_top_n else None,
        )
        gen.tokens.extend(tokens)
        gen.origins.extend(record.origins)
        gen.rounds.append(record)
        gen.stopped = stopped
        return record

    def _chain_tokens(self, trace: Trace, prefix: Prefix, committed: int, drafted: bool, remaining: int) -> int | None:
        """An exact-match lookup tree's round: what the lookup chain would have committed on the same draws (a round
        without a match is the same plain sample for both; both stop at max_new_tokens); None for other sessions."""
        if not isinstance(self.draft, LookupTreeDraft) or not issubclass(self.rule.verifier_class, ExactMatchVerifier):
            return None
        chain = chain_on_same_draws(trace, self.draft.ngram, prefix, committed) if drafted else 1
        return None if chain is None else min(chain, remaining)

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


def generate(target: LoadedModel, prompt: str | Prefix, draft: DraftSpec | None,
             settings: GenerationSettings | None = None, *, draft_model: LoadedModel | None = None,
             top_n: int | None = 10, keep_raw: bool = False,
             on_round: Callable[[RoundRecord], None] | None = None) -> Generation:
    """Exact speculative sampling on a real model (draft=None: plain target sampling), in one call."""
    session = Session(target, draft, settings or GenerationSettings(), prompt,
                      draft_model=draft_model, top_n=top_n, keep_raw=keep_raw)
    return session.run(on_round)
