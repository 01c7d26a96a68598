"""Time fasttree's random forest against scikit-learn's, side by side in one process.

Usage (from the repository root, with fasttree and scikit-learn installed)::

    python bench/compare_forest.py                       # 100k x 50, 100 trees
    python bench/compare_forest.py --n-samples 10000 --n-features 500   # wide data
    python bench/compare_forest.py --regression

Both forests use ``max_features='sqrt'`` (classification; 1.0 for regression),
``n_estimators`` trees and ``n_jobs=2``, and fit on a fixed shuffled 80% of
the rows. Each repeat, the libraries take turns; fasttree is also fitted
with ``n_jobs=1`` to give its speedup from one thread to two. Reported:
median fit time, ``predict_proba`` (or ``predict``) time on all rows (nine
calls, the libraries taking turns), one-row predict time (fifty calls back
to back, as a service would make them), test score on the other 20%, and
pickled size. Ratios are fasttree / scikit-learn.
"""

import argparse
import pickle
import statistics
import time


import fasttree
from compare import holdout_split, make_data, score


def timed(function):
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def median_time(function, calls):
    return statistics.median(timed(function)[0] for _ in range(calls))


def median_times(ours, theirs, calls):
    """Median seconds of each function, the calls taking turns so that a burst
    of noise on this shared machine falls on both."""
    times = [(timed(ours)[0], timed(theirs)[0]) for _ in range(calls)]
    return tuple(statistics.median(pair[side] for pair in times) for side in (0, 1))


def main(argv=None):
    """Run the comparison and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-samples", type=int, default=100_000)
    parser.add_argument("--n-features", type=int, default=50)
    parser.add_argument("--n-estimators", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--regression", action="store_true")
    args = parser.parse_args(argv)

    import sklearn
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

    task = "regression" if args.regression else "classification"
    X, y = make_data(task, args.n_samples, args.n_features)
    X_train, X_test, y_train, y_test = holdout_split(X, y)
    ours_class = fasttree.RandomForestRegressor if args.regression else \
        fasttree.RandomForestClassifier
    peer_class = RandomForestRegressor if args.regression else RandomForestClassifier
    max_features = 1.0 if args.regression else "sqrt"

    def build(cls, n_jobs):
        return cls(n_estimators=args.n_estimators, max_features=max_features, n_jobs=n_jobs,
                   random_state=0)

    print(f"forest {task}: {args.n_samples} x {args.n_features} float32, "
          f"{args.n_estimators} trees, fit on {len(y_train)} rows, median of "
          f"{args.repeats}; fasttree {fasttree.__version__}, scikit-learn {sklearn.__version__}")
    fits = {"fasttree": [], "sklearn": [], "fasttree_1_thread": []}
    models = {}
    for _ in range(args.repeats):
        for name, cls, n_jobs in (("fasttree", ours_class, 2), ("sklearn", peer_class, 2),
                                  ("fasttree_1_thread", ours_class, 1)):
            seconds, model = timed(lambda: build(cls, n_jobs).fit(X_train, y_train))
            fits[name].append(seconds)
            models[name] = model
    ours, peer = models["fasttree"], models["sklearn"]
    ours.set_params(n_jobs=2)
    predict_all = "predict" if args.regression else "predict_proba"
    rows = {
        "fit s": (statistics.median(fits["fasttree"]), statistics.median(fits["sklearn"])),
        f"{predict_all} s, {len(y)} rows": median_times(
            lambda: getattr(ours, predict_all)(X), lambda: getattr(peer, predict_all)(X), 9),
        # A row after row, as a service predicts: each library's calls run
        # back to back, so its trees are in cache (see the README).
        "predict ms, 1 row": (1e3 * median_time(lambda: ours.predict(X[:1]), 50),
                              1e3 * median_time(lambda: peer.predict(X[:1]), 50)),
        "pickle MB": (len(pickle.dumps(ours)) / 1e6, len(pickle.dumps(peer)) / 1e6),
    }
    print()
    print(f"{'':<28}{'fasttree':>12}{'sklearn':>12}{'ratio':>8}")
    for label, (mine, theirs) in rows.items():
        print(f"{label:<28}{mine:>12.4f}{theirs:>12.4f}{mine / theirs:>8.3f}")
    metric = "R^2" if args.regression else "accuracy"
    print(f"{'test ' + metric:<28}{score(task, y_test, ours.predict(X_test)):>12.4f}"
          f"{score(task, y_test, peer.predict(X_test)):>12.4f}")
    speedup = statistics.median(fits["fasttree_1_thread"]) / statistics.median(fits["fasttree"])
    print(f"fasttree speedup from n_jobs=1 to n_jobs=2: {speedup:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
