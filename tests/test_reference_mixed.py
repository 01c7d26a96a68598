"""The oracle for categorical subset splits and learnt missing-value
directions (``fasttree.reference.mixed``): against scikit-learn, against
brute force over every subset, and on the rules it documents."""

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor

from fasttree.reference import impurity
from fasttree.reference.mixed import MixedSplit, best_mixed_split, build_mixed_tree
from test_sklearn_parity import spread_normal
from tolerances import assert_rounding_close, rounding_equal


def with_missing(rng, X, share):
    X = X.astype(np.float64)
    X[rng.random(X.shape) < share] = np.nan
    return X


@pytest.mark.parametrize("seed", range(4))
def test_numeric_trees_with_missing_values_are_scikit_learns(seed):
    # scikit-learn (>= 1.3) learns missing-value directions the same way.
    rng = np.random.default_rng(seed)
    X = with_missing(rng, spread_normal(rng, 300, 3), 0.15)
    y = X[:, 0] + np.sin(2 * np.nan_to_num(X[:, 1])) + rng.normal(scale=0.3, size=300)
    y = np.nan_to_num(y)
    ours = build_mixed_tree(X, y, categorical=[False] * 3, criterion="squared_error",
                            min_samples_leaf=10)
    theirs = SkRegressor(min_samples_leaf=10, random_state=0).fit(X.astype(np.float32), y)
    assert ours.node_count == theirs.tree_.node_count
    fresh = with_missing(rng, rng.normal(size=(200, 3)), 0.2)
    for rows in (X, fresh):
        assert_rounding_close(ours.predict_value(rows), theirs.predict(rows.astype(np.float32)),
                              scale=np.abs(y).max())


@pytest.mark.parametrize("seed", range(3))
def test_weighted_classification_with_missing_values_matches_scikit_learn(seed):
    rng = np.random.default_rng(seed)
    X = with_missing(rng, spread_normal(rng, 400, 3), 0.1)
    y = (np.nan_to_num(X[:, 0]) + rng.normal(scale=0.5, size=400) > 0).astype(np.intp)
    weights = rng.uniform(0.5, 2.0, size=400)
    ours = build_mixed_tree(X, y, weights, categorical=[False] * 3, criterion="gini",
                            n_classes=2, min_samples_leaf=15)
    theirs = SkClassifier(min_samples_leaf=15, random_state=0).fit(
        X.astype(np.float32), y, sample_weight=weights)
    # scikit-learn may split a one-class node whose fractional-weight Gini
    # rounds above epsilon (see test_sklearn_parity): two extra nodes each.
    tree = theirs.tree_
    pure_splits = np.sum((tree.children_left != -1) & (tree.impurity < 1e-12))
    assert ours.node_count == tree.node_count - 2 * pure_splits
    # Training rows only: where a node saw no missing values scikit-learn
    # sends them to the child with more rows, the oracle to the one with
    # more weight.
    assert_rounding_close(ours.predict_value(X), theirs.predict_proba(X.astype(np.float32)))


def all_subset_splits(codes, y, weights, criterion, n_categories):
    """The best improvement over every subset of the categories present."""
    present = sorted(set(codes.tolist()))
    node = impurity(criterion, y, weights)
    best = -np.inf
    for size in range(1, len(present)):
        for left in combinations(present, size):
            goes_left = np.isin(codes, left)
            total = weights.sum()
            gain = (node - weights[goes_left].sum() / total
                    * impurity(criterion, y[goes_left], weights[goes_left])
                    - weights[~goes_left].sum() / total
                    * impurity(criterion, y[~goes_left], weights[~goes_left]))
            best = max(best, gain)
    return best


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_categories=st.integers(2, 7),
       task=st.sampled_from(["gini", "entropy", "squared_error"]))
def test_breimans_ordering_finds_the_best_subset_for_two_classes_and_regression(
        seed, n_categories, task):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_categories, size=60)
    weights = rng.uniform(0.5, 2.0, size=60)
    if task == "squared_error":
        y = rng.normal(size=n_categories)[codes] + rng.normal(size=60)
        n_classes = None
    else:
        y = (rng.random(60) < rng.random(n_categories)[codes]).astype(np.intp)
        n_classes = 2
    split = best_mixed_split(codes.reshape(-1, 1).astype(float), y, weights, categorical=[True],
                             criterion=task, n_classes=n_classes)
    if np.unique(codes).size < 2:
        assert split is None
        return
    assert split.is_categorical
    assert rounding_equal(split.improvement,
                          all_subset_splits(codes, y, weights, task, n_categories))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_categories=st.integers(2, 7),
       n_classes=st.integers(3, 5))
def test_many_classes_do_no_worse_than_any_one_versus_rest_split(seed, n_categories,
                                                                 n_classes):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_categories, size=80)
    y = rng.integers(0, n_classes, size=80)
    weights = np.ones(80)
    split = best_mixed_split(codes.reshape(-1, 1).astype(float), y, weights, categorical=[True],
                             criterion="gini", n_classes=n_classes)
    present = np.unique(codes)
    if present.size < 2:
        assert split is None
        return
    node = impurity("gini", y)
    for code in present:
        alone = codes == code
        gain = (node - alone.mean() * impurity("gini", y[alone])
                - (~alone).mean() * impurity("gini", y[~alone]))
        assert split.improvement >= gain - 1e-12
    assert split.improvement <= all_subset_splits(codes, y, weights, "gini", n_categories) + 1e-12


def test_missing_values_go_where_they_help_and_otherwise_with_the_heavier_child():
    # Missing rows are all of class 1, like the right side: they go right.
    X = np.array([[0.0], [0.0], [1.0], [1.0], [np.nan], [np.nan]])
    y = np.array([0, 0, 1, 1, 1, 1])
    split = best_mixed_split(X, y, categorical=[True], criterion="gini", n_classes=2)
    assert split.left_categories == frozenset({0}) and not split.missing_left
    # Now like the left side.
    split = best_mixed_split(X, np.array([0, 0, 1, 1, 0, 0]), categorical=[True],
                             criterion="gini", n_classes=2)
    assert split.missing_left
    # No missing rows at the node: the heavier child takes them.
    split = best_mixed_split(X[:4], y[:4], np.array([1.0, 1.0, 3.0, 3.0]), categorical=[True],
                             criterion="gini", n_classes=2)
    assert split.left_categories == frozenset({0}) and not split.missing_left


def test_categories_absent_from_the_node_follow_the_missing_values():
    split = MixedSplit(feature=0, threshold=None, left_categories=frozenset({2}),
                       present_categories=frozenset({1, 2}), missing_left=True,
                       improvement=0.1)
    np.testing.assert_array_equal(split.goes_left(np.array([1.0, 2.0, 3.0, np.nan, 0.0])),
                                  [False, True, True, True, True])


def test_every_known_row_left_and_the_missing_ones_right_is_a_candidate():
    # Only missingness predicts the class.
    X = np.array([[0.1], [0.2], [0.3], [np.nan], [np.nan]])
    y = np.array([0, 0, 0, 1, 1])
    split = best_mixed_split(X, y, categorical=[False], criterion="gini", n_classes=2)
    assert np.isinf(split.threshold) and not split.missing_left
    assert rounding_equal(split.improvement, impurity("gini", y))
