"""Figures for slides (specviz.plots.export): a round's steps, the HTML deck without network, the draws as SVG files,
and SVG/PNG through kaleido when it is installed (skipped cleanly without it)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from specviz.playground import presets, state
from specviz.plots import export

FAR = presets.apply_preset(presets.default_scenario(), "far apart").with_changes(seed=1)


def test_a_rounds_steps_are_the_timelines():
    timeline = state.timeline_for(FAR)
    timeline.ensure_rounds(3)
    for round_id in range(3):
        steps = export.round_steps(FAR, round_id)
        assert steps.start == timeline.starts[round_id] and steps.stop == timeline.round_end(round_id) + 1
        assert all(export.round_of(FAR, s) == round_id for s in steps)
    with pytest.raises(export.ExportError, match="round 500 does not exist: the scenario plays rounds 0 to 199"):
        export.round_steps(FAR, 500)


def test_formats_are_checked_before_any_work(monkeypatch):
    with pytest.raises(export.ExportError, match="--format takes html, svg, png .* got 'gif'"):
        export.check_formats(("html", "gif"))
    with pytest.raises(export.ExportError, match="got nothing"):
        export.check_formats(())
    monkeypatch.setattr(export, "kaleido_problem", lambda: "kaleido is not installed. " + export.INSTALL)
    with pytest.raises(export.ExportError, match="pip install -r requirements-export.txt"):
        export.check_formats(("html", "png"))
    assert export.check_formats(("html", "html")) == ("html",)  # the deck needs no kaleido


def test_the_deck_is_one_self_contained_file_with_every_step(tmp_path):
    exported = export.write_round(FAR, 0, tmp_path, ("html",))
    steps = export.round_steps(FAR, 0)
    deck = (tmp_path / "round-1.html").read_text(encoding="utf-8")
    assert exported.steps == len(steps) and exported.images == 0
    assert deck.count("<section id='step-") == len(steps)
    for step in steps:
        assert f"Step {step + 1} · round 0" in deck
    assert "<script src" not in deck and "<link" not in deck  # plotly.js inlined: it opens with no network
    assert "Plotly.newPlot" in deck and len(deck) > 1_000_000
    assert re.search(r"const figures = \[\{", deck)
    draws = sorted(tmp_path.glob("step-*-draw.svg"))
    assert draws and all(ET.parse(p).getroot().tag.endswith("svg") for p in draws)
    assert {p.name for p in exported.files} == {"round-1.html", *(p.name for p in draws)}


def test_slugs_name_the_steps_kind():
    pages = export.pages(FAR, export.round_steps(FAR, 0))
    slugs = [export.slug(page) for _, page in pages]
    assert slugs[0] == "drafting" and "checking" in slugs and slugs[-1] == "round-result"


def test_images_through_kaleido(tmp_path):
    pytest.importorskip("kaleido", reason="kaleido is an optional extra (requirements-export.txt)")
    if export.kaleido_problem():
        pytest.skip(export.kaleido_problem())
    exported = export.write_round(FAR, 0, tmp_path, ("svg", "png"))
    steps = export.round_steps(FAR, 0)
    pngs = sorted(tmp_path.glob("step-*.png"))
    assert len(pngs) == len(steps) == exported.images // 2
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)
    charts = [p for p in tmp_path.glob("step-*.svg") if not p.name.endswith("-draw.svg")]
    assert len(charts) == len(steps) and all(ET.parse(p).getroot().tag.endswith("svg") for p in charts)
