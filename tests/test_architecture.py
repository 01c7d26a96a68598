"""docs/architecture.md, the map of the house, against the package: every module
it names exists, and every module of the package is named in it."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "fasttree"
PAGE = ROOT / "docs" / "architecture.md"
SOURCE_SUFFIXES = (".py", ".pyx", ".pxd", ".h")
# Folders the page describes as a whole.
FOLDERS = ("reference", "datasets")


def named_modules(text):
    """File names of the package's top folder that the page names in backticks
    (paths such as `tests/x.py` are not modules); "`_x.pyx` / `.pxd`" names both
    files."""
    names = set(re.findall(r"`(\w+\.(?:py|pyx|pxd|h))`", text))
    for stem in re.findall(r"`(\w+)\.pyx` / `\.pxd`", text):
        names.add(stem + ".pxd")
    return names


def package_modules():
    """The package's source files, outside the folders described as a whole."""
    return {path.name for path in PACKAGE.iterdir()
            if path.is_file() and path.suffix in SOURCE_SUFFIXES}


def test_every_module_the_map_names_exists():
    missing = sorted(name for name in named_modules(PAGE.read_text(encoding="utf-8"))
                     if not (PACKAGE / name).is_file())
    assert missing == []


def test_every_module_of_the_package_is_on_the_map():
    text = PAGE.read_text(encoding="utf-8")
    assert sorted(package_modules() - named_modules(text)) == []
    for folder in FOLDERS:
        assert f"`{folder}/`" in text


def test_named_modules_reads_both_files_of_a_kernel_row():
    text = ("| `_a.pyx` / `.pxd` | x |\n| `_b.pyx` / `_b.pxd` | y |\n`c.py` and `d.h`, "
            "tested in `tests/test_c.py`")
    assert named_modules(text) == {"_a.pyx", "_a.pxd", "_b.pyx", "_b.pxd", "c.py", "d.h"}
