"""Time one fully grown fasttree tree on threads against scikit-learn's tree (W1).

Usage (from the repository root, with fasttree and scikit-learn installed)::

    python bench/compare_tree_threads.py                  # W1, 2 threads, exact and hist
    python bench/compare_tree_threads.py --n-jobs 1 --repeats 5
    python bench/compare_tree_threads.py --min-work 10000 25000 50000   # the threshold rule

W1: ``make_classification`` 100,000 x 50 (20 informative), float32, a fixed
shuffled 80,000 rows to train. Each repeat fits scikit-learn's
``DecisionTreeClassifier(random_state=0)`` and fasttree's with
``n_jobs`` threads, ``splitter='best'`` and ``'hist'``, in turns in this
process, and checks that the threaded tree is the one-thread tree. Reported:
median fit times and fasttree / scikit-learn ratios (the targets of issue 30
are 0.15 for the exact splitter and 0.10 for hist, with 2 threads).
``--min-work`` times fasttree alone at other values of the splitter's
``thread_min_work`` (the least samples times features to sweep of a node
whose features are swept on threads).
"""

import argparse
import statistics

import numpy as np

import fasttree
import fasttree._splitter as splitter_module
from compare import holdout_split, make_data
from timing import timed


def same_tree(a, b):
    """Whether two fitted fasttree trees have the same arrays, bit for bit."""
    names = ("feature", "threshold", "children_left", "children_right", "value",
             "impurity", "weighted_n_node_samples")
    return all(np.array_equal(np.asarray(getattr(a.tree_, name)),
                              np.asarray(getattr(b.tree_, name))) for name in names)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=100_000)
    parser.add_argument("--n-features", type=int, default=50)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--min-work", type=int, nargs="*", default=[])
    parser.add_argument("--skip-sklearn", action="store_true")
    args = parser.parse_args(argv)

    from sklearn import __version__ as sklearn_version
    from sklearn.tree import DecisionTreeClassifier as SklearnTree

    X, y = make_data("classification", args.n_samples, args.n_features)
    X_train, _, y_train, _ = holdout_split(X, y)
    print(f"W1: {X_train.shape[0]} x {X_train.shape[1]} float32 to train; fasttree "
          f"{fasttree.__version__} with n_jobs={args.n_jobs}, scikit-learn {sklearn_version}; "
          f"median of {args.repeats}; thread_min_work="
          f"{splitter_module.thread_min_work}")

    def fit_ours(splitter, n_jobs):
        return fasttree.DecisionTreeClassifier(splitter=splitter, random_state=0,
                                               n_jobs=n_jobs).fit(X_train, y_train)

    times = {"sklearn": [], "best": [], "hist": []}
    for _ in range(args.repeats):
        if not args.skip_sklearn:
            times["sklearn"].append(timed(lambda: SklearnTree(random_state=0).fit(
                X_train, y_train))[0])
        for splitter in ("best", "hist"):
            seconds, model = timed(lambda: fit_ours(splitter, args.n_jobs))
            times[splitter].append(seconds)
    for splitter in ("best", "hist"):
        if not same_tree(fit_ours(splitter, args.n_jobs), fit_ours(splitter, 1)):
            raise SystemExit(f"error: splitter={splitter!r} grew another tree on "
                             f"{args.n_jobs} threads than on one")
    medians = {name: statistics.median(values) for name, values in times.items() if values}
    print(f"{'fit':<24}{'seconds':>10}{'/ sklearn':>12}")
    for name, label in (("sklearn", "scikit-learn"), ("best", "fasttree exact"),
                        ("hist", "fasttree hist")):
        if name not in medians:
            continue
        ratio = medians[name] / medians["sklearn"] if "sklearn" in medians else float("nan")
        print(f"{label:<24}{medians[name]:>10.3f}{ratio:>12.3f}")

    default = splitter_module.thread_min_work
    for min_work in args.min_work:
        splitter_module.thread_min_work = min_work
        row = []
        for splitter in ("best", "hist"):
            row.append(statistics.median(timed(lambda: fit_ours(splitter, args.n_jobs))[0]
                                         for _ in range(args.repeats)))
        print(f"thread_min_work={min_work:<8} exact {row[0]:.3f} s, hist {row[1]:.3f} s")
    splitter_module.thread_min_work = default
    return {"fit": medians,
            "ratios": {name: medians[name] / medians["sklearn"] for name in ("best", "hist")
                       if "sklearn" in medians}}


if __name__ == "__main__":
    main()
