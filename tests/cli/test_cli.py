"""The command line on a tiny model folder: marked text and statistics, the JSON trace, errors."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from fractions import Fraction
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specviz import cli
from specviz import formats as narrate
from specviz.cli import args as cli_args
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
    assert code == 2 and "argument --draft: 'magic'" in err
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
    assert "drafting position 1" in out and "is rejected" in out and "drawn from the residual" in out
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
    assert code == 2 and "argument --preset: 'nope'" in err and "'far apart'" in err
    code, _, err = _run("play", "--depth", "9")
    assert code == 2 and "depth" in err


# --- every argument validated before anything loads: one line, exit status 2 -------------------------
REFUSED = [
    (("generate", "x", "--top-p", "1.5"), "--top-p", "'1.5'", "0 < P ≤ 1"),
    (("generate", "x", "--top-p", "nan"), "--top-p", "'nan'", "0 < P ≤ 1"),
    (("generate", "x", "--temperature", "inf"), "--temperature", "'inf'", "finite number T ≥ 1e-06"),
    (("generate", "x", "--temperature", "0"), "--temperature", "'0'", "greedy decoding"),
    (("generate", "x", "--max-new-tokens", "0"), "--max-new-tokens", "'0'", "whole number ≥ 1"),
    (("generate", "x", "--max-new-tokens", "-5"), "--max-new-tokens", "'-5'", "whole number ≥ 1"),
    (("generate", "x", "--depth", "9"), "--depth", "'9'", "whole number in 1..5"),
    (("generate", "x", "--draft-top-k", "-1"), "--draft-top-k", "'-1'", "whole number ≥ 0 (0 = off)"),
    (("generate", "x", "--draft", "early-exit:0"), "--draft", "'early-exit:0'", "whole number ≥ 1"),
    (("generate", "x", "--draft", "target:top_k=-3"), "--draft", "'target:top_k=-3'", "whole number ≥ 0"),
    (("generate", "x", "--draft", "target:bogus"), "--draft", "'target:bogus'", "temperature=…, top_k=…"),
    (("generate", "x", "--draft", "target:temperature=0"), "--draft", "'target:temperature=0'", "top_k=1"),
    (("generate", "x", "--draft", "lookup:0"), "--draft", "'lookup:0'", "whole number in 1..8"),  # issue 19: bounded
    (("generate", "x", "--draft", "lookup:99999999999999"), "--draft", "'lookup:99999999999999'",
     "whole number in 1..8"),
    (("generate", "x", "--draft", "lookup:9"), "--draft", "'lookup:9'", "whole number in 1..8"),
    (("generate", "x", "--json", "--top-n", "1001"), "--top-n", "'1001'", "whole number in 1..1000"),
    (("generate", "x", "--seed", "-1"), "--seed", "'-1'", "whole number in 0..9007199254740991"),
    (("generate", "x", "--verification", "joint"), "--verification", "'joint'",
     "verification must be one of 'token', 'block'"),
    (("generate", "x", "--verification", "greedy-draft"), "--verification", "'greedy-draft'",
     "'greedy-draft' (greedy draft, target's sample) is evaluated by theory only"),
    (("play", "--seed", "-5"), "--seed", "'-5'", "whole number in 0..9007199254740991"),
    (("play", "--seed", str(2**53)), "--seed", f"'{2**53}'", "whole number in 0..9007199254740991"),
    (("generate", "x", "--verification", "multi:0"), "--verification", "'multi:0'", "K must be a whole number in 1..8"),
    (("play", "--verification", "multi:0"), "--verification", "'multi:0'", "K must be a whole number in 1..8"),
    (("play", "--verification", "greedy-draft"), "--verification", "'greedy-draft'", "evaluated by theory only"),
    (("generate", "x", "--draft", "model:"), "--draft", "'model:'", "hub id or folder"),
    (("generate", "x", "--json", "--top-n", "-1"), "--top-n", "'-1'", "whole number in 1..1000"),  # issue 19
    (("generate", "x", "--device", "foo"), "--device", "'foo'", "cpu, cuda, cuda:N or mps"),
    (("generate", "x", "--model", " "), "--model", "' '", "name a model"),
    (("play", "--rounds", "0"), "--rounds", "'0'", "whole number in 1..1000"),
    (("play", "--rounds", "-3"), "--rounds", "'-3'", "whole number in 1..1000"),
    (("play", "--depth", "9"), "--depth", "'9'", "whole number in 1..5"),
    (("play", "--preset", "no such preset"), "--preset", "'no such preset'", "'far apart'"),
]


@pytest.mark.parametrize("argv, flag, value, allowed", REFUSED, ids=[" ".join(r[0][1:]) for r in REFUSED])
def test_each_bad_argument_is_refused_in_one_line_naming_flag_value_and_range(argv, flag, value, allowed):
    with mock.patch("specviz.cli.cmd_generate", side_effect=AssertionError("validation let it through")), \
            mock.patch("specviz.cli.cmd_play", side_effect=AssertionError("validation let it through")):
        code, out, err = _run(*argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"argument {flag}: {value}" in err and allowed in err


def test_temperature_zero_says_what_it_would_mean_and_what_to_use():
    _, _, err = _run("generate", "x", "--temperature", "0")
    assert "0 would mean greedy decoding" in err and "use --top-k 1" in err


def test_good_values_parse_to_what_the_models_need():
    args = cli.parse(["generate", "x", "--draft", "ee:3", "--top-p", "0.5", "--temperature", "1e-6",
                      "--device", "cuda:1", "--top-n", "1"])
    assert (args.draft.kind, args.draft.fields, str(args.draft)) == ("early-exit", {"layers": 3}, "ee:3")
    assert args.top_p == 0.5 and args.temperature == 1e-6 and args.device == "cuda:1"
    draft = cli.parse(["generate", "x", "--draft", "target:top_k=20, temperature=1.5"]).draft
    assert draft.fields == {"temperature": 1.5, "top_k": 20}
    assert cli.parse(["generate", "x", "--draft", "model:some/model"]).draft.fields == {"model": "some/model"}
    assert cli.parse(["generate", "x"]).draft.fields == {"layers": 8}
    assert cli.parse(["play", "--preset", "p = q", "--rounds", "1000"]).rounds == 1000


def test_every_draft_kind_builds_a_draft_spec():
    from specviz.models import DraftSpec

    for kind in cli_args.DRAFT_KINDS:
        choice = cli_args.read_draft(kind.example)
        assert DraftSpec(choice.kind, **choice.fields).label().startswith(kind.name)


# each flag with a strategy of values it must refuse
_junk = st.text(min_size=0, max_size=12)
def _is_int(text: str) -> bool:
    try:
        int(text)  # as argparse's readers parse it: "1_000" and " 7" are integers too
    except ValueError:
        return False
    return True


_not_int = _junk.filter(lambda t: not _is_int(t))


def _ints_outside(low=None, high=None):
    parts = [_not_int, st.floats(allow_nan=True).map(repr).filter(lambda t: not t.rstrip("0").endswith("."))]
    if low is not None:
        parts.append(st.integers(max_value=low - 1).map(str))
    if high is not None:
        parts.append(st.integers(min_value=high + 1).map(str))
    return st.one_of(*parts)


_VERIFICATION_WORDS = {"token", "tokenwise", "block"}


def _not_a_rule(text: str) -> bool:
    """Junk --verification text (family specs with ':' left out: a later core may run them)."""
    return ":" not in text and text.strip().lower() not in _VERIFICATION_WORDS


_BAD = {
    ("generate", "--depth"): _ints_outside(1, 5),
    ("generate", "--max-new-tokens"): _ints_outside(1),
    ("generate", "--top-k"): _ints_outside(0),
    ("generate", "--draft-top-k"): _ints_outside(0),
    ("generate", "--top-n"): _ints_outside(1, 1000),
    ("generate", "--seed"): _ints_outside(0, 2**53 - 1),
    ("generate", "--verification"): _junk.filter(_not_a_rule),
    ("generate", "--top-p"): st.one_of(st.floats().filter(lambda x: not 0 < x <= 1).map(repr),
                                       _junk.filter(lambda t: not _is_float(t))),
    ("generate", "--temperature"): st.one_of(st.floats().filter(lambda x: not 1e-6 <= x < float("inf")).map(repr),
                                             _junk.filter(lambda t: not _is_float(t))),
    ("generate", "--device"): _junk.filter(lambda t: not cli_args.DEVICE_PATTERN.fullmatch(t.strip())),
    ("generate", "--draft"): st.one_of(
        _junk.filter(lambda t: t.partition(":")[0].strip().lower() not in _DRAFT_NAMES),
        st.sampled_from(["early-exit", "lookup"]).flatmap(
            lambda k: _ints_outside(1).filter(str.strip).map(lambda v: f"{k}:{v}")),  # empty: the default
        _ints_outside(0).map(lambda v: f"target:top_k={v}"),
        st.floats().filter(lambda x: not 1e-6 <= x < float("inf")).map(lambda v: f"target:temperature={v!r}"),
        _junk.filter(lambda t: t.partition("=")[0].strip() not in ("temperature", "top_k") and "," not in t)
        .filter(str.strip).map(lambda t: f"target:{t}")),  # "target:" alone (or blank) is the default draft
    ("play", "--depth"): _ints_outside(1, 5),
    ("play", "--rounds"): _ints_outside(1, 1000),
    ("play", "--seed"): _ints_outside(0, 2**53 - 1),
    ("play", "--verification"): _junk.filter(_not_a_rule),
    ("play", "--preset"): _junk.filter(lambda t: t not in _presets()),
    ("play", "--color"): _junk.filter(lambda t: t not in ("auto", "always", "never")),
}
_DRAFT_NAMES = {name for kind in cli_args.DRAFT_KINDS for name in (kind.name, *kind.aliases)}


def _is_float(text: str) -> bool:
    """float() reads it, or it is a fraction such as 1/2 (the links' grammar, which the command line shares)."""
    try:
        float(text)
    except ValueError:
        return bool(re.fullmatch(r"\s*[+-]?[0-9]+/[0-9]+\s*", text))
    return True


def _presets():
    from specviz.playground.presets import PRESETS

    return PRESETS


@settings(max_examples=400, deadline=None)
@given(data=st.data(), where=st.sampled_from(sorted(_BAD)))
def test_random_bad_values_never_run_never_exit_0_never_trace_back(data, where):
    command, flag = where
    value = data.draw(_BAD[where], label="value")
    argv = [command, *(["prompt"] if command == "generate" else []), f"{flag}={value}"]
    with mock.patch("specviz.cli.cmd_generate", side_effect=AssertionError("validation let it through")), \
            mock.patch("specviz.cli.cmd_play", side_effect=AssertionError("validation let it through")):
        code, out, err = _run(*argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"argument {flag}" in err


@pytest.mark.parametrize("argv", [["generate", "x", "--top-p", "1.5"], ["play", "--rounds", "-3"],
                                  ["generate", "x", "--draft", "target:bogus"]])
def test_real_processes_exit_2_without_a_traceback(argv):
    result = subprocess.run([sys.executable, "-m", "specviz", *argv], capture_output=True, text=True, check=False)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr and "error: argument" in result.stderr


def test_refusals_never_import_torch():
    code = ("import sys; from specviz.cli import main; "
            "codes = [main(a) for a in (['generate', 'x', '--device', 'foo'], ['generate', 'x', '--depth', '9'], "
            "['play', '--preset', 'nope'])]; "
            "assert codes == [2, 2, 2], codes; assert 'torch' not in sys.modules and 'transformers' not in sys.modules")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_an_unavailable_device_is_refused_before_loading(tiny_dir):
    code, _, err = _run("generate", "x", "--model", tiny_dir, "--device", "cuda:99")
    assert code == 2 and "--device 'cuda:99'" in err and "loading" not in err


# --- play narrates the numbers -------------------------------------------------------------------------
def test_play_narrates_every_number_of_the_trace():
    code, out, _ = _run("play", "--preset", "far apart", "--rounds", "4", "--seed", "2", "--color", "never")
    data = json.loads(_run("play", "--preset", "far apart", "--rounds", "4", "--seed", "2", "--json")[1])
    assert code == 0
    events = [e for r in data["rounds"] for e in r["events"]]
    kinds = {e["kind"] for e in events}
    assert {"check", "correction"} <= kinds
    for e in events:
        if e["kind"] in ("draft", "check", "correction", "bonus"):
            assert f"draw {e['draw']} of 0..{e['draw_range'] - 1}" in out
        if e["kind"] == "check":
            assert f"min(1, p/q) = {narrate.fraction_abbreviated(Fraction(e['acceptance']['exact']))}" in out
            x = data["scenario"]["vocab"][e["token"]]
            assert f"p({x}) = {narrate.fraction_abbreviated(Fraction(e['p_token']['exact']))}" in out
        if e["kind"] == "correction":
            mass = narrate.fraction_abbreviated(Fraction(e["residual_mass"]["exact"]))
            assert f"residual mass Σ (p − q)+ = {mass}" in out
    assert "so rejected" in out and "so accepted" in out


def test_play_narrates_the_bonus_draw():
    code, out, _ = _run("play", "--preset", "p = q", "--rounds", "1", "--color", "never")
    assert code == 0 and "bonus draw" in out and "min(1, p/q) = 1" in out


def test_long_integers_are_abbreviated():
    assert narrate.abbreviate(123) == "123"
    assert narrate.abbreviate(10**40 + 7) == "100000…000007 (41 digits)"
    assert narrate.abbreviate(-(10**20)) == "-100000…000000 (21 digits)"
    huge = 10**6000 - 1  # beyond Python's integer-to-text limit
    assert narrate.abbreviate(huge) == "999999…999999 (6000 digits)"
    assert narrate.digit_count(10**4000) == 4001 and narrate.digit_count(10**4000 - 1) == 4000
    assert narrate.fraction_abbreviated(Fraction(3, 10)) == "3/10 ≈ 0.3000"
    tiny = narrate.fraction_abbreviated(Fraction(1, 2**2000))
    assert tiny == "1/114813…029376 (603 digits) ≈ 8.710e-603"


# --- play --verification block ---------------------------------------------------------------------
def test_play_block_narrates_every_block_number():
    argv = ("play", "--preset", "far apart", "--rounds", "6", "--seed", "2", "--verification", "block")
    code, out, err = _run(*argv, "--color", "never")
    assert code == 0, err
    data = json.loads(_run(*argv, "--json")[1])
    assert data["scenario"]["verification"] == "block"
    events = [e for r in data["rounds"] for e in r["events"]]
    assert {"block_check", "block_decision", "correction"} <= {e["kind"] for e in events}
    assert "check" not in {e["kind"] for e in events}  # no tokenwise check in a block round
    for e in events:
        if e["kind"] == "block_check":
            i = e["position"] + 1  # w_k and h_k are named by the position k they are computed at (from 1)
            h = Fraction(e["stop_probability"]["exact"])
            assert (f"w_{i} = min(1, w_{i - 1} · p/q)" if i > 1 else "w_1 = min(1, p/q)") in out
            assert f"= {narrate.fraction_abbreviated(Fraction(e['weight']['exact']))}." in out
            assert f"draw {e['draw']} of 0..{e['draw_range'] - 1}" in out
            assert f"draw {e['draw']} {'<' if e['hit'] else '≥'} {h.numerator} (h_{i}'s numerator)" in out
        if e["kind"] == "block_decision":
            assert f"block decision: keep {e['accepted_drafts']} of {len(e['drafts'])}" in out
        if e["kind"] == "correction":
            assert "scaled residual" in out and ("w = 1: no draft was kept" in out if e["position"] == 0 else
                                                 f"w = w_{e['position']} = " in out)
    assert "**" not in out  # the Playground's markdown bold is not printed


def test_play_block_commits_the_kept_drafts_in_the_marked_text():
    code, out, _ = _run("play", "--preset", "p = q", "--rounds", "1", "--verification", "block", "--color", "never")
    data = json.loads(_run("play", "--preset", "p = q", "--rounds", "1", "--verification", "block", "--json")[1])
    tokens = data["rounds"][0]["tokens"]
    assert code == 0 and data["rounds"][0]["accepted_drafts"] == len(tokens) - 1  # p = q keeps every draft
    vocab = data["scenario"]["vocab"]
    expected = " ".join(vocab[t] for t in tokens[:-1]) + " {" + vocab[tokens[-1]] + " }"
    assert out.splitlines()[-2].rstrip() == expected


def test_play_tokenwise_stays_the_default_and_verification_is_validated():
    data = json.loads(_run("play", "--json")[1])
    assert "verification" not in data["scenario"]
    assert cli_args.read_verification("tokenwise") == "token" and cli_args.read_verification(" Block ") == "block"
    code, _, err = _run("play", "--verification", "joint")
    assert code == 2 and "argument --verification: 'joint'" in err and "block" in err


# --- issue 19: the same words everywhere, bounds that say their range ----------------------------------
@pytest.mark.parametrize("word", ["block", "Block", " BLOCK ", "tokenwise", "Token"])
def test_play_and_generate_read_verification_alike(word):
    play = cli.parse(["play", "--verification", word]).verification
    generate = cli.parse(["generate", "x", "--verification", word]).verification
    assert play == generate == ("block" if "lock" in word.lower() else "token")


def test_verification_refusals_are_the_registry_s_words():
    from specviz.core.verification import VerificationError, check_verification

    for word in ("joint", "greedy-draft", "multi:9"):
        with pytest.raises(VerificationError) as refused:
            check_verification(word)
        code, _, err = _run("play", "--verification", word)
        assert code == 2 and str(refused.value) in err
        code, _, err = _run("generate", "x", "--verification", word)  # real models run every playable rule
        assert code == 2 and str(refused.value) in err


def test_seed_range_is_the_playground_s():
    from specviz.playground.form import SEED_MAX

    assert cli_args.seed_range() == (0, SEED_MAX)
    assert cli.parse(["play", "--seed", str(SEED_MAX)]).seed == SEED_MAX
    assert cli.parse(["generate", "x", "--seed", "0"]).seed == 0


def test_bounds_accept_their_ends():
    assert cli.parse(["generate", "x", "--top-n", "1000"]).top_n == 1000
    assert cli.parse(["generate", "x", "--draft", "lookup:8"]).draft.fields == {"ngram": 8}


def test_new_refusals_never_import_torch():
    code = ("import sys; from specviz.cli import main; "
            "codes = [main(a) for a in (['play', '--seed', '-5'], ['generate', 'x', '--top-n', '5000'], "
            "['generate', 'x', '--draft', 'lookup:99999999999999'], ['generate', 'x', '--verification', 'nope'])]; "
            "assert codes == [2, 2, 2, 2], codes; assert 'torch' not in sys.modules")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
