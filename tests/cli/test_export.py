"""`specviz export`: a Playground link or a downloaded file in, a round's figures and deck out.

Every refusal is one line with exit status 2, naming the flag or file, the value and what is allowed, and
comes before anything is written; a Ctrl-C or a failed write leaves only whole files and says so in one line.
"""

from __future__ import annotations

import io
import os
import urllib.parse
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specviz import cli
from specviz.cli import export as cli_export
from specviz.player import deck
from specviz.player import round_export as export
from specviz.playground import presets, share
from specviz.plots import whole_files
from specviz.scenario.reading import MAX_JSON_CHARS

FAR = presets.apply_preset(presets.default_scenario(), "far apart").with_changes(seed=2)
SMALL = "vocab=a,b&p=1,2&q=2,1&depth=2"
STOPS = "vocab=a,b&p=3,1&q=1,1&depth=1&stop=1&seed=0"  # the request stops in its third round
NO_ROUND = "vocab=a,b,c,d,e,f&p=1,1,1,0,0,0&q=1,1,1,1,1,1&verification=typical-sample:0.5,1"


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    return cli.main(["export", *argv], out, err), out.getvalue(), err.getvalue()


def link(scenario, step, **extra):
    query = share.scenario_to_query(scenario, step) | extra
    return f"http://localhost:8501/playground?{urllib.parse.urlencode(query)}"


def refused(code: int, err: str, *words: str) -> None:
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("specviz export"), err
    assert "Traceback" not in err
    for word in words:
        assert word in err, err


@pytest.fixture
def no_kaleido(monkeypatch):
    monkeypatch.setattr(export, "kaleido_problem", lambda: "kaleido is not installed. " + export.INSTALL)


@pytest.fixture
def no_browser(monkeypatch):
    monkeypatch.setattr(deck, "browser_problem", lambda: "SVG is drawn by the player in a browser: no browser here.")


@pytest.fixture
def fake_drawings(monkeypatch):
    """The player's drawings stood in for (what is tested is the writing, not Chromium's drawing)."""
    monkeypatch.setattr(deck, "browser_problem", lambda: None)
    monkeypatch.setattr(deck, "drawings", lambda page, steps: ["<?xml version='1.0'?>\n<svg>step</svg>"] * steps)


def test_a_link_exports_the_round_that_holds_its_step(tmp_path):
    step = export.round_steps(FAR, 1).start + 1
    code, out, err = run(link(FAR, step, presenter="1", lecture="0" * 16, entry="0"), "--format", "html",
                         "--out", str(tmp_path))
    assert code == 0, err
    assert "exporting round 2" in out and (tmp_path / "round-2.html").is_file()  # rounds count from 1
    assert "unknown key" not in err  # presenter and a lecture's keys are the page's, not refused


def test_the_query_alone_and_a_downloaded_file_work_too(tmp_path):
    query = urllib.parse.urlencode(share.scenario_to_query(FAR, 0))
    assert run(query, "--format", "html", "--out", str(tmp_path / "q"))[0] == 0
    saved = tmp_path / "scenario.json"
    saved.write_text(share.export_json(FAR, 3), encoding="utf-8")
    code, out, err = run(str(saved), "--format", "html", "--round", "3", "--out", str(tmp_path / "f"))
    assert code == 0, err
    assert "exporting round 3" in out and (tmp_path / "f" / "round-3.html").is_file()


@pytest.mark.parametrize("argv, words", [
    (("nothing-here",), ("no such file, and not a Playground link",)),
    (("vocab=a,b&p=1&q=2,1",), ("The link's p",)),
    ((SMALL, "--format", "gif"), ("--format", "'gif' is not a format", "html, svg or png")),
    ((SMALL, "--format", ""), ("--format", "names no format", "html, svg or png")),
    ((SMALL, "--format", " , "), ("--format", "names no format")),
    ((SMALL, "--round", "500", "--format", "html"), ("--round 500", "the link's scenario plays rounds 1 to")),
    ((SMALL, "--round", "0"), ("--round", "'0'", "≥ 1", "round 1 is the first")),
    ((NO_ROUND,), ("plays no round", "verification 'typical-sample:0.5,1' keeps no token", "Lower DELTA or EPS")),
    ((NO_ROUND, "--round", "1"), ("--round 1", "plays no round", "typical-sample:0.5,1")),
])
def test_refusals_are_one_line_with_status_2(argv, words, tmp_path):
    code, out, err = run(*argv, "--out", str(tmp_path / "x"))
    refused(code, err, *words)
    assert not (tmp_path / "x").exists()  # refused before anything was written


def test_without_kaleido_the_deck_is_written_and_the_install_line_said(monkeypatch, tmp_path):
    monkeypatch.setattr(export, "kaleido_problem", lambda: "kaleido is not installed. " + export.INSTALL)
    code, out, err = run("vocab=a,b&p=1,2&q=2,1&depth=2", "--out", str(tmp_path))
    assert code == 0 and "pip install -r requirements-export.txt" in err
    assert (tmp_path / "round-1.html").is_file() and not list(tmp_path.glob("*.png"))
    code, _, err = run("vocab=a,b&p=1,2&q=2,1&depth=2", "--format", "png", "--out", str(tmp_path / "s"))
    assert code == 2 and "kaleido is not installed" in err


def test_svg_is_the_players_own_drawing_and_needs_no_kaleido(monkeypatch, tmp_path):
    from specviz.player import deck

    if deck.browser_problem():
        pytest.skip(deck.browser_problem())
    monkeypatch.setattr(export, "kaleido_problem", lambda: "kaleido is not installed. " + export.INSTALL)
    code, out, err = run("vocab=a,b&p=1,2&q=2,1&depth=2", "--format", "svg", "--out", str(tmp_path))
    assert code == 0, err
    drawings = sorted(tmp_path.glob("step-*.svg"))
    assert drawings and all(p.read_text().startswith("<?xml") and "<svg" in p.read_text() for p in drawings)


@pytest.mark.parametrize("make, words", [
    (lambda tmp: (tmp / "a-file").write_text("x") and tmp / "a-file", ("--out", "is a file, not a folder")),
    (lambda tmp: (tmp / "a-file").write_text("x") and tmp / "a-file" / "below",
     ("--out", "is a file, so no folder can be made below it")),
    (lambda tmp: Path("/proc/specviz-export-test"), ("--out", "cannot write there")),
])
def test_an_out_that_cannot_be_a_folder_is_refused_naming_it(make, words, tmp_path):
    if not Path("/proc").is_dir() and "proc" in str(make(tmp_path)):
        pytest.skip("no /proc here")
    out = make(tmp_path)
    code, _, err = run(SMALL, "--format", "html", "--out", str(out))
    refused(code, err, *words, str(out.name))
    assert not list(tmp_path.glob("*.html")) and not list(tmp_path.rglob("round-*"))


def test_an_empty_out_is_refused_not_read_as_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(SMALL, "--format", "html", "--out", "")
    refused(code, err, "--out", "names no folder")
    assert not list(tmp_path.iterdir())


def test_a_folder_named_like_a_link_is_said_to_be_a_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a=dir").mkdir()
    code, _, err = run("a=dir", "--out", str(tmp_path / "x"))
    refused(code, err, "'a=dir' is a folder", "Playground link")


def test_a_huge_file_is_measured_and_refused_before_a_byte_is_read(tmp_path, monkeypatch):
    huge = tmp_path / "huge.json"
    with open(huge, "wb") as file:
        file.truncate(6 * 10**9)  # a sparse 6 GB file: reading it would take gigabytes of memory
    monkeypatch.setattr(cli_export, "open", lambda *a, **k: pytest.fail("the file was opened"), raising=False)
    code, _, err = run(str(huge), "--out", str(tmp_path / "x"))
    refused(code, err, "huge.json", "6,000,000,000 bytes", f"at most {MAX_JSON_CHARS:,}")


def test_a_file_at_the_limit_is_read(tmp_path):
    saved = tmp_path / "scenario.json"
    text = share.export_json(FAR, 0)
    saved.write_text(text + " " * (MAX_JSON_CHARS - len(text.encode())), encoding="utf-8")
    assert saved.stat().st_size == MAX_JSON_CHARS
    code, _, err = run(str(saved), "--format", "html", "--out", str(tmp_path / "x"))
    assert code == 0, err


def test_the_plan_says_what_is_written_and_without_kaleido_no_png_is_promised(no_kaleido, no_browser, tmp_path):
    code, out, err = run(SMALL, "--out", str(tmp_path))
    assert code == 0, err
    assert "no PNG charts: kaleido is not installed" in err and "pip install -r requirements-export.txt" in err
    assert "no SVG drawings: SVG is drawn by the player in a browser" in err and err.count("\n") == 2
    plan = out.splitlines()[0]
    assert "the HTML deck round-1.html" in plan and "SVG" not in plan and "PNG" not in plan
    assert [p.name for p in tmp_path.iterdir()] == ["round-1.html"]
    code, _, err = run(SMALL, "--format", "png", "--out", str(tmp_path / "s"))
    refused(code, err, "kaleido is not installed")
    code, _, err = run(SMALL, "--format", "svg", "--out", str(tmp_path / "s"))
    refused(code, err, "no browser here", "--format html")


def test_the_plan_names_the_svg_drawings_when_a_browser_can_draw_them(no_kaleido, fake_drawings, tmp_path):
    code, out, err = run(SMALL, "--out", str(tmp_path))
    assert code == 0, err
    assert "each step's drawing (chart and draw) as SVG" in out.splitlines()[0] and "PNG" not in out
    steps = export.round_steps(share.scenario_from_query(dict(urllib.parse.parse_qsl(SMALL)))[0], 0)
    assert len(list(tmp_path.glob("step-*.svg"))) == len(steps) and (tmp_path / "round-1.html").is_file()


def test_files_of_the_round_already_there_are_kept_unless_forced(tmp_path):
    assert run(SMALL, "--format", "html", "--out", str(tmp_path))[0] == 0
    deck = tmp_path / "round-1.html"
    deck.write_text("my notes", encoding="utf-8")
    other = tmp_path / "round-2.html"
    other.write_text("another round", encoding="utf-8")
    code, _, err = run(SMALL, "--format", "html", "--out", str(tmp_path))
    refused(code, err, "already holds", "round-1.html", "--force")
    assert deck.read_text(encoding="utf-8") == "my notes"  # nothing replaced without a word
    code, out, err = run(SMALL, "--format", "html", "--out", str(tmp_path), "--force")
    assert code == 0 and "note: replacing" in err and "(--force)" in err
    assert deck.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert other.read_text(encoding="utf-8") == "another round"  # another round's files are not this export's


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([SMALL, STOPS]), st.integers(-3, 12))
def test_the_round_flag_takes_the_rounds_that_exist_counted_from_1(source, asked):
    from specviz.playground.state import timeline_for

    try:
        args = cli.parse(["export", source, "--round", str(asked)])
    except cli.UsageError as error:
        assert asked < 1 and "round 1 is the first" in str(error)
        return
    timeline = timeline_for(share.scenario_from_query(dict(urllib.parse.parse_qsl(source)))[0])
    exists = timeline.ensure_rounds(asked) >= asked
    try:
        plan = cli_export.plan_export(args)
    except cli.UsageError as error:
        assert not exists and f"--round {asked}" in str(error) and "plays rounds 1 to 3" in str(error)
        assert "stops at a stop token" in str(error)
    else:
        assert exists and plan.round_id == asked - 1


@given(st.lists(st.sampled_from(["html", "svg", "png", "HTML", " svg ", "", "gif", "pdf", "html;svg"]),
                min_size=1, max_size=4))
def test_a_format_list_is_read_when_every_named_format_is_known(parts):
    text = ",".join(parts)
    named = [p.strip().lower() for p in parts if p.strip()]
    try:
        formats = cli_export.read_formats(text)
    except Exception as error:  # argparse.ArgumentTypeError: argparse adds the flag
        assert not named or any(n not in export.FORMATS for n in named), error
        assert "html, svg or png" in str(error)
    else:
        assert named and set(formats) == set(named) and len(formats) == len(set(named))


# --- Ctrl-C and failed writes: whole files only ----------------------------------------------------------
def _interrupt_on(monkeypatch, call: int, exception: BaseException) -> None:
    """os.replace raises on its call-th call: the file then exists only under its temporary name."""
    calls = {"n": 0}
    real = os.replace

    def replace(source, target):
        calls["n"] += 1
        if calls["n"] == call:
            raise exception
        return real(source, target)

    monkeypatch.setattr(whole_files.os, "replace", replace)


def _only_whole_files(folder: Path) -> list[Path]:
    listed = sorted(folder.iterdir())
    assert not [p for p in listed if p.name.endswith(whole_files.PART)], listed  # no temporary file left
    for path in listed:
        text = path.read_text(encoding="utf-8")
        assert text.rstrip().endswith("</svg>") or text.rstrip().endswith("</html>"), path
    return listed


def test_ctrl_c_while_writing_says_one_line_and_leaves_only_whole_files(monkeypatch, fake_drawings, tmp_path):
    _interrupt_on(monkeypatch, 3, KeyboardInterrupt())
    code, out, err = run(link(FAR, 0), "--format", "html,svg", "--out", str(tmp_path / "x"))
    assert code == 130 and err.count("\n") == 1 and "interrupted (Ctrl-C)" in err and "Traceback" not in err
    assert "2 whole file(s)" in err
    assert len(_only_whole_files(tmp_path / "x")) == 2


def test_ctrl_c_before_any_file_removes_the_folder_it_made(monkeypatch, tmp_path):
    _interrupt_on(monkeypatch, 1, KeyboardInterrupt())
    code, _, err = run(link(FAR, 0), "--format", "html", "--out", str(tmp_path / "x"))
    assert code == 130 and "nothing was written" in err and not (tmp_path / "x").exists()


def test_a_full_disk_says_one_line_with_status_1(monkeypatch, fake_drawings, tmp_path):
    _interrupt_on(monkeypatch, 2, OSError(28, "No space left on device"))
    code, _, err = run(link(FAR, 0), "--format", "svg,html", "--out", str(tmp_path / "x"))
    assert code == 1 and err.count("\n") == 1 and "No space left on device" in err and "1 whole file(s)" in err
    _only_whole_files(tmp_path / "x")


def test_write_whole_replaces_a_file_only_when_the_new_one_is_complete(monkeypatch, tmp_path):
    path = tmp_path / "step-01-draw.svg"
    path.write_text("<svg>old</svg>", encoding="utf-8")

    class HalfThenCtrlC:
        def __init__(self, name, mode):
            self.file = open(name, mode)  # noqa: SIM115 - closed in __exit__

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.file.close()

        def write(self, data):
            self.file.write(data[: len(data) // 2])
            raise KeyboardInterrupt

    monkeypatch.setattr(whole_files, "open", HalfThenCtrlC, raising=False)
    with pytest.raises(KeyboardInterrupt):
        whole_files.write_whole(path, "<svg>" + "x" * 1000 + "</svg>")
    assert path.read_text(encoding="utf-8") == "<svg>old</svg>"
    assert [p.name for p in tmp_path.iterdir()] == [path.name]
    monkeypatch.undo()
    whole_files.write_whole(path, "<svg>new</svg>")
    assert path.read_text(encoding="utf-8") == "<svg>new</svg>" and len(list(tmp_path.iterdir())) == 1
