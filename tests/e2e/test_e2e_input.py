"""Issue 34's page items in Chromium at 1280x800: a lecturer typing a whole column of the weights editor keeps
every cell, and every page draws a vocabulary label with markup as the text it is (each photographed)."""

from __future__ import annotations

import re
import urllib.parse

import e2e_support as sup
import pytest

from specviz.playground import presets, share

pytestmark = pytest.mark.e2e

ROW_PX = 35  # the data editor's row height (its header row too)
TOKEN_COLUMN_PX = 72  # the editor's token column (weights.fixed_editor sets it)
EDITOR_CELLS = """() => [...document.querySelector('[data-testid="stMain"] [data-testid="stDataFrame"]')
  .querySelectorAll('tr')].slice(1).map(r => [...r.querySelectorAll('td,th')].map(c => c.innerText))"""

NORMALIZED_P = """() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stDataFrame"]')[1]
  .querySelectorAll('tr')].slice(1).map(r => r.querySelectorAll('td,th')[1].innerText)"""


def playground_link(base: str, scenario, step: int = 0, **extra: str) -> str:
    return f"{base}/playground?{urllib.parse.urlencode(share.scenario_to_query(scenario, step) | extra)}"


def open_tab(page, name: str) -> None:
    before = sup.runs(page)
    page.get_by_role("tab", name=re.compile(name)).click()
    sup.wait_for_rerun(page, before)
    sup.wait_for_app(page)


def clean(page, recorder, what: str) -> None:
    boxes = sup.exceptions(page)
    assert not boxes, f"{what}: exception box:\n" + "\n---\n".join(boxes)
    assert not recorder.page_errors, f"{what}: uncaught browser errors: {recorder.page_errors}"


def test_typing_a_whole_p_column_keeps_every_cell(app_url, app_page, page, recorder):
    """Click the first p cell, then type a value and Enter per row at a quick typist's pace: every cell is kept.

    Before the fix only the first cell changed (the editor was redrawn under a new key after each edit) and a
    quick double-click edit lost every other row; the page's link, the editor and the normalized column must
    all hold the six values typed.
    """
    app_page("playground")
    sup.open_page(page, playground_link(app_url, presets.default_scenario()))
    open_tab(page, "weights")
    editor = page.locator('[data-testid="stMain"] [data-testid="stDataFrame"]').first
    box = editor.bounding_box()
    typed = ["7", "0", "1/3", "0.25", "12", "3"]
    page.mouse.click(box["x"] + TOKEN_COLUMN_PX + 30, box["y"] + ROW_PX * 1.5)  # the first p cell
    for text in typed:  # about 0.3 s a cell: a quick typist; each edit reruns the page meanwhile
        page.keyboard.type(text, delay=60)
        page.wait_for_timeout(120)
        page.keyboard.press("Enter")
        page.wait_for_timeout(120)
    page.wait_for_function(f"() => new URLSearchParams(location.search).get('p') === {','.join(typed)!r}",
                           timeout=20_000)
    sup.wait_for_app(page)
    rows = page.evaluate(EDITOR_CELLS)
    assert [row[1] for row in rows] == typed, rows
    # the normalized column follows: 7 over 7 + 0 + 1/3 + 1/4 + 12 + 3 = 271/12, ..., 3 over it
    page.wait_for_function(f"() => ({NORMALIZED_P})()[5] === '36/271 ≈ 0.133'", timeout=20_000)
    assert page.evaluate(NORMALIZED_P)[:2] == ["84/271 ≈ 0.310", "0"]
    clean(page, recorder, "typing a column")
    sup.screenshot(page, "playground-weights-typed")
