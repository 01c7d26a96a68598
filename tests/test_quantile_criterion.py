"""criterion='quantile': the PinballLoss kernel (weighted alpha-quantiles kept
as the absolute error keeps its medians) against the oracle's from-scratch
quantiles, pinball losses and brute-force splits; its equality with
'absolute_error' at quantile=0.5; the conditional quantiles its trees and
forests predict; and the checks of its ``quantile`` level."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fasttree import (DecisionTreeRegressor, ExtraTreeRegressor, ExtraTreesRegressor,
                      RandomForestRegressor)
from fasttree._criterion import node_statistics
from fasttree._criterion_pinball import AbsoluteError, PinballLoss as PinballKernel
from fasttree.reference import PinballLoss, best_split, build_tree
from fasttree.reference.criteria import (absolute_error, pinball_loss, weighted_median,
                                         weighted_quantile)
from test_multi_output import assert_same_tree, improvement
from tolerances import assert_rounding_close, data_scale

ALPHAS = (0.1, 0.25, 0.5, 0.9)
ESTIMATORS = (DecisionTreeRegressor, ExtraTreeRegressor, RandomForestRegressor,
              ExtraTreesRegressor)


def kernel_node(y, weights, alpha):
    """The kernel's value and impurity of one node of targets ``y``."""
    y = np.asarray(y, dtype=np.float64)
    statistics = node_statistics(PinballKernel(y.reshape(-1, 1).copy(),
                                               np.asarray(weights, dtype=np.float64), alpha),
                                 np.arange(y.size, dtype=np.uint32))
    return statistics["value"][0], statistics["impurity"]


def heteroscedastic_data(n_samples, seed):
    """y = x0 + (1 + 2 |x1|) * standard normal noise: its conditional
    0.9-quantile is x0 + 1.2816 (1 + 2 |x1|)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2.0, 2.0, size=(n_samples, 3))
    y = X[:, 0] + (1.0 + 2.0 * np.abs(X[:, 1])) * rng.normal(size=n_samples)
    return X, y


def tie_prone_data(seed, n_samples, n_outputs, ties):
    """Features and targets with ties or without; weights of whole halves
    with ties (every sum exact, so that an exact reach of alpha times the
    total happens as the oracle sees it), continuous ones without."""
    rng = np.random.default_rng(seed)
    if ties:
        X = rng.integers(0, 5, size=(n_samples, 3)).astype(np.float32)
        y = rng.integers(0, 6, size=(n_samples, n_outputs)).astype(np.float64)
        weights = rng.integers(1, 5, size=n_samples) / 2.0
    else:
        X = rng.normal(size=(n_samples, 3)).astype(np.float32)
        y = rng.lognormal(size=(n_samples, n_outputs)) * 10.0
        weights = rng.uniform(0.5, 2.0, n_samples)
    return X, (y[:, 0] if n_outputs == 1 else y), weights


def test_weighted_quantile_is_the_first_target_whose_cumulative_weight_reaches_alpha():
    assert weighted_quantile([4, 1, 3, 2], None, 0.25) == 1.5  # reached exactly: the mean
    assert weighted_quantile([4, 1, 3, 2], None, 0.3) == 2.0
    assert weighted_quantile([4, 1, 3, 2], None, 0.9) == 4.0
    assert weighted_quantile([4, 1, 3, 2], [1, 1, 1, 7], 0.2) == 2.0
    assert weighted_quantile([5, 1, 9], [0, 1, 1], 0.5) == 5.0  # zero weights take no part
    for alpha in ALPHAS:
        assert weighted_quantile([7.0], None, alpha) == 7.0
    assert weighted_median([3, 6], [1, 1]) == weighted_quantile([3, 6], [1, 1], 0.5) == 4.5


def test_the_oracles_pinball_loss_is_half_the_absolute_error_at_one_half():
    rng = np.random.default_rng(0)
    y, weights = rng.normal(size=30), rng.uniform(0.5, 2.0, 30)
    assert_rounding_close(pinball_loss(y, weights, 0.5), absolute_error(y, weights) / 2.0)
    # By hand: the 0.9-quantile of 1, 2, 3, 4 is 4; the loss 0.1 * (3 + 2 + 1) / 4.
    assert_rounding_close(pinball_loss([1, 2, 3, 4], None, 0.9), 0.15)
    assert PinballLoss(0.9)([1, 2, 3, 4]) == pinball_loss([1, 2, 3, 4], None, 0.9)


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("y, weights", [
    ([6, 7, 3, 4, 3], [0.6, 0.3, 0.1, 1.0, 0.3]),
    ([6, 7, 3, 4, 3], [1, 1, 1, 1, 1]),
    ([1, 1, 3, 1, 2], [3, 3, 2, 1, 2]),
    ([2.5, -1.0, 7.25, 7.25, 0.0, 3.0], [1, 2, 0.5, 0.5, 1, 3]),
    ([1, 2, 3, 4], [1, 1, 1, 1]),
])
def test_node_quantile_and_impurity_are_the_oracles(y, weights, alpha):
    value, node_impurity = kernel_node(y, weights, alpha)
    assert value == weighted_quantile(y, weights, alpha)
    assert_rounding_close(node_impurity, pinball_loss(y, weights, alpha), scale=data_scale(y))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_samples=st.integers(1, 40),
       alpha=st.sampled_from(ALPHAS), ties=st.booleans())
def test_random_nodes_quantile_and_impurity_are_the_oracles(seed, n_samples, alpha, ties):
    _, y, weights = tie_prone_data(seed, n_samples, 1, ties)
    value, node_impurity = kernel_node(y, weights, alpha)
    assert value == weighted_quantile(y, weights, alpha)
    assert_rounding_close(node_impurity, pinball_loss(y, weights, alpha), scale=data_scale(y))


def test_the_kernel_refuses_a_level_outside_the_unit_interval():
    for alpha in (0.0, 1.0, -0.5, float("nan")):
        with pytest.raises(ValueError, match="alpha must lie in"):
            PinballKernel(np.ones((3, 1)), np.ones(3), alpha)


def test_absolute_error_is_the_kernel_at_one_half_with_twice_its_impurity():
    y = np.array([2.5, -1.0, 7.25, 7.25, 0.0, 3.0])
    weights = np.array([1, 2, 0.5, 0.5, 1, 3], dtype=np.float64)
    samples = np.arange(y.size, dtype=np.uint32)
    absolute = node_statistics(AbsoluteError(y.reshape(-1, 1), weights), samples)
    assert isinstance(AbsoluteError(y.reshape(-1, 1), weights), PinballKernel)
    value, node_impurity = kernel_node(y, weights, 0.5)
    assert absolute["value"][0] == value
    assert absolute["impurity"] == 2.0 * node_impurity


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_samples=st.integers(2, 60),
       alpha=st.sampled_from(ALPHAS), ties=st.booleans())
def test_a_stumps_split_is_the_brute_force_best_split(seed, n_samples, alpha, ties):
    X, y, weights = tie_prone_data(seed, n_samples, 1, ties)
    stump = DecisionTreeRegressor(criterion="quantile", quantile=alpha, max_depth=1,
                                  random_state=0).fit(X, y, sample_weight=weights)
    oracle = best_split(X, y, weights, criterion=PinballLoss(alpha))
    tree = stump.tree_
    if oracle is None:  # every row alike in X: nothing to split on
        assert tree.node_count == 1
        return
    if tree.node_count == 1:  # a pure root (one target) is not split
        assert_rounding_close(tree.impurity[0], 0.0, scale=data_scale(y))
        assert_rounding_close(oracle.improvement, 0.0, scale=data_scale(y))
        return
    ours = X[:, tree.feature[0]] <= np.float32(tree.threshold[0])
    rows = np.arange(n_samples)
    gain = improvement(PinballLoss(alpha), y, weights, rows, ours)
    # Equal splits up to rounding may tie: ours scores as well as the oracle's.
    assert_rounding_close(gain, oracle.improvement, scale=data_scale(y))
    if not ties:
        assert (tree.feature[0], np.float32(tree.threshold[0])) == (oracle.feature,
                                                                    oracle.threshold)
        assert_rounding_close(tree.impurity[1:], [oracle.impurity_left, oracle.impurity_right],
                              scale=data_scale(y))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_samples=st.integers(2, 70),
       n_outputs=st.integers(1, 2), max_depth=st.integers(1, 6),
       alpha=st.sampled_from(ALPHAS), ties=st.booleans())
def test_trees_are_the_oracles(seed, n_samples, n_outputs, max_depth, alpha, ties):
    X, target, weights = tie_prone_data(seed, n_samples, n_outputs, ties)
    tree = DecisionTreeRegressor(criterion="quantile", quantile=alpha, max_depth=max_depth,
                                 random_state=0).fit(X, target, sample_weight=weights)
    criterion = PinballLoss(alpha)
    oracle = build_tree(X, target, weights, criterion=criterion, max_depth=max_depth)
    if n_outputs == 1:
        # The oracle keeps a single output's value as a number.
        for node in oracle.nodes:
            node.value = np.atleast_1d(node.value)
    # Ties make equal losses common (a loss depends only on which targets lie
    # above and below the quantile): a tie may be broken the other way.
    assert_same_tree(tree, oracle, X, data_scale(target), target, weights, criterion)


@pytest.mark.parametrize("splitter", ["best", "hist", "random"])
@pytest.mark.parametrize("n_outputs", [1, 2])
def test_quantile_trees_at_one_half_are_the_absolute_error_trees(splitter, n_outputs):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(400, 4))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = np.nan_to_num(X[:, :n_outputs]) * 2 + rng.standard_t(2, size=(400, n_outputs))
    y = y[:, 0] if n_outputs == 1 else y
    weights = rng.integers(1, 4, size=400).astype(np.float64)
    params = dict(splitter=splitter, max_depth=8, random_state=0)
    absolute = DecisionTreeRegressor(criterion="absolute_error", **params)
    quantile = DecisionTreeRegressor(criterion="quantile", quantile=0.5, **params)
    absolute.fit(X, y, sample_weight=weights)
    quantile.fit(X, y, sample_weight=weights)
    for name in ("children_left", "children_right", "feature", "threshold", "value",
                 "weighted_n_node_samples"):
        np.testing.assert_array_equal(getattr(quantile.tree_, name),
                                      getattr(absolute.tree_, name), err_msg=name)
    np.testing.assert_array_equal(2.0 * quantile.tree_.impurity, absolute.tree_.impurity)


def test_forests_of_quantile_trees_at_one_half_are_the_absolute_error_forests():
    X, y = heteroscedastic_data(300, 1)
    for forest_class in (RandomForestRegressor, ExtraTreesRegressor):
        params = dict(n_estimators=5, max_depth=6, random_state=0)
        absolute = forest_class(criterion="absolute_error", **params).fit(X, y)
        quantile = forest_class(criterion="quantile", quantile=0.5, **params).fit(X, y)
        np.testing.assert_array_equal(quantile.predict(X), absolute.predict(X))


def test_threads_grow_the_same_quantile_tree_as_one():
    # A thread's sweeps use a clone of the criterion, which must keep the level.
    X, y = heteroscedastic_data(3000, 8)
    X = np.hstack([X, np.random.default_rng(8).normal(size=(3000, 7))])
    params = dict(criterion="quantile", quantile=0.8, max_depth=8, random_state=0)
    one = DecisionTreeRegressor(n_jobs=1, **params).fit(X, y)
    four = DecisionTreeRegressor(n_jobs=4, **params).fit(X, y)
    for name in ("feature", "threshold", "value", "impurity"):
        np.testing.assert_array_equal(getattr(four.tree_, name), getattr(one.tree_, name))


def test_leaves_with_missing_values_predict_their_rows_weighted_quantile():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 4))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = np.round(np.nan_to_num(X[:, 0]) * 2 + rng.standard_t(2, size=300))  # ties
    weights = rng.integers(1, 4, size=300).astype(np.float64)
    for tree_class, splitter in ((DecisionTreeRegressor, "best"), (DecisionTreeRegressor, "hist"),
                                 (ExtraTreeRegressor, "random")):
        tree = tree_class(criterion="quantile", quantile=0.25, splitter=splitter,
                          min_samples_leaf=5, random_state=0).fit(X, y, sample_weight=weights)
        leaves = tree.apply(X)
        for leaf in np.unique(leaves):
            rows = leaves == leaf
            assert tree.tree_.value[leaf, 0, 0] == weighted_quantile(y[rows], weights[rows],
                                                                    0.25)
            assert_rounding_close(tree.tree_.impurity[leaf],
                                  pinball_loss(y[rows], weights[rows], 0.25),
                                  scale=data_scale(y))


def test_a_high_quantile_tree_predicts_the_conditional_quantile_of_heteroscedastic_data():
    X, y = heteroscedastic_data(20000, 2)
    X_test, y_test = heteroscedastic_data(20000, 3)
    tree = DecisionTreeRegressor(criterion="quantile", quantile=0.9, max_depth=6,
                                 min_samples_leaf=200, random_state=0).fit(X, y)
    predicted = tree.predict(X_test)
    # About 90% of the held-out targets lie at or below the prediction, in
    # the quiet middle (|x1| small) and in the noisy edges alike: the tree
    # tracks the spread, where a constant shift of the mean would not.
    assert abs(np.mean(y_test <= predicted) - 0.9) < 0.02
    quiet = np.abs(X_test[:, 1]) < 0.5
    for part in (quiet, ~quiet):
        assert abs(np.mean(y_test[part] <= predicted[part]) - 0.9) < 0.03
    true_quantile = X_test[:, 0] + 1.2815515655446004 * (1.0 + 2.0 * np.abs(X_test[:, 1]))
    median_tree = DecisionTreeRegressor(criterion="quantile", quantile=0.5, max_depth=6,
                                        min_samples_leaf=200, random_state=0).fit(X, y)
    assert (np.mean(np.abs(predicted - true_quantile))
            < np.mean(np.abs(median_tree.predict(X_test) - true_quantile)) / 2)


@pytest.mark.parametrize("forest_class", [RandomForestRegressor, ExtraTreesRegressor])
def test_a_forest_of_quantile_trees_predicts_near_the_conditional_quantile(forest_class):
    X, y = heteroscedastic_data(4000, 4)
    X_test, y_test = heteroscedastic_data(20000, 5)
    forest = forest_class(n_estimators=30, criterion="quantile", quantile=0.9,
                          min_samples_leaf=40, max_features=None, random_state=0,
                          n_jobs=2).fit(X, y)
    assert all(member.criterion == "quantile" and member.quantile == 0.9
               for member in forest.estimators_)
    # The forest averages its trees' quantiles: near the true one, though the
    # mean of noisy quantiles leans inwards a little.
    assert abs(np.mean(y_test <= forest.predict(X_test)) - 0.9) < 0.04
    members = np.mean([member.predict(X_test) for member in forest.estimators_], axis=0)
    assert_rounding_close(forest.predict(X_test), members, scale=data_scale(y))
    again = forest_class(n_estimators=30, criterion="quantile", quantile=0.9,
                         min_samples_leaf=40, max_features=None, random_state=0,
                         n_jobs=1).fit(X, y)
    np.testing.assert_array_equal(again.predict(X_test), forest.predict(X_test))


def test_a_monotonic_constraint_keeps_quantile_predictions_monotone():
    rng = np.random.default_rng(6)
    X = rng.uniform(0, 1, size=(500, 2))
    y = -X[:, 0] + rng.normal(scale=0.5, size=500)  # a trend against the constraint
    grid = np.column_stack([np.linspace(0, 1, 101), np.full(101, 0.5)])
    for estimator in (DecisionTreeRegressor(criterion="quantile", quantile=0.75,
                                            monotonic_cst=[1, 0], random_state=0),
                      RandomForestRegressor(criterion="quantile", quantile=0.75, n_estimators=5,
                                            monotonic_cst=[1, 0], random_state=0)):
        predicted = estimator.fit(X, y).predict(grid)
        assert np.all(np.diff(predicted) >= 0)


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
@pytest.mark.parametrize("quantile", [0, 1, 0.0, 1.0, -0.1, 1.5, float("nan"), True, "0.5",
                                      None])
def test_a_quantile_level_outside_the_unit_interval_is_refused_at_fit(estimator_class,
                                                                      quantile):
    X, y = heteroscedastic_data(20, 0)
    estimator = estimator_class(criterion="quantile", quantile=quantile)
    assert estimator.get_params()["quantile"] is quantile  # kept as given until fit
    with pytest.raises(ValueError, match="The 'quantile' parameter must be a float in the "
                                         r"range \(0.0, 1.0\)"):
        estimator.fit(X, y)


@pytest.mark.parametrize("estimator_class", ESTIMATORS)
def test_the_level_reaches_the_trees_and_numpy_floats_are_accepted(estimator_class):
    X, y = heteroscedastic_data(200, 0)
    low = estimator_class(criterion="quantile", quantile=np.float32(0.1), random_state=0,
                          min_samples_leaf=20).fit(X, y)
    high = estimator_class(criterion="quantile", quantile=0.9, random_state=0,
                           min_samples_leaf=20).fit(X, y)
    assert np.all(low.predict(X) < high.predict(X))


def test_categorical_features_are_refused_as_absolute_error_refuses_them():
    pandas = pytest.importorskip("pandas")
    X = pandas.DataFrame({"colour": pandas.Categorical(["red", "blue", "red", "green"]),
                          "size": [1.0, 2.0, 3.0, 4.0]})
    for estimator in (DecisionTreeRegressor(criterion="quantile", quantile=0.9),
                      ExtraTreesRegressor(criterion="quantile", n_estimators=2)):
        with pytest.raises(ValueError, match="criterion='quantile' splits numeric features "
                                             "only"):
            estimator.fit(X, [1.0, 2.0, 3.0, 4.0])
