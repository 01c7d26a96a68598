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
                  "The histogram splitter", "Threads inside one tree", "A million rows and more",
                  "Forests on a Dask cluster",
                  "Tied values", "Categorical data with missing values",
                  "Small forests on the categorical tables", "Many categories and many classes",
                  "scikit-learn's other capabilities", "AdaBoost", "Saved forests",
                  "Quantile regression forests"):
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


def _bench_module(monkeypatch, name):
    monkeypatch.syspath_prepend(str(REPORT.parent))
    return importlib.import_module(name)


def test_compare_forest_leaves_out_onedal_when_sklearnex_is_absent(monkeypatch, capsys):
    compare_forest = _bench_module(monkeypatch, "compare_forest")
    # None in sys.modules makes the import fail, as on a machine without it.
    monkeypatch.setitem(sys.modules, "sklearnex", None)
    monkeypatch.setitem(sys.modules, "sklearnex.ensemble", None)
    result = compare_forest.main(["--n-samples", "600", "--n-estimators", "3", "--repeats", "1",
                                  "--splitter", "hist", "--max-bins", "32"])
    out = capsys.readouterr().out
    assert result["onedal"] is None and "oneDAL skipped" in out and "ft/oneDAL" not in out
    assert (result["splitter"], result["max_bins"]) == ("hist", 32)
    # What report.py reads: (fasttree, scikit-learn) pairs of numbers, and the speedup.
    for key in ("fit", "predict_all", "predict_one", "pickle_bytes", "score"):
        assert len(result[key]) == 2 and all(value > 0 for value in result[key])
    assert result["speedup"] > 0


def test_compare_forest_without_sklearn_and_one_thread(monkeypatch, capsys):
    compare_forest = _bench_module(monkeypatch, "compare_forest")
    result = compare_forest.main(["--n-samples", "600", "--n-estimators", "3", "--repeats", "1",
                                  "--regression", "--min-samples-leaf", "5", "--skip-sklearn",
                                  "--skip-one-thread"])
    assert result["fit"][1] is None and result["score"][1] is None
    assert result["speedup"] is None and result["fit_ratio"] is None
    assert "scikit-learn skipped" in capsys.readouterr().out
    if result["onedal"] is not None:
        onedal = result["onedal"]
        assert not onedal["fell_back"]
        assert onedal["fit_ratio"] == result["fit"][0] / onedal["fit"]
        assert {"max_bins", "min_bin_size", "version"} <= set(onedal)


def test_compare_tree_threads_times_both_splitters_against_sklearn(monkeypatch, capsys):
    compare_tree_threads = _bench_module(monkeypatch, "compare_tree_threads")
    result = compare_tree_threads.main(["--n-samples", "800", "--n-features", "6",
                                        "--repeats", "1", "--min-work", "1000"])
    assert set(result["fit"]) == {"sklearn", "best", "hist"}
    assert all(ratio > 0 for ratio in result["ratios"].values())
    assert "thread_min_work=1000" in capsys.readouterr().out


def test_compare_memory_measures_growth_over_x_in_child_processes(monkeypatch, tmp_path):
    compare_memory = _bench_module(monkeypatch, "compare_memory")
    rows = compare_memory.main(["--n-samples", "2000", "--n-features", "10", "--n-estimators",
                                "2", "--libraries", "fasttree-hist", "onedal", "--tmpdir",
                                str(tmp_path)])
    hist, onedal = rows
    assert "error" not in hist, hist
    assert hist["x_bytes"] == 2000 * 10 * 4 and hist["params"]["splitter"] == "hist"
    assert hist["method"] in ("VmHWM", "ru_maxrss")
    assert hist["growth_bytes"] >= 0 and hist["fit_seconds"] > 0
    assert onedal.get("skipped") or onedal["growth_bytes"] >= 0
    # The .npy files went with the temporary folder.
    assert list(tmp_path.iterdir()) == []
