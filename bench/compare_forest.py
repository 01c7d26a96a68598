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

import fasttree
from compare import holdout_split, make_data, score
from timing import median_time, median_times, timed


def main(argv=None):
    """Run the comparison, print a table and return it: a dict of (fasttree,
    scikit-learn) pairs 'fit', 'predict_all', 'predict_one' (seconds),
    'pickle_bytes' and 'score', fasttree's fit 'speedup' from 1 to 2 threads, and
    the data's 'n_samples' and 'n_features'."""
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
    result = {
        "n_samples": args.n_samples, "n_features": args.n_features,
        "fit": (statistics.median(fits["fasttree"]), statistics.median(fits["sklearn"])),
        "predict_all": median_times(lambda: getattr(ours, predict_all)(X),
                                    lambda: getattr(peer, predict_all)(X), 9),
        # A row after row, as a service predicts: each library's calls run
        # back to back, so its trees are in cache.
        "predict_one": (median_time(lambda: ours.predict(X[:1]), 50),
                        median_time(lambda: peer.predict(X[:1]), 50)),
        "pickle_bytes": (len(pickle.dumps(ours)), len(pickle.dumps(peer))),
        "score": (score(task, y_test, ours.predict(X_test)),
                  score(task, y_test, peer.predict(X_test))),
        "speedup": statistics.median(fits["fasttree_1_thread"])
        / statistics.median(fits["fasttree"]),
    }
    metric = "R^2" if args.regression else "accuracy"
    print()
    print(f"{'':<28}{'fasttree':>12}{'sklearn':>12}{'ratio':>8}")
    for label, key, scale in (("fit s", "fit", 1), (f"{predict_all} s, {len(y)} rows",
                                                    "predict_all", 1),
                              ("predict ms, 1 row", "predict_one", 1e3),
                              ("pickle MB", "pickle_bytes", 1e-6), (f"test {metric}", "score", 1)):
        mine, theirs = result[key]
        print(f"{label:<28}{mine * scale:>12.4f}{theirs * scale:>12.4f}{mine / theirs:>8.3f}")
    print(f"fasttree speedup from n_jobs=1 to n_jobs=2: {result['speedup']:.2f}x")
    return result


if __name__ == "__main__":
    main()
