"""Replay the reference oracle's 300 golden scenarios: identical outcomes, round by round."""

import json
from pathlib import Path

import pytest

from specviz.scenario import play_round, scenario_from_golden

CASES = json.loads((Path(__file__).parents[1] / "data" / "verifier_scenarios.json").read_text())["cases"]


def replay(case: dict) -> list[dict]:
    scenario = scenario_from_golden(case)
    outcomes: list[dict] = []
    try:
        verifier = scenario.verifier()
        for round_id in range(case["rounds"]):
            result = play_round(scenario, verifier, round_id).result
            outcomes.append({"tokens": list(result.tokens), "accepted_drafts": result.accepted_drafts,
                             "rejected": result.rejected, "stopped": result.stopped})
            if verifier.stopped:
                break
    except TypeError:
        outcomes.append({"error": "TypeError"})
    except ValueError:
        outcomes.append({"error": "ValueError"})
    return outcomes


def test_all_cases_present():
    assert len(CASES) == 300


@pytest.mark.parametrize("index", range(len(CASES)))
def test_golden_case(index):
    case = CASES[index]
    assert replay(case) == case["expected"]
