"""Conformal prediction intervals of the forest regressors (``_intervals.py``):
coverage of new rows at the level asked, each method against its definition
computed by hand, and errors."""

import math
import pickle

import numpy as np
import pytest

import fasttree
from fasttree import (ExtraTreesRegressor, RandomForestQuantileRegressor,
                      RandomForestRegressor)
from tolerances import assert_rounding_close, data_scale


pytestmark = pytest.mark.filterwarnings("ignore:Some inputs do not have OOB scores")


def heteroscedastic(n_samples, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, size=(n_samples, 4))
    y = 3 * X[:, 0] + rng.normal(size=n_samples) * (0.2 + 2 * X[:, 1])
    return X, y


@pytest.fixture(scope="module")
def splits():
    return heteroscedastic(2000, 0), heteroscedastic(1000, 1), heteroscedastic(4000, 2)


def coverage(bounds, y):
    return float(np.mean((y >= bounds[:, 0]) & (y <= bounds[:, 1])))


@pytest.mark.parametrize("estimator", [RandomForestRegressor, RandomForestQuantileRegressor])
def test_calibrated_intervals_cover_new_rows_at_the_level_asked(estimator, splits):
    (X, y), (X_cal, y_cal), (X_new, y_new) = splits
    forest = estimator(60, min_samples_leaf=5, oob_score=True, random_state=0,
                       n_jobs=2).fit(X, y)
    methods = {"oob": None, "split": (X_cal, y_cal, False)}
    if estimator is RandomForestQuantileRegressor:
        methods.update({"cqr": (X_cal, y_cal, False), "cqr-oob": (X, y, True)})
    for alpha in (0.1, 0.2):
        for name, calibration in methods.items():
            if calibration is not None:
                forest.calibrate(calibration[0], calibration[1], oob=calibration[2])
            bounds = forest.predict_interval(X_new, alpha=alpha, method=name.split("-")[0])
            assert abs(coverage(bounds, y_new) - (1 - alpha)) <= 0.04, (name, alpha)
            assert (bounds[:, 0] <= bounds[:, 1]).all()


def linear(n_samples, seed):
    """A smooth target of many features (make_regression's kind): a leaf's
    rows differ in their means, and raw forest intervals cover too much."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, 10))
    y = X @ np.linspace(1, 3, 10) + rng.normal(size=n_samples) * (0.5 + (X[:, 1] > 0))
    return X, y


def test_cqr_and_jackknife_are_narrower_than_the_over_covering_raw_quantiles():
    (X, y), (X_new, y_new) = linear(2000, 0), linear(4000, 1)
    forest = RandomForestQuantileRegressor(60, min_samples_leaf=5, max_samples_leaf=None,
                                           oob_score=True, random_state=0).fit(X, y)
    raw = forest.predict_interval(X_new, method="quantile")
    assert coverage(raw, y_new) > 0.95
    forest.calibrate(X, y, oob=True)
    for method in ("cqr", "oob"):
        bounds = forest.predict_interval(X_new, method=method)
        assert 0.86 <= coverage(bounds, y_new) <= 0.94
        assert np.mean(bounds[:, 1] - bounds[:, 0]) < np.mean(raw[:, 1] - raw[:, 0])


def test_jackknife_plus_after_bootstrap_equals_its_definition():
    X, y = heteroscedastic(120, 3)
    X_new, _ = heteroscedastic(7, 4)
    forest = RandomForestRegressor(25, min_samples_leaf=2, oob_score=True,
                                   random_state=0).fit(X, y)
    per_tree = np.array([tree.predict(X_new.astype(np.float32))[:, 0]
                         for tree in forest._trees])
    alpha = 0.2
    lows, highs = [], []
    for row in range(len(X_new)):
        lower, upper = [], []
        for i in range(len(X)):
            trees = [t for t in range(25) if forest._tree_counts(t)[i] == 0]
            if not trees:
                continue
            held_out = np.mean([forest._trees[t].predict(X[i:i + 1].astype(np.float32))[0, 0]
                                for t in trees])
            residual = abs(y[i] - held_out)
            mean = np.mean(per_tree[trees, row])
            lower.append(mean - residual)
            upper.append(mean + residual)
        n = len(lower)
        lows.append(np.sort(lower)[math.floor(alpha * (n + 1)) - 1])
        highs.append(np.sort(upper)[math.ceil((1 - alpha) * (n + 1)) - 1])
    bounds = forest.predict_interval(X_new, alpha=alpha, method="oob")
    assert_rounding_close(bounds, np.column_stack([lows, highs]), scale=data_scale(y))


def test_split_and_cqr_widths_are_the_conformal_quantile_of_the_scores():
    X, y = heteroscedastic(300, 5)
    X_cal, y_cal = heteroscedastic(19, 6)
    X_new, _ = heteroscedastic(10, 7)
    forest = RandomForestQuantileRegressor(20, random_state=0).fit(X, y)
    forest.calibrate(X_cal, y_cal)
    residuals = np.sort(np.abs(y_cal - fasttree.RandomForestRegressor.predict(forest, X_cal)))
    # alpha = 0.1 of 19 rows: the 18th smallest residual, ceil(0.9 * 20).
    center = fasttree.RandomForestRegressor.predict(forest, X_new)
    np.testing.assert_array_equal(forest.predict_interval(X_new, 0.1, "split"),
                                  np.column_stack([center - residuals[17],
                                                   center + residuals[17]]))
    low, high = forest.predict(X_cal, quantiles=[0.1, 0.9]).T
    scores = np.sort(np.maximum(low - y_cal, y_cal - high))
    raw = forest.predict(X_new, quantiles=[0.1, 0.9])
    # alpha = 0.2: ceil(0.8 * 20) = 16th smallest score.
    np.testing.assert_array_equal(forest.predict_interval(X_new, 0.2, "cqr"),
                                  raw + np.array([-scores[15], scores[15]]))
    np.testing.assert_array_equal(forest.predict_interval(X_new, 0.2, "quantile"), raw)
    # Too few rows for the level: the interval is unbounded.
    assert np.isinf(forest.predict_interval(X_new, 0.01, "split")).all()


def test_calibration_is_kept_by_pickles_and_model_files(tmp_path):
    X, y = heteroscedastic(200, 8)
    forest = RandomForestQuantileRegressor(10, oob_score=True, random_state=0).fit(X, y)
    forest.calibrate(X, y, oob=True)
    expected = {method: forest.predict_interval(X[:20], method=method)
                for method in ("oob", "split", "cqr", "quantile")}
    forest.save(tmp_path / "model.ftm")
    for restored in (pickle.loads(pickle.dumps(forest)), fasttree.load(tmp_path / "model.ftm")):
        for method, bounds in expected.items():
            np.testing.assert_array_equal(restored.predict_interval(X[:20], method=method),
                                          bounds)


@pytest.mark.parametrize("make,call,message", [
    (lambda: RandomForestRegressor(5, oob_score=True), lambda f, X, y: f.predict_interval(
        X, method="cqr"), "method"),
    (lambda: RandomForestRegressor(5), lambda f, X, y: f.predict_interval(X), "oob_score=True"),
    (lambda: RandomForestRegressor(5, oob_score=True, aggregation="median"),
     lambda f, X, y: f.predict_interval(X), "median"),
    (lambda: RandomForestRegressor(5), lambda f, X, y: f.predict_interval(X, method="split"),
     "calibrate"),
    (lambda: RandomForestRegressor(5), lambda f, X, y: f.predict_interval(X, alpha=1.0),
     "alpha"),
    (lambda: RandomForestRegressor(5), lambda f, X, y: f.predict_interval(X, alpha="0.1"),
     "alpha"),
    (lambda: ExtraTreesRegressor(5), lambda f, X, y: f.calibrate(X, y, oob=True),
     "bootstrap=True"),
    (lambda: RandomForestRegressor(5), lambda f, X, y: f.calibrate(X[:5], y[:5], oob=True),
     "training rows"),
    (lambda: RandomForestRegressor(5), lambda f, X, y: f.calibrate(X, y[:5]), "shape"),
    (lambda: RandomForestRegressor(5), lambda f, X, y: f.calibrate(X, y * np.nan), "NaN"),
    (lambda: RandomForestRegressor(5), lambda f, X, y: f.predict_interval(X, ties="open"),
     "ties"),
    (lambda: RandomForestRegressor(5), lambda f, X, y: f.predict_interval(
        X, ties="randomized", random_state=-1), "random_state"),
])
def test_bad_interval_requests_are_refused_by_name(make, call, message):
    X, y = heteroscedastic(60, 9)
    forest = make().fit(X, y)
    with pytest.raises(ValueError, match=message):
        call(forest, X, y)


def zero_inflated(n_samples, seed):
    """A target that is exactly 0 in about three rows of four."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, size=(n_samples, 3))
    return X, np.maximum(0.0, 3 * X[:, 0] - 2.5 + rng.normal(size=n_samples))


@pytest.mark.parametrize("alpha", [0.1, 0.2])
def test_randomized_ties_bring_cqr_to_the_level_asked_on_a_target_with_an_atom(alpha):
    (X, y), (X_cal, y_cal), (X_new, y_new) = (zero_inflated(2000, 0), zero_inflated(1000, 1),
                                              zero_inflated(6000, 2))
    forest = RandomForestQuantileRegressor(60, min_samples_leaf=5, random_state=0,
                                           n_jobs=2).fit(X, y)
    forest.calibrate(X_cal, y_cal)
    closed = forest.predict_interval(X_new, alpha, "cqr")
    np.testing.assert_array_equal(forest.predict_interval(X_new, alpha, "cqr", ties="closed"),
                                  closed)
    randomized = forest.predict_interval(X_new, alpha, "cqr", ties="randomized",
                                         random_state=3)
    # The calibration rows' scores tie at 0 (their target 0 at the lower
    # quantile): closed intervals cover too many new rows, randomized ones
    # the share asked.
    assert coverage(closed, y_new) >= 1 - alpha + 0.03
    assert abs(coverage(randomized, y_new) - (1 - alpha)) <= 0.02
    # Randomized bounds are the closed ones or one float inside them.
    opened = randomized[:, 0] != closed[:, 0]
    assert 0 < opened.mean() < 1
    np.testing.assert_array_equal(randomized[opened, 0], np.nextafter(closed[opened, 0], np.inf))
    np.testing.assert_array_equal(randomized[opened, 1], np.nextafter(closed[opened, 1], -np.inf))
    np.testing.assert_array_equal(randomized[~opened], closed[~opened])
    np.testing.assert_array_equal(forest.predict_interval(X_new, alpha, "cqr", ties="randomized",
                                                          random_state=3), randomized)


def test_tie_coverage_is_the_smoothed_conformal_probability():
    from fasttree._intervals import tie_coverage

    # n = 5, alpha = 0.5: (1 - alpha)(n + 1) = 3; none below 0, three tied: 3 / 4.
    assert tie_coverage(np.array([0.0, 2.0, 0.0, 1.0, 0.0]), 0.0, 0.5) == 0.75
    # Two below 1.0 and one tied: (3 - 2) / 2.
    assert tie_coverage(np.array([0.0, 2.0, -1.0, 1.0, 3.0]), 1.0, 0.5) == 0.5


def test_several_outputs_are_refused():
    X, y = heteroscedastic(60, 10)
    forest = RandomForestRegressor(5, oob_score=True).fit(X, np.column_stack([y, y]))
    with pytest.raises(ValueError, match="one output"):
        forest.predict_interval(X)
