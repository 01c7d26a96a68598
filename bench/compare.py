"""Time fasttree against scikit-learn side by side, in one process.

Usage (from the repository root, with fasttree and scikit-learn installed)::

    python bench/compare.py                    # full-depth classifier, 100k x 50
    python bench/compare.py --regression       # full-depth regressor
    python bench/compare.py --n-samples 20000 --repeats 5 --criterion entropy
    python bench/compare.py --splitter hist    # fasttree's histogram splitter (255 bins)

The data come from ``make_classification`` / ``make_regression`` with
``random_state=0`` and X cast to float32. Both libraries fit on all rows and
predict all rows (five calls after each fit), taking turns, ``--repeats``
times; the medians are shown.
The test score comes from one more, untimed fit on a fixed shuffled 80% of
the rows, scored on the other 20%. Ratios are fasttree / scikit-learn, so
below 1 means fasttree is faster.

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
        fasttree=lambda a: fasttree.DecisionTreeClassifier(criterion=a.criterion,
                                                           splitter=a.splitter, random_state=0),
        sklearn=_sk_tree_classifier,
        default_criterion="gini",
    ),
    Case(
        name="tree-regressor",
        task="regression",
        fasttree=lambda a: fasttree.DecisionTreeRegressor(criterion=a.criterion,
                                                          splitter=a.splitter, random_state=0),
        sklearn=_sk_tree_regressor,
        default_criterion="squared_error",
    ),
]


def make_data(task, n_samples, n_features):
    """Return ``X, y`` for ``task``; X is float32."""
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
    return X.astype(np.float32), y


def holdout_split(X, y, test_fraction=0.2):
    """A fixed shuffled split: ``X_train, X_test, y_train, y_test``."""
    order = np.random.default_rng(0).permutation(len(y))
    n_test = int(round(test_fraction * len(y)))
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


def time_once(factory, args, X, y, predict_calls=5):
    """Fit on all of X, then predict all of X a few times.

    Returns (fit seconds, median predict seconds, model).
    """
    model = factory(args)
    start = time.perf_counter()
    model.fit(X, y)
    fit_seconds = time.perf_counter() - start
    predict_seconds = []
    for _ in range(predict_calls):
        start = time.perf_counter()
        model.predict(X)
        predict_seconds.append(time.perf_counter() - start)
    return fit_seconds, statistics.median(predict_seconds), model


def held_out_score(factory, args, task, X, y):
    """Score of a model fitted on 80% of the rows, on the other 20% (untimed)."""
    X_train, X_test, y_train, y_test = holdout_split(X, y)
    return score(task, y_test, factory(args).fit(X_train, y_train).predict(X_test))


def _fmt(value, spec):
    return "n/a" if value is None else format(value, spec)


def main(argv=None):
    """Run one case, print a table of times, scores and tree sizes, and return
    them: ``{'case', 'criterion', 'fasttree', 'sklearn'}``, each library's entry
    a dict of 'fit', 'predict' (seconds), 'score', 'nodes' and 'depth' (the
    peer's is None when it has no equivalent)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", choices=[c.name for c in CASES], default=CASES[0].name,
                        help="estimator pair to compare (default: %(default)s)")
    parser.add_argument("--regression", action="store_true",
                        help="shorthand for --case tree-regressor")
    parser.add_argument("--n-samples", type=int, default=100_000, metavar="N",
                        help="rows generated (default: %(default)s)")
    parser.add_argument("--n-features", type=int, default=50, metavar="D",
                        help="columns (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=3, metavar="R",
                        help="timed runs per library; the median is shown (default: %(default)s)")
    parser.add_argument("--criterion", default=None,
                        help="default: gini (classification), squared_error (regression)")
    parser.add_argument("--splitter", choices=["best", "hist"], default="best",
                        help="fasttree's splitter; scikit-learn's trees search every "
                             "threshold (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.regression:
        args.case = "tree-regressor"
    case = next(c for c in CASES if c.name == args.case)
    if args.criterion is None:
        args.criterion = case.default_criterion

    import sklearn

    X, y = make_data(case.task, args.n_samples, args.n_features)
    print(f"case {case.name}, criterion={args.criterion}: "
          f"{args.n_samples} x {args.n_features} float32; fit and predict on all rows, "
          f"median of {args.repeats} runs, the libraries taking turns; test score from a "
          f"separate fit on 80% of the rows")
    print(f"fasttree {fasttree.__version__}, scikit-learn {sklearn.__version__}, "
          f"numpy {np.__version__}, Python {platform.python_version()}")

    factories = {"fasttree": case.fasttree}
    if case.sklearn(args) is not None:
        factories["sklearn"] = case.sklearn
    else:
        print(f"scikit-learn has no equivalent of criterion={args.criterion!r}; skipped")
    times = {name: {"fit": [], "predict": []} for name in factories}
    results = {}
    # Alternating runs share the machine's slow and fast moments fairly.
    for _ in range(args.repeats):
        for name, factory in factories.items():
            fit_seconds, predict_seconds, model = time_once(factory, args, X, y)
            times[name]["fit"].append(fit_seconds)
            times[name]["predict"].append(predict_seconds)
            results[name] = model
    summary = {}
    for name, factory in factories.items():
        summary[name] = {
            "fit": statistics.median(times[name]["fit"]),
            "predict": statistics.median(times[name]["predict"]),
            "score": held_out_score(factory, args, case.task, X, y),
            "nodes": count_nodes(results[name]),
            "depth": results[name].get_depth() if hasattr(results[name], "get_depth") else None,
        }
    ours, peer = summary["fasttree"], summary.get("sklearn")

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
    return {"case": case.name, "criterion": args.criterion, "fasttree": ours, "sklearn": peer}


if __name__ == "__main__":
    main()
