"""Histogram subtraction (``_node_histograms.pyx``): a child's histograms
from its parent's and its sibling's change no tree, bit for bit, and are
taken where they may be (exact sums, every feature swept at every node,
depth-first growth) and nowhere else."""

import contextlib

import numpy as np
import pytest

from fasttree import (DecisionTreeClassifier, DecisionTreeRegressor, RandomForestClassifier,
                      _splitter)
from synthetic import spread_columns, tied_columns

TREE_ARRAYS = ("children_left", "children_right", "feature", "threshold", "n_node_samples",
               "weighted_n_node_samples", "value", "impurity", "missing_go_to_left")


@contextlib.contextmanager
def subtraction(enabled):
    previous = _splitter.histogram_subtraction
    _splitter.histogram_subtraction = enabled
    try:
        yield
    finally:
        _splitter.histogram_subtraction = previous


def fit_both(make, X, y, **fit_params):
    """The estimator fitted with and without subtraction, and how many sweeps
    read kept bins in the first fit."""
    before = _splitter.kept_sweep_count()
    with subtraction(True):
        subtracted = make().fit(X, y, **fit_params)
    kept = _splitter.kept_sweep_count() - before
    with subtraction(False):
        plain = make().fit(X, y, **fit_params)
    assert _splitter.kept_sweep_count() - before == kept
    return subtracted, plain, kept


def assert_same_tree(tree, other):
    for name in TREE_ARRAYS:
        np.testing.assert_array_equal(getattr(tree, name), getattr(other, name), err_msg=name)


def labelled(n_samples, n_classes, seed, missing_share=0.1):
    """``spread_columns`` beside tied columns, and classes from all of them:
    deep nodes lose classes, so children number their bins otherwise."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([spread_columns(n_samples, seed, missing_share),
                         tied_columns(rng.normal(size=(n_samples, 3)), levels=12)])
    signal = np.nan_to_num(X[:, 0] - X[:, 2] + 0.05 * X[:, 1]) + X[:, 4] - X[:, 5]
    signal = signal + 0.7 * rng.normal(size=n_samples)
    y = np.digitize(signal, np.quantile(signal, np.linspace(0, 1, n_classes + 1)[1:-1]))
    return X, y


@pytest.mark.parametrize("splitter", ["hist", "best"])
@pytest.mark.parametrize("n_classes", [2, 5])
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("seed", range(3))
def test_subtracted_histograms_grow_the_same_tree(splitter, n_classes, criterion, seed):
    X, y = labelled(3000, n_classes, seed)
    weights = np.random.default_rng(seed).integers(1, 4, len(y)).astype(float)
    subtracted, plain, kept = fit_both(
        lambda: DecisionTreeClassifier(splitter=splitter, criterion=criterion, max_bins=64,
                                       random_state=seed),
        X, y, sample_weight=weights)
    assert kept > 0
    assert_same_tree(subtracted.tree_, plain.tree_)


@pytest.mark.parametrize("options", [
    {"class_weight": {0: 1, 1: 3}},
    {"monotonic_cst": [1, 0, 0, 0, 0, 0, 0]},
    {"min_samples_leaf": 7, "max_depth": 9},
    {"interaction_cst": [[0, 1, 4], [2, 3, 5, 6]]},
], ids=["class_weight", "monotonic", "limits", "interactions"])
def test_subtraction_changes_no_tree_under_the_growth_options(options):
    X, y = labelled(2500, 2, seed=7, missing_share=0.0)
    subtracted, plain, kept = fit_both(
        lambda: DecisionTreeClassifier(splitter="hist", random_state=0, **options), X, y)
    assert kept > 0
    assert_same_tree(subtracted.tree_, plain.tree_)


def test_subtraction_changes_no_tree_with_categorical_features():
    X, y = labelled(2500, 3, seed=3)
    X[:, 6] = np.random.default_rng(3).integers(0, 6, len(y))
    subtracted, plain, kept = fit_both(
        lambda: DecisionTreeClassifier(splitter="hist", categorical_features=[6],
                                       random_state=0), X, y)
    assert kept > 0
    assert_same_tree(subtracted.tree_, plain.tree_)


def test_a_forest_of_every_feature_subtracts_on_its_bootstrap_counts():
    X, y = labelled(2000, 3, seed=11)
    subtracted, plain, kept = fit_both(
        lambda: RandomForestClassifier(n_estimators=4, max_features=None, splitter="hist",
                                       n_jobs=2, random_state=0), X, y)
    assert kept > 0
    for tree, other in zip(subtracted.estimators_, plain.estimators_):
        assert_same_tree(tree.tree_, other.tree_)


@pytest.mark.parametrize("make, fit_params", [
    # Sums of real targets depend on their order: a difference is not a fill.
    (lambda: DecisionTreeRegressor(splitter="hist", random_state=0), {}),
    # Fractional weights likewise.
    (lambda: DecisionTreeClassifier(splitter="hist", random_state=0),
     {"sample_weight": np.linspace(0.5, 1.5, 2000)}),
    # Few features a node: its children seldom sweep what it filled.
    (lambda: DecisionTreeClassifier(splitter="hist", max_features=3, random_state=0), {}),
    # Best-first growth splits nodes out of order.
    (lambda: DecisionTreeClassifier(splitter="hist", max_leaf_nodes=60, random_state=0), {}),
], ids=["regression", "fractional_weights", "max_features", "best_first"])
def test_subtraction_is_left_alone_where_it_cannot_serve(make, fit_params):
    X, y = labelled(2000, 2, seed=5)
    subtracted, plain, kept = fit_both(make, X, y.astype(float) if "Regressor" in
                                       type(make()).__name__ else y, **fit_params)
    assert kept == 0
    assert_same_tree(subtracted.tree_, plain.tree_)


@pytest.mark.parametrize("n_jobs", [2, 3])
def test_threads_read_and_keep_the_nodes_histograms(monkeypatch, n_jobs):
    # Every node on threads: the threads sweep the bins the node's parent
    # kept and keep their own for the children, as one thread does.
    monkeypatch.setattr(_splitter, "thread_min_work", 1)
    X, y = labelled(3000, 3, seed=13)

    def make(n):
        return lambda: DecisionTreeClassifier(splitter="hist", n_jobs=n, random_state=0)

    subtracted, plain, kept = fit_both(make(n_jobs), X, y)
    assert kept > 0
    assert_same_tree(subtracted.tree_, plain.tree_)
    assert_same_tree(subtracted.tree_, make(1)().fit(X, y).tree_)
