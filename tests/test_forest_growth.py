"""Forest growth until the out-of-bag error is stable (oob_batch_size) and
Breiman's out-of-bag permutation importance."""

import numpy as np
import pytest

from fasttree import RandomForestClassifier, RandomForestRegressor, reference
from synthetic import classification_data, regression_data
from tolerances import assert_rounding_close, data_scale, rounding_equal


def weighted_problem(regression, seed=0, n_samples=300):
    """Continuous X and weights, so that trees grown on the same draws cannot tie."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, 4)).astype(np.float32)
    weights = rng.uniform(0.5, 2.0, size=n_samples)
    if regression:
        y = 2.0 * X[:, 0] + np.sin(3.0 * X[:, 1]) + 0.3 * rng.normal(size=n_samples)
    else:
        y = (X[:, 0] + 0.5 * X[:, 1] + 0.4 * rng.normal(size=n_samples) > 0).astype(int)
    return X, y, weights


@pytest.mark.parametrize("regression", [False, True])
def test_permutation_importance_equals_the_reference_on_the_same_draws(regression):
    X, y, weights = weighted_problem(regression)
    forest_class = RandomForestRegressor if regression else RandomForestClassifier
    forest = forest_class(n_estimators=6, max_features=None, min_samples_leaf=8,
                          random_state=3).fit(X, y, sample_weight=weights)
    counts = [np.bincount(rows, minlength=len(y)) for rows in forest.estimators_samples_]
    # The bootstrap draws in proportion to the weights; the trees weigh
    # their rows by the draw counts alone.
    oracle = reference.build_forest(
        X, y, counts,
        criterion="squared_error" if regression else "gini",
        n_classes=None if regression else 2, min_samples_leaf=8)
    ours = forest.oob_permutation_importance(X, y, n_repeats=2, random_state=7)
    expected = oracle.permutation_importance(X, y, np.random.default_rng(7), n_repeats=2)
    # A drop in accuracy, or in minus the squared error for regression.
    assert_rounding_close(ours, expected, data_scale(y) ** 2 if regression else 1.0)


def test_permutation_importance_does_not_depend_on_threads():
    X, y = classification_data(n_samples=600, seed=1)
    results = []
    for n_jobs in (1, 2):
        forest = RandomForestClassifier(n_estimators=9, n_jobs=n_jobs, random_state=0).fit(X, y)
        results.append(forest.oob_permutation_importance(X, y, random_state=4))
    np.testing.assert_array_equal(results[0], results[1])


def test_permutation_importance_ranks_signal_above_noise():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(800, 3))
    y = 3.0 * X[:, 0] + 0.1 * rng.normal(size=800)
    forest = RandomForestRegressor(n_estimators=20, random_state=0).fit(X, y)
    importances = forest.oob_permutation_importance(X, y, random_state=0)
    assert importances[0] > 10 * max(abs(importances[1]), abs(importances[2]))


def test_permutation_importance_refuses_bad_input():
    X, y = classification_data(n_samples=200)
    forest = RandomForestClassifier(n_estimators=4, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="n_repeats"):
        forest.oob_permutation_importance(X, y, n_repeats=0)
    with pytest.raises(ValueError, match="training data"):
        forest.oob_permutation_importance(X[:50], y[:50])
    unbagged = RandomForestClassifier(n_estimators=2, bootstrap=False).fit(X, y)
    with pytest.raises(ValueError, match="bootstrap"):
        unbagged.oob_permutation_importance(X, y)


def test_batched_growth_stops_once_the_oob_error_is_stable():
    X, y = classification_data(n_samples=800, seed=3)
    forest = RandomForestClassifier(n_estimators=500, oob_batch_size=5, oob_patience=2,
                                    oob_tol=0.01, random_state=0).fit(X, y)
    n_trees = len(forest.estimators_)
    assert n_trees < 500
    curve = forest.oob_curve_
    assert curve.shape == (n_trees // 5, 2)
    np.testing.assert_array_equal(curve[:, 0], 5 * np.arange(1, n_trees // 5 + 1))
    errors = curve[:, 1]
    assert min(errors[:-2]) - min(errors[-2:]) < 0.01
    assert rounding_equal(forest.oob_score_, 1.0 - errors[-1])


def test_batched_growth_equals_a_forest_of_the_same_size():
    X, y = regression_data(n_samples=500, seed=4)
    batched = RandomForestRegressor(n_estimators=40, oob_batch_size=4, oob_patience=1,
                                    oob_tol=1.0, random_state=2).fit(X, y)
    n_trees = len(batched.estimators_)
    plain = RandomForestRegressor(n_estimators=n_trees, oob_score=True,
                                  random_state=2).fit(X, y)
    np.testing.assert_array_equal(batched.predict(X), plain.predict(X))
    assert batched.oob_score_ == plain.oob_score_


def test_batched_growth_stops_at_n_estimators():
    X, y = classification_data(n_samples=300, seed=5)
    forest = RandomForestClassifier(n_estimators=7, oob_batch_size=3, oob_tol=0.0,
                                    random_state=0).fit(X, y)
    assert len(forest.estimators_) == 7
    np.testing.assert_array_equal(forest.oob_curve_[:, 0], [3, 6, 7])


def test_oob_score_records_the_error_curve_as_trees_are_added():
    X, y = classification_data(n_samples=300, seed=6)
    forest = RandomForestClassifier(n_estimators=125, oob_score=True, max_depth=4,
                                    random_state=0).fit(X, y)
    curve = forest.oob_curve_
    np.testing.assert_array_equal(curve[:, 0], [*range(3, 125, 3), 125])
    assert rounding_equal(curve[-1, 1], 1.0 - forest.oob_score_)
    fewer = RandomForestClassifier(n_estimators=30, oob_score=True, max_depth=4,
                                   random_state=0).fit(X, y)
    assert rounding_equal(curve[9, 1], 1.0 - fewer.oob_score_)
    refit = forest.set_params(oob_score=False).fit(X, y)
    assert not hasattr(refit, "oob_curve_")


@pytest.mark.parametrize("params, message", [
    ({"oob_batch_size": 0}, "oob_batch_size"),
    ({"oob_batch_size": 5, "bootstrap": False}, "bootstrap"),
    ({"oob_patience": 0}, "oob_patience"),
    ({"oob_tol": -1.0}, "oob_tol"),
])
def test_batched_growth_parameters_are_checked(params, message):
    X, y = classification_data(n_samples=100)
    with pytest.raises(ValueError, match=message):
        RandomForestClassifier(n_estimators=5, **params).fit(X, y)
