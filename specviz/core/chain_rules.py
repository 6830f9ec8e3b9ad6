"""The tokenwise walk the engine rules share: check each draft in order, commit the first rejection's
replacement or, after the last draft, a bonus; what a check, a replacement and a bonus are is the rule's.

``ChainRuleVerifier`` keeps ``Verifier``'s constructor, session rules (owner, rounds, prefix, context,
stop policy, reset), validation and ``Result``; a rule overrides ``_keeps``, ``_instead`` and (when its
bonus is not a sample of p) ``_bonus``. A rule's parameters are its ``settings`` (a frozen, hashable
dataclass): passed to the constructor, or bound into a class by ``bound(settings)`` so that a registry can
hand out a class whose plain constructor runs that setting.
"""

from __future__ import annotations

from typing import Any, ClassVar

from .categorical import Categorical
from .errors import BlockError, RuleParameterError
from .rule_params import shown
from .streams import Owner, RandomStreams
from .trace import BonusEvent, Trace
from .verifier import Block, Model, Prefix, Processor, Proposal, Result, Verifier, check_streams, identity_processor


class ChainRuleVerifier(Verifier):
    """A session verifying drafted chains (Blocks) with a rule's own check, replacement and bonus."""

    settings: ClassVar[Any]  # the rule's default settings (a subclass sets it)
    chains_only: ClassVar[str] = "it checks one drafted chain"  # why a Tree is refused (a subclass says it)
    _bound: ClassVar[dict[Any, type]]

    def __init__(self, owner: Owner, prefix: Prefix, context_id: str, target: Model, *,
                 processor: Processor = identity_processor, stop_ids: frozenset[int] = frozenset(),
                 settings: Any = None):
        super().__init__(owner, prefix, context_id, target, processor=processor, stop_ids=stop_ids)
        if settings is not None:
            self.settings = self.check_settings(settings)

    @classmethod
    def check_settings(cls, settings: Any) -> Any:
        """settings if they are of this rule's settings type, else the rule's parameter error."""
        kind = type(cls.settings)
        if not isinstance(settings, kind):
            raise RuleParameterError(f"{cls.__name__} takes settings of type {kind.__name__}, got {shown(settings)}")
        return settings

    @classmethod
    def bound(cls, settings: Any) -> type:
        """A subclass whose default settings are these (one class per setting, so equal rules share it)."""
        settings = cls.check_settings(settings)
        table = cls.__dict__.get("_bound")
        if table is None:
            table = {}
            cls._bound = table
        if settings not in table:
            table[settings] = type(f"{cls.__name__}[{settings.name}]", (cls,), {"settings": settings,
                                                                                "__module__": cls.__module__})
        return table[settings]

    def _check_kind(self, block: object, streams: object) -> None:
        if not isinstance(block, Block):
            raise BlockError(f"{type(self).__name__} verifies a chain (a Block from propose), got "
                             f"{type(block).__name__}: {self.chains_only}")
        check_streams(streams)

    def verify(self, block: Block, streams: RandomStreams, *, trace: Trace | None = None) -> Result:
        """Verify block with the rule; draws and events as the rule's module docstring says."""
        vocab = self._begin(block, streams)
        current = self.prefix
        output: list[int] = []
        accepted, rejected = 0, False
        for position, proposal in enumerate(block.proposals):
            p = self._target_at(current, vocab)
            if self._keeps(position, current, p, proposal, streams, trace):
                token = proposal.token
                accepted += 1
            else:
                token = self._instead(position, current, p, proposal, streams, trace)
                rejected = True
            output.append(token)
            current += (token,)
            if rejected or token in self.stop_ids:
                break
        if not rejected and output[-1] not in self.stop_ids:
            p = self._target_at(current, vocab, bonus=True)
            output.append(self._bonus(len(output), current, p, streams, trace))
        return self._commit(block.round_id, output, accepted, rejected, trace)

    def _keeps(self, position: int, context: Prefix, p: Categorical, proposal: Proposal, streams: RandomStreams,
               trace: Trace | None) -> bool:
        raise NotImplementedError

    def _instead(self, position: int, context: Prefix, p: Categorical, proposal: Proposal,
                 streams: RandomStreams, trace: Trace | None) -> int:
        raise NotImplementedError

    def _bonus(self, position: int, context: Prefix, p: Categorical, streams: RandomStreams,
               trace: Trace | None) -> int:
        """One token from p on the correction stream (the rules whose bonus is the target's own sample)."""
        token, draw = p.draw(streams.correction)
        if trace is not None:
            trace.append(BonusEvent(streams.round_id, position, context, p, draw, p.total, token))
        return token
