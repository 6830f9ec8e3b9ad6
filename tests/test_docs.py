"""The README stays a user's guide (at most 330 lines; the reference detail lives in docs/), and every relative link
in the README and docs/*.md leads somewhere: to a file that exists and, for a heading's anchor in a markdown file,
to a heading that exists (as GitHub spells its anchors)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README_LINES = 330  # issue 35: the README is the user's guide; tables of figures, per-rule details, the layout: docs/
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~)")


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _prose(text: str) -> list[str]:
    """The lines outside fenced code blocks."""
    lines, code = [], False
    for line in text.splitlines():
        if FENCE.match(line.strip()):
            code = not code
        elif not code:
            lines.append(line)
    return lines


def anchor(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading's anchor in a markdown file (a repeated heading's second is '-1', and so on)."""
    seen: Counter[str] = Counter()
    found = set()
    for line in _prose(path.read_text(encoding="utf-8")):
        match = re.match(r"^#{1,6}\s+(.*)$", line)
        if match:
            name = anchor(match.group(1))
            found.add(name if not seen[name] else f"{name}-{seen[name]}")
            seen[name] += 1
    return found


def broken_links(path: Path) -> list[str]:
    """'file: link (why)' for each relative link of this markdown file that leads nowhere."""
    broken = []
    where = path.relative_to(ROOT).as_posix()
    for line in _prose(path.read_text(encoding="utf-8")):
        for target in LINK.findall(line):
            if re.match(r"^[a-z]+:", target):  # https:, mailto: ...: not a file of the project
                continue
            file, _, fragment = target.partition("#")
            resolved = (path.parent / file).resolve() if file else path
            if not resolved.exists():
                broken.append(f"{where}: {target} (no such file)")
            elif fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
                broken.append(f"{where}: {target} (no heading #{fragment} in {resolved.relative_to(ROOT)})")
    return broken


def test_the_readme_is_a_guide_of_at_most_330_lines():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_LINES, f"README.md has {lines} lines; move reference detail to docs/ with a link"


def test_every_relative_link_leads_to_a_file_and_heading_that_exist():
    broken = [line for path in documents() for line in broken_links(path)]
    assert not broken, "links that lead nowhere:\n" + "\n".join(broken)


def test_the_link_checker_sees_a_broken_link(tmp_path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    (tmp_path / "a.md").write_text("# Top\n\n[ok](a.md#top) [gone](b.md) [bad](a.md#nowhere)\n```\n[code](x.md)\n```\n")
    assert broken_links(tmp_path / "a.md") == [
        "a.md: b.md (no such file)", "a.md: a.md#nowhere (no heading #nowhere in a.md)"]
    assert anchor("The package's layout") == "the-packages-layout"
    assert anchor("A lecture hall: `make run` and `make serve` under load") == \
        "a-lecture-hall-make-run-and-make-serve-under-load"
