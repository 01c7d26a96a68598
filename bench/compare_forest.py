"""Time fasttree's random forest against scikit-learn's and oneDAL's, side by side in one process.

Usage (from the repository root, with fasttree and scikit-learn installed;
oneDAL's column needs scikit-learn-intelex, in the ``bench`` extra)::

    python bench/compare_forest.py                       # 100k x 50, 100 trees (W2)
    python bench/compare_forest.py --splitter hist       # W2 with fasttree's binned splitter
    python bench/compare_forest.py --n-samples 10000 --n-features 500   # wide data
    python bench/compare_forest.py --regression --n-features 20 --n-estimators 50   # W3
    python bench/compare_forest.py --n-samples 1250000 --n-estimators 20 \\
        --min-samples-leaf 5 --splitter hist --skip-sklearn --skip-one-thread  # 1M to train

All forests use ``max_features='sqrt'`` (classification; 1.0 for regression),
``n_estimators`` trees, ``min_samples_leaf``, ``n_jobs=2`` and
``random_state=0``, and fit on a fixed shuffled 80% of the rows. fasttree
uses ``--splitter`` (and ``--max-bins`` with ``hist``); scikit-learn's
trees search every threshold; oneDAL (``sklearnex.ensemble``) keeps its own
binning defaults (``max_bins=256``, ``min_bin_size=1`` in 2026.2), which the
header prints as they are. Each repeat, the libraries take turns; fasttree is
also fitted with ``n_jobs=1`` to give its speedup from one thread to two
(``--skip-one-thread`` leaves that out). Reported: median fit time,
``predict_proba`` (or ``predict``) time on all rows (nine calls, fasttree
and scikit-learn taking turns), one-row predict time (fifty calls back to
back, as a service would make them), test score on the other 20% (accuracy,
or R^2) and pickled size. Ratios are fasttree / scikit-learn and, for fit,
fasttree / oneDAL. Without scikit-learn-intelex the oneDAL column is left
out; with ``--skip-sklearn`` (scikit-learn needs minutes a fit at a million
rows) scikit-learn's column is.
"""

import argparse
import logging
import pickle
import statistics
from importlib import metadata

import fasttree
from compare import holdout_split, make_data, score
from timing import median_time, median_times, timed


def onedal_classes():
    """oneDAL's ``(RandomForestClassifier, RandomForestRegressor)`` and the
    scikit-learn-intelex version, or None when it is not installed."""
    try:
        from sklearnex.ensemble import RandomForestClassifier, RandomForestRegressor
    except ImportError:
        return None
    # sklearnex.__version__ of a wheel can be a placeholder; the distribution's is real.
    return RandomForestClassifier, RandomForestRegressor, metadata.version("scikit-learn-intelex")


class _OneDALPath(logging.Filter):
    """Keeps sklearnex's own log of each call, which says whether it ran
    oneDAL ("running accelerated version") or fell back to scikit-learn's
    code, which would make its column scikit-learn's in disguise. Set on the
    "sklearnex" logger, it drops those INFO lines there (they would bury the
    table) and lets warnings through."""

    def __init__(self):
        super().__init__()
        self.messages = []

    def filter(self, record):
        if record.levelno > logging.INFO:
            return True
        self.messages.append(record.getMessage())
        return False

    def fell_back(self):
        return any(".fit:" in message and "fallback" in message
                   for message in self.messages)


def _pair_ratio(mine, theirs):
    return None if mine is None or theirs is None else mine / theirs


def _cell(value, scale=1.0, spec=".4f", width=12):
    return f"{'':>{width}}" if value is None else f"{value * scale:>{width}{spec}}"


def main(argv=None):
    """Run the comparison, print a table and return it.

    Returns
    -------
    dict
        As before oneDAL joined: (fasttree, scikit-learn) pairs 'fit',
        'predict_all', 'predict_one' (seconds), 'pickle_bytes' and 'score';
        fasttree's fit 'speedup' from 1 to 2 threads; the data's 'n_samples'
        and 'n_features'. scikit-learn's side of each pair is None with
        ``--skip-sklearn``, and 'speedup' is None with ``--skip-one-thread``.
        Beside them: 'splitter', 'max_bins' and 'min_samples_leaf' of
        fasttree's forest, 'fit_ratio' (fasttree / scikit-learn) and
        'onedal', None without scikit-learn-intelex, else a dict of 'fit'
        (median seconds), 'score', 'fit_ratio' (fasttree / oneDAL),
        'version', 'max_bins' and 'min_bin_size' (its defaults, as used) and
        'fell_back' (True when sklearnex ran scikit-learn's code for a fit).
    """
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-samples", type=int, default=100_000)
    parser.add_argument("--n-features", type=int, default=50)
    parser.add_argument("--n-estimators", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--regression", action="store_true")
    parser.add_argument("--splitter", choices=["best", "hist"], default="best",
                        help="fasttree's splitter (default: %(default)s)")
    parser.add_argument("--max-bins", type=int, default=None,
                        help="fasttree's max_bins with --splitter hist (default: its own, 255)")
    parser.add_argument("--min-samples-leaf", type=int, default=1,
                        help="for every library (default: %(default)s)")
    parser.add_argument("--skip-sklearn", action="store_true",
                        help="leave scikit-learn out (its fit takes minutes at 1M rows)")
    parser.add_argument("--skip-onedal", action="store_true",
                        help="leave oneDAL out even when scikit-learn-intelex is installed")
    parser.add_argument("--skip-one-thread", action="store_true",
                        help="leave out fasttree's n_jobs=1 fit (and so its speedup)")
    args = parser.parse_args(argv)
    if args.max_bins is not None and args.splitter != "hist":
        parser.error("--max-bins applies to --splitter hist only")

    import sklearn
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

    task = "regression" if args.regression else "classification"
    X, y = make_data(task, args.n_samples, args.n_features)
    X_train, X_test, y_train, y_test = holdout_split(X, y)
    ours_class = fasttree.RandomForestRegressor if args.regression else \
        fasttree.RandomForestClassifier
    peer_class = RandomForestRegressor if args.regression else RandomForestClassifier
    onedal = None if args.skip_onedal else onedal_classes()
    max_features = 1.0 if args.regression else "sqrt"
    ours_extra = {"splitter": args.splitter}
    if args.max_bins is not None:
        ours_extra["max_bins"] = args.max_bins

    def build(cls, n_jobs, **extra):
        return cls(n_estimators=args.n_estimators, max_features=max_features, n_jobs=n_jobs,
                   min_samples_leaf=args.min_samples_leaf, random_state=0, **extra)

    players = [("fasttree", lambda: build(ours_class, 2, **ours_extra))]
    if not args.skip_sklearn:
        players.append(("sklearn", lambda: build(peer_class, 2)))
    onedal_path = None
    if onedal is not None:
        onedal_class = onedal[1] if args.regression else onedal[0]
        players.append(("onedal", lambda: build(onedal_class, 2)))
        onedal_path = _OneDALPath()
        onedal_logger = logging.getLogger("sklearnex")
        level_before = onedal_logger.level
        onedal_logger.addFilter(onedal_path)
        onedal_logger.setLevel(logging.INFO)
    if not args.skip_one_thread:
        players.append(("fasttree_1_thread", lambda: build(ours_class, 1, **ours_extra)))

    ours_params = players[0][1]().get_params()
    described = [f"fasttree {fasttree.__version__} (splitter={args.splitter!r}"
                 + (f", max_bins={ours_params['max_bins']})" if args.splitter == "hist" else ")")]
    described.append(f"scikit-learn {sklearn.__version__}" if not args.skip_sklearn
                     else "scikit-learn skipped")
    if onedal is not None:
        onedal_params = build(onedal_class, 2).get_params()
        described.append(f"oneDAL (scikit-learn-intelex {onedal[2]}, its defaults max_bins="
                         f"{onedal_params['max_bins']}, min_bin_size="
                         f"{onedal_params['min_bin_size']})")
    else:
        described.append("oneDAL skipped" if args.skip_onedal
                         else "oneDAL skipped (scikit-learn-intelex is not installed)")
    print(f"forest {task}: {args.n_samples} x {args.n_features} float32, "
          f"{args.n_estimators} trees, max_features={max_features!r}, min_samples_leaf="
          f"{args.min_samples_leaf}, n_jobs=2, fit on {len(y_train)} rows, median of "
          f"{args.repeats}; " + ", ".join(described))
    fits = {name: [] for name, _ in players}
    models = {}
    for _ in range(args.repeats):
        for name, factory in players:
            # Drop the last repeat's model first, so that two of a large forest never
            # share the memory.
            models.pop(name, None)
            seconds, model = timed(lambda: factory().fit(X_train, y_train))
            fits[name].append(seconds)
            models[name] = model
    fit = {name: statistics.median(seconds) for name, seconds in fits.items()}
    scores = {name: score(task, y_test, models[name].predict(X_test))
              for name in ("fasttree", "sklearn", "onedal") if name in models}
    if onedal_path is not None:
        # report.py calls main more than once in a process: leave the logger as it was.
        onedal_logger.removeFilter(onedal_path)
        onedal_logger.setLevel(level_before)
    ours, peer = models["fasttree"], models.get("sklearn")
    ours.set_params(n_jobs=2)
    predict_all = "predict" if args.regression else "predict_proba"
    if peer is None:
        predict_all_times = (median_time(lambda: getattr(ours, predict_all)(X), 9), None)
        predict_one_times = (median_time(lambda: ours.predict(X[:1]), 50), None)
    else:
        predict_all_times = median_times(lambda: getattr(ours, predict_all)(X),
                                         lambda: getattr(peer, predict_all)(X), 9)
        # A row after row, as a service predicts: each library's calls run
        # back to back, so its trees are in cache.
        predict_one_times = (median_time(lambda: ours.predict(X[:1]), 50),
                             median_time(lambda: peer.predict(X[:1]), 50))
    result = {
        "n_samples": args.n_samples, "n_features": args.n_features,
        "splitter": args.splitter, "max_bins": ours_params["max_bins"],
        "min_samples_leaf": args.min_samples_leaf,
        "fit": (fit["fasttree"], fit.get("sklearn")),
        "predict_all": predict_all_times,
        "predict_one": predict_one_times,
        "pickle_bytes": (len(pickle.dumps(ours)),
                         None if peer is None else len(pickle.dumps(peer))),
        "score": (scores["fasttree"], scores.get("sklearn")),
        "speedup": None if args.skip_one_thread
        else fit["fasttree_1_thread"] / fit["fasttree"],
        "onedal": None,
    }
    result["fit_ratio"] = _pair_ratio(*result["fit"])
    if onedal is not None:
        used = models["onedal"].get_params()
        result["onedal"] = {
            "fit": fit["onedal"], "score": scores["onedal"],
            "fit_ratio": fit["fasttree"] / fit["onedal"], "version": onedal[2],
            "max_bins": used["max_bins"], "min_bin_size": used["min_bin_size"],
            "fell_back": onedal_path.fell_back(),
        }

    metric = "R^2" if args.regression else "accuracy"
    onedal_result = result["onedal"]
    print()
    header = f"{'':<28}{'fasttree':>12}{'sklearn':>12}{'ratio':>8}"
    if onedal_result is not None:
        header += f"{'oneDAL':>12}{'ft/oneDAL':>11}"
    print(header)
    for label, key, scale in (("fit s", "fit", 1), (f"{predict_all} s, {len(y)} rows",
                                                    "predict_all", 1),
                              ("predict ms, 1 row", "predict_one", 1e3),
                              ("pickle MB", "pickle_bytes", 1e-6), (f"test {metric}", "score", 1)):
        mine, theirs = result[key]
        line = (f"{label:<28}{_cell(mine, scale)}{_cell(theirs, scale)}"
                f"{_cell(_pair_ratio(mine, theirs), spec='.3f', width=8)}")
        if onedal_result is not None and key in ("fit", "score"):
            line += (f"{_cell(onedal_result[key])}"
                     f"{_cell(_pair_ratio(mine, onedal_result[key]), spec='.3f', width=11)}")
        print(line.rstrip())
    if result["speedup"] is not None:
        print(f"fasttree speedup from n_jobs=1 to n_jobs=2: {result['speedup']:.2f}x")
    if onedal_result is not None and onedal_result["fell_back"]:
        print("warning: sklearnex ran scikit-learn's code for a fit (see its log), not "
              "oneDAL's: the oneDAL column is not oneDAL")
    return result


if __name__ == "__main__":
    main()
