"""Time fasttree's AdaBoost against scikit-learn's, side by side in one process.

Usage (from the repository root, with fasttree and scikit-learn installed)::

    python bench/compare_boosting.py                    # 200 stumps, 100k x 50
    python bench/compare_boosting.py --n-estimators 50 --repeats 3

Both boost ``DecisionTreeClassifier(max_depth=1)`` stumps with SAMME on
``make_classification(n_samples, n_features, random_state=0)`` with its
default informative features (X float32),
fit on a fixed shuffled 80% and scored on the other 20%. scikit-learn sorts
every feature again in every round; fasttree sorts once per fit. Fit times
are medians of ``--repeats`` runs, the libraries taking turns; the ratio is
fasttree / scikit-learn.
"""

import argparse
import statistics

import numpy as np

import fasttree
from compare import holdout_split
from timing import timed


def main(argv=None):
    """Run the comparison, print a table and return it: (fasttree,
    scikit-learn) pairs of 'fit' seconds and test 'accuracy'."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-samples", type=int, default=100_000)
    parser.add_argument("--n-features", type=int, default=50)
    parser.add_argument("--n-estimators", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args(argv)

    import sklearn
    from sklearn.datasets import make_classification
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.tree import DecisionTreeClassifier

    X, y = make_classification(n_samples=args.n_samples, n_features=args.n_features,
                               random_state=0)
    X = X.astype(np.float32)
    X_train, X_test, y_train, y_test = holdout_split(X, y)
    factories = {
        "fasttree": lambda: fasttree.AdaBoostClassifier(n_estimators=args.n_estimators),
        "sklearn": lambda: AdaBoostClassifier(estimator=DecisionTreeClassifier(max_depth=1),
                                              n_estimators=args.n_estimators, random_state=0),
    }
    print(f"AdaBoost, {args.n_estimators} stumps: {args.n_samples} x {args.n_features} "
          f"float32, fit on {len(y_train)} rows, median of {args.repeats}; fasttree "
          f"{fasttree.__version__}, scikit-learn {sklearn.__version__}")
    seconds = {name: [] for name in factories}
    models = {}
    for _ in range(args.repeats):
        for name, factory in factories.items():
            elapsed, models[name] = timed(lambda: factory().fit(X_train, y_train))
            seconds[name].append(elapsed)
    ours, theirs = (statistics.median(seconds[name]) for name in ("fasttree", "sklearn"))
    print(f"{'':<18}{'fasttree':>12}{'sklearn':>12}{'ratio':>8}")
    print(f"{'fit s':<18}{ours:>12.3f}{theirs:>12.3f}{ours / theirs:>8.3f}")
    accuracies = [float(np.mean(models[name].predict(X_test) == y_test))
                  for name in ("fasttree", "sklearn")]
    print(f"{'test accuracy':<18}{accuracies[0]:>12.4f}{accuracies[1]:>12.4f}")
    print(f"{'estimators':<18}{len(models['fasttree'].estimators_):>12d}"
          f"{len(models['sklearn'].estimators_):>12d}")
    return {"fit": (ours, theirs), "accuracy": tuple(accuracies)}


if __name__ == "__main__":
    main()
