"""Fit time on tied values (integer, coded, rounded columns) against scikit-learn.

Usage (from the repository root, with fasttree and scikit-learn installed)::

    python bench/compare_ties.py                  # the whole grid and the letter stand-ins
    python bench/compare_ties.py --quick          # 26 classes x 16 levels and the stand-ins
    python bench/compare_ties.py --classes 26 --levels 16 --repeats 5

Data: ``make_classification(n_samples, 16 features, 10 informative,
n_classes)`` with every feature quantised to ``levels`` equal-count levels
(integers 0 .. levels-1, so a feature has at most ``levels`` distinct values),
and the same data with uniform noise in [0, 0.5) added (every value distinct:
the continuous case). The letter stand-ins: 26 classes quantised to 16 levels
(UCI letter: 20,000 x 16 integer features 0..15) and scikit-learn's
``load_digits`` (1,797 x 64, values 0..16, 10 classes).

For each data set: one fully grown tree and a forest of 50 trees (sqrt
features, one thread), fasttree and scikit-learn fitting in turns; median of
``--repeats`` runs. Ratios are fasttree / scikit-learn.
"""

import argparse

import numpy as np

import fasttree
from timing import median_times


def quantised(n_samples, n_classes, levels, seed=0):
    """make_classification with each feature cut into ``levels`` equal-count levels."""
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=n_samples, n_features=16, n_informative=10,
                               n_redundant=2, n_classes=n_classes, n_clusters_per_class=1,
                               random_state=seed)
    edges = np.quantile(X, np.linspace(0, 1, levels + 1)[1:-1], axis=0)
    codes = np.column_stack([np.searchsorted(edges[:, j], X[:, j]) for j in range(16)])
    return codes.astype(np.float64), y


def with_noise(X, seed=0):
    return X + np.random.default_rng(seed).uniform(0.0, 0.5, size=X.shape)


# The table's columns: name, width, and how a value is written. Every column after the
# first is right-aligned and wider than anything it holds, so no two cells touch.
COLUMNS = [("data", 40, ""), ("tree ft", 10, ".3f"), ("sk", 10, ".3f"), ("ratio", 8, ".2f"),
           ("forest ft", 12, ".2f"), ("sk", 10, ".2f"), ("ratio", 8, ".2f")]


def table_header():
    """The table's first line: each column's name, aligned as its values are."""
    return "".join(f"{name:<{width}}" if not spec else f"{name:>{width}}"
                   for name, width, spec in COLUMNS)


def table_row(label, tree, forest):
    """A line of the table: the data's label, then the (fasttree, scikit-learn) seconds
    of the tree and of the forest, each pair followed by its ratio."""
    values = [label, tree[0], tree[1], tree[0] / tree[1], forest[0], forest[1],
              forest[0] / forest[1]]
    return "".join(f"{value:<{width}}" if not spec else f"{value:>{width}{spec}}"
                   for value, (_, width, spec) in zip(values, COLUMNS))


def compare(label, X, y, repeats, n_estimators):
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier

    tree = median_times(lambda: fasttree.DecisionTreeClassifier(random_state=0).fit(X, y),
                        lambda: DecisionTreeClassifier(random_state=0).fit(X, y), repeats)
    forest = median_times(
        lambda: fasttree.RandomForestClassifier(n_estimators=n_estimators, n_jobs=1,
                                                random_state=0).fit(X, y),
        lambda: RandomForestClassifier(n_estimators=n_estimators, n_jobs=1,
                                       random_state=0).fit(X, y), repeats)
    print(table_row(label, tree, forest), flush=True)
    return {"data": label.strip(), "tree": tree[0] / tree[1], "forest": forest[0] / forest[1]}


def main(argv=None):
    """Run the comparison, print a table of seconds and ratios, and return the
    ratios as rows of 'data', 'tree' and 'forest' (and 'classes' and 'levels'
    for the grid's rows)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-samples", type=int, default=20_000)
    parser.add_argument("--n-estimators", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--classes", type=int, nargs="*", default=[2, 10, 26, 100])
    parser.add_argument("--levels", type=int, nargs="*", default=[2, 16, 256])
    parser.add_argument("--quick", action="store_true",
                        help="only 26 classes x 16 levels, its noisy twin and the stand-ins")
    args = parser.parse_args(argv)

    import sklearn
    from sklearn.datasets import load_digits

    print(f"{args.n_samples} x 16, fasttree {fasttree.__version__}, scikit-learn "
          f"{sklearn.__version__}; median of {args.repeats}; forest: "
          f"{args.n_estimators} trees, 1 thread")
    print(table_header())
    rows = []
    grid = [(26, 16)] if args.quick else [(c, k) for c in args.classes for k in args.levels]
    for n_classes, levels in grid:
        X, y = quantised(args.n_samples, n_classes, levels)
        row = compare(f"{n_classes} classes, {levels} levels", X, y, args.repeats,
                      args.n_estimators)
        rows.append({**row, "classes": n_classes, "levels": levels})
    X, y = quantised(args.n_samples, 26, 16)
    X2, y2 = quantised(args.n_samples, 2, 16)
    digits = load_digits()
    for label, X_case, y_case in (
            ("letter stand-in (26 classes, 16 levels)", X, y),
            ("  the same + noise in [0, 0.5)", with_noise(X), y),
            ("2 classes, 16 levels + noise", with_noise(X2), y2),
            ("load_digits (1797 x 64, 0..16)", digits.data, digits.target)):
        rows.append(compare(label, X_case, y_case, args.repeats, args.n_estimators))
    return rows


if __name__ == "__main__":
    main()
