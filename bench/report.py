"""Run every side-by-side comparison and write the performance tables.

Usage (from the repository root, with the test extras installed)::

    python bench/report.py                      # about 50 minutes on 2 cores
    python bench/report.py --out results.md     # somewhere else
    python bench/report.py --quick --out /tmp/check.md   # tiny sizes: checks that it runs

Writes ``docs/performance.md`` (or the ``--out`` file): what machine, which versions, then one table
per comparison script of ``bench/`` (each script can also be run alone, and
its docstring says exactly what it measures). Every time is a median of
runs in which fasttree and scikit-learn take turns in one process; the
tables give ratios, fasttree / scikit-learn, so below 1 means fasttree is
faster. ``--quick`` runs the same code on data too small to time anything,
to check the report end to end; it needs ``--out``, so that its meaningless
times never replace the page.
"""

import argparse
import datetime
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import compare
import compare_boosting
import compare_capabilities
import compare_categorical
import compare_dask
import compare_forest
import compare_model_size
import compare_predict
import compare_quantile
import compare_memory
import compare_real_tables
import compare_serving
import compare_ties
import compare_tree_threads
import fasttree

ROOT = Path(__file__).resolve().parent.parent


def markdown_table(header, rows):
    """A markdown table of ``header`` (column names) and ``rows`` (of text)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def pair(values, spec):
    """'a / b' for a (fasttree, scikit-learn) pair."""
    return f"{values[0]:{spec}} / {values[1]:{spec}}"


def ratio(values):
    return f"{values[0] / values[1]:.2f}"


def processor_name():
    """The CPU's model name where the system says it, else what platform knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def commit():
    try:
        return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def machine_line():
    import sklearn

    return (f"{processor_name()}, {os.cpu_count()} logical cores, {platform.system()}; "
            f"Python {platform.python_version()}, numpy {np.__version__}, scikit-learn "
            f"{sklearn.__version__}, fasttree {fasttree.__version__} (commit {commit()})")


def single_trees(quick):
    size = ["--n-samples", "3000", "--repeats", "1"] if quick else []
    rows = []
    for label, argv in (("classifier, gini", []), ("classifier, entropy",
                                                   ["--criterion", "entropy"]),
                        ("regressor, squared error", ["--regression"]),
                        ("classifier, gini, `splitter='hist'`", ["--splitter", "hist"]),
                        ("regressor, squared error, `splitter='hist'`",
                         ["--regression", "--splitter", "hist"])):
        result = compare.main(argv + size)
        ours, theirs = result["fasttree"], result["sklearn"]
        rows.append([label, f"{ours['fit']:.2f} / {theirs['fit']:.2f}",
                     f"{ours['fit'] / theirs['fit']:.2f}",
                     f"{ours['predict'] / theirs['predict']:.2f}",
                     f"{ours['score']:.4f} / {theirs['score']:.4f}"])
    return ("Single trees", "python bench/compare.py [--criterion entropy | --regression] "
            "[--splitter hist]",
            "Fully grown trees on `make_classification` / `make_regression`, 100,000 x 50 "
            "float32. Fit and predict on all rows, median of 3 runs; the score (accuracy, "
            "or R²) is of a separate fit on 80% of the rows, on the other 20%. With "
            "`splitter='hist'` fasttree's trees split between 255 bins per feature; "
            "scikit-learn's search every threshold.",
            markdown_table(["case", "fit s (fasttree / sklearn)", "fit ratio",
                            "predict ratio", "test score (fasttree / sklearn)"], rows))


def prediction(quick):
    size = ["--n-samples", "2000", "--n-estimators", "5", "--repeats", "1"] if quick else \
        ["--repeats", "9"]
    results = compare_predict.main(size)
    by_input = {}
    for row in results:
        by_input.setdefault(row["input"], {})[row["model"]] = row
    rows = []
    for kind, models in by_input.items():
        cells = [kind]
        for model in ("tree", "forest"):
            for method in ("predict", "predict_proba"):
                value = models[model][method]
                cells.append("" if value is None else f"{value:.2f}")
        rows.append(cells)
    return ("Prediction on every kind of input", "python bench/compare_predict.py --repeats 9",
            "One full tree and a 50-tree forest (`n_jobs=2`) fitted on 100,000 x 50 float32 "
            "rows, predicting 100,000 new rows given in each layout (and the training rows); "
            "median of 9 calls. The last row is the first `predict_proba` right after `fit`.",
            markdown_table(["input", "tree predict", "tree predict_proba", "forest predict",
                            "forest predict_proba"], rows))


def serving(quick):
    results = compare_serving.main(["--quick"] if quick else ["--repeats", "9"])
    peers = [peer for peer in compare_serving.PEERS
             if any(f"{peer}_us" in row for row in results)]
    rows, frame_rows = [], []
    for row in results:
        if "frame_ratio" in row:
            frame_rows.append([row["data"], f"{row['fasttree_us']:.1f}",
                               f"{row['ndarray_us']:.1f}", f"{row['frame_ratio']:.2f}"])
            continue
        cells = [row["data"], f"{row['batch']:,}", f"`{row['method']}`",
                 f"{row['fasttree_us']:.2f}"]
        for peer in peers:
            cells += [f"{row[f'{peer}_us']:.2f}", f"{row[f'{peer}_ratio']:.2f}"]
        rows.append(cells)
    names = {"onnxruntime": "onnxruntime", "sklearn": "scikit-learn"}
    header = ["data", "rows a call", "method", "fasttree µs/row"]
    for peer in peers:
        header += [f"{names[peer]} µs/row", f"ratio to {names[peer]}"]
    tables = (markdown_table(header, rows) + "\n\nOne row of a DataFrame against one row of "
              "an ndarray, fasttree's `predict_proba`:\n\n"
              + markdown_table(["data", "DataFrame µs", "ndarray µs", "ratio"], frame_rows))
    return ("Serving: a few rows at a time against onnxruntime",
            "python bench/compare_serving.py --repeats 9",
            "A 100-tree forest (full trees, `sqrt` features) of 2 classes on 80,000 x 50 "
            "and of 26 classes on 16,000 letter-like rows x 16 (float32), predicting "
            "held-out rows in batches of 1 to 10,000, a different batch each call, all on "
            "one thread: fasttree (`n_jobs=1`), onnxruntime running "
            "`fasttree.export_onnx(forest)` (one intra-op and one inter-op thread) and "
            "scikit-learn's forest of the same parameters (`n_jobs=1`). Times are "
            "microseconds per row, the median of 9 rounds of calls in which fasttree and "
            "the peer take turns; the ratios are fasttree / that peer (onnxruntime and "
            "scikit-learn each timed in its own pairing, the fasttree column from the "
            "first).",
            tables)


def forests(quick):
    rows = []
    for argv in ([], ["--n-samples", "10000", "--n-features", "500"]):
        if quick:
            argv = ["--n-samples", "2000", "--n-features", argv[-1] if argv else "50",
                    "--n-estimators", "5", "--repeats", "1"]
        result = compare_forest.main(argv)
        label = f"{result['n_samples']:,} x {result['n_features']}"
        megabytes = tuple(value / 1e6 for value in result["pickle_bytes"])
        milliseconds = tuple(value * 1e3 for value in result["predict_one"])
        rows.append([label, f"{ratio(result['fit'])} ({pair(result['fit'], '.1f')} s)",
                     ratio(result["predict_all"]), pair(milliseconds, ".2f"),
                     f"{ratio(megabytes)} ({pair(megabytes, '.1f')} MB)",
                     pair(result["score"], ".4f"), f"{result['speedup']:.2f}x"])
    return ("Random forests", "python bench/compare_forest.py [--n-samples 10000 "
            "--n-features 500]",
            "100 trees, `max_features='sqrt'`, `n_jobs=2` for both, fitted on 80% of "
            "`make_classification` rows (float32); `predict_proba` on all rows; one-row "
            "predictions made back to back, as a service makes them; the speedup is "
            "fasttree's fit on 2 threads against 1.",
            markdown_table(["data", "fit ratio", "`predict_proba` ratio",
                            "one-row predict ms (fasttree / sklearn)", "pickle ratio",
                            "test accuracy (fasttree / sklearn)", "speedup, 1 → 2 threads"],
                           rows))


def histogram_splitter(quick):
    rows = []
    for label, argv in (("W2: classification, 100,000 x 50, 100 trees, sqrt features", []),
                        ("W3: regression, 100,000 x 20, 50 trees, all features",
                         ["--regression", "--n-features", "20", "--n-estimators", "50"])):
        argv = argv + ["--splitter", "hist", "--skip-one-thread"]
        if quick:
            argv += ["--n-samples", "2000", "--n-estimators", "5", "--repeats", "1"]
        result = compare_forest.main(argv)
        onedal = result["onedal"]
        rows.append([label, f"{result['fit_ratio']:.3f} ({pair(result['fit'], '.1f')} s)",
                     "" if onedal is None else f"{onedal['fit_ratio']:.3f} ({onedal['fit']:.1f} s)",
                     pair(result["score"], ".4f"),
                     "" if onedal is None else f"{onedal['score']:.4f}"])
    tables = markdown_table(["workload", "fit / sklearn (fasttree / sklearn s)",
                             "fit / oneDAL (oneDAL s)", "test score (fasttree / sklearn)",
                             "oneDAL test score"], rows)
    real = compare_real_tables.main(["--n-estimators", "5", "--repeats", "1"] if quick else [])
    tables += "\n\n" + markdown_table(
        ["table", "fit s (exact / hist)", "hist / exact", "accuracy (exact / hist)"],
        [[name, f"{row['fit_exact']:.2f} / {row['fit_hist']:.2f}", f"{row['ratio']:.2f}",
          f"{row['accuracy_exact']:.4f} / {row['accuracy_hist']:.4f}"]
         for name, row in real.items()])
    return ("The histogram splitter", "python bench/compare_forest.py --splitter hist "
            "[--regression --n-features 20 --n-estimators 50]; "
            "python bench/compare_real_tables.py",
            "Forests with `splitter='hist'` (255 bins per feature), `n_jobs=2`, fitted on 80% "
            "of the rows (float32), against scikit-learn's exact forest and oneDAL's binned "
            "one (scikit-learn-intelex, its defaults; the column is empty without it); median "
            "of 3 runs in turns. Below, 100-tree forests on real tables, the exact splitter "
            "against the hist one: UCI Adult as a DataFrame of strings and missing values "
            "with its own test file, and UCI default of credit card clients (integer columns "
            "with many ties), 20% held out.",
            tables)


def threads_in_one_tree(quick):
    argv = ["--n-samples", "3000", "--repeats", "1"] if quick else []
    result = compare_tree_threads.main(argv)
    fit = result["fit"]
    rows = [[label, f"{fit[name]:.3f}", f"{result['ratios'][name]:.3f}"]
            for name, label in (("best", "fasttree, exact"), ("hist", "fasttree, hist"))]
    rows.append(["scikit-learn", f"{fit['sklearn']:.3f}", "1"])
    return ("Threads inside one tree", "python bench/compare_tree_threads.py",
            "W1: one fully grown `DecisionTreeClassifier` on 80,000 x 50 float32 "
            "`make_classification` rows; fasttree with `n_jobs=2` (large nodes sweep their "
            "features on both threads; the script checks that the tree equals the "
            "one-thread tree), scikit-learn on its one thread; median of 3 fits.",
            markdown_table(["fit", "seconds", "/ scikit-learn"], rows))


def large_data(quick):
    runs = (((20_000, 4), (80_000, 2)) if quick else
            ((1_000_000, 20), (4_000_000, 10)))
    rows, seconds_per_tree = [], {}
    for n_samples, n_estimators in runs:
        for row in compare_memory.main(["--n-samples", str(n_samples), "--n-estimators",
                                        str(n_estimators), "--min-samples-leaf", "5"]):
            if "growth_bytes" not in row:
                continue
            seconds_per_tree[row["library"], n_samples] = row["fit_seconds"] / n_estimators
            growth = row["growth_bytes"]
            rows.append([f"{n_samples:,}, {n_estimators} trees", row["library"],
                         f"{row['fit_seconds']:.1f}",
                         f"{growth / 1e9:.2f} ({growth / row['x_bytes']:.2f}x X)"])
    (small, _), (large, _) = runs
    per_tree = seconds_per_tree
    growth = [[library, f"{per_tree[library, large] / per_tree[library, small]:.2f}x"]
              for library in ("fasttree-exact", "fasttree-hist", "onedal")
              if (library, small) in per_tree and (library, large) in per_tree]
    tables = (markdown_table(["rows, trees", "library", "fit s",
                              "peak memory above X, GB"], rows)
              + f"\n\nFit seconds per tree, {large:,} rows against {small:,} "
              f"({large // small}x the rows):\n\n"
              + markdown_table(["library", "growth"], growth))
    return ("A million rows and more", "python bench/compare_memory.py --n-samples 1000000 "
            "--min-samples-leaf 5; ... --n-samples 4000000 --n-estimators 10",
            "Random forests of `min_samples_leaf=5`, `max_features='sqrt'`, `n_jobs=2` on all "
            "rows of `make_classification` float32 data of 50 features, each library fitting "
            "once in a child process of its own: fit seconds and the peak resident memory the "
            "fit needed above the loaded X. fasttree with the exact and the hist splitter; "
            "oneDAL at its binning defaults (left out without scikit-learn-intelex).",
            tables)


def dask_forests(quick):
    rows = []
    for mode in ("replicated", "partitioned"):
        argv = ["--mode", mode] + (["--n-samples", "3000", "--n-estimators", "4",
                                    "--repeats", "1"] if quick else ["--repeats", "5"])
        result = compare_dask.main(argv)
        seconds = result["seconds"]
        rows.append([mode, f"{seconds['local']:.2f}", f"{seconds[1]:.2f}", f"{seconds[2]:.2f}",
                     f"{result['rate']:.2f}x", f"{100 * result['overhead']:+.1f}%"])
    return ("Forests on a Dask cluster", "python bench/compare_dask.py [--mode partitioned]",
            "`DaskRandomForestClassifier` (40 trees, `random_state=0`) on 100,000 x 50 "
            "float32 numpy rows, against the local forest on one thread: a `LocalCluster` of "
            "one single-threaded worker process, and of two; each fit places the data on the "
            "workers. Median of 5 fits in turns. The rate is one worker's fit time over two "
            "workers'; the overhead is one worker's over the local forest's.",
            markdown_table(["mode", "local s", "1 worker s", "2 workers s",
                            "rate, 2 workers / 1", "overhead, 1 worker"], rows))


def ties(quick):
    argv = ["--n-samples", "2000", "--n-estimators", "5", "--repeats", "1", "--classes", "2",
            "--levels", "2", "16"] if quick else []
    results = compare_ties.main(argv)
    grid = {}
    rows = []
    for row in results:
        if "classes" in row:
            grid.setdefault(row["classes"], []).append(row)
    for n_classes, cells in grid.items():
        rows.append([str(n_classes), " / ".join(str(cell["levels"]) for cell in cells),
                     " / ".join(f"{cell['tree']:.2f}" for cell in cells),
                     " / ".join(f"{cell['forest']:.2f}" for cell in cells)])
    rows += [[row["data"], "", f"{row['tree']:.2f}", f"{row['forest']:.2f}"]
             for row in results if "classes" not in row]
    return ("Tied values", "python bench/compare_ties.py",
            "Integer, coded and rounded columns: 20,000 x 16 from `make_classification`, "
            "every feature cut into 2, 16 or 256 equal-count integer levels; fit ratios of "
            "one full tree, and of a 50-tree forest on one thread; median of 3.",
            markdown_table(["classes", "levels", "tree fit ratio", "forest fit ratio"], rows))


TABLES = {"german_credit": "German credit (1,000 x 20, 13 categorical)",
          "titanic_passengers": "Titanic (1,309 x 5, 2 categorical, ages missing)",
          "congressional_votes": "Congressional votes (435 x 16 y/n votes, 392 missing)"}


def categorical(quick):
    argv = ["--quick", "--splits", "2", "--repeats", "1"] if quick else []
    rows = [[TABLES.get(row["data"], row["data"]), pair(row["fit_seconds"], ".2f"),
             f"{row['fit']:.2f}",
             f"{row['predict']:.2f}", pair(row["accuracy"], ".3f")]
            for row in compare_categorical.main(argv)]
    return ("Categorical data with missing values", "python bench/compare_categorical.py",
            "fasttree's forest fits the DataFrame as it is; scikit-learn's is a pipeline of "
            "`OneHotEncoder(handle_unknown='ignore')` (missing categories filled first) and a "
            "median `SimpleImputer` before its forest. 100 trees, `sqrt` features, `n_jobs=2` "
            "for both; fit time includes the preprocessing; accuracy on new rows, the small "
            "tables averaged over twenty 70/30 splits. The synthetic data has 8 numeric and "
            "6 string columns of 3 to 5,000 categories, 10% of every column missing.",
            markdown_table(["data", "fit s (fasttree / sklearn)", "fit ratio",
                            "`predict_proba` ratio", "accuracy (fasttree / sklearn)"], rows))


def textbook_forests(quick):
    results = compare_categorical.main(["--textbook", "--splits", "1" if quick else "30"])
    labels = list(results[0]["accuracy"])
    rows = [[TABLES[row["data"]]] + [f"{row['accuracy'][label]:.4f}" for label in labels]
            for row in results]
    return ("Small forests on the categorical tables",
            "python bench/compare_categorical.py --textbook --splits 30",
            "The textbooks' setup: 50 trees of 100 drawn rows, depth 5, half the rows held "
            "out; mean accuracy over 30 splits, every model seeing the same splits. fasttree's "
            "multiway (C4.5) forests against its binary-subset forest and scikit-learn's "
            "forest on one-hot and on ordinal codes. The script also prints each multiway "
            "forest's difference from scikit-learn's, split by split, with its standard error.",
            markdown_table(["data"] + labels, rows))


def many_classes(quick):
    argv = ["--many-classes", "--quick", "--rows", "200", "--repeats", "1"] if quick \
        else ["--many-classes", "--repeats", "3"]
    rows = [[row["model"], row["encoding"], pair(row["fit_seconds"], ".2f"), f"{row['fit']:.2f}",
             pair(row["accuracy"], ".3f")]
            for row in compare_categorical.main(argv)]
    return ("Many categories and many classes", "python bench/compare_categorical.py "
            "--many-classes",
            "1,000 rows of three string columns of about 1,000 levels each and about 1,000 "
            "classes: fasttree's tree and 10-tree forest on the strings against "
            "scikit-learn's on one-hot and on ordinal codes (`n_jobs=2`); fit time includes "
            "the encoding; accuracy on 1,000 new rows. Every node of fasttree's tree tries an "
            "ordering of its categories per class it holds.",
            markdown_table(["model", "sklearn encoding", "fit s (fasttree / sklearn)",
                            "fit ratio", "accuracy (fasttree / sklearn)"], rows))


def capabilities(quick):
    argv = ["--rows", "1000", "--repeats", "1"] if quick else ["--repeats", "5"]
    by_data = {}
    for row in compare_capabilities.main(argv):
        by_data.setdefault(row["data"], {})[row["model"]] = row
    rows = []
    for data, models in by_data.items():
        tree, forest = models["tree"], models["forest"]
        rows.append([data, f"{tree['fit']:.2f}", f"{forest['fit']:.2f}",
                     f"{tree['predict']:.2f}", f"{forest['predict']:.2f}",
                     pair(forest["score"], ".3f")])
    return ("scikit-learn's other capabilities", "python bench/compare_capabilities.py "
            "--repeats 5",
            "Sparse CSR input, the Poisson and absolute-error criteria, several outputs and "
            "extremely randomized trees: fit and predict ratios of one tree and of a forest "
            "(50 trees, 20 for `absolute_error` and extra-tree regression; `n_jobs=2`), "
            "predicting new rows; the forest's score on the new rows (accuracy, accuracy of "
            "whole rows for several outputs, R², mean absolute error, or mean Poisson "
            "deviance) beside scikit-learn's.",
            markdown_table(["case", "tree fit", "forest fit", "tree predict", "forest predict",
                            "forest score (fasttree / sklearn)"], rows))


def boosting(quick):
    argv = ["--n-samples", "2000", "--n-estimators", "10"] if quick else []
    result = compare_boosting.main(argv)
    rows = [[pair(result["fit"], ".1f"), ratio(result["fit"]),
             pair(result["accuracy"], ".4f")]]
    return ("AdaBoost", "python bench/compare_boosting.py",
            "200 stumps with SAMME, fitted on 80% of `make_classification(n_samples=100_000, "
            "n_features=50, random_state=0)`; scikit-learn sorts every feature again in every "
            "round, fasttree once per fit.",
            markdown_table(["fit s (fasttree / sklearn)", "fit ratio",
                            "test accuracy (fasttree / sklearn)"], rows))


def model_size(quick):
    argv = ["--n-samples", "2000", "--n-estimators", "5", "--classes", "2", "10"] if quick \
        else []
    rows = []
    for row in compare_model_size.main(argv):
        megabytes = tuple(value / 1e6 for value in row["bytes"])
        rows.append([str(row["classes"]), pair(megabytes, ".1f"), ratio(megabytes),
                     f"{row['file_bytes'] / 1e6:.1f}",
                     f"{row['file_bytes'] / row['bytes'][1]:.2f}"])
    return ("Saved forests", "python bench/compare_model_size.py",
            "A 100-tree forest of full trees on 20,000 x 20 `make_classification` rows: the "
            "bytes of `pickle.dumps` of each library's forest, and of fasttree's model file "
            "(`forest.save(path)`), against scikit-learn's pickle. The forests reloaded from "
            "both are checked to predict exactly as before.",
            markdown_table(["classes", "pickle MB (fasttree / sklearn)", "pickle ratio",
                            "model file MB", "model file / sklearn's pickle"], rows))


def quantile_forests(quick):
    argv = ["--n-train", "2000", "--n-new", "500", "--n-estimators", "5", "--repeats", "1",
            "--single-rows", "5"] if quick else ["--repeats", "5"]
    rows, interval_rows = [], []
    for name, result in compare_quantile.main(argv).items():
        for method, values in result["intervals"].items():
            interval_rows.append([name, method, f"{values['coverage']:.3f}",
                                  f"{values['width']:.4g}", f"{values['seconds']:.2f}"])
        if result["fit_peer"] is None:
            rows.append([name, "quantile-forest is not installed"] + [""] * 6)
            continue
        rows.append([name, f"{result['fit_ours']:.2f} / {result['fit_peer']:.2f} = "
                           f"{result['fit_ratio']:.3f}",
                     f"{result['predict_ours']:.3f} / {result['predict_peer']:.3f} = "
                     f"{result['predict_ratio']:.3f}",
                     f"{result['row_ms_ours']:.2f} / {result['row_ms_peer']:.2f}",
                     f"{result['pickle_ours'] / 1e6:.1f} / {result['pickle_peer'] / 1e6:.1f} "
                     f"= {result['pickle_ratio']:.3f}",
                     f"{result['model_file_ours'] / 1e6:.1f} = "
                     f"{result['model_file_ratio']:.3f}",
                     f"{result['pinball_ratio']:.4f}",
                     f"{result['coverage_ours']:.3f} / {result['coverage_peer']:.3f}"])
    return ("Quantile regression forests", "python bench/compare_quantile.py",
            "`RandomForestQuantileRegressor` against quantile-forest's (100 trees, "
            "`min_samples_leaf=5`, 2 threads, one target kept per leaf as both default to) "
            "on `make_regression` 50,000 x 20 (10,000 new rows) and on the credit default "
            "table's heavy-tailed payment amounts (20,000 rows, 10,000 new). Times median of "
            "5, in turns: the fit, 3 quantiles (0.05, 0.5, 0.95) of the new rows, one row at "
            "a time. Sizes: each pickle, and fasttree's model file against quantile-forest's "
            "pickle. The mean pinball loss over the 3 quantiles (fasttree / quantile-forest) "
            "and the share of new rows inside the 5%-95% interval. Below, fasttree's 90% "
            "intervals of the new rows from a forest fitted with `oob_score=True`: the raw "
            "quantiles, CQR calibrated out of bag, the raw quantiles and CQR (closed, and "
            "with randomized ties) of a forest grown on four fifths of the training rows and "
            "calibrated on the rest, and jackknife+ after bootstrap ('oob'); their coverage, "
            "mean width and seconds.",
            markdown_table(["data", "fit s (ratio)", "3 quantiles s (ratio)",
                            "one row ms", "pickle MB (ratio)", "model file MB (ratio)",
                            "pinball ratio", "coverage"], rows) + "\n\n" + markdown_table(
                ["data", "interval", "coverage", "mean width", "seconds"], interval_rows))


SECTIONS = [single_trees, prediction, serving, forests, histogram_splitter,
            threads_in_one_tree, large_data, dask_forests, ties, categorical, textbook_forests,
            many_classes, capabilities, boosting, model_size, quantile_forests]


def report(quick):
    """The whole markdown page."""
    started = time.perf_counter()
    parts = []
    for section in SECTIONS:
        print(f"\n=== {section.__name__} ===", flush=True)
        title, command, setup, table = section(quick)
        parts.append(f"## {title}\n\n`{command}`\n\n{setup}\n\n{table}\n")
    minutes = (time.perf_counter() - started) / 60
    heading = "# Performance against scikit-learn\n\n"
    if quick:
        heading += ("**A `--quick` run: data far too small for these times to mean "
                    "anything.**\n\n")
    heading += (f"Written by `python bench/report.py{' --quick' if quick else ''}` on "
                f"{datetime.date.today().isoformat()} in {minutes:.0f} minutes, on: "
                f"{machine_line()}.\n\n"
                "Every number is a ratio of times, fasttree / scikit-learn (below 1 means "
                "fasttree is faster), each time the median of runs in which the two libraries "
                "take turns in one process, unless the column says otherwise. Times on a "
                "shared machine move by a tenth or more between runs. Each section names the "
                "script that makes its table; its docstring says exactly what it measures.\n\n")
    return heading + "\n".join(parts)


def main(argv=None):
    """Run every comparison and write the tables to ``--out``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=None,
                        help="the page to write (default: docs/performance.md)")
    parser.add_argument("--quick", action="store_true",
                        help="tiny data sizes, to check the whole report in a minute "
                             "(needs --out)")
    args = parser.parse_args(argv)
    if args.out is None:
        if args.quick:
            parser.error("--quick needs --out: its times mean nothing, and without --out "
                         "they would replace docs/performance.md")
        args.out = ROOT / "docs" / "performance.md"
    page = report(args.quick)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(page, encoding="utf-8")
    print(f"\nwrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
