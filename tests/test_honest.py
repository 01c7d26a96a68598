"""Honest trees (``_honest.py``, ``honest=True`` on the quantile forests):
each tree's drawn rows cut in two, the splits grown on one part, the
leaves' values and targets taken from the other; and leaves re-estimated
on other weights (a mixture's tree experts between regrowths)."""

import numpy as np
import pytest

from fasttree import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreesQuantileRegressor,
                      RandomForestQuantileRegressor)
from fasttree._honest import honest_halves, leaf_means
from fasttree.reference.quantile_forest import leaf_entries, quantile_forest_predict


def heteroscedastic(n_samples, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, size=(n_samples, 4))
    y = 3 * X[:, 0] + rng.normal(size=n_samples) * (0.2 + 2 * X[:, 1])
    return X, y


@pytest.mark.parametrize("fraction", [0.5, 0.3, 0.8])
def test_halves_split_the_drawn_rows_with_their_draws(fraction):
    counts = np.random.default_rng(0).poisson(1.0, size=500)
    structure, estimate = honest_halves(7, counts, fraction)
    np.testing.assert_array_equal(structure + estimate, counts)
    assert not ((structure > 0) & (estimate > 0)).any()
    n_drawn = np.count_nonzero(counts)
    assert np.count_nonzero(structure) == round(fraction * n_drawn)
    # The same seed cuts the same way; another seed otherwise.
    np.testing.assert_array_equal(honest_halves(7, counts, fraction)[0], structure)
    assert not np.array_equal(honest_halves(8, counts, fraction)[0], structure)


def test_halves_of_one_or_two_drawn_rows():
    one = np.array([0, 2, 0])
    assert honest_halves(0, one, 0.5)[0].tolist() == [0, 2, 0]
    two = np.array([1, 0, 1])
    structure, estimate = honest_halves(0, two, 0.9)
    assert np.count_nonzero(structure) == 1 and np.count_nonzero(estimate) == 1


@pytest.mark.parametrize("estimator", [RandomForestQuantileRegressor,
                                       ExtraTreesQuantileRegressor])
def test_leaves_hold_the_estimating_rows_and_their_mean(estimator):
    X, y = heteroscedastic(400, 0)
    forest = estimator(8, honest=True, max_samples_leaf=None, min_samples_leaf=3,
                       random_state=0).fit(X, y)
    rows = X.astype(np.float32)
    leaves, estimates = [], []
    for index, tree in enumerate(forest._trees):
        counts = (forest._tree_counts(index) if forest.bootstrap
                  else np.ones(len(y), dtype=np.int64))
        structure, estimate = honest_halves(forest._tree_seeds[index], counts, 0.5)
        leaves.append(tree.apply(rows))
        estimates.append(estimate)
        # Each leaf's value is the mean of the estimating rows that reach it
        # (a leaf none reaches keeps the value of the rows that grew it).
        reached = leaves[-1][estimate > 0]
        for leaf in np.unique(reached):
            in_leaf = (leaves[-1] == leaf) & (estimate > 0)
            expected = np.average(y[in_leaf], weights=estimate[in_leaf])
            assert abs(tree.node_values[leaf, 0] - expected) <= 1e-12 * (1 + abs(expected))
    # The leaf lists are those of the estimating rows alone.
    X_new, _ = heteroscedastic(50, 1)
    new_leaves = np.array([tree.apply(X_new.astype(np.float32)) for tree in forest._trees]).T
    np.testing.assert_array_equal(
        forest.predict(X_new, quantiles=[0.1, 0.5, 0.9]),
        quantile_forest_predict(leaf_entries(leaves, estimates, y), new_leaves,
                                [0.1, 0.5, 0.9]))


def test_the_splits_grow_on_the_other_rows():
    # A tree grown with weights on the structure rows alone has the honest
    # tree's splits.
    from fasttree import DecisionTreeRegressor

    X, y = heteroscedastic(300, 2)
    forest = RandomForestQuantileRegressor(3, honest=True, random_state=0).fit(X, y)
    for index, tree in enumerate(forest._trees):
        structure, _ = honest_halves(forest._tree_seeds[index], forest._tree_counts(index), 0.5)
        alone = DecisionTreeRegressor(random_state=forest._tree_seeds[index]).fit(
            X, y, sample_weight=structure.astype(np.float64))
        np.testing.assert_array_equal(tree.nodes["feature"], alone.tree_.nodes["feature"])
        np.testing.assert_array_equal(tree.nodes["threshold"], alone.tree_.nodes["threshold"])


def test_honest_leaves_bring_coverage_closer_to_the_level_asked():
    # Adaptive leaves hug the rows that shaped them: their raw 90% intervals
    # cover too little here; honest ones cover closer to 90%.
    X, y = heteroscedastic(3000, 3)
    X_new, y_new = heteroscedastic(4000, 4)

    def coverage(honest):
        forest = RandomForestQuantileRegressor(100, min_samples_leaf=1, max_samples_leaf=None,
                                               honest=honest, random_state=0,
                                               n_jobs=2).fit(X, y)
        low, high = forest.predict(X_new, quantiles=[0.05, 0.95]).T
        return np.mean((y_new >= low) & (y_new <= high))

    adaptive, honest = coverage(False), coverage(True)
    assert adaptive < 0.87
    assert abs(honest - 0.9) < abs(adaptive - 0.9) - 0.02


def test_honest_forests_are_the_same_for_any_n_jobs_and_after_pickling():
    import pickle

    X, y = heteroscedastic(300, 5)
    params = dict(n_estimators=10, honest=True, honest_fraction=0.4, random_state=3,
                  max_samples_leaf=2)
    one = RandomForestQuantileRegressor(**params, n_jobs=1).fit(X, y)
    two = RandomForestQuantileRegressor(**params, n_jobs=2).fit(X, y)
    expected = one.predict(X, quantiles=[0.2, 0.8])
    np.testing.assert_array_equal(two.predict(X, quantiles=[0.2, 0.8]), expected)
    np.testing.assert_array_equal(
        pickle.loads(pickle.dumps(two)).predict(X, quantiles=[0.2, 0.8]), expected)


@pytest.mark.parametrize("params,message", [
    (dict(honest=True, criterion="absolute_error"), "mean"),
    (dict(honest=True, monotonic_cst=[1, 0, 0, 0]), "monotonic_cst"),
    (dict(honest=True, honest_fraction=1.0), "honest_fraction"),
    (dict(honest=True, honest_fraction=True), "honest_fraction"),
    (dict(honest="yes"), "honest"),
])
def test_bad_honest_options_are_refused(params, message):
    X, y = heteroscedastic(50, 6)
    with pytest.raises(ValueError, match=message):
        RandomForestQuantileRegressor(3, **params).fit(X, y)


@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_leaf_means_give_every_leaf_the_weighted_mean_of_its_rows(kind):
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, size=(300, 3))
    if kind == "classifier":
        y = (X[:, 0] + 0.5 * rng.normal(size=300) > 0).astype(int) + (X[:, 1] > 0.5)
        tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
        targets = (y[:, None] == tree.classes_[None, :]).astype(float)
    else:
        y = X[:, 0] ** 2 + rng.normal(size=300)
        tree = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, y)
        targets = y[:, None]
    leaf_of_row = tree.tree_.leaf_numbers()[tree.apply(X)]
    # The tree's own rows and weights give back its own values.
    refitted = leaf_means(tree.tree_, leaf_of_row, targets, np.ones(300))
    np.testing.assert_allclose(refitted.node_values, tree.tree_.node_values,
                               rtol=1e-12, atol=1e-12)
    # Other weights: each leaf's weighted mean, by a loop over the leaves;
    # a leaf whose rows all weigh 0 keeps its value.
    weight = rng.uniform(0, 2, size=300)
    empty = leaf_of_row == 0
    weight[empty] = 0.0
    refitted = leaf_means(tree.tree_, leaf_of_row, targets, weight)
    leaf_nodes = np.flatnonzero(tree.tree_.children_left == -1)
    for leaf, node in enumerate(leaf_nodes):
        rows = leaf_of_row == leaf
        expected = (tree.tree_.node_values[node] if leaf == 0
                    else weight[rows] @ targets[rows] / weight[rows].sum())
        np.testing.assert_allclose(refitted.node_values[node], expected, rtol=1e-12, atol=1e-12)
    # The root holds the mean over all the rows; the splits are kept.
    np.testing.assert_allclose(refitted.node_values[0], weight @ targets / weight.sum(),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(refitted.feature, tree.tree_.feature)
    np.testing.assert_array_equal(refitted.threshold, tree.tree_.threshold)
