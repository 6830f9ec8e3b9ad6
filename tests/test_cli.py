"""The command line on a tiny model folder: marked text and statistics, the JSON trace, errors."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from specviz.cli import main, marked_text


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    from specviz.models.tiny import save_tiny

    return str(save_tiny(tmp_path_factory.mktemp("cli-tiny"), arch="gpt2"))


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_generate_prints_marked_text_and_statistics(tiny_dir):
    code, out, err = _run("generate", "w1 w2 w3", "--model", tiny_dir, "--draft", "early-exit:1", "--depth", "3",
                          "--seed", "1", "--max-new-tokens", "10", "--no-chat")
    assert code == 0, err
    assert "accepted draft: plain, [correction], {bonus}" in out
    assert "tokens per target verification pass" in out and "exact verification" in out and "device: cpu" in out
    assert "tokens: 10 in" in out


def test_same_seed_same_output(tiny_dir):
    args = ("generate", "w1 w2 w3", "--model", tiny_dir, "--draft", "lookup:2", "--max-new-tokens", "6",
            "--top-k", "20", "--temperature", "0.8", "--top-p", "0.95", "--device", "cpu", "--json")
    first, second = _run(*args), _run(*args)
    assert first[0] == 0 and json.loads(first[1])["tokens"] == json.loads(second[1])["tokens"]


def test_json_is_the_full_trace(tiny_dir):
    code, out, _ = _run("generate", "w1 w2 w3", "--model", tiny_dir, "--draft", "early-exit:2", "--depth", "2",
                        "--max-new-tokens", "6", "--json", "--top-n", "3")
    assert code == 0
    data = json.loads(out)
    assert len(data["tokens"]) == 6 and {t["origin"] for t in data["tokens"]} == {"accepted", "bonus"}
    events = [e for r in data["rounds"] for e in r["events"]]
    assert {"draft", "check", "bonus", "result"} <= {e["kind"] for e in events}
    check = next(e for e in events if e["kind"] == "check")
    assert len(check["p"]["top"]) == 3 and check["p"]["vocab_size"] == 50257 and "rest" in check["p"]
    assert data["summary"]["accepted"] == data["summary"]["drafted"]


def test_errors_are_explained(tmp_path, tiny_dir):
    code, _, err = _run("generate", "hi", "--model", str(tmp_path / "missing"))
    assert code == 2 and "No such model file or folder" in err
    code, _, err = _run("generate", "hi", "--model", tiny_dir, "--draft", "magic")
    assert code == 2 and "bad draft" in err
    code, _, err = _run("generate", "hi", "--model", tiny_dir, "--draft", "early-exit:7")
    assert code == 2 and "early exit needs 1..2 layers" in err


def test_marks():
    assert marked_text(["a", "b", "c"], ["accepted", "correction", "bonus"], color=False) == "a[b]{c}"
    assert "\033[" in marked_text(["a"], ["bonus"], color=True)


def test_module_entry_point_help():
    result = subprocess.run([sys.executable, "-m", "specviz", "generate", "--help"], capture_output=True, text=True,
                            check=False)
    assert result.returncode == 0 and "--draft" in result.stdout


def test_play_narrates_the_trace_with_marked_text():
    code, out, err = _run("play", "--preset", "far apart", "--rounds", "3", "--color", "never")
    assert code == 0, err
    assert "drafting position 0" in out and "is rejected" in out and "drawn from the residual" in out
    assert "[" in out.splitlines()[-2]  # corrections are bracketed in the committed text


def test_play_json_is_the_trace_and_reproducible():
    first = json.loads(_run("play", "--preset", "close", "--seed", "4", "--json")[1])
    second = json.loads(_run("play", "--preset", "close", "--seed", "4", "--json")[1])
    assert first == second
    kinds = {e["kind"] for r in first["rounds"] for e in r["events"]}
    assert {"draft", "check", "result"} <= kinds
    assert first["scenario"]["seed"] == 4


def test_play_refuses_unknown_presets_and_bad_depth():
    code, _, err = _run("play", "--preset", "nope")
    assert code == 2 and "unknown preset" in err
    code, _, err = _run("play", "--depth", "9")
    assert code == 2 and "depth" in err
