"""Screenshots of the Real models page's results at 1280x800 in headless Chromium, for a person to look at.

    .venv/bin/python scripts/screenshot_real_models.py [--presets copy,list] [--model smollm2|gemma3-270m]
                                                       [--out assets]

Serves the app as the end-to-end tests do (tests/e2e/e2e_support.py: `streamlit run app.py` on a free port,
network cut off, Debian's Chromium), opens Real models, chooses the model (the model choice at the top names each
vocabulary), picks each preset, clicks Generate and waits for the races, then writes
assets/screenshot-real_models[-gemma]-<preset>-live.png (the races' progress, a few seconds in), ...-live-2.png
(the progress while the second race runs: which race, which run, each run's state), ...-race.png (the verdict,
the median race's legs side by side) and ...-measured.png (what the speculative run measured, scrolled to its
heading: the "Checks passed" card and its text), and a full-page capture in assets/_e2e_tmp/.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

import e2e_support as sup  # noqa: E402

PRESETS = {"copy": "Copy a text with prompt lookup", "list": "A list whose lines share beginnings (tree)"}
MODELS = {"smollm2": ("SmolLM2-135M-Instruct, vocabulary 49,152 (bundled)", ""),
          "gemma3-270m": ("Gemma 3 270M, vocabulary 262,144 (opt-in extra)", "-gemma")}


def choose_model(page, label: str) -> None:
    """Pick the target model in the page's model choice (a radio) and wait for its load (minutes for Gemma)."""
    main = page.locator('[data-testid="stMain"]')
    option = main.get_by_text(label, exact=True)
    if option.count() == 0:
        raise SystemExit(f"the page offers no model {label!r}")
    option.first.click()
    vocabulary = label.split("vocabulary ")[1].split(" ")[0].rstrip(",")
    # the caption under the presets names the loaded model's vocabulary once the load is done (minutes for Gemma)
    page.get_by_text(f"vocabulary {vocabulary}, context", exact=False).first.wait_for(timeout=900_000)
    page.wait_for_timeout(1000)


def pick_preset(page, name: str) -> None:
    """Choose a preset in the page's Preset box (a Streamlit selectbox) and wait for the rerun."""
    main = page.locator('[data-testid="stMain"]')
    box = main.locator('[data-testid="stSelectbox"]').filter(has_text="Preset").first
    before = sup.runs(page)
    box.click()
    page.get_by_role("option", name=name).click()
    sup.wait_for_rerun(page, before, timeout=60_000)


def shoot(page, url: str, preset: str, out: Path, model: str) -> list[Path]:
    label, suffix = MODELS[model]
    sup.open_page(page, url, timeout=240_000)
    if model != "smollm2":
        choose_model(page, label)
    pick_preset(page, PRESETS[preset])
    main = page.locator('[data-testid="stMain"]')
    before = sup.runs(page)
    main.get_by_role("button", name="Generate").click()
    page.wait_for_selector('[data-testid="stMain"] [data-testid="stProgress"]', timeout=120_000)
    page.wait_for_timeout(2500)  # a few rounds in: the bars say which race of how many
    name = f"screenshot-real_models{suffix}-{preset}"
    live = out / f"{name}-live.png"
    page.screenshot(path=str(live), animations="disabled", scale="css")
    page.get_by_text("Race 2 of 3", exact=False).first.wait_for(timeout=600_000)
    page.wait_for_timeout(1500)
    second = out / f"{name}-live-2.png"
    page.screenshot(path=str(second), animations="disabled", scale="css")
    sup.wait_for_rerun(page, before, timeout=900_000)
    if sup.exceptions(page):
        raise SystemExit(f"{preset}: the page shows an exception: {sup.exceptions(page)}")
    sup.wait_for_charts(page)
    page.mouse.move(0, 0)
    page.wait_for_timeout(500)
    shots = [out / f"{name}-race.png", out / f"{name}-measured.png", live, second]
    page.screenshot(path=str(shots[0]), animations="disabled", scale="css")
    main.get_by_role("heading", name="What the speculative run measured").first.evaluate(
        "el => el.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(500)
    page.screenshot(path=str(shots[1]), animations="disabled", scale="css")
    sup.full_page_capture(page, f"real_models{suffix}-{preset}")  # assets/_e2e_tmp/: everything below the fold
    return shots


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", default="copy,list", help=f"comma-separated, of {', '.join(PRESETS)}")
    parser.add_argument("--model", default="smollm2", choices=list(MODELS))
    parser.add_argument("--out", default=str(ROOT / "assets"))
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    pages = sup.registered_pages()
    with tempfile.TemporaryDirectory() as logs, sup.serve(Path(logs)) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(sup.CHROMIUM), headless=True,
                                             args=sup.CHROMIUM_ARGS)
        context = browser.new_context(viewport=sup.VIEWPORT)
        context.add_init_script(sup.RUN_COUNTER_JS)
        page = context.new_page()
        url = pages["real_models"].url(server.url)
        for preset in args.presets.split(","):
            for path in shoot(page, url, preset, out, args.model):
                print(path)
        browser.close()


if __name__ == "__main__":
    main()
