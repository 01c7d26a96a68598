"""``python -m fasttree``: the command line (train, predict, evaluate, show;
see ``python -m fasttree --help``), and without a command the demo.

The demo trains a :class:`fasttree.DecisionTreeClassifier` on the Breast
Cancer Wisconsin (Original) data (a fixed, shuffled 70/30 split) and prints
test accuracy, timings and the size of the tree.
"""

import argparse
import sys
import time

import numpy as np

import fasttree
from fasttree import DecisionTreeClassifier
from fasttree.datasets import (
    BREAST_CANCER_WISCONSIN_CITATION,
    load_breast_cancer_wisconsin,
)


def main(argv=None):
    """Run a command, or the demo; ``argv`` defaults to the command line."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in ("train", "predict", "evaluate", "show", "-h", "--help"):
        from fasttree._cli import run
        return run(argv)
    if argv and argv[0] == "demo":
        argv = argv[1:]
    return demo(argv)


def demo(argv):
    """The demo: a tree fitted on the bundled breast cancer data."""
    parser = argparse.ArgumentParser(
        prog="python -m fasttree demo",
        description="Fit a fasttree decision tree on the bundled breast cancer data.",
    )
    parser.add_argument(
        "--max-depth", type=int, default=None, metavar="N",
        help="maximum depth of the tree (default: grow until leaves are pure)",
    )
    args = parser.parse_args(argv)

    X, y, _ = load_breast_cancer_wisconsin()
    # A fixed seed so that every run, on every machine, shows the same split.
    order = np.random.default_rng(0).permutation(len(y))
    n_train = int(round(0.7 * len(y)))
    train, test = order[:n_train], order[n_train:]

    tree = DecisionTreeClassifier(max_depth=args.max_depth, random_state=0)
    start = time.perf_counter()
    tree.fit(X[train], y[train])
    fit_ms = (time.perf_counter() - start) * 1e3
    start = time.perf_counter()
    predicted = tree.predict(X[test])
    predict_ms = (time.perf_counter() - start) * 1e3
    accuracy = float(np.mean(predicted == y[test]))

    print(f"fasttree {fasttree.__version__}: DecisionTreeClassifier(max_depth={args.max_depth})")
    print(f"data:     {BREAST_CANCER_WISCONSIN_CITATION}")
    print(f"samples:  {len(train)} train, {len(test)} test, {X.shape[1]} features")
    print(f"accuracy: {accuracy:.4f} on the test set")
    print(f"time:     fit {fit_ms:.2f} ms, predict {predict_ms:.2f} ms")
    print(f"tree:     depth {tree.get_depth()}, {tree.get_n_leaves()} leaves")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
