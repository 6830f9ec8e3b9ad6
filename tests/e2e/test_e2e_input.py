"""Issue 34's page items in Chromium at 1280x800: a lecturer typing a whole column of the weights editor keeps
every cell, and every page draws a vocabulary label with markup as the text it is (each photographed)."""

from __future__ import annotations

import re
import urllib.parse

import e2e_support as sup
import pytest

from specviz.playground import presets, share
from specviz.scenario import Table

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


# --- labels with markup: drawn as written on every page ----------------------------------------------------
MARKUP = ("the", "<img src=x onerror=window.__specvizPwned=1>", "sat",
          "</svg><script>window.__specvizPwned=2</script>", "<b>x</b>", ".")
INJECTED = """() => ({
  ran: window.__specvizPwned || 0,
  img: document.querySelectorAll('img[src="x"]').length,
  script: [...document.querySelectorAll('script')].filter(s => s.textContent.includes('__specvizPwned=2')).length,
  bold: [...document.querySelectorAll('.main-svg tspan, .main-svg text')].filter(t =>
          t.textContent === 'x' && /bold|700/.test(t.getAttribute('style') || '')).length,
  literal: [...document.querySelectorAll('.main-svg text')].some(t => ['<b>x</b>', '<img src=x', '</svg><script>']
          .some(label => t.textContent.includes(label))),
  blank: [...document.querySelectorAll('[data-testid="stPlotlyChart"]')].filter(c =>
          !c.querySelector('.main-svg .point, .main-svg .bars path, .main-svg .scatterlayer path')).length,
  charts: document.querySelectorAll('[data-testid="stPlotlyChart"]').length,
})"""


def assert_literal(page, recorder, where: str, charts_expected: bool = True) -> dict:
    """No markup of a label ran or was drawn as markup; charts with labels show them as text, none is blank."""
    clean(page, recorder, where)
    found = page.evaluate(INJECTED)
    assert found["ran"] == 0 and found["img"] == 0 and found["script"] == 0, (where, found)
    assert found["bold"] == 0, f"{where}: <b>x</b> was drawn bold: {found}"
    assert found["blank"] == 0, f"{where}: a chart drew nothing: {found}"
    if charts_expected:
        assert found["charts"] and found["literal"], f"{where}: no markup label is drawn as written: {found}"
    return found


@pytest.mark.parametrize("tab, shot", [("Why exactly p", "proof"), ("Many rounds", "many-rounds"),
                                       ("Compare", "compare"), ("weights", "weights"), ("Share", None)])
def test_a_link_with_markup_labels_reads_literally_in_every_playground_tab(tab, shot, app_url, app_page, page,
                                                                           recorder):
    app_page("playground")
    scenario = presets.default_scenario().with_changes(vocab=MARKUP)
    sup.open_page(page, playground_link(app_url, scenario, 3))
    open_tab(page, tab)
    if tab == "Many rounds":
        before = sup.runs(page)
        page.get_by_role("button", name=re.compile("Run")).first.click()
        sup.wait_for_rerun(page, before)
        sup.wait_for_charts(page)
    charts = tab in ("Why exactly p", "Many rounds")  # Compare's charts count rounds and seeds, not tokens
    assert_literal(page, recorder, f"Playground, {tab}", charts_expected=charts)
    if tab == "Why exactly p":
        assert "<b>x</b>" in sup.main_text(page), f"{tab}: the label is not shown as written"
    if tab == "weights":  # the editor draws on a canvas: its accessible table holds the cells as shown
        page.wait_for_function(f"() => ({EDITOR_CELLS})().length === 6")
        rows = page.evaluate(EDITOR_CELLS)
        assert [row[0] for row in rows][1::3] == [MARKUP[1], "<b>x</b>"], rows
    if shot:
        sup.screenshot(page, f"markup-labels-{shot}")


@pytest.mark.parametrize("stem", ["theory", "exactness_lab", "home", "edge_cases", "real_models"])
def test_a_link_with_markup_labels_reads_literally_on_every_other_page(stem, app_url, app_page, page, recorder):
    target = app_page(stem)
    scenario = presets.default_scenario().with_changes(vocab=MARKUP)
    sup.open_page(page, playground_link(app_url, scenario, 3))  # the Playground's scenario: what theory shows
    before = sup.runs(page)  # in the same session: theory and the lab analyse the Playground's scenario
    page.locator('[data-testid="stSidebarNav"] a').filter(has_text=target.title).first.click()
    sup.wait_for_rerun(page, before, timeout=120_000)  # Real models' first run loads the bundled model
    sup.wait_for_charts(page, timeout=120_000)
    found = assert_literal(page, recorder, stem, charts_expected=stem in ("theory", "exactness_lab"))
    if stem in ("theory", "exactness_lab"):
        assert found["charts"] >= 1
        sup.screenshot(page, f"markup-labels-{stem.replace('_', '-')}")


def test_a_lab_link_with_markup_labels_reads_literally_in_the_rules_view(app_url, app_page, page, recorder):
    target = app_page("exactness_lab")
    scenario = presets.default_scenario().with_changes(vocab=MARKUP)
    query = urllib.parse.urlencode(share.scenario_to_query(scenario, 0) | {"view": "rules"})
    sup.open_page(page, f"{target.url(app_url)}?{query}", timeout=120_000)
    assert_literal(page, recorder, "exactness lab, rules view", charts_expected=True)
    sup.screenshot(page, "markup-labels-lab-rules")


# --- numbers never cut ------------------------------------------------------------------------------------
TITLE_FITS = """() => [...document.querySelectorAll('[data-testid="stPlotlyChart"]')].map(c => {
  const box = c.getBoundingClientRect(), title = c.querySelector('.gtitle');
  return title ? {text: title.textContent, right: title.getBoundingClientRect().right, edge: box.right} : null;
}).filter(Boolean)"""


@pytest.mark.parametrize("presenter", [False, True], ids=["page", "presenter"])
def test_why_exactly_p_titles_its_fraction_whole(presenter, app_url, app_page, page, recorder):
    """p = 7,11,13,17,19,23 against q = 29,...,47: α = 3143/3420, once cut to '…= 314' at the chart's edge."""
    app_page("playground")
    scenario = presets.default_scenario().with_changes(target=Table((7, 11, 13, 17, 19, 23)),
                                                       draft=Table((29, 31, 37, 41, 43, 47)))
    sup.open_page(page, playground_link(app_url, scenario, **({"presenter": "1"} if presenter else {})))
    open_tab(page, "Why exactly p")
    titles = page.evaluate(TITLE_FITS)
    assert titles and "3143/3420" in titles[0]["text"], titles
    assert all(t["right"] <= t["edge"] for t in titles), titles  # no title runs past its chart
    clean(page, recorder, "why exactly p")
    sup.screenshot(page, "playground-proof-long-alpha" + ("-presenter" if presenter else ""))


NO_OVERFLOW = """() => [...document.querySelectorAll('[data-testid="stMain"] [data-testid="stDataFrame"] '
  + '.dvn-scroller')].map(s => [s.scrollWidth, s.clientWidth])"""


def test_the_fp32_marks_fit_their_columns(app_url, app_page, page, recorder):
    app_page("playground")
    scenario = presets.default_scenario().with_changes(target=Table(("1e-40", "1e-46", 3, 1, 1, 1)),
                                                       draft=Table((1, "2e-40", "1e-46", 1, 1, 1)), fp32=True)
    sup.open_page(page, playground_link(app_url, scenario))
    open_tab(page, "weights")
    page.wait_for_function(f"() => ({NORMALIZED_P})().length === 6")
    cells = page.evaluate(NORMALIZED_P)
    assert cells[0].startswith("≈ 1.") and cells[0].endswith("(subnormal)") and cells[1] == "0 (flushed)", cells
    widths = page.evaluate(NO_OVERFLOW)
    assert len(widths) == 2 and all(scroll <= client + 1 for scroll, client in widths), widths  # nothing clipped
    clean(page, recorder, "fp32 weights")
    sup.screenshot(page, "playground-weights-fp32")
