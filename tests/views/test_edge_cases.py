"""The edge-case gallery page: every card renders with its facts checked."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from specviz import gallery

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "edge_cases.py")


def test_every_card_renders_and_agrees():
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert not at.exception
    titles = [s.value for s in at.subheader]
    assert sorted(titles) == sorted(c.title for c in gallery.CARDS)
    for table in at.dataframe:
        assert set(table.value[""]) == {"✓"}
    assert len([b for b in at.button if b.key and b.key.startswith("open_")]) == len(gallery.CARDS)
