"""The exception tree: every error specviz raises on purpose is a ``SpecvizError``.

Every class also subclasses the builtin a caller would catch (the one the reference oracle raises,
ValueError or TypeError; KeyError for a lookup; RuntimeError for a model that fails to load), so
code written against the reference keeps catching them, while the UI can tell a refused input (a
SpecvizError: its message names the field, what was given and what is allowed) from a bug
(anything else). The whole tree, each class with its
module under ``specviz`` and, in brackets, its bases besides the one it hangs from
(tests/core/test_errors.py checks this drawing against the classes themselves):

    SpecvizError                         core.errors             [Exception]
    ├── WeightTypeError                  core.errors             [TypeError]
    ├── WeightValueError                 core.errors             [ValueError]
    ├── SupportError                     core.errors             [ValueError]
    │   └── TypicalSupportError          core.medusa
    ├── TokenError                       core.errors             [ValueError]
    │   └── TokenTypeError               core.errors             [TypeError]
    ├── MaskError                        core.errors             [ValueError]
    │   └── MaskTypeError                core.errors             [TypeError]
    ├── TopKError                        core.errors             [ValueError]
    ├── VocabularyMismatchError          core.errors             [ValueError]
    ├── ProposalError                    core.errors             [ValueError]
    ├── BlockError                       core.errors             [ValueError]
    │   ├── TreeSizeError                core.tree
    │   └── TreePathError                core.tree               [KeyError]
    ├── SessionError                     core.errors             [ValueError]
    │   └── StreamsTypeError             core.errors             [TypeError]
    ├── ProcessorError                   core.errors             [ValueError]
    │   └── ProcessorOutputError         core.errors             [DistributionTypeError]
    ├── ScaleError                       core.errors             [ValueError]
    ├── VerificationError                core.errors             [ValueError]
    │   └── RuleParameterError           core.errors
    ├── DistributionTypeError            core.errors             [TypeError]
    │   └── ModelOutputError             core.errors
    ├── LawError                         core.errors             [ValueError]
    ├── ScenarioError                    scenario.reading_errors [ValueError]
    │   └── ScenarioTypeError            scenario.reading_errors [TypeError]
    ├── PlaygroundError                  scenario.reading_errors [ValueError]
    ├── TheoryError                      theory.theory_limits    [ValueError]
    │   └── TheoryLimitError             theory.theory_limits
    ├── TheoryTypeError                  theory.theory_limits    [TypeError]
    ├── RulesError                       lab.all_rules           [ValueError]
    ├── EngineSettingsError              lab.float_verifier      [ValueError]
    ├── JumpError                        playground.jump         [ValueError]
    ├── LectureError                     playground.lecture      [ValueError]
    │   └── LectureTypeError             playground.lecture      [TypeError]
    ├── ManyRoundsError                  playground.many_rounds  [ValueError]
    │   └── BlockBugError                playground.many_rounds
    ├── ExportError                      plots.png_export        [ValueError]
    ├── ContextLengthError               models.model_limits     [ValueError]
    ├── ModelLoadError                   models.model_errors     [RuntimeError]
    │   └── BundledModelError            models.bundled
    ├── ModelSettingError                models.model_errors     [ValueError]
    ├── TokenizerMismatchError           models.drafts           [ValueError]
    ├── UnknownFactError                 gallery                 [KeyError]
    └── UsageError                       cli.args                [ValueError]

A new error class joins this drawing where it hangs; an internal invariant that fails is an
AssertionError (a bug), never a SpecvizError.
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


class RuleParameterError(VerificationError):
    """A rule's name carries a parameter outside what the rule allows (the field, the value, the range)."""


class LawError(SpecvizError, ValueError):
    """A rule's exact law was asked for with an argument it cannot take, or past its stated limit."""
