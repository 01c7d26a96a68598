"""Time fasttree against scikit-learn side by side, in one process.

Usage (from the repository root, with fasttree and scikit-learn installed)::

    python bench/compare.py                    # full-depth classifier, 100k x 50
    python bench/compare.py --regression       # full-depth regressor
    python bench/compare.py --n-samples 20000 --repeats 5 --criterion entropy

The data come from ``make_classification`` / ``make_regression`` with
``random_state=0`` and X cast to float32. A fixed, shuffled 80/20 split is
made: both libraries fit on the 80% and predict the held-out 20%, which gives
the test score; fit and predict times are the median of ``--repeats`` runs.
Ratios are fasttree / scikit-learn, so below 1 means fasttree is faster.

To add an estimator (a forest, AdaBoost, ...), append a ``Case`` to ``CASES``.
"""

import argparse
import platform
import statistics
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

import fasttree


@dataclass
class Case:
    """One side-by-side comparison.

    Parameters
    ----------
    name : str
        Name given on the command line with ``--case``.
    task : {'classification', 'regression'}
        Chooses the data set and the score (accuracy or R^2).
    fasttree : callable
        ``fasttree(args)`` returns an unfitted fasttree estimator.
    sklearn : callable
        ``sklearn(args)`` returns the scikit-learn peer, or None when the
        peer has no equivalent of the requested options.
    default_criterion : str
        Criterion used when ``--criterion`` is not given.
    """

    name: str
    task: str
    fasttree: Callable
    sklearn: Callable
    default_criterion: str


def _sk_tree_classifier(args):
    from sklearn.tree import DecisionTreeClassifier

    # scikit-learn has no misclassification-error criterion.
    if args.criterion not in ("gini", "entropy"):
        return None
    return DecisionTreeClassifier(criterion=args.criterion, random_state=0)


def _sk_tree_regressor(args):
    from sklearn.tree import DecisionTreeRegressor

    return DecisionTreeRegressor(criterion=args.criterion, random_state=0)


CASES = [
    Case(
        name="tree-classifier",
        task="classification",
        fasttree=lambda a: fasttree.DecisionTreeClassifier(criterion=a.criterion, random_state=0),
        sklearn=_sk_tree_classifier,
        default_criterion="gini",
    ),
    Case(
        name="tree-regressor",
        task="regression",
        fasttree=lambda a: fasttree.DecisionTreeRegressor(criterion=a.criterion, random_state=0),
        sklearn=_sk_tree_regressor,
        default_criterion="squared_error",
    ),
]


def make_data(task, n_samples, n_features, test_fraction=0.2):
    """Return ``X_train, X_test, y_train, y_test`` for ``task``; X is float32."""
    from sklearn.datasets import make_classification, make_regression

    # 20 informative at the default 50 features, as in the project notes;
    # fewer for narrow data so that make_classification accepts the shape.
    informative = min(20, n_features // 2)
    if task == "classification":
        X, y = make_classification(
            n_samples=n_samples, n_features=n_features,
            n_informative=informative, random_state=0,
        )
    else:
        X, y = make_regression(
            n_samples=n_samples, n_features=n_features,
            n_informative=informative, noise=1.0, random_state=0,
        )
    X = X.astype(np.float32)
    order = np.random.default_rng(0).permutation(n_samples)
    n_test = int(round(test_fraction * n_samples))
    test, train = order[:n_test], order[n_test:]
    return X[train], X[test], y[train], y[test]


def score(task, y_true, y_pred):
    """Accuracy for classification, R^2 for regression."""
    if task == "classification":
        return float(np.mean(y_true == y_pred))
    residual = np.sum((y_true - y_pred) ** 2)
    total = np.sum((y_true - np.mean(y_true)) ** 2)
    return float(1.0 - residual / total)


def count_nodes(model):
    """Total nodes of a fitted tree, or of all trees of an ensemble."""
    members = getattr(model, "estimators_", None)
    if members is not None:
        return sum(count_nodes(m) for m in np.ravel(members))
    # Both libraries grow binary trees, where nodes = 2 * leaves - 1.
    return 2 * model.get_n_leaves() - 1


def run(factory, args, data, task):
    """Fit and predict ``--repeats`` times; return medians, score and size."""
    X_train, X_test, y_train, y_test = data
    fit_s, predict_s = [], []
    for _ in range(args.repeats):
        model = factory(args)
        start = time.perf_counter()
        model.fit(X_train, y_train)
        fit_s.append(time.perf_counter() - start)
        start = time.perf_counter()
        predicted = model.predict(X_test)
        predict_s.append(time.perf_counter() - start)
    return {
        "fit": statistics.median(fit_s),
        "predict": statistics.median(predict_s),
        "score": score(task, y_test, predicted),
        "nodes": count_nodes(model),
        "depth": model.get_depth(),
    }


def _fmt(value, spec):
    return "n/a" if value is None else format(value, spec)


def main(argv=None):
    """Run one case and print a table of times, scores and tree sizes."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", choices=[c.name for c in CASES], default=CASES[0].name,
                        help="estimator pair to compare (default: %(default)s)")
    parser.add_argument("--regression", action="store_true",
                        help="shorthand for --case tree-regressor")
    parser.add_argument("--n-samples", type=int, default=100_000, metavar="N",
                        help="rows generated, 20%% held out (default: %(default)s)")
    parser.add_argument("--n-features", type=int, default=50, metavar="D",
                        help="columns (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=3, metavar="R",
                        help="timed runs per library; the median is shown (default: %(default)s)")
    parser.add_argument("--criterion", default=None,
                        help="default: gini (classification), squared_error (regression)")
    args = parser.parse_args(argv)
    if args.regression:
        args.case = "tree-regressor"
    case = next(c for c in CASES if c.name == args.case)
    if args.criterion is None:
        args.criterion = case.default_criterion

    import sklearn

    data = make_data(case.task, args.n_samples, args.n_features)
    n_train, n_test = len(data[0]), len(data[1])
    print(f"case {case.name}, criterion={args.criterion}: "
          f"{args.n_samples} x {args.n_features} float32, "
          f"fit on {n_train} rows, predict + score on {n_test} held-out rows, "
          f"median of {args.repeats}")
    print(f"fasttree {fasttree.__version__}, scikit-learn {sklearn.__version__}, "
          f"numpy {np.__version__}, Python {platform.python_version()}")

    ours = run(case.fasttree, args, data, case.task)
    peer = None
    if case.sklearn(args) is not None:
        peer = run(case.sklearn, args, data, case.task)
    else:
        print(f"scikit-learn has no equivalent of criterion={args.criterion!r}; skipped")

    metric = "accuracy" if case.task == "classification" else "R^2"
    rows = [
        ("fit s", "fit", ".3f"),
        ("predict s", "predict", ".4f"),
        (f"test {metric}", "score", ".4f"),
        ("nodes", "nodes", "d"),
        ("depth", "depth", "d"),
    ]
    print()
    print(f"{'':<16}{'fasttree':>12}{'sklearn':>12}{'ratio':>8}")
    for label, key, spec in rows:
        theirs = None if peer is None else peer[key]
        ratio = None
        if key in ("fit", "predict") and theirs:
            ratio = ours[key] / theirs
        print(f"{label:<16}{_fmt(ours[key], spec):>12}{_fmt(theirs, spec):>12}"
              f"{_fmt(ratio, '.2f') if ratio is not None else '':>8}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
