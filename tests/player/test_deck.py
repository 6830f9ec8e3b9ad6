"""The exported deck is the step player: its module, HTML and CSS inlined with a round's frames, nothing fetched,
labels that are markup kept as data; each step's SVG drawn by the player itself (in Chromium, when there is one)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from specviz.player import browser_files, deck, round_export
from specviz.playground import presets

FAR = presets.apply_preset(presets.default_scenario(), "far apart").with_changes(seed=1)
MARKUP = FAR.with_changes(vocab=("the", "<img src=x onerror=alert(1)>", "sat", "</script><script>alert(2)</script>",
                                 "mat", "."))


def frames_of(page: str) -> dict:
    found = re.search(r"<script type='application/json' id='specviz-round'>(.*?)</script>", page, re.S)
    return json.loads(found[1])


def test_the_deck_is_one_file_holding_the_player_and_the_rounds_frames(tmp_path):
    exported = round_export.write_round(FAR, 0, tmp_path, ("html",))
    page = (tmp_path / "round-1.html").read_text(encoding="utf-8")
    steps = round_export.round_steps(FAR, 0)
    assert exported.steps == len(steps) and [p.name for p in exported.files] == ["round-1.html"]  # counts from 1
    assert browser_files.js() in page and browser_files.css() in page and browser_files.html() in page  # the player
    data = frames_of(page)
    assert data["offline"] and data["step"] == steps.start and len(data["round"]["frames"]) == len(steps)
    assert data["round"]["frames"][0]["caption"].startswith(f"Step {steps.start + 1} · round 1 ·")
    assert "<script src" not in page and "<link" not in page and "http://" not in page.replace(
        "http://www.w3.org/2000/svg", "")  # nothing fetched: it opens from disk with no network
    assert "plotly" not in page.lower() and len(page) < 400_000


def test_labels_that_are_markup_stay_data_in_the_deck():
    page = deck.deck_html(MARKUP, 0)
    data_text = re.search(r"id='specviz-round'>(.*?)</script>", page, re.S)[1]
    assert "<" not in data_text  # every '<' of the frames written as \\u003c: no label can end the script
    assert page.count("<script") == 2  # the frames' JSON and the module: no label made a script element
    assert "</script><script>alert(2)" not in page and "<img src=x" not in page
    labels = json.loads(data_text)["round"]["frames"][0]["chart"]["panels"][0]["labels"]
    assert "<img src=x onerror=alert(1)>" in labels and "</script><script>alert(2)</script>" in labels


def test_each_steps_svg_is_the_players_own_drawing(tmp_path):
    if deck.browser_problem():
        pytest.skip(deck.browser_problem())
    exported = round_export.write_round(FAR, 0, tmp_path, ("svg",))
    drawings = sorted(tmp_path.glob("step-*.svg"))
    assert len(drawings) == len(round_export.round_steps(FAR, 0)) == len(exported.files)
    for path in drawings:
        root = ET.parse(path).getroot()
        assert root.tag.endswith("svg") and float(root.get("width")) > 400
        text = path.read_text(encoding="utf-8")
        assert "class=" not in text and "fill=" in text  # styles written in: the file needs no stylesheet
    assert "Checking position 1: p vs q" in (tmp_path / "step-04-checking.svg").read_text(encoding="utf-8")
