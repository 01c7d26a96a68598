"""The guide (README.md and docs/): every relative link reaches a file, and
every page is linked from the README."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def relative_links(page):
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if not re.match(r"[a-z]+:", target) and not target.startswith("#"):
            yield target.split("#")[0]


def test_relative_links_reach_files():
    broken = [(page.name, target) for page in PAGES for target in relative_links(page)
              if not (page.parent / target).exists()]
    assert not broken


def test_every_guide_page_is_linked_from_the_readme():
    linked = {(ROOT / target).resolve() for target in relative_links(ROOT / "README.md")}
    assert [page.name for page in PAGES[1:] if page.resolve() not in linked] == []
