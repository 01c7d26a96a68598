"""bench/report.py, the one command that writes the performance tables, runs
end to end (on data far too small to time, with --quick)."""

import importlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPORT = Path(__file__).resolve().parent.parent / "bench" / "report.py"


def test_quick_report_writes_every_table_and_the_machine(tmp_path):
    out = tmp_path / "performance.md"
    result = subprocess.run([sys.executable, str(REPORT), "--quick", "--out", str(out)],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    page = out.read_text(encoding="utf-8")
    for title in ("Single trees", "Prediction on every kind of input", "Random forests",
                  "Tied values", "Categorical data with missing values",
                  "Small forests on the categorical tables", "Many categories and many classes",
                  "scikit-learn's other capabilities", "AdaBoost", "Saved forests"):
        assert f"## {title}\n" in page
    assert "logical cores" in page and "scikit-learn 1.9" in page
    assert "A `--quick` run" in page
    assert not re.search(r"\b(nan|inf)\b", page, flags=re.IGNORECASE)


def test_quick_without_out_is_refused_and_leaves_the_page_alone(tmp_path):
    # A copy of bench/ beside a docs/performance.md of its own: should the refusal ever
    # break, the quick run overwrites the copy's page, not the repository's.
    shutil.copytree(REPORT.parent, tmp_path / "bench",
                    ignore=shutil.ignore_patterns("benchmarks", "__pycache__", ".asv"))
    page = tmp_path / "docs" / "performance.md"
    page.parent.mkdir()
    page.write_text("the tables\n", encoding="utf-8")
    result = subprocess.run([sys.executable, str(tmp_path / "bench" / "report.py"), "--quick"],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 2, result.stderr[-2000:]
    assert "--quick needs --out" in result.stderr and "docs/performance.md" in result.stderr
    assert page.read_text(encoding="utf-8") == "the tables\n"
    assert "--quick --out" in REPORT.read_text(encoding="utf-8").split('"""')[1]


def test_compare_ties_table_columns_stand_apart_and_line_up(monkeypatch):
    monkeypatch.syspath_prepend(str(REPORT.parent))
    compare_ties = importlib.import_module("compare_ties")
    header = compare_ties.table_header()
    # Names are apart by two spaces or more (once 'ratioforest ft' ran together).
    assert re.split(r"\s{2,}", header.strip()) == ["data", "tree ft", "sk", "ratio",
                                                    "forest ft", "sk", "ratio"]
    # Large times still leave a gap, and each value ends where its column's name ends.
    row = compare_ties.table_row("letter stand-in (26 classes, 16 levels)", (12.345, 123.456),
                                 (999.99, 1234.56))
    values = list(re.finditer(r"\S+", row))[-6:]
    assert [value.group() for value in values] == ["12.345", "123.456", "0.10", "999.99",
                                                   "1234.56", "0.81"]
    names = list(re.finditer(r"\S+(?: \S+)?", header))[-6:]
    assert [value.end() for value in values] == [name.end() for name in names]
