"""`specviz play` answers a run it cannot finish in a few minutes before it starts, and reads numbers as links do."""

from __future__ import annotations

import io
from unittest import mock

import pytest

from specviz.cli import args as cli_args
from specviz.cli import main, parse
from specviz.cli.play import MAX_CHARS, MAX_SECONDS, projection
from specviz.core.errors import SpecvizError
from specviz.playground import share
from specviz.playground.explain import PlaygroundError


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("argv, words", [
    (("--verification", "multi:8", "--depth", "5", "--rounds", "1000"),
     ["--rounds 1000 of multi:8 at --depth 5 draft up to 37,448 nodes a round", "min and", "GB of narration",
      "use --rounds", "--allow-long"]),
    (("--verification", "multi-distinct:8", "--depth", "4", "--rounds", "1000", "--json"),
     ["4,680 nodes a round", "GB of JSON"]),
    (("--verification", "multi:4", "--depth", "5", "--rounds", "1000", "--json"), ["1,364 nodes a round"]),
])
def test_a_run_projected_past_a_few_minutes_is_refused_before_it_starts(argv, words):
    with mock.patch("specviz.cli.play.rounds_of", side_effect=AssertionError("played")):
        code, out, err = _run("play", *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("specviz play: error: ") and "Traceback" not in err
    for word in words:
        assert word in err


def test_the_suggested_rounds_fit_and_one_more_does_not():
    args = parse(["play", "--verification", "multi:8", "--depth", "5", "--rounds", "1000"])
    fits = projection(args).rounds_that_fit()
    assert not projection(parse(["play", "--verification", "multi:8", "--depth", "5", "--rounds", str(fits)])).too_long
    more = projection(parse(["play", "--verification", "multi:8", "--depth", "5", "--rounds", str(fits + 1)]))
    assert more.seconds > MAX_SECONDS or more.chars > MAX_CHARS


def test_allow_long_runs_it_after_saying_what_it_costs():
    with mock.patch("specviz.cli.play.MAX_SECONDS", 1e-9):
        code, out, err = _run("play", "--verification", "multi:2", "--depth", "2", "--rounds", "2", "--allow-long")
    assert code == 0 and out
    assert err.startswith("specviz play: note: --rounds 2 of multi:2 at --depth 2") and "running it" in err


def test_ordinary_runs_say_nothing_more():
    code, _, err = _run("play", "--verification", "multi:4", "--depth", "3", "--rounds", "50")
    assert code == 0 and err == ""
    chain = projection(parse(["play", "--depth", "5", "--rounds", "1000", "--json"]))
    assert chain.nodes_per_round == 5 and not chain.too_long


# --- the same digits as links and files ---------------------------------------------------------------------
@pytest.mark.parametrize("flag, text", [("--rounds", "３"), ("--rounds", "١٢"), ("--rounds", "1_0"), ("--depth", "２"),
                                        ("--seed", "٣"), ("--rounds", "5" * 5000)])
def test_digits_other_than_ascii_are_refused_as_links_refuse_them(flag, text):
    code, out, err = _run("play", flag, text)
    assert code == 2 and out == "" and err.count("\n") == 1 and f"argument {flag}:" in err
    with pytest.raises(PlaygroundError):  # the link reader refuses the same text
        share.scenario_from_query({"vocab": "a,b", "p": "1,1", "q": "1,1", {"--rounds": "seed", "--depth": "depth",
                                                                              "--seed": "seed"}[flag]: text})
    if not text.isascii():
        assert "only the ASCII digits 0-9 are read" in err
    elif "_" in text:
        assert "write the digits without '_'" in err
    assert len(err) < 300


@pytest.mark.parametrize("text", ["０.５", "1_0", "nan", "-inf", "1e-400", "1e400", "½"])
def test_real_flags_read_the_links_grammar(text):
    code, out, err = _run("generate", "x", "--temperature", text)
    assert code == 2 and out == "" and err.count("\n") == 1 and "argument --temperature:" in err


def test_real_flags_take_what_links_take():
    assert parse(["generate", "x", "--top-p", "1/2", "--temperature", " 0.7 "]).top_p == 0.5
    assert parse(["play", "--rounds", " +7 "]).rounds == 7


def test_usage_errors_are_specviz_errors():
    assert issubclass(cli_args.UsageError, SpecvizError)
    with pytest.raises(SpecvizError):
        parse(["play", "--rounds", "０"])


def test_a_rule_name_of_thousands_of_digits_is_refused_in_one_short_line():
    code, out, err = _run("play", "--verification", "multi:" + "9" * 5000)
    assert code == 2 and out == "" and err.count("\n") == 1 and len(err) < 480  # the registry's forms, listed
    assert "a rule name has at most 64 characters" in err and "read_verification" not in err
