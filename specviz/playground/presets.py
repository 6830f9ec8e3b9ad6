"""Named presets for the Playground: each sets p and q (fixed or Markov) for any vocabulary size.

A preset changes only the weights and, for ``stop-heavy``, the stop tokens; the
vocabulary, depth, seed and the other settings stay as the lecturer left them. In
Markov mode the row after token t is the fixed-mode row rotated so that its favourite
is token t + 1: with the default words the likeliest text reads "the cat sat on mat .".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..scenario import Scenario, Table

DEFAULT_VOCAB: tuple[str, ...] = ("the", "cat", "sat", "on", "mat", ".")
MIN_VOCAB = 2
MAX_VOCAB = 12

IntRow = list[int]


def _base(v: int) -> IntRow:
    """Descending weights v, v-1, ..., 1: token 0 likeliest."""
    return [v - i for i in range(v)]


def _same(v: int) -> tuple[IntRow, IntRow]:
    return _base(v), _base(v)


def _close(v: int) -> tuple[IntRow, IntRow]:
    p = _base(v)
    q = [w + (1 if i % 2 else 0) for i, w in enumerate(p)]
    return p, q


def _far(v: int) -> tuple[IntRow, IntRow]:
    p = [w * w for w in _base(v)]
    return p, p[::-1]


def _disjoint(v: int) -> tuple[IntRow, IntRow]:
    half = v // 2
    p = [1 if i < half else 0 for i in range(v)]
    q = [0 if i < half else 1 for i in range(v)]
    return p, q


def _q_zero(v: int) -> tuple[IntRow, IntRow]:
    p = _base(v)
    keep = max(1, v // 2)
    q = [w if i < keep else 0 for i, w in enumerate(p)]
    return p, q


def _p_zero(v: int) -> tuple[IntRow, IntRow]:
    q = _base(v)
    keep = max(1, v // 2)
    p = [w if i < keep else 0 for i, w in enumerate(q)]
    return p, q


def _peaked(v: int) -> tuple[IntRow, IntRow]:
    p = [4 * v if i == 0 else 1 for i in range(v)]
    return p, [1] * v


def _stop_heavy(v: int) -> tuple[IntRow, IntRow]:
    p = [2] * (v - 1) + [2 * v]
    q = [3] * (v - 1) + [v]
    return p, q


@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    rows: Callable[[int], tuple[IntRow, IntRow]]
    stop_last: bool = False


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("close", "q is a slightly blurred p: most drafts are accepted (alpha near 1).", _close),
        Preset("p = q", "The draft is the target: every draft is accepted and each round commits depth + 1 "
               "tokens.", _same),
        Preset("far apart", "q favours the tokens p dislikes: many rejections, and corrections come from the "
               "residual (p - q)+.", _far),
        Preset("disjoint supports", "q never proposes a token p allows: every draft is rejected (alpha = 0) and "
               "the residual is p itself.", _disjoint),
        Preset("q zero where p is not", "Some tokens p likes are never drafted: they reach the text only as "
               "corrections or bonus tokens.", _q_zero),
        Preset("p zero where q is not", "The draft proposes tokens the target forbids: those drafts have "
               "acceptance 0 and are always rejected.", _p_zero),
        Preset("peaked vs flat", "p puts most mass on one token, q is uniform: the favourite is always "
               "accepted, the others rarely.", _peaked),
        Preset("stop-heavy", "The last token is a likely stop token: blocks end early and the request stops.",
               _stop_heavy, stop_last=True),
    )
}
DEFAULT_PRESET = "close"


def _rotate(row: IntRow, by: int) -> IntRow:
    by %= len(row)
    return row[-by:] + row[:-by] if by else list(row)


def preset_tables(name: str, vocab_size: int, markov: bool) -> tuple[Table, Table]:
    """(target, draft) weight tables of a preset for this vocabulary size and mode."""
    p, q = PRESETS[name].rows(vocab_size)
    if not markov:
        return Table(tuple(p)), Table(tuple(q))
    p_rows = tuple(tuple(_rotate(p, t + 1)) for t in range(vocab_size))
    q_rows = tuple(tuple(_rotate(q, t + 1)) for t in range(vocab_size))
    return Table(tuple(p), p_rows), Table(tuple(q), q_rows)


def apply_preset(scenario: Scenario, name: str, markov: bool | None = None) -> Scenario:
    """The scenario with the preset's weights (and stop tokens for stop-heavy); other settings kept."""
    if markov is None:
        markov = scenario.target.rows is not None
    target, draft = preset_tables(name, scenario.vocab_size, markov)
    preset = PRESETS[name]
    stops = frozenset({scenario.vocab_size - 1}) if preset.stop_last else frozenset()
    return scenario.with_changes(target=target, draft=draft, stop_ids=stops)


def preset_scenario(name: str, vocab_size: int, depth: int, markov: bool) -> Scenario:
    """A preset on V tokens (the default words at V = 6, else letters) at depth g: the lab's and theory's scenarios."""
    vocab = DEFAULT_VOCAB if vocab_size == len(DEFAULT_VOCAB) else tuple("abcdefghijkl"[:vocab_size])
    base = Scenario(vocab=vocab, target=Table((1,) * vocab_size), draft=Table((1,) * vocab_size), depth=depth)
    return apply_preset(base, name, markov)


def default_scenario(markov: bool = False) -> Scenario:
    base = Scenario(vocab=DEFAULT_VOCAB, target=Table((1,) * 6), draft=Table((1,) * 6), depth=3, seed=0,
                    request_id="demo")
    return apply_preset(base, DEFAULT_PRESET, markov)


# --- the Preset box when the weights did not come from a preset ---------------------------------
CUSTOM = "custom (from a link or file)"
CUSTOM_DESCRIPTION = ("These weights came from a link, a file or the gallery, not from a preset. "
                      "Pick a preset to replace them (Undo brings them back).")


def matching_preset(scenario: Scenario) -> str | None:
    """The preset whose weights (and stop tokens) the scenario has, or None: what the Preset box should say."""
    markov = scenario.target.rows is not None
    for name in PRESETS:
        if apply_preset(scenario, name, markov) == scenario:
            return name
    return None


def describe(name: str) -> str:
    """The caption under the Preset box: a preset's description, or the honest one for custom weights."""
    return PRESETS[name].description if name in PRESETS else CUSTOM_DESCRIPTION
