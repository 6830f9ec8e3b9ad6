"""Exception types of the exact core.

Every class subclasses the builtin the reference oracle raises (ValueError or
TypeError), so code written against the reference keeps catching them, while the
UI can tell a bad weight from a stale round.
"""

from __future__ import annotations


class SpecvizError(Exception):
    """Base of every error the exact core raises on purpose."""


class WeightTypeError(SpecvizError, TypeError):
    """A weight is not a real number (bool, str, complex, None, ...)."""


class WeightValueError(SpecvizError, ValueError):
    """A weight is negative, not finite, or not representable as finite FP32."""


class SupportError(SpecvizError, ValueError):
    """The support is empty, has all-zero mass, or lists ids badly."""


class TokenError(SpecvizError, ValueError):
    """A token id is not an int inside the vocabulary."""


class MaskError(SpecvizError, ValueError):
    """A mask does not hold one bool per vocabulary token."""


class TopKError(SpecvizError, ValueError):
    """top-k is not an int in 1..vocab_size."""


class VocabularyMismatchError(SpecvizError, ValueError):
    """Target and proposal distributions live on different vocabularies."""


class ProposalError(SpecvizError, ValueError):
    """A drafted token has zero probability under its own proposal q."""


class BlockError(SpecvizError, ValueError):
    """A draft block is malformed (depth, context, shortening)."""


class SessionError(SpecvizError, ValueError):
    """The verifier session refuses this block (ownership, staleness, state)."""


class ProcessorError(SpecvizError, ValueError):
    """A processor setting (temperature, top-k, top-p) is out of range."""


class MaskTypeError(MaskError, TypeError):
    """A mask is not a sequence at all (None, a number): the reference raises TypeError here."""


class ScaleError(SpecvizError, ValueError):
    """A residual scale c is not an exact number in [0, 1]."""


class TokenTypeError(TokenError, TypeError):
    """The token ids are not a sequence at all (None, a number): the reference raises TypeError here."""


class VerificationError(SpecvizError, ValueError):
    """An unknown verification rule was requested, or one the core cannot run."""


class DistributionTypeError(SpecvizError, TypeError):
    """Something the core needs as a Categorical is not one (None, a list, an array)."""


class ModelOutputError(DistributionTypeError):
    """A draft or target model is not a callable returning a Categorical."""


class ProcessorOutputError(ProcessorError, DistributionTypeError):
    """A processor returned something other than a Categorical (None, a list, ...)."""


class StreamsTypeError(SessionError, TypeError):
    """The streams passed to propose or verify are not RandomStreams."""


class ThresholdPrecisionError(SpecvizError, ValueError):
    """A lossy rule's threshold lies too close to a probability to be decided within the precision limit."""
