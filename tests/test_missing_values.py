"""Missing values (NaN) in fit and predict: the splitter learns where they go
at each split, as ``fasttree.reference.mixed`` and scikit-learn do.

Kernel and oracle are compared on data where different partitions do not tie
(distinct continuous values, continuous targets or weights) unless both make
pure children, which happens in nodes of a few rows: every node above such a
tie must match (feature, threshold, missing direction, weight, value), and so
must the predictions of fresh rows that keep clear of the tied nodes.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor

from fasttree import (DecisionTreeClassifier, DecisionTreeRegressor, RandomForestClassifier,
                      RandomForestRegressor, _splitter)
from fasttree.reference.mixed import build_mixed_tree
from mixed_trees import assert_same_tree, rows_clear_of
from test_sklearn_parity import spread_normal
from tolerances import assert_rounding_close, data_scale


def with_missing(rng, X, share):
    X = np.array(X, dtype=np.float64)
    X[rng.random(X.shape) < share] = np.nan
    return X


def tie_free_data(seed, n_samples, n_features, share, criterion):
    rng = np.random.default_rng(seed)
    X = with_missing(rng, spread_normal(rng, n_samples, n_features), share)
    signal = np.nan_to_num(X[:, 0], nan=0.7) + np.sin(2 * np.nan_to_num(X[:, 1], nan=-1.0))
    if criterion == "squared_error":
        y = signal + rng.normal(scale=0.3, size=n_samples)
    else:
        y = np.digitize(signal + rng.normal(scale=0.5, size=n_samples), [-0.5, 0.5])
    return X, y, rng.uniform(0.5, 2.0, size=n_samples)


@given(seed=st.integers(0, 2**32 - 1), share=st.sampled_from([0.05, 0.3, 0.7]),
       criterion=st.sampled_from(["gini", "entropy", "squared_error"]),
       min_samples_leaf=st.sampled_from([1, 5]))
@settings(max_examples=60, deadline=None)
def test_trees_with_missing_values_are_the_oracles(seed, share, criterion, min_samples_leaf):
    X, y, weights = tie_free_data(seed, 120, 3, share, criterion)
    estimator_class = (DecisionTreeRegressor if criterion == "squared_error"
                       else DecisionTreeClassifier)
    estimator = estimator_class(criterion=criterion, min_samples_leaf=min_samples_leaf,
                                random_state=0).fit(X, y, sample_weight=weights)
    oracle = build_mixed_tree(X, y, weights, categorical=[False] * 3, criterion=criterion,
                              n_classes=None if criterion == "squared_error" else 3,
                              min_samples_leaf=min_samples_leaf)
    tied_nodes = []
    if not assert_same_tree(estimator, oracle, X, y, weights, criterion, tied_nodes):
        assert estimator.tree_.node_count == oracle.node_count
    # Where the trees part at a tie (two splits into pure children, mostly in
    # nodes of two rows), fresh rows below it may take different paths; every
    # other row must be predicted alike, and they are most rows.
    fresh = with_missing(np.random.default_rng(seed + 1), np.random.default_rng(seed).normal(
        size=(300, 3)), share)
    clear = rows_clear_of(estimator, tied_nodes, fresh)
    assert clear.mean() >= 0.5
    expected = oracle.predict_value(fresh[clear])
    got = (estimator.predict(fresh[clear]) if criterion == "squared_error"
           else estimator.predict_proba(fresh[clear]))
    assert_rounding_close(got, expected, scale=data_scale(y) if criterion == "squared_error"
                          else 1.0)


@given(seed=st.integers(0, 2**32 - 1), n_values=st.sampled_from([2, 5, 40]),
       share=st.sampled_from([0.1, 0.5]),
       criterion=st.sampled_from(["gini", "entropy", "misclassification", "squared_error"]))
@settings(max_examples=60, deadline=None)
def test_sorted_and_counted_sweeps_grow_the_same_tree_with_missing_values(
        seed, n_values, share, criterion):
    rng = np.random.default_rng(seed)
    X = with_missing(rng, rng.integers(0, n_values, size=(300, 4)), share)
    y = (rng.integers(0, 3, size=300) if criterion != "squared_error"
         else rng.normal(size=300))
    estimator_class = (DecisionTreeRegressor if criterion == "squared_error"
                       else DecisionTreeClassifier)
    trees = []
    for method in (_splitter.SplitMethod.SPLIT_SORT, _splitter.SplitMethod.SPLIT_COUNT,
                   _splitter.SplitMethod.SPLIT_AUTO):
        previous = _splitter.split_method
        _splitter.split_method = method
        try:
            trees.append(estimator_class(criterion=criterion, random_state=0).fit(X, y).tree_)
        finally:
            _splitter.split_method = previous
    for tree in trees[1:]:
        np.testing.assert_array_equal(tree.nodes, trees[0].nodes)
        np.testing.assert_array_equal(tree.flags, trees[0].flags)
        np.testing.assert_array_equal(tree.value, trees[0].value)


@pytest.mark.parametrize("missing_class", [0, 1])
def test_missing_values_go_to_the_side_that_helps(missing_class):
    # Only rows of one class miss feature 0 (50 of them: more than a third of
    # that class): sent with that class's side, they make one split of two
    # pure children; sent the other way, they would spoil it.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 1))
    y = (X[:, 0] > 0).astype(int)
    X[np.flatnonzero(y == missing_class)[:50], 0] = np.nan
    assert np.isnan(X).sum() == 50 and (y[np.isnan(X[:, 0])] == missing_class).all()
    estimator = DecisionTreeClassifier(max_depth=1).fit(X, y)
    tree = estimator.tree_
    assert tree.node_count == 3
    assert np.nanmax(X[y == 0, 0]) <= tree.threshold[0] < np.nanmin(X[y == 1, 0])
    side = tree.children_left[0] if tree.missing_go_to_left[0] else tree.children_right[0]
    np.testing.assert_array_equal(tree.value[side, 0], np.eye(2)[missing_class])
    assert estimator.score(X, y) == 1.0
    assert estimator.predict([[np.nan]])[0] == missing_class


def test_without_missing_values_in_training_they_follow_the_heavier_child():
    X = np.arange(10.0).reshape(-1, 1)
    y = np.array([0, 0, 0, 1, 1, 1, 1, 1, 1, 1])
    estimator = DecisionTreeClassifier(max_depth=1).fit(X, y)
    assert estimator.tree_.missing_go_to_left[0] == 0  # 3 rows left, 7 right
    assert estimator.predict([[np.nan]])[0] == 1
    weighted = DecisionTreeClassifier(max_depth=1).fit(
        X, y, sample_weight=[10, 10, 10, 1, 1, 1, 1, 1, 1, 1])
    assert weighted.tree_.missing_go_to_left[0] == 1
    assert weighted.predict([[np.nan]])[0] == 0


def test_every_known_row_left_and_the_missing_ones_right_is_a_split():
    X = np.array([[1.0], [2.0], [3.0], [np.nan], [np.nan], [np.nan]])
    y = np.array([0, 0, 0, 1, 1, 1])
    tree = DecisionTreeClassifier().fit(X, y).tree_
    assert tree.node_count == 3
    assert tree.threshold[0] == np.inf and tree.missing_go_to_left[0] == 0


@pytest.mark.parametrize("seed", range(3))
def test_regression_trees_with_missing_values_are_scikit_learns(seed):
    rng = np.random.default_rng(seed)
    X = with_missing(rng, spread_normal(rng, 400, 3), 0.15)
    y = np.nan_to_num(X[:, 0]) + rng.normal(scale=0.3, size=400)
    ours = DecisionTreeRegressor(min_samples_leaf=10).fit(X, y)
    theirs = SkRegressor(min_samples_leaf=10, random_state=0).fit(X.astype(np.float32), y)
    assert ours.tree_.node_count == theirs.tree_.node_count
    np.testing.assert_array_equal(ours.tree_.feature, theirs.tree_.feature)
    np.testing.assert_array_equal(ours.tree_.missing_go_to_left,
                                  theirs.tree_.missing_go_to_left)
    fresh = with_missing(rng, rng.normal(size=(300, 3)), 0.2)
    assert_rounding_close(ours.predict(fresh), theirs.predict(fresh.astype(np.float32)),
                          scale=data_scale(y))


@pytest.mark.parametrize("seed", range(3))
def test_weighted_classification_trees_with_missing_values_are_scikit_learns(seed):
    # Continuous weights keep different splits from tying exactly.
    rng = np.random.default_rng(seed)
    X = with_missing(rng, spread_normal(rng, 400, 3), 0.15)
    y = (np.nan_to_num(X[:, 0], nan=1.0) + rng.normal(scale=0.5, size=400) > 0).astype(int)
    weights = rng.uniform(0.5, 2.0, size=400)
    ours = DecisionTreeClassifier(min_samples_leaf=15).fit(X, y, sample_weight=weights)
    theirs = SkClassifier(min_samples_leaf=15, random_state=0).fit(
        X.astype(np.float32), y, sample_weight=weights)
    # scikit-learn may split a one-class node whose fractional-weight Gini
    # rounds above epsilon (see test_sklearn_parity): two extra nodes each.
    tree = theirs.tree_
    pure_splits = np.sum((tree.children_left != -1) & (tree.impurity < 1e-12))
    assert ours.tree_.node_count == tree.node_count - 2 * pure_splits
    # Training rows only: where a node saw no missing values scikit-learn
    # sends them to the child with more rows, fasttree to the one with more
    # weight.
    assert_rounding_close(ours.predict_proba(X), theirs.predict_proba(X.astype(np.float32)))


@pytest.mark.parametrize("forest_class", [RandomForestClassifier, RandomForestRegressor])
def test_forests_fit_with_missing_values_the_same_on_any_number_of_threads(forest_class):
    rng = np.random.default_rng(4)
    X = with_missing(rng, rng.normal(size=(500, 5)), 0.2)
    y = np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1])
    if forest_class is RandomForestClassifier:
        y = (y > 0).astype(int)
    fresh = with_missing(rng, rng.normal(size=(300, 5)), 0.2)
    outputs = []
    for n_jobs in (1, 2):
        forest = forest_class(n_estimators=8, random_state=0, n_jobs=n_jobs,
                              oob_score=True).fit(X, y)
        outputs.append(forest.predict(fresh))
        members = np.mean([member.predict(fresh) for member in forest.estimators_], axis=0)
        if forest_class is RandomForestRegressor:
            assert_rounding_close(outputs[-1], members, scale=data_scale(y))
        assert np.isfinite(forest.oob_score_)
    np.testing.assert_array_equal(outputs[0], outputs[1])


@pytest.mark.parametrize("estimator_class", [DecisionTreeClassifier, RandomForestClassifier])
def test_infinity_in_fit_is_refused_with_or_without_nan(estimator_class):
    X = np.array([[1.0, np.nan], [2.0, 0.0], [np.inf, 1.0], [0.0, 1.0]])
    with pytest.raises(ValueError, match="infinity"):
        estimator_class().fit(X, [0, 1, 0, 1])
