"""Forest growth until the out-of-bag error is stable (oob_batch_size) and
Breiman's out-of-bag permutation importance."""

import re

import numpy as np
import pytest
from scipy import sparse
from sklearn.metrics import mean_absolute_error, r2_score

from fasttree import (DataConversionWarning, RandomForestClassifier, RandomForestRegressor,
                      reference)
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


def test_permutation_importance_refuses_bad_input_with_a_message_naming_the_problem():
    X, y = classification_data(n_samples=200)
    forest = RandomForestClassifier(n_estimators=4, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"^n_repeats must be an int >= 1; got 0$"):
        forest.oob_permutation_importance(X, y, n_repeats=0)
    with pytest.raises(ValueError, match=re.escape(
            "X must be the training data, of shape (200, 5); got (50, 5)")):
        forest.oob_permutation_importance(X[:50], y[:50])
    with pytest.raises(ValueError, match="^y has other classes than the fitted forest$"):
        forest.oob_permutation_importance(X, y + 5)
    with pytest.raises(ValueError, match=re.escape(
            "y must be the training targets: it has 2 outputs, but the forest was fitted to 1")):
        forest.oob_permutation_importance(X, np.column_stack([y, y]))
    with pytest.raises(ValueError, match="1-D or 2-D; got 3-D"):
        forest.oob_permutation_importance(X, y[:, None, None])
    unbagged = RandomForestClassifier(n_estimators=2, bootstrap=False).fit(X, y)
    with pytest.raises(ValueError, match="^" + re.escape(
            "out-of-bag importance needs a forest fitted with bootstrap=True") + "$"):
        unbagged.oob_permutation_importance(X, y)
    X, y = regression_data(n_samples=200)
    regressor = RandomForestRegressor(n_estimators=4, random_state=0).fit(X, np.column_stack([y, y]))
    # One output of a forest of two would be scored against the first alone.
    with pytest.raises(ValueError, match="it has 1 outputs, but the forest was fitted to 2"):
        regressor.oob_permutation_importance(X, y)
    with pytest.raises(ValueError, match="^RandomForestRegressor: y contains NaN or infinity$"):
        regressor.oob_permutation_importance(X, np.column_stack([y, np.r_[y[1:], np.nan]]))


@pytest.mark.parametrize("regression", [False, True])
def test_permutation_importance_reads_y_as_fit_does(regression):
    X, y = regression_data(n_samples=200) if regression else classification_data(n_samples=200)
    forest_class = RandomForestRegressor if regression else RandomForestClassifier
    forest = forest_class(n_estimators=4, random_state=0).fit(X, y)
    expected = forest.oob_permutation_importance(X, y, random_state=1)
    with pytest.warns(DataConversionWarning, match="column-vector y was passed"):
        column = forest.oob_permutation_importance(X, y[:, None], random_state=1)
    np.testing.assert_array_equal(column, expected)
    np.testing.assert_array_equal(forest.oob_permutation_importance(X, list(y), random_state=1),
                                  expected)
    with pytest.raises(ValueError, match=f"^{forest_class.__name__}: X must be 2-D"):
        forest.oob_permutation_importance(X[:, :, None], y)
    with pytest.raises((TypeError, ValueError), match=f"^{forest_class.__name__}: "):
        forest.oob_permutation_importance(X, np.array(["a", *y[1:]], dtype=object))


def test_permutation_importance_without_any_out_of_bag_row_is_refused():
    X = np.array([[0.0], [1.0], [2.0]])
    y = np.array([0, 1, 1])
    # The first seed whose three trees each draw all three rows.
    seed = next(seed for seed in range(10_000) if all(
        np.unique(rows).size == 3 for rows in RandomForestClassifier(
            n_estimators=3, random_state=seed).fit(X, y).estimators_samples_))
    forest = RandomForestClassifier(n_estimators=3, random_state=seed).fit(X, y)
    with pytest.raises(ValueError, match="^no tree has out-of-bag rows$"):
        forest.oob_permutation_importance(X, y)


def test_permutation_importance_draws_one_repeat_by_default_from_the_generator_given():
    X, y = classification_data(n_samples=200)
    forest = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    once = forest.oob_permutation_importance(X, y, n_repeats=1, random_state=3)
    np.testing.assert_array_equal(forest.oob_permutation_importance(X, y, random_state=3), once)
    np.testing.assert_array_equal(forest.oob_permutation_importance(
        X, y, random_state=np.random.default_rng(3)), once)


@pytest.mark.parametrize("case", ["sparse", "missing-values", "tiny-bags"])
def test_permutation_importance_of_every_kind_of_input_is_that_of_the_members(case):
    rng = np.random.default_rng(4)
    n_samples = 5 if case == "tiny-bags" else 200
    X = rng.normal(size=(n_samples, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    y[:2] = [0, 1]
    if case == "missing-values":
        X[rng.random(X.shape) < 0.15] = np.nan
    # Five rows and 30 trees: some bootstraps draw every row, and their
    # trees are passed over.
    # Two threads score the trees two at a time: a tree without out-of-bag
    # rows is passed over, not the rest of its pair.
    forest = RandomForestClassifier(n_estimators=30 if case == "tiny-bags" else 8,
                                    n_jobs=2, random_state=0).fit(X, y)
    if case == "tiny-bags":
        assert any(np.unique(rows).size == n_samples for rows in forest.estimators_samples_)
    given = sparse.csr_matrix(X) if case == "sparse" else X
    ours = forest.oob_permutation_importance(given, y, n_repeats=2, random_state=5)
    expected = permutation_importance_of_members(forest, X, y, 5, n_repeats=2)
    assert np.any(expected != 0)
    assert_rounding_close(ours, expected, 1.0)


def first_stable_batch(errors, patience, tol):
    """The number of batches after which the documented rule stops the growth:
    the first k > patience at which the best error of the last ``patience``
    of the first k batches beats the best before them by less than ``tol``
    (never at a NaN error); None if no k does."""
    for k in range(patience + 1, len(errors) + 1):
        before, last = errors[:k - patience], errors[k - patience:k]
        if not np.isnan(last[-1]) and min(before) - min(last) < tol:
            return k
    return None


# (batch size, patience, tol): each stops well after its first chance
# (patience + 1 batches) and before n_estimators. (2, 2, 0.005) stops on a
# tie (0.3425 twice), a difference of 0 being below tol; (2, 2, 0.0) goes on
# past a tie at 10 batches, a difference of 0 not being below tol = 0.
STOPPING_RULES = [(5, 2, 0.01), (4, 3, 0.0), (2, 2, 0.005), (2, 2, 0.0)]


@pytest.mark.parametrize("batch_size, patience, tol", STOPPING_RULES)
def test_batched_growth_stops_once_the_oob_error_is_stable(batch_size, patience, tol):
    X, y = classification_data(n_samples=800, seed=3)
    forest = RandomForestClassifier(n_estimators=500, oob_batch_size=batch_size,
                                    oob_patience=patience, oob_tol=tol,
                                    random_state=0).fit(X, y)
    n_trees = len(forest.estimators_)
    curve = forest.oob_curve_
    n_batches = curve.shape[0]
    assert curve.shape == (n_batches, 2)
    np.testing.assert_array_equal(curve[:, 0], batch_size * np.arange(1, n_batches + 1))
    assert n_trees == batch_size * n_batches < 500
    # The growth stops at the first batch the rule calls stable, not later.
    errors = curve[:, 1]
    stop = first_stable_batch(errors, patience, tol)
    assert stop == n_batches, (stop, n_batches, errors)
    assert stop > patience + 2
    assert rounding_equal(forest.oob_score_, 1.0 - errors[-1])
    # The curve is the out-of-bag error of the forest of its first trees.
    for n_first, error in curve[-2:]:
        plain = RandomForestClassifier(n_estimators=int(n_first), oob_score=True,
                                       random_state=0).fit(X, y)
        assert rounding_equal(error, 1.0 - plain.oob_score_)


def test_first_stable_batch_follows_the_documented_rule():
    assert first_stable_batch([0.5, 0.4, 0.3, 0.3], patience=1, tol=0.01) == 4
    assert first_stable_batch([0.5, 0.4, 0.3, 0.3], patience=2, tol=0.01) is None
    assert first_stable_batch([0.5, 0.4, 0.45], patience=1, tol=0.0) == 3
    assert first_stable_batch([0.5, 0.4, np.nan, 0.6], patience=1, tol=0.0) == 4
    assert first_stable_batch([0.5, 0.495], patience=1, tol=0.01) == 2


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
    ({"oob_batch_size": 0}, "The 'oob_batch_size' parameter must be an int in the range "
                            "[1, inf) or None. Got 0 instead."),
    ({"oob_batch_size": 5, "bootstrap": False},
     "Out of bag estimation only available if bootstrap=True (oob_score and oob_batch_size "
     "need rows left out of the trees' samples)"),
    ({"oob_score": True, "bootstrap": False}, "Out of bag estimation only available if "
                                              "bootstrap=True (oob_score and oob_batch_size"),
    ({"oob_patience": 0}, "The 'oob_patience' parameter must be an int in the range [1, inf). "
                          "Got 0 instead."),
    ({"oob_tol": -1.0}, "oob_tol must be a number >= 0; got -1.0"),
])
def test_batched_growth_parameters_are_checked(params, message):
    X, y = classification_data(n_samples=100)
    with pytest.raises(ValueError, match=re.escape(message)):
        RandomForestClassifier(n_estimators=5, **params).fit(X, y)


def test_batches_of_one_tree_grow_the_forest_tree_by_tree():
    X, y = classification_data(n_samples=300, seed=5)
    forest = RandomForestClassifier(n_estimators=30, oob_batch_size=1, oob_patience=3,
                                    random_state=0).fit(X, y)
    curve = forest.oob_curve_
    np.testing.assert_array_equal(curve[:, 0], np.arange(1, curve.shape[0] + 1))
    assert len(forest.estimators_) == curve.shape[0]


def permutation_importance_of_members(forest, X, y, seed, n_repeats):
    """Breiman's out-of-bag permutation importance from the forest's public
    members (their own predict, with the loss matrix they carry) and draws,
    permuting in the reference's generator order."""
    rng = np.random.default_rng(seed)
    drop, n_trees = np.zeros(X.shape[1]), 0
    regression = isinstance(forest, RandomForestRegressor)
    for member, rows in zip(forest.estimators_, forest.estimators_samples_):
        oob = np.flatnonzero(np.bincount(rows, minlength=len(y)) == 0)
        if oob.size == 0:
            continue
        n_trees += 1
        X_oob, y_oob = X[oob], y[oob]

        def score(rows_X):
            predicted = member.predict(rows_X)
            if regression:
                return -np.mean((predicted - y_oob) ** 2)
            return np.mean(predicted == y_oob)

        base = score(X_oob)
        for feature in range(X.shape[1]):
            for _ in range(n_repeats):
                permuted = X_oob.copy()
                permuted[:, feature] = X_oob[rng.permutation(oob.size), feature]
                drop[feature] += base - score(permuted)
    return drop / (n_trees * n_repeats)


def two_output_problem(regression, seed=0):
    X, y, _ = weighted_problem(regression, seed)
    second = np.abs(X[:, 2]) + 0.2 * X[:, 3] if regression else (X[:, 2] > 0.3).astype(int)
    return X, np.column_stack([y, second])


@pytest.mark.parametrize("case", ["loss-matrix", "two-outputs", "two-outputs-regression"])
def test_permutation_importance_scores_each_tree_as_its_member_predicts(case):
    # The trees' scores: accuracy of the class of least expected cost under a
    # loss matrix, and over every output's labels (or squared errors).
    regression = case == "two-outputs-regression"
    if case == "loss-matrix":
        X, y, _ = weighted_problem(False)
        forest = RandomForestClassifier(n_estimators=6, min_samples_leaf=10, random_state=3,
                                        loss_matrix=[[0.0, 1.0], [6.0, 0.0]]).fit(X, y)
    else:
        X, y = two_output_problem(regression)
        forest_class = RandomForestRegressor if regression else RandomForestClassifier
        forest = forest_class(n_estimators=6, min_samples_leaf=10, random_state=3).fit(X, y)
    ours = forest.oob_permutation_importance(X, y, n_repeats=2, random_state=7)
    expected = permutation_importance_of_members(forest, X, y, 7, n_repeats=2)
    assert np.any(expected != 0)
    assert_rounding_close(ours, expected, data_scale(y) ** 2 if regression else 1.0)


def fitted_for_curve(case, n_estimators, **params):
    """A forest of each kind whose out-of-bag error takes its own path: a loss
    matrix (the class of least expected cost), two outputs, a regressor
    scored by a function of the user's."""
    if case.startswith("loss-matrix"):
        X, y, _ = weighted_problem(False)
        make = RandomForestClassifier
        params["loss_matrix"] = [[0.0, 1.0], [6.0, 0.0]]
        if case.endswith("scoring-function"):
            params["oob_score"] = misclassified_share
    elif case == "scoring-function":
        X, y, _ = weighted_problem(True)
        make = RandomForestRegressor
        params["oob_score"] = mean_absolute_error
    else:
        regression = case == "two-outputs-regression"
        X, y = two_output_problem(regression)
        make = RandomForestRegressor if regression else RandomForestClassifier
    forest = make(n_estimators=n_estimators, min_samples_leaf=5, random_state=1,
                  **{"oob_score": True, **params}).fit(X, y)
    return forest, X, y


def misclassified_share(truth, predicted):
    return float(np.mean(truth != predicted))


def builtin_oob_error(forest, y):
    """1 - accuracy of the class of least expected cost (of rows whose every
    output's label is right, as scikit-learn's subset accuracy), or 1 - R^2,
    of the forest's out-of-bag estimates."""
    if isinstance(forest, RandomForestRegressor):
        covered = ~np.isnan(forest.oob_prediction_).any(axis=tuple(range(1, y.ndim)))
        return 1.0 - r2_score(y[covered], forest.oob_prediction_[covered])
    scores = forest.oob_decision_function_
    covered = ~np.isnan(scores).any(axis=tuple(range(1, scores.ndim)))
    if y.ndim == 2:
        predicted = np.column_stack([classes[np.argmax(scores[covered, :, k], axis=1)]
                                     for k, classes in enumerate(forest.classes_)])
        return 1.0 - np.mean(np.all(predicted == y[covered], axis=1))
    cost = scores[covered] @ np.asarray(forest.loss_matrix_)
    return 1.0 - np.mean(forest.classes_[np.argmin(cost, axis=1)] == y[covered])


CURVE_CASES = ["loss-matrix", "two-outputs", "two-outputs-regression", "scoring-function",
               "loss-matrix-scoring-function"]


@pytest.mark.parametrize("case", CURVE_CASES)
def test_the_oob_curve_is_the_builtin_error_of_the_first_trees_for_every_kind_of_target(case):
    forest, X, y = fitted_for_curve(case, n_estimators=20)
    curve = forest.oob_curve_
    np.testing.assert_array_equal(curve[:, 0], np.arange(1, 21))  # 20 trees: one by one
    assert rounding_equal(curve[-1, 1], builtin_oob_error(forest, y))
    fewer, _, _ = fitted_for_curve(case, n_estimators=9)
    assert rounding_equal(curve[8, 1], builtin_oob_error(fewer, y))
    if case == "scoring-function":
        # oob_score_ is the user's score; the curve stays an error to minimise.
        covered = ~np.isnan(forest.oob_prediction_)
        assert forest.oob_score_ == pytest.approx(
            mean_absolute_error(y[covered], forest.oob_prediction_[covered]), rel=1e-12)
    elif case == "loss-matrix-scoring-function":
        assert rounding_equal(forest.oob_score_, builtin_oob_error(forest, y))
    else:
        assert rounding_equal(forest.oob_score_, 1.0 - builtin_oob_error(forest, y))


@pytest.mark.parametrize("case", CURVE_CASES)
def test_batched_growth_stops_for_every_kind_of_target(case):
    forest, X, y = fitted_for_curve(case, n_estimators=300, oob_batch_size=2,
                                    oob_patience=2, oob_tol=0.01)
    errors = forest.oob_curve_[:, 1]
    assert len(forest.estimators_) == 2 * len(errors) < 300
    assert first_stable_batch(errors, 2, 0.01) == len(errors)
