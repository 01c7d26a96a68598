"""criterion='absolute_error': the AbsoluteError kernel (weighted medians kept
in Fenwick trees) against the oracle's from-scratch medians and deviations,
scikit-learn's hand-worked examples, and scikit-learn itself."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fasttree import (DecisionTreeRegressor, ExtraTreeRegressor, ExtraTreesRegressor,
                      RandomForestRegressor)
from fasttree._criterion import node_statistics
from fasttree._criterion_pinball import AbsoluteError
from fasttree.reference import build_tree
from fasttree.reference.criteria import absolute_error, weighted_median
from test_multi_output import assert_same_tree
from tolerances import assert_rounding_close, data_scale


def test_weighted_median_follows_scikit_learns_rule():
    # Half the weight reached exactly: the mean with the next target.
    assert weighted_median([3, 6], [1, 1]) == 4.5
    assert weighted_median([3, 3, 6, 7], [1, 1, 1, 1]) == 4.5
    assert weighted_median([3, 4, 6, 7, 3], [0.1, 1.0, 0.6, 0.3, 0.3]) == 4.0
    assert weighted_median([1, 1, 3, 1, 2], [3, 3, 2, 1, 2]) == 1.0
    assert weighted_median([5, 1, 9], [0, 1, 1]) == 5.0  # zero weights take no part


@pytest.mark.parametrize("y, weights", [
    ([6, 7, 3, 4, 3], [0.6, 0.3, 0.1, 1.0, 0.3]),
    ([6, 7, 3, 4, 3], [1, 1, 1, 1, 1]),
    ([1, 1, 3, 1, 2], [3, 3, 2, 1, 2]),
    ([2.5, -1.0, 7.25, 7.25, 0.0, 3.0], [1, 2, 0.5, 0.5, 1, 3]),
])
def test_node_median_and_impurity_are_the_oracles(y, weights):
    y = np.asarray(y, dtype=np.float64)
    weights = np.asarray(weights, dtype=np.float64)
    statistics = node_statistics(AbsoluteError(y.reshape(-1, 1), weights),
                                 np.arange(y.size, dtype=np.uint32))
    assert statistics["value"][0] == weighted_median(y, weights)
    assert_rounding_close(statistics["impurity"], absolute_error(y, weights),
                          scale=data_scale(y))


def test_scikit_learns_worked_examples():
    # The trees scikit-learn's test_mae works out by hand.
    tree = DecisionTreeRegressor(criterion="absolute_error", max_leaf_nodes=2, random_state=0)
    X = [[3], [5], [3], [8], [5]]
    tree.fit(X, [6, 7, 3, 4, 3], sample_weight=[0.6, 0.3, 0.1, 1.0, 0.3])
    assert_rounding_close(tree.tree_.impurity, [2.5 / 2.3, 0.3 / 0.7, 1.2 / 1.6])
    np.testing.assert_array_equal(tree.tree_.value.ravel(), [4.0, 6.0, 4.0])
    tree.fit(X, [6, 7, 3, 4, 3])
    np.testing.assert_array_equal(tree.tree_.impurity, [1.4, 1.5, 4.0 / 3.0])
    np.testing.assert_array_equal(tree.tree_.value.ravel(), [4.0, 4.5, 4.0])
    stump = DecisionTreeRegressor(criterion="absolute_error", max_depth=1, random_state=0)
    stump.fit([[1], [2], [3], [4], [5]], [1, 1, 3, 1, 2], sample_weight=[3, 3, 2, 1, 2])
    np.testing.assert_array_equal(stump.predict([[1], [2], [3], [4], [5]]), [1, 1, 2, 2, 2])
    assert_rounding_close(stump.tree_.impurity, [6 / 11, 0, 3 / 5])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_samples=st.integers(2, 70),
       n_outputs=st.integers(1, 2), max_depth=st.integers(1, 6),
       unit_weights=st.booleans())
def test_trees_are_the_oracles_on_tie_free_data(seed, n_samples, n_outputs, max_depth,
                                                unit_weights):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, 3)).astype(np.float32)
    y = rng.lognormal(size=(n_samples, n_outputs)) * 10.0
    weights = np.ones(n_samples) if unit_weights else rng.uniform(0.5, 2.0, n_samples)
    target = y[:, 0] if n_outputs == 1 else y
    tree = DecisionTreeRegressor(criterion="absolute_error", max_depth=max_depth,
                                 random_state=0).fit(X, target, sample_weight=weights)
    oracle = build_tree(X, target, weights, criterion="absolute_error", max_depth=max_depth)
    if n_outputs == 1:
        # The oracle keeps a single output's value as a number.
        for node in oracle.nodes:
            node.value = np.atleast_1d(node.value)
    # Unit weights tie often: a set's absolute error depends only on which
    # targets lie in its upper and lower halves.
    assert_same_tree(tree, oracle, X, data_scale(y), target, weights, "absolute_error")


def test_trees_on_integer_targets_with_many_ties_predict_the_leaves_weighted_medians():
    rng = np.random.default_rng(5)
    X = rng.integers(0, 4, size=(300, 3)).astype(np.float64)
    y = rng.integers(0, 6, size=300).astype(np.float64)
    weights = rng.integers(1, 4, size=300).astype(np.float64)
    tree = DecisionTreeRegressor(criterion="absolute_error", random_state=0)
    tree.fit(X, y, sample_weight=weights)
    leaves = tree.apply(X)
    for leaf in np.unique(leaves):
        rows = leaves == leaf
        assert tree.tree_.value[leaf, 0, 0] == weighted_median(y[rows], weights[rows])
        assert_rounding_close(tree.tree_.impurity[leaf], absolute_error(y[rows], weights[rows]),
                              scale=6.0)


def test_a_large_weighted_root_predicts_the_weighted_median():
    # scikit-learn's check: many zero weights, continuous ones otherwise.
    rng = np.random.default_rng(0)
    data = rng.lognormal(size=20000)
    weights = rng.integers(0, 3, size=20000) * rng.uniform(0, 1, size=20000)
    tree = DecisionTreeRegressor(criterion="absolute_error", max_depth=1)
    tree.fit(np.ones((20000, 1)), data, sample_weight=weights)
    assert_rounding_close(tree.tree_.value[0, 0, 0], weighted_median(data, weights),
                          scale=data_scale(data))


@pytest.mark.parametrize("n_outputs", [1, 3])
def test_trees_match_scikit_learn(n_outputs):
    sklearn_tree = pytest.importorskip("sklearn.tree")
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 5))
    y = X[:, :n_outputs] * 3 + rng.standard_t(2, size=(400, n_outputs))
    y = y[:, 0] if n_outputs == 1 else y
    # Continuous weights: with unit weights, splits tie exactly (see above),
    # and scikit-learn breaks ties by its random feature order.
    weights = rng.uniform(0.5, 2.0, 400)
    ours = DecisionTreeRegressor(criterion="absolute_error", max_depth=6, random_state=0)
    theirs = sklearn_tree.DecisionTreeRegressor(criterion="absolute_error", max_depth=6,
                                                random_state=0)
    ours.fit(X, y, sample_weight=weights)
    theirs.fit(X, y, sample_weight=weights)
    assert ours.tree_.node_count == theirs.tree_.node_count
    assert_rounding_close(ours.predict(X), theirs.predict(X), scale=data_scale(y))
    assert_rounding_close(np.sort(ours.tree_.impurity), np.sort(theirs.tree_.impurity),
                          scale=data_scale(y))


def test_random_splits_and_forests_grow_with_absolute_error():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 4))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = np.nan_to_num(X[:, 0]) * 2 + rng.standard_t(2, size=300)
    extra = ExtraTreeRegressor(criterion="absolute_error", random_state=0).fit(X, y)
    leaves = extra.apply(X)
    for leaf in np.unique(leaves):
        assert extra.tree_.value[leaf, 0, 0] == weighted_median(y[leaves == leaf])
    for forest_class in (RandomForestRegressor, ExtraTreesRegressor):
        forest = forest_class(n_estimators=8, criterion="absolute_error", random_state=0,
                              n_jobs=2).fit(X, y)
        members = np.mean([member.predict(X) for member in forest.estimators_], axis=0)
        assert_rounding_close(forest.predict(X), members, scale=data_scale(y))
        again = forest_class(n_estimators=8, criterion="absolute_error", random_state=0,
                             n_jobs=1).fit(X, y)
        np.testing.assert_array_equal(again.predict(X), forest.predict(X))


def test_categorical_features_are_refused_with_a_clear_error():
    pandas = pytest.importorskip("pandas")
    X = pandas.DataFrame({"colour": pandas.Categorical(["red", "blue", "red", "green"]),
                          "size": [1.0, 2.0, 3.0, 4.0]})
    for estimator in (DecisionTreeRegressor(criterion="absolute_error"),
                      RandomForestRegressor(criterion="absolute_error", n_estimators=2)):
        with pytest.raises(ValueError, match="absolute_error.*numeric features only"):
            estimator.fit(X, [1.0, 2.0, 3.0, 4.0])
