"""Figures for slides, plotly's side (specviz.plots.png_export): a round's steps, the formats checked before any work,
the steps' kinds, and PNG through kaleido when it is installed (skipped cleanly without it). The deck and the SVGs
are the step player's (tests/player/test_deck.py)."""

from __future__ import annotations

import pytest

from specviz.playground import presets, state
from specviz.plots import png_export

FAR = presets.apply_preset(presets.default_scenario(), "far apart").with_changes(seed=1)


def test_a_rounds_steps_are_the_timelines():
    timeline = state.timeline_for(FAR)
    timeline.ensure_rounds(3)
    for round_id in range(3):
        steps = png_export.round_steps(FAR, round_id)
        assert steps.start == timeline.starts[round_id] and steps.stop == timeline.round_end(round_id) + 1
        assert all(png_export.round_of(FAR, s) == round_id for s in steps)
    with pytest.raises(png_export.ExportError, match="round 500 does not exist: the scenario plays rounds 0 to 199"):
        png_export.round_steps(FAR, 500)


def test_formats_are_checked_before_any_work(monkeypatch):
    with pytest.raises(png_export.ExportError, match="--format takes html, svg, png .* got 'gif'"):
        png_export.check_formats(("html", "gif"))
    with pytest.raises(png_export.ExportError, match="got nothing"):
        png_export.check_formats(())
    monkeypatch.setattr(png_export, "kaleido_problem", lambda: "kaleido is not installed. " + png_export.INSTALL)
    with pytest.raises(png_export.ExportError, match="pip install -r requirements-export.txt"):
        png_export.check_formats(("html", "png"))
    assert png_export.check_formats(("html", "html", "svg")) == ("html", "svg")  # no kaleido for the player's


def test_slugs_name_the_steps_kind():
    pages = png_export.pages(FAR, png_export.round_steps(FAR, 0))
    slugs = [png_export.slug(page) for _, page in pages]
    assert slugs[0] == "drafting" and "checking" in slugs and slugs[-1] == "round-result"


def test_png_through_kaleido(tmp_path):
    pytest.importorskip("kaleido", reason="kaleido is an optional extra (requirements-export.txt)")
    if png_export.kaleido_problem():
        pytest.skip(png_export.kaleido_problem())
    steps = png_export.round_steps(FAR, 0)
    figures = [(tmp_path / f"step-{step + 1:02d}", page.figure) for step, page in png_export.pages(FAR, steps)]
    written, _ = png_export.write_images(figures, ("png",))
    assert len(written) == len(steps) and all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in written)
