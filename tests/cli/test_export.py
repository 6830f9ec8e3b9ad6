"""`specviz export`: a Playground link or a downloaded file in, a round's figures and deck out; refusals in one line."""

from __future__ import annotations

import io
import urllib.parse

import pytest

from specviz import cli
from specviz.playground import presets, share
from specviz.plots import export

FAR = presets.apply_preset(presets.default_scenario(), "far apart").with_changes(seed=2)


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    return cli.main(["export", *argv], out, err), out.getvalue(), err.getvalue()


def link(scenario, step, **extra):
    query = share.scenario_to_query(scenario, step) | extra
    return f"http://localhost:8501/playground?{urllib.parse.urlencode(query)}"


def test_a_link_exports_the_round_that_holds_its_step(tmp_path):
    step = export.round_steps(FAR, 1).start + 1
    code, out, err = run(link(FAR, step, presenter="1", lecture="0" * 16, entry="0"), "--format", "html",
                         "--out", str(tmp_path))
    assert code == 0, err
    assert "exporting round 1" in out and (tmp_path / "round-2.html").is_file()  # file names count from 1
    assert "unknown key" not in err  # presenter and a lecture's keys are the page's, not refused


def test_the_query_alone_and_a_downloaded_file_work_too(tmp_path):
    query = urllib.parse.urlencode(share.scenario_to_query(FAR, 0))
    assert run(query, "--format", "html", "--out", str(tmp_path / "q"))[0] == 0
    saved = tmp_path / "scenario.json"
    saved.write_text(share.export_json(FAR, 3), encoding="utf-8")
    code, out, err = run(str(saved), "--format", "html", "--round", "2", "--out", str(tmp_path / "f"))
    assert code == 0, err
    assert (tmp_path / "f" / "round-3.html").is_file()


@pytest.mark.parametrize("argv, words", [
    (("nothing-here",), "no such file, and not a Playground link"),
    (("vocab=a,b&p=1&q=2,1",), "The link's p"),
    (("vocab=a,b&p=1,2&q=2,1", "--format", "gif"), "--format takes html, svg, png"),
    (("vocab=a,b&p=1,2&q=2,1", "--round", "500", "--format", "html"), "round 500 does not exist"),
])
def test_refusals_are_one_line_with_status_2(argv, words, tmp_path):
    code, out, err = run(*argv, "--out", str(tmp_path / "x"))
    assert code == 2 and words in err and err.count("\n") == 1
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
