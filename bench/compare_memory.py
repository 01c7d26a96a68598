"""Peak resident memory a random forest's fit needs above its data, one child process per library.

Usage (from the repository root, with fasttree and scikit-learn installed;
oneDAL's row needs scikit-learn-intelex, in the ``bench`` extra)::

    python bench/compare_memory.py                                  # 200,000 x 50, 20 trees
    python bench/compare_memory.py --n-samples 1000000 --min-samples-leaf 5
    python bench/compare_memory.py --n-samples 4000000 --n-estimators 10 --min-samples-leaf 5
    python bench/compare_memory.py --n-samples 10000000 --n-estimators 2 --min-samples-leaf 5 \
        --libraries fasttree-exact fasttree-hist             # X of 2 GB; each fit a few minutes
    python bench/compare_memory.py --sklearn                        # scikit-learn too (slow)
    python bench/compare_memory.py --mmap                           # X memory-mapped, read-only

The parent makes ``make_classification`` (or ``make_regression``) data as
float32, as the other comparisons do, and saves X and y to ``.npy`` files in
a temporary folder. Each library then fits in a child process of its own,
so that one library's peak cannot hide another's: the child imports the
library and builds the forest, loads X (read whole into memory, or with
``--mmap`` memory-mapped read-only and every page read once, so that X is
resident either way), fits the forest once on 200 rows (so that lazy
imports and thread pools are in place) and records its resident set (VmRSS)
as the baseline. It then resets the kernel's high-water mark of the
resident set (writing "5" to ``/proc/self/clear_refs``), fits on all rows,
and reads the mark (VmHWM). The growth is the mark minus the baseline: what
``fit`` needed on top of the data, in bytes and as a multiple of X's bytes.
Where the mark cannot be reset, ``ru_maxrss`` stands in; loading X makes no
temporary copy, so it too starts near the baseline, and the table says
which was used. Also reported: fit seconds and what the process still holds
once fit has returned (the model and whatever the library keeps), above the
baseline.

Libraries: fasttree with ``splitter='best'`` and with ``splitter='hist'``,
oneDAL (``sklearnex.ensemble``, at its own binning defaults; left out when
scikit-learn-intelex is not installed) and, with ``--sklearn``,
scikit-learn. All fit ``n_estimators`` trees with ``max_features='sqrt'``
(1.0 for regression), ``min_samples_leaf``, ``n_jobs`` threads and
``random_state=0``.
"""

import argparse
import importlib.util
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

LIBRARIES = ("fasttree-exact", "fasttree-hist", "onedal", "sklearn")
_PREFIX = "compare_memory result: "


def _status_bytes(key):
    """A ``/proc/self/status`` field given in kB (VmRSS, VmHWM), in bytes, or None."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _reset_high_water_mark():
    """Reset VmHWM to the current resident set; True when the kernel did.

    Writing "5" to clear_refs is a Linux feature (since 4.0); a container or a
    kernel without it refuses the write or leaves the mark where it was, so
    the mark is read back to check.
    """
    try:
        with open("/proc/self/clear_refs", "w") as clear_refs:
            clear_refs.write("5")
    except OSError:
        return False
    mark, resident = _status_bytes("VmHWM"), _status_bytes("VmRSS")
    # Pages can come in between the two reads; a megabyte of slack covers it.
    return mark is not None and resident is not None and mark <= resident + 2**20


def _max_rss_bytes():
    # ru_maxrss is in kilobytes on Linux (bytes on macOS, where this is not run).
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def build_forest(library, regression, n_estimators, min_samples_leaf, n_jobs, max_bins=None):
    """An unfitted forest of ``library`` (one of ``LIBRARIES``) with the shared parameters."""
    params = {"n_estimators": n_estimators, "max_features": 1.0 if regression else "sqrt",
              "min_samples_leaf": min_samples_leaf, "n_jobs": n_jobs, "random_state": 0}
    kind = "RandomForestRegressor" if regression else "RandomForestClassifier"
    if library.startswith("fasttree"):
        import fasttree

        params["splitter"] = "hist" if library == "fasttree-hist" else "best"
        if library == "fasttree-hist" and max_bins is not None:
            params["max_bins"] = max_bins
        return getattr(fasttree, kind)(**params)
    if library == "onedal":
        import sklearnex.ensemble

        return getattr(sklearnex.ensemble, kind)(**params)
    import sklearn.ensemble

    return getattr(sklearn.ensemble, kind)(**params)


def child(spec):
    """Fit one library's forest in this process and print what it took.

    Parameters
    ----------
    spec : dict
        'library', 'folder' (holding X.npy and y.npy), 'mmap', 'regression',
        'n_estimators', 'min_samples_leaf', 'n_jobs' and 'max_bins'.

    Returns
    -------
    dict
        'library', 'fit_seconds', 'baseline_bytes', 'peak_bytes',
        'growth_bytes', 'kept_bytes', 'x_bytes', 'method' ('VmHWM' or
        'ru_maxrss') and 'params' (the forest's binning parameters where it
        has them), also printed as one JSON line.
    """
    forest = build_forest(spec["library"], spec["regression"], spec["n_estimators"],
                          spec["min_samples_leaf"], spec["n_jobs"], spec["max_bins"])
    folder = Path(spec["folder"])
    X = np.load(folder / "X.npy", mmap_mode="r" if spec["mmap"] else None)
    y = np.load(folder / "y.npy")
    if spec["mmap"]:
        # Bring every page of X in now, so that the baseline holds X as it does
        # without --mmap, and the growth is only what fit adds.
        float(np.sum(X, dtype=np.float64))
    # A first fit on a few rows loads whatever the library imports lazily and
    # starts its threads, which would otherwise count as the growth of fit.
    clone = type(forest)(**forest.get_params())
    clone.fit(np.ascontiguousarray(X[:200]), y[:200])
    del clone
    baseline = _status_bytes("VmRSS")
    reset = baseline is not None and _reset_high_water_mark()
    start = time.perf_counter()
    forest.fit(X, y)
    seconds = time.perf_counter() - start
    if reset:
        peak, method = _status_bytes("VmHWM"), "VmHWM"
    else:
        peak, method = _max_rss_bytes(), "ru_maxrss"
        if baseline is None:
            # No /proc at all: ru_maxrss before fit is as close to a baseline as there is.
            baseline = peak
    kept = _status_bytes("VmRSS")
    params = {key: value for key, value in forest.get_params().items()
              if key in ("splitter", "max_bins", "min_bin_size")}
    result = {"library": spec["library"], "fit_seconds": seconds, "baseline_bytes": baseline,
              "peak_bytes": peak, "growth_bytes": peak - baseline,
              "kept_bytes": None if kept is None else kept - baseline,
              "x_bytes": int(X.nbytes), "method": method, "params": params}
    print(_PREFIX + json.dumps(result), flush=True)
    return result


def run_child(spec, timeout=None):
    """Run :func:`child` in a fresh interpreter; its result, or a dict with 'error'."""
    command = [sys.executable, str(Path(__file__).resolve()), "--child", json.dumps(spec)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"library": spec["library"], "error": f"timed out after {timeout} s"}
    for line in done.stdout.splitlines():
        if line.startswith(_PREFIX):
            return json.loads(line[len(_PREFIX):])
    return {"library": spec["library"],
            "error": f"exit {done.returncode}: {done.stderr.strip()[-500:]}"}


def main(argv=None):
    """Measure every library, print a table and return its rows.

    Returns
    -------
    list of dict
        One per library in the order run: what :func:`child` returns, or
        'library' and 'skipped' (why) or 'error'.
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-samples", type=int, default=200_000)
    parser.add_argument("--n-features", type=int, default=50)
    parser.add_argument("--n-estimators", type=int, default=20)
    parser.add_argument("--min-samples-leaf", type=int, default=1)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--max-bins", type=int, default=None,
                        help="fasttree-hist's max_bins (default: its own, 255)")
    parser.add_argument("--regression", action="store_true")
    parser.add_argument("--libraries", nargs="+", choices=LIBRARIES, default=list(LIBRARIES[:3]),
                        help="default: %(default)s")
    parser.add_argument("--sklearn", action="store_true", help="add scikit-learn")
    parser.add_argument("--mmap", action="store_true",
                        help="children memory-map X (read-only) instead of reading it")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds one library's child may take")
    parser.add_argument("--tmpdir", default=None,
                        help="where the .npy files go (default: the system's temporary folder)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        return child(json.loads(args.child))
    libraries = list(args.libraries)
    if args.sklearn and "sklearn" not in libraries:
        libraries.append("sklearn")

    from compare import make_data

    task = "regression" if args.regression else "classification"
    rows = []
    with tempfile.TemporaryDirectory(prefix="fasttree-memory-", dir=args.tmpdir) as folder:
        X, y = make_data(task, args.n_samples, args.n_features)
        x_bytes = X.nbytes
        np.save(Path(folder) / "X.npy", X)
        np.save(Path(folder) / "y.npy", y)
        del X, y
        print(f"forest {task}: {args.n_samples} x {args.n_features} float32 "
              f"(X {x_bytes / 1e9:.3f} GB{', memory-mapped' if args.mmap else ''}), "
              f"{args.n_estimators} trees, min_samples_leaf={args.min_samples_leaf}, "
              f"n_jobs={args.n_jobs}, fit on all rows; one child process per library; "
              f"growth = peak resident memory during fit - resident memory with X loaded")
        for library in libraries:
            if library == "onedal" and importlib.util.find_spec("sklearnex") is None:
                rows.append({"library": library,
                             "skipped": "scikit-learn-intelex is not installed"})
                continue
            spec = {"library": library, "folder": folder, "mmap": args.mmap,
                    "regression": args.regression, "n_estimators": args.n_estimators,
                    "min_samples_leaf": args.min_samples_leaf, "n_jobs": args.n_jobs,
                    "max_bins": args.max_bins}
            rows.append(run_child(spec, args.timeout))
    print()
    print(f"{'library':<16}{'fit s':>9}{'growth GB':>11}{'x X':>7}{'kept GB':>9}"
          f"{'baseline GB':>13}  measured by, parameters")
    for row in rows:
        if "growth_bytes" not in row:
            print(f"{row['library']:<16}  {row.get('skipped') or row.get('error')}")
            continue
        kept = "" if row["kept_bytes"] is None else f"{row['kept_bytes'] / 1e9:.3f}"
        params = ", ".join(f"{key}={value}" for key, value in sorted(row["params"].items()))
        print(f"{row['library']:<16}{row['fit_seconds']:>9.2f}{row['growth_bytes'] / 1e9:>11.3f}"
              f"{row['growth_bytes'] / row['x_bytes']:>7.2f}{kept:>9}"
              f"{row['baseline_bytes'] / 1e9:>13.3f}  {row['method']}"
              + (f", {params}" if params else ""))
    return rows


if __name__ == "__main__":
    main()
