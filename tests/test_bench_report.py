"""bench/report.py, the one command that writes the performance tables, runs
end to end (on data far too small to time, with --quick)."""

import re
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
