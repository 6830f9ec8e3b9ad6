"""The race on a tiny model: both legs reproducible by seed, the same settings, the speedup line, the CLI."""

from __future__ import annotations

import io
import re

import pytest

from specviz.models import Settings, parse_draft
from specviz.models.cost import CostModel
from specviz.models.race import race, race_table

PROMPT = "w1 w2 w3 w1 w2 w3 w1 w2"


@pytest.fixture(autouse=True)
def _cost_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SPECVIZ_CACHE_DIR", str(tmp_path))


def _race(model, seed: int, draft: str = "lookup:3", **kw):
    cost = CostModel(model.name, model.device_name, (0.01, 0.012, 0.014, 0.016, 0.018, 0.02),
                     {draft: 0.0})
    return race(model, PROMPT, parse_draft(draft), Settings(depth=5, seed=seed, max_new_tokens=10), cost=cost, **kw)


def test_both_legs_are_reproducible_by_seed(tiny):
    a, b, c = _race(tiny, 3), _race(tiny, 3), _race(tiny, 4)
    assert a.plain.generation.tokens == b.plain.generation.tokens
    assert a.speculative.generation.tokens == b.speculative.generation.tokens
    assert a.speculative.generation.origins == b.speculative.generation.origins
    assert a.plain.generation.tokens != c.plain.generation.tokens
    assert set(a.plain.generation.origins) == {"target"} and a.plain.summary.drafted == 0
    assert a.plain.label == "plain" and a.speculative.label == "lookup:3"
    # the same prompt for both legs, through the same exact processors
    assert a.plain.generation.prompt_ids == a.speculative.generation.prompt_ids
    assert a.plain.generation.context_id.replace("draft=plain", "") == \
        a.speculative.generation.context_id.replace("draft=lookup:3", "")


def test_the_speedup_line_and_prediction(tiny):
    result = _race(tiny, 1)
    line = result.line()
    assert re.fullmatch(r"speedup: \d+\.\d\dx \(speculative \d+\.\d tokens/s, plain \d+\.\d tokens/s\)", line)
    assert result.speedup == pytest.approx(result.speculative.tokens_per_s / result.plain.tokens_per_s)
    assert result.prediction is not None and result.prediction.depths == tuple(
        len(r.drafted) for r in result.speculative.generation.rounds)
    assert "The cost model predicts" in result.explanation
    table = "\n".join(race_table(result))
    assert "tokens per verification pass" in table and "predicted speedup" in table


def test_progress_reports_each_leg_in_order(tiny):
    seen: list[str] = []
    _race(tiny, 2, progress=lambda leg, session, record: seen.append(leg))
    assert seen[0] == "plain" and seen[-1] == "speculative"
    assert seen == sorted(seen, key=["plain", "speculative"].index)


def test_cli_race_ends_with_the_speedup_line(tiny_dir):
    from specviz.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = main(["generate", PROMPT, "--model", str(tiny_dir), "--draft", "lookup:3", "--depth", "5",
                 "--temperature", "0.5", "--max-new-tokens", "8", "--race", "--no-chat"], out=out, err=err)
    assert code == 0, err.getvalue()
    lines = out.getvalue().strip().splitlines()
    assert re.fullmatch(r"speedup: \d+\.\d\dx \(speculative \d+\.\d tokens/s, plain \d+\.\d tokens/s\)", lines[-1])
    assert "--- plain (plain) ---" in lines and "--- speculative (lookup:3) ---" in lines
