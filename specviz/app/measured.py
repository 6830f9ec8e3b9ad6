"""Running measurements other pages leave in the Streamlit session, read without importing them.

Pure functions over the session mapping (any Mapping; no Streamlit import): the Theory page passes
``st.session_state``. It lives on the app side because it reads other pages' session keys and builds
the plots' Measurement and SpeedupPoint (the lab sits below the plots and the Playground).

* The Playground keeps its scenario in ``pg_scenario`` and its animation state in ``pg_state``
  (a ``PlayState`` with ``step``); its running statistics are ``narrative.step_view(...).stats``.
* The real-model page keeps a ``specviz.models.stats.Summary`` (found by its fields, so torch is
  never imported here) under any session key.
* Any page may also publish ``theory_measurements``: {name: {"acceptance_rate", "tokens_per_round",
  "depth", "checks", optional "alpha_by_position"}}.
* The real-model page publishes measured speedups in ``theory_speedups``: {name: {"acceptance_rate",
  "cost_ratio", "depth", "verify_ratio", "measured_speedup", "predicted_speedup"}} for the speedup curves.

A key that is absent or malformed measures nothing. The Playground's statistics are recomputed from its
scenario: a scenario the library refuses at its step (a ``SpecvizError``) measures nothing and ``collect`` says
why in a note; anything else is a bug in specviz, logged with its traceback and said in a note as one, never
swallowed.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core import SpecvizError
from ..narration import problems
from ..plots.theory_figures import Measurement, SpeedupPoint
from ..scenario import Scenario

log = logging.getLogger("specviz")

PLAYGROUND_SCENARIO = "pg_scenario"
PLAYGROUND_STATE = "pg_state"
PUBLISHED = "theory_measurements"
SPEEDUPS = "theory_speedups"
_SUMMARY_FIELDS = ("accepted", "drafted", "tokens_per_round", "rounds", "reached", "acceptance_by_position")


@dataclass(frozen=True)
class Measured:
    measurement: Measurement
    by_position: list[float | None] | None = None


@dataclass(frozen=True)
class Collected:
    """Every measurement found in the session, a line for each source the library refused to measure, and a line
    for each bug that stopped one."""

    found: list[Measured] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    bugs: list[str] = field(default_factory=list)


def playground_scenario(session: Mapping[str, Any]) -> Scenario | None:
    scenario = session.get(PLAYGROUND_SCENARIO)
    return scenario if isinstance(scenario, Scenario) else None


def from_playground(session: Mapping[str, Any]) -> Measured | None:
    """The Playground's running statistics at its step, or None when it has none (no scenario, no check yet).

    Raises what ``narrative.step_view`` raises: a SpecvizError when the library refuses the scenario at its step.
    """
    scenario = playground_scenario(session)
    play = session.get(PLAYGROUND_STATE)
    step = getattr(play, "step", None)
    if scenario is None or type(step) is not int:
        return None
    from ..playground import narrative

    stats = narrative.step_view(scenario, step).stats
    if not stats.checks:
        return None
    tokens = float(stats.tokens_per_round) if stats.tokens_per_round is not None else None
    return Measured(Measurement("Playground", float(stats.acceptance_rate), tokens, scenario.depth, stats.checks))


def _playground(session: Mapping[str, Any]) -> Collected:
    """The Playground's measurement, or the line saying why there is none."""
    try:
        found = from_playground(session)
    except SpecvizError as error:  # the library refuses the scenario at its step: nothing measured, said why
        return Collected(notes=[f"The Playground's scenario measures nothing here: {error}"])
    except Exception as error:  # noqa: BLE001 - a bug in specviz: logged with its traceback and said as one
        log.error("a bug reading the Playground's measurement", exc_info=error)
        return Collected(bugs=[f"{problems.BUG_TITLE}: the Playground's measurement failed. Please report it with "
                               f"this line: {problems.bug_line(error)}"])
    return Collected([found] if found is not None else [])


def _looks_like_summary(value: Any) -> bool:
    return all(hasattr(value, name) for name in _SUMMARY_FIELDS)


def from_real_model(session: Mapping[str, Any]) -> list[Measured]:
    out = []
    for key in list(session.keys()):
        value = session.get(key)
        if not _looks_like_summary(value) or not value.drafted:
            continue
        depth = len(value.reached) or 1
        rate = value.accepted / value.drafted
        out.append(Measured(Measurement(f"Real model ({getattr(value, 'device', '?')})", rate,
                                        float(value.tokens_per_round), depth, int(value.drafted)),
                            list(value.acceptance_by_position)))
    return out


def from_published(session: Mapping[str, Any]) -> list[Measured]:
    published = session.get(PUBLISHED)
    if not isinstance(published, Mapping):
        return []
    out = []
    for name, data in published.items():
        try:
            out.append(Measured(Measurement(str(name), float(data["acceptance_rate"]),
                                            None if data.get("tokens_per_round") is None
                                            else float(data["tokens_per_round"]),
                                            int(data["depth"]), int(data.get("checks", 0))),
                                data.get("alpha_by_position")))
        except (KeyError, TypeError, ValueError):
            continue
    return out


def collect(session: Mapping[str, Any]) -> Collected:
    """Every measurement found in the session, Playground first, and why a source measured nothing."""
    playground = _playground(session)
    return Collected(playground.found + from_real_model(session) + from_published(session), playground.notes,
                     playground.bugs)


def speedup_points(session: Mapping[str, Any]) -> list[SpeedupPoint]:
    """Measured speedups published by the real-model page (alpha and cost ratio as measured)."""
    published = session.get(SPEEDUPS)
    if not isinstance(published, Mapping):
        return []
    out = []
    for name, data in published.items():
        try:
            out.append(SpeedupPoint(str(name), float(data["acceptance_rate"]), float(data["cost_ratio"]),
                                    int(data["depth"]), float(data["verify_ratio"]), float(data["measured_speedup"]),
                                    float(data["predicted_speedup"])))
        except (KeyError, TypeError, ValueError):
            continue
    return out
