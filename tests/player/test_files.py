"""The player's browser files: read from the package, trusted code that holds no data, the style's colours, and
user text only ever set as text."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from specviz.player import browser_files as files
from specviz.plots import style

ROOT = Path(__file__).resolve().parents[2]


def test_the_files_are_in_the_package_and_listed_as_its_data():
    for name in files.NAMES:
        assert (files.BROWSER / name).is_file() and files.text(name)
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert data["specviz.player"] == ["browser/*.html", "browser/*.css", "browser/*.js"]


def test_the_colours_are_the_styles_cues():
    css = files.css()
    cues = {**style.ROLES, **style.ORIGINS}
    for name, cue in cues.items():
        assert f"--cue-{name}: {cue.color};" in css, name


def test_the_module_sets_user_text_as_text_never_as_html():
    js = files.js()
    assert "innerHTML" not in js and "outerHTML" not in js and "insertAdjacentHTML" not in js
    assert "document.write" not in js and "eval(" not in js and "new Function" not in js
    assert "export default function" in js
    assert not re.search(r"\bimport\s*\(|^\s*import\s", js, re.M)  # one module: it imports nothing
    assert "http://" not in js.replace("http://www.w3.org/2000/svg", "") and "https://" not in js  # nothing fetched


def test_the_html_holds_no_script_and_says_so_when_the_script_never_runs():
    page = files.html()
    assert "<script" not in page.lower() and "on" + "click" not in page.lower()
    assert 'data-state="loading"' in page and "did not load" in page
    assert "visibility: visible" in files.css() and "4s" in files.css()  # the one line shows by CSS alone
