"""Drafting a block and verifying it: standard tokenwise speculative sampling, exactly."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .arithmetic import acceptance, residual_with_mass
from .categorical import Categorical
from .errors import (
    BlockError,
    ModelOutputError,
    ProcessorOutputError,
    ProposalError,
    SessionError,
    StreamsTypeError,
    TokenTypeError,
    VocabularyMismatchError,
)
from .streams import Owner, RandomStreams
from .trace import BonusEvent, CheckEvent, CorrectionEvent, DraftEvent, ResultEvent, StopEvent, Trace
from .validation import check_tokens

Prefix = tuple[int, ...]
Model = Callable[[Prefix], Categorical]
Processor = Callable[[Prefix, Categorical], Categorical]
MAX_DEPTH = 5
MAX_WIDTH = 8  # drafts per tree node the core accepts (verification.py re-exports it; the Playground offers 1..4)


def identity_processor(prefix: Prefix, distribution: Categorical) -> Categorical:
    return distribution


@dataclass(frozen=True)
class Proposal:
    token: int
    q: Categorical


@dataclass(frozen=True)
class Block:
    owner: Owner
    round_id: int
    prefix: Prefix
    context_id: str
    fixed_depth: int
    proposals: tuple[Proposal, ...]
    stop_ids: frozenset[int]


@dataclass(frozen=True)
class Result:
    tokens: tuple[int, ...]
    accepted_drafts: int
    rejected: bool
    stopped: bool


def check_depth(depth: object) -> None:
    if type(depth) is not int or not 1 <= depth <= MAX_DEPTH:
        raise BlockError(f"reference fixed depth must be in 1..{MAX_DEPTH}: got {depth!r}")


_check_depth = check_depth


def _describe(value: object) -> str:
    text = repr(value)
    return f"{text if len(text) <= 60 else text[:57] + '...'} of type {type(value).__name__}"


def check_streams(streams: object) -> None:
    """StreamsTypeError unless streams is a RandomStreams (the round's three owned generators)."""
    if not isinstance(streams, RandomStreams):
        raise StreamsTypeError(f"streams must be RandomStreams(seed, owner, round_id), got {_describe(streams)}")


def check_callable(model: object, role: str) -> None:
    """ModelOutputError unless model can be called (prefix -> Categorical)."""
    if not callable(model):
        raise ModelOutputError(f"the {role} must be callable (prefix -> Categorical), got {_describe(model)}")


def model_output(value: object, role: str) -> Categorical:
    """value if it is a Categorical, else ModelOutputError naming the model's role and what came back."""
    if not isinstance(value, Categorical):
        raise ModelOutputError(
            f"the {role} returned {_describe(value)}; a model must return a Categorical for every prefix "
            "(prefix -> Categorical)"
        )
    return value


def _stops_shown(stop_ids: object) -> str:
    """Stop ids for a message: a set of ints sorted ('[2, 7]'), anything else (a hand-built round's None) as itself."""
    if isinstance(stop_ids, (set, frozenset)) and all(type(token) is int for token in stop_ids):
        return str(sorted(stop_ids))
    return _describe(stop_ids)


def stop_set(stop_ids: object) -> frozenset[int]:
    """stop_ids as a frozenset: a set, list, tuple or range of token ids reads the same; TokenTypeError otherwise.

    A list given to the session and a set to the draft would otherwise be two different stop policies
    ("block stops on [2], session on [2]"). Each id is checked against the vocabulary when a round is drafted.
    """
    if type(stop_ids) is frozenset:
        return stop_ids
    if isinstance(stop_ids, (set, frozenset, list, tuple, range)):
        try:
            return frozenset(stop_ids)
        except TypeError:  # an unhashable member, such as a list
            pass
    raise TokenTypeError(f"stop_ids must be a set of token ids (a frozenset, set, list or tuple of ints), got "
                         f"{_describe(stop_ids)}")


def prefix_tuple(prefix: object, role: str = "prefix") -> Prefix:
    """prefix as a tuple of token ids (a list reads the same, and is never extended in place); else TokenTypeError."""
    if type(prefix) is tuple:
        return prefix
    if isinstance(prefix, (tuple, list)):
        return tuple(prefix)
    hint = " (pass tuple(array.tolist()))" if type(prefix).__name__ == "ndarray" else ""
    raise TokenTypeError(f"the {role} must be a tuple of token ids (ints), got {_describe(prefix)}{hint}")


class ContextCheck:
    """A round's contexts checked against each q's vocabulary, the committed prefix in full only once.

    Checking every token of the context at every drafted position made a round's cost grow with the
    text. The prefix and the stop ids are checked in full against the first q's vocabulary; after that
    a context (the prefix, then drafted tokens, all ints) is valid for a vocabulary V exactly when its
    highest token is below V. Only when it is not does the full walk run again, so a refusal is the
    same TokenError, for the same token, as checking every position in full.
    """

    def __init__(self, prefix: Prefix, stop_ids: frozenset[int]):
        self.stop_ids = stop_ids
        self.high: int | None = None  # the highest token of the prefix and the stop ids, once both are checked
        self.prefix = prefix

    def check(self, context: Prefix, drafted_high: int, vocab: int) -> None:
        """TokenError unless every token of context (the prefix, then drafts up to drafted_high) and every stop id
        is an int in 0..vocab - 1."""
        if self.high is not None and max(self.high, drafted_high) < vocab:
            return
        check_tokens(context, vocab)
        check_tokens(tuple(self.stop_ids), vocab)
        if self.high is None:
            self.high = max(max(self.prefix, default=-1), max(self.stop_ids, default=-1))


def processed(processor: Processor, prefix: Prefix, distribution: Categorical) -> Categorical:
    """processor(prefix, distribution), refused in words unless it is a Categorical."""
    value = processor(prefix, distribution)
    if not isinstance(value, Categorical):
        name = getattr(processor, "__name__", None) or type(processor).__name__
        raise ProcessorOutputError(
            f"processor {name} returned {_describe(value)}; a processor must return a Categorical "
            "((prefix, distribution) -> Categorical), e.g. the distribution unchanged"
        )
    return value


def propose(model: Model, prefix: Prefix, streams: RandomStreams, *, depth: int, context_id: str,
            stop_ids: frozenset[int] = frozenset(), trace: Trace | None = None) -> Block:
    """Draft up to depth tokens from model; depth is fixed before any draw, a stop token ends early."""
    _check_depth(depth)
    check_callable(model, "draft model")
    check_streams(streams)
    if not context_id:
        raise BlockError(
            "processor/model context identity is required: pass a nonempty context_id naming the "
            "model and processor settings"
        )
    prefix, stop_ids = prefix_tuple(prefix), stop_set(stop_ids)
    checked = ContextCheck(prefix, stop_ids)
    proposals: list[Proposal] = []
    current, high = prefix, -1
    for position in range(depth):
        q = model_output(model(current), "draft model")
        checked.check(current, high, q.vocab_size)
        token, draw = q.draw(streams.proposal)
        if trace is not None:
            trace.append(DraftEvent(streams.round_id, position, current, q, draw, q.total, token))
        proposals.append(Proposal(token, q))
        current += (token,)
        high = max(high, token)
        if token in stop_ids:
            if trace is not None:
                trace.append(StopEvent(streams.round_id, position, token, "draft"))
            break
    return Block(streams.owner, streams.round_id, prefix, context_id, depth, tuple(proposals), stop_ids)


class Verifier:
    """One request's session: commits only the accepted prefix plus a correction or bonus token.

    Processors must be pure functions of the supplied prefix. Invalid state raises;
    there is no hidden fallback to target-only sampling.
    """

    def __init__(self, owner: Owner, prefix: Prefix, context_id: str, target: Model, *,
                 processor: Processor = identity_processor, stop_ids: frozenset[int] = frozenset()):
        check_callable(target, "target model")
        if not callable(processor):
            raise ProcessorOutputError(f"the processor must be callable ((prefix, distribution) -> Categorical), "
                                       f"got {_describe(processor)}")
        self.owner = owner
        self.prefix = prefix_tuple(prefix)
        self.context_id = context_id
        self.target = target
        self.processor = processor
        self.stop_ids = stop_ids
        self.last_round = -1
        self.stopped = False
        self.failed = False

    def reset(self, prefix: Prefix | None = None) -> None:
        """Clear a stop or a failed verification (optionally moving to a new prefix); rounds stay fresh."""
        self.stopped = False
        self.failed = False
        if prefix is not None:
            self.prefix = prefix_tuple(prefix)

    @property
    def stop_ids(self) -> frozenset[int]:
        """The token ids that end the request (a set, list or tuple given here reads as a frozenset)."""
        return self._stop_ids

    @stop_ids.setter
    def stop_ids(self, stop_ids: object) -> None:
        self._stop_ids = stop_set(stop_ids)

    def _check_session(self, block: Block, streams: RandomStreams) -> None:
        if self.stopped:
            raise SessionError("request has already stopped: a stop token was committed; call reset() to continue")
        if self.failed:
            raise SessionError(
                "failed verification requires explicit session reset: the previous verify raised; call reset()"
            )
        if block.owner != self.owner or streams.owner != self.owner:
            raise SessionError(
                f"request/generation RNG or block ownership mismatch: session {self.owner}, block "
                f"{block.owner}, streams {streams.owner}"
            )
        if block.round_id != streams.round_id or block.round_id <= self.last_round:
            raise SessionError(
                f"stale/reused round or wrong RNG round: block round {block.round_id}, streams round "
                f"{streams.round_id}, last verified round {self.last_round}; use a new, larger round id for both"
            )
        if block.prefix != self.prefix or block.context_id != self.context_id:
            raise SessionError(
                "stale prefix or changed model/processor context: draft from the committed prefix with "
                f"context {self.context_id!r}"
            )
        if block.stop_ids != self.stop_ids:
            raise SessionError(
                f"stop policy mismatch: block stops on {_stops_shown(block.stop_ids)}, session on "
                f"{_stops_shown(self.stop_ids)}"
            )

    def _check_kind(self, block: object, streams: object) -> None:
        """The round and the streams are of the kinds this session verifies, before any attribute is read."""
        if not isinstance(block, Block):
            raise BlockError(f"{type(self).__name__} verifies a Block from propose, got {type(block).__name__}; "
                             "verify a Tree from propose_tree with TreeVerifier")
        check_streams(streams)

    def _check_block(self, block: Block) -> int:
        depth, proposals = block.fixed_depth, block.proposals
        if type(depth) is not int or not 1 <= depth <= MAX_DEPTH or not 1 <= len(proposals) <= depth:
            raise BlockError(
                f"invalid fixed-depth block: depth {depth!r} must be in 1..{MAX_DEPTH} with 1..depth proposals "
                f"(got {len(proposals)})"
            )
        if len(proposals) != depth and proposals[-1].token not in self.stop_ids:
            raise BlockError(
                f"depth may shorten only on a terminal token: {len(proposals)} of {depth} proposals and the "
                "last is not a stop token"
            )
        vocab = proposals[0].q.vocab_size
        for proposal in proposals:
            model_output(proposal.q, "draft model")
            if proposal.q.vocab_size != vocab or proposal.q.prob(proposal.token) == 0:
                raise ProposalError(
                    f"invalid proposal distribution/token: token {proposal.token} needs q > 0 and every q "
                    f"on the vocabulary of {vocab} tokens"
                )
        check_tokens(self.prefix, vocab)
        check_tokens(tuple(self.stop_ids), vocab)
        return vocab

    def _begin(self, block: Block, streams: RandomStreams) -> int:
        """Check the session and the block, claim the round; returns the vocabulary size."""
        self._check_kind(block, streams)
        self._check_session(block, streams)
        vocab = self._check_block(block)
        self.last_round = block.round_id
        self.failed = True  # cleared only if the round completes (_commit)
        return vocab

    def _commit(self, round_id: int, output: list[int], accepted: int, rejected: bool,
                trace: Trace | None) -> Result:
        """Append output to the committed prefix, end the round, record the stop and the result."""
        start = self.prefix
        self.prefix = start + tuple(output)
        self.stopped = output[-1] in self.stop_ids
        self.failed = False
        result = Result(tuple(output), accepted, rejected, self.stopped)
        if trace is not None:
            if self.stopped:
                trace.append(StopEvent(round_id, len(output) - 1, output[-1], "commit"))
            trace.append(ResultEvent(round_id, len(output), start, result.tokens, accepted, rejected, self.stopped))
        return result

    def verify(self, block: Block, streams: RandomStreams, *, trace: Trace | None = None) -> Result:
        """Verify block with the acceptance and correction streams; record events into trace if given."""
        vocab = self._begin(block, streams)
        round_id = block.round_id
        current = self.prefix
        output: list[int] = []
        accepted = 0
        rejected = False
        for position, proposal in enumerate(block.proposals):
            p = self._target_at(current, vocab)
            a = acceptance(p, proposal.q, proposal.token)
            draw = streams.acceptance.randrange(a.denominator)
            ok = draw < a.numerator
            if trace is not None:
                trace.append(CheckEvent(round_id, position, current, p, proposal.q, proposal.token,
                                        p.prob(proposal.token), proposal.q.prob(proposal.token), a, draw,
                                        a.denominator, ok))
            if ok:
                token = proposal.token
                accepted += 1
            else:
                corrected, mass = residual_with_mass(p, proposal.q)
                token, draw = corrected.draw(streams.correction)
                rejected = True
                if trace is not None:
                    trace.append(CorrectionEvent(round_id, position, current, p, proposal.q, corrected, mass,
                                                 draw, corrected.total, token))
            output.append(token)
            current += (token,)
            if rejected or token in self.stop_ids:
                break
        if not rejected and output[-1] not in self.stop_ids:
            p = self._target_at(current, vocab, bonus=True)
            token, draw = p.draw(streams.correction)
            if trace is not None:
                trace.append(BonusEvent(round_id, len(output), current, p, draw, p.total, token))
            output.append(token)
        return self._commit(round_id, output, accepted, rejected, trace)

    def _target_at(self, context: Prefix, vocab: int, *, bonus: bool = False) -> Categorical:
        """The processed target at context, checked to be a Categorical on the drafts' vocabulary."""
        p = processed(self.processor, context, model_output(self.target(context), "target model"))
        if p.vocab_size != vocab:
            if bonus:
                raise VocabularyMismatchError(
                    f"bonus target vocabulary mismatch: target has {p.vocab_size} tokens, drafts {vocab}; draft and "
                    "target must share one vocabulary"
                )
            raise VocabularyMismatchError(
                f"target/proposal vocabulary mismatch: p has {p.vocab_size} tokens, q has {vocab}; draft and target "
                "must share one vocabulary"
            )
        return p
