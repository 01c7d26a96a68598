"""Random thresholds: ``splitter='random'``, ExtraTree* and ExtraTrees*.

A random split draws, for each feature it evaluates at a node, one threshold
uniformly between the node's least and largest known value, and keeps the
best of those. The draws cannot be compared with an oracle's one by one, so
these tests check what every such split must satisfy, that the trees are
reproducible (seeds, weights against repeated rows, threads), and that their
size and accuracy are those of scikit-learn's extra trees on average.
"""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.ensemble import ExtraTreesClassifier as SkExtraTreesClassifier
from sklearn.tree import ExtraTreeClassifier as SkExtraTreeClassifier
from sklearn.tree import ExtraTreeRegressor as SkExtraTreeRegressor

from fasttree import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier,
                      ExtraTreeRegressor, ExtraTreesClassifier, ExtraTreesRegressor,
                      InvalidParameterError, RandomForestClassifier)
from synthetic import classification_data, regression_data, tied_columns

TREES = [ExtraTreeClassifier, ExtraTreeRegressor]
FORESTS = [ExtraTreesClassifier, ExtraTreesRegressor]


def data_for(estimator_class, **kwargs):
    if estimator_class in (ExtraTreeClassifier, ExtraTreesClassifier):
        return classification_data(**kwargs)
    return regression_data(**kwargs)


def node_rows(tree, X):
    """For every node, the training rows that reach it."""
    paths = tree.decision_path(X).tocsc()
    return [paths.indices[paths.indptr[node]:paths.indptr[node + 1]]
            for node in range(tree.tree_.node_count)]


@pytest.mark.parametrize("estimator_class", TREES)
@pytest.mark.parametrize("tied", [False, True])
def test_every_random_threshold_lies_between_the_nodes_least_and_largest_value(
        estimator_class, tied):
    X, y = data_for(estimator_class, n_samples=300, n_features=5)
    if tied:
        X = tied_columns(X, levels=5)
    model = estimator_class(random_state=0).fit(X, y)
    tree = model.tree_
    values = X.astype(np.float32)
    for node, rows in enumerate(node_rows(model, X)):
        if tree.children_left[node] == -1:
            continue
        column = values[rows, tree.feature[node]]
        threshold = tree.threshold[node]
        assert column.min() <= threshold < column.max()
        went_left = node_rows(model, X)[tree.children_left[node]]
        np.testing.assert_array_equal(np.sort(went_left), np.sort(rows[column <= threshold]))


@pytest.mark.parametrize("estimator_class", TREES)
def test_thresholds_are_spread_over_the_range_not_at_midpoints(estimator_class):
    # One feature with values 0 and 1 only: an exact splitter always cuts at
    # 0.5; random thresholds fall anywhere in [0, 1).
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(200, 1)).astype(np.float64)
    y = X[:, 0] + 0.1 * rng.normal(size=200)
    if estimator_class is ExtraTreeClassifier:
        y = (y > 0.5).astype(int)
    thresholds = [estimator_class(random_state=seed, max_depth=1).fit(X, y).tree_.threshold[0]
                  for seed in range(40)]
    assert 0.0 <= min(thresholds) and max(thresholds) < 1.0
    assert np.std(thresholds) > 0.2


@pytest.mark.parametrize("estimator_class", TREES)
def test_a_random_tree_is_the_same_for_the_same_seed_and_differs_for_another(estimator_class):
    X, y = data_for(estimator_class, n_samples=200)
    first = estimator_class(random_state=3).fit(X, y).tree_
    again = estimator_class(random_state=3).fit(X, y).tree_
    other = estimator_class(random_state=4).fit(X, y).tree_
    np.testing.assert_array_equal(first.threshold, again.threshold)
    np.testing.assert_array_equal(first.feature, again.feature)
    assert first.node_count != other.node_count or not np.array_equal(first.threshold,
                                                                       other.threshold)


@pytest.mark.parametrize("max_features", [None, 0.5])
def test_whole_number_weights_grow_the_tree_of_the_repeated_rows(max_features):
    # The draws may not depend on how a row's weight is given: a feature's
    # own ranks differ between the two fits, its node's ranks do not. (Class
    # weights sum exactly in any order; a regression's weighted sums of
    # targets round differently from repeated ones, which breaks exact ties
    # between features differently, for the exact splitter too.)
    estimator_class = ExtraTreeClassifier
    X, y = data_for(estimator_class, n_samples=200, n_features=6)
    counts = np.bincount(np.random.default_rng(1).integers(0, 200, 200), minlength=200)
    weighted = estimator_class(random_state=3, max_features=max_features).fit(
        X, y, sample_weight=counts.astype(np.float64)).tree_
    repeated = estimator_class(random_state=3, max_features=max_features).fit(
        np.repeat(X, counts, axis=0), np.repeat(y, counts)).tree_
    np.testing.assert_array_equal(weighted.feature, repeated.feature)
    np.testing.assert_array_equal(weighted.threshold, repeated.threshold)


def test_missing_values_go_to_a_side_drawn_at_random():
    X, y = classification_data(n_samples=300, n_features=3)
    X[::4, 0] = np.nan
    sides = set()
    for seed in range(20):
        tree = ExtraTreeClassifier(random_state=seed, max_features=None, max_depth=1).fit(X, y)
        if tree.tree_.feature[0] == 0:
            sides.add(int(tree.tree_.missing_go_to_left[0]))
    assert sides == {0, 1}


@pytest.mark.parametrize("n_classes", [2, 3])
def test_whole_and_halved_weights_grow_the_same_random_tree(n_classes):
    # Whole weights sum a random split's left side in one pass of packed
    # integers; halved ones fill bins of doubles. Gini scales exactly with
    # the weights, so both must pick the same splits.
    X, y = classification_data(n_samples=400, n_features=5, n_classes=n_classes)
    X[::5, 1] = np.nan
    X[1::7, 3] = np.nan
    ones = np.ones(len(y))
    for seed in range(5):
        whole = ExtraTreeClassifier(random_state=seed).fit(X, y, sample_weight=ones).tree_
        halved = ExtraTreeClassifier(random_state=seed).fit(
            X, y, sample_weight=0.5 * ones).tree_
        np.testing.assert_array_equal(whole.feature, halved.feature)
        np.testing.assert_array_equal(whole.threshold, halved.threshold)
        np.testing.assert_array_equal(whole.missing_go_to_left, halved.missing_go_to_left)


def test_a_random_regression_split_prefers_the_feature_that_separates_the_target():
    # Any threshold on the two-valued feature separates the target exactly;
    # one on a continuous feature almost never does. With missing values on
    # the others and uneven weights, the root must take feature 2 every time.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    X[:, 2] = rng.integers(0, 2, 300)
    X[::6, 0] = np.nan
    X[::4, 3] = np.nan
    y = 10.0 * X[:, 2] + rng.normal(scale=0.01, size=300)
    weights = rng.integers(1, 4, 300).astype(float)
    for seed in range(20):
        tree = ExtraTreeRegressor(random_state=seed, max_features=None, max_depth=1).fit(
            X, y, sample_weight=weights).tree_
        assert tree.feature[0] == 2
        assert tree.n_node_samples[1] == np.sum(X[:, 2] == 0)


def test_random_split_leaves_hold_min_samples_leaf_with_missing_values():
    X, y = regression_data(n_samples=500, n_features=4)
    X[::3, 1] = np.nan
    for seed in range(5):
        tree = ExtraTreeRegressor(random_state=seed, min_samples_leaf=7).fit(X, y).tree_
        leaves = tree.children_left == -1
        assert tree.n_node_samples[leaves].min() >= 7


def test_a_node_of_one_known_value_and_missing_ones_splits_at_that_value():
    X = np.array([[np.nan], [1.0], [np.nan]])
    tree = ExtraTreeRegressor(max_depth=1, random_state=0).fit(X, [0.0, 1.0, 0.0])
    assert tree.tree_.threshold[0] == 1.0
    np.testing.assert_array_equal(tree.predict(X), [0.0, 1.0, 0.0])


def test_splitter_random_on_a_decision_tree_is_the_extra_tree():
    X, y = classification_data(n_samples=200)
    extra = ExtraTreeClassifier(random_state=0, max_features=None).fit(X, y).tree_
    tree = DecisionTreeClassifier(splitter="random", random_state=0).fit(X, y).tree_
    np.testing.assert_array_equal(extra.threshold, tree.threshold)


@pytest.mark.parametrize("estimator_class", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_an_unknown_splitter_is_refused(estimator_class):
    X, y = data_for(ExtraTreeClassifier if estimator_class is DecisionTreeClassifier
                    else ExtraTreeRegressor)
    with pytest.raises(InvalidParameterError, match="'splitter' parameter must be a str among"):
        estimator_class(splitter="fast").fit(X, y)


def test_random_thresholds_need_binary_categorical_splits():
    X, y = classification_data(n_samples=60)
    with pytest.raises(ValueError, match="multiway"):
        ExtraTreeClassifier(criterion="entropy", categorical_split="multiway").fit(X, y)
    with pytest.raises(ValueError, match="multiway"):
        ExtraTreesClassifier(criterion="entropy", categorical_split="multiway").fit(X, y)


@pytest.mark.parametrize("ours, theirs", [(ExtraTreeClassifier, SkExtraTreeClassifier),
                                          (ExtraTreeRegressor, SkExtraTreeRegressor)])
def test_random_trees_are_as_large_and_as_accurate_as_scikit_learns_on_average(ours, theirs):
    X, y = data_for(ours, n_samples=1000, n_features=8)
    X_new, y_new = data_for(ours, n_samples=1000, n_features=8, seed=1)
    mine = [ours(random_state=seed).fit(X, y) for seed in range(30)]
    peer = [theirs(random_state=seed).fit(X, y) for seed in range(30)]
    sizes = [np.mean([model.tree_.node_count for model in models]) for models in (mine, peer)]
    scores = [np.mean([model.score(X_new, y_new) for model in models])
              for models in (mine, peer)]
    assert abs(sizes[0] - sizes[1]) <= 0.05 * sizes[1]
    assert abs(scores[0] - scores[1]) <= 0.02


def test_extra_trees_are_as_accurate_as_scikit_learns():
    X, y = classification_data(n_samples=1500, n_features=10)
    X_new, y_new = classification_data(n_samples=1500, n_features=10, seed=1)
    ours = ExtraTreesClassifier(n_estimators=100, random_state=0).fit(X, y)
    theirs = SkExtraTreesClassifier(n_estimators=100, random_state=0).fit(X, y)
    assert abs(ours.score(X_new, y_new) - theirs.score(X_new, y_new)) <= 0.02


@pytest.mark.parametrize("forest_class", FORESTS)
def test_extra_trees_grow_on_all_rows_by_default_from_extra_tree_members(forest_class):
    X, y = data_for(forest_class, n_samples=150)
    forest = forest_class(n_estimators=4, random_state=0).fit(X, y)
    assert forest.get_params()["bootstrap"] is False
    tree_class = ExtraTreeClassifier if forest_class is ExtraTreesClassifier \
        else ExtraTreeRegressor
    for member, rows in zip(forest.estimators_, forest.estimators_samples_):
        assert type(member) is tree_class
        np.testing.assert_array_equal(rows, np.arange(150))
        refit = clone(member).fit(X, y)
        np.testing.assert_array_equal(refit.apply(X), member.apply(X))
    assert not isinstance(forest, RandomForestClassifier)


@pytest.mark.parametrize("forest_class", FORESTS)
def test_extra_trees_are_the_same_on_any_number_of_threads(forest_class):
    X, y = data_for(forest_class, n_samples=300)
    one = forest_class(n_estimators=8, random_state=0, n_jobs=1).fit(X, y)
    two = forest_class(n_estimators=8, random_state=0, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.predict(X), two.predict(X))
    for a, b in zip(one.estimators_, two.estimators_):
        np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)


def test_a_bootstrapped_extra_trees_member_refit_on_its_rows_is_the_same_tree():
    X, y = classification_data(n_samples=200)
    forest = ExtraTreesClassifier(n_estimators=5, bootstrap=True, max_samples=0.5,
                                  random_state=0).fit(X, y)
    for member, rows in zip(forest.estimators_, forest.estimators_samples_):
        refit = clone(member).fit(X[rows], y[rows])
        np.testing.assert_array_equal(refit.tree_.threshold, member.tree_.threshold)


@pytest.mark.parametrize("forest_class, splitter", [(ExtraTreesClassifier, "random"),
                                                    (RandomForestClassifier, "best")])
def test_a_forests_estimator_is_an_unfitted_tree_of_its_kind(forest_class, splitter):
    template = forest_class().estimator
    assert template.splitter == splitter and not hasattr(template, "tree_")
