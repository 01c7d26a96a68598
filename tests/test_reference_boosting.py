"""Tests of the pure-Python AdaBoost oracle (fasttree.reference.boosting)."""

import numpy as np
import pytest

from fasttree.reference import (
    ReferenceBoostR2,
    adaboost_r2,
    build_tree,
    samme,
    weighted_median,
)


def corner_problem(n_samples, seed, flip_rate=0.05):
    """Uniform points in the unit square; class 1 in the top-right corner."""
    rng = np.random.default_rng(seed)
    X = rng.random((n_samples, 2)).astype(np.float32)
    y = ((X[:, 0] > 0.6) & (X[:, 1] > 0.6)).astype(np.intp)
    flip = rng.random(n_samples) < flip_rate
    y[flip] = 1 - y[flip]
    return X, y


class FixedLearner:
    """A 'learner' that predicts a fixed vector whatever X is."""

    def __init__(self, predictions):
        self.predict = lambda X: np.asarray(predictions)


def fixed(predictions):
    """fit_stump / fit_learner returning a FixedLearner each round."""
    return lambda X, y, w: FixedLearner(predictions)


@pytest.fixture(scope="module")
def corner_boost():
    X, y = corner_problem(200, seed=1)
    return X, y, samme(X, y, n_estimators=50)


def test_boosting_stumps_drives_training_error_down(corner_boost):
    X, y, boost = corner_boost
    assert len(boost.learners) == 50
    errors = [np.mean(pred != y) for pred in boost.staged_predict(X)]
    assert len(errors) == 50
    stump = build_tree(X, y, criterion="gini", max_depth=1)
    assert errors[0] == np.mean(stump.predict(X) != y)
    assert errors[0] > 0.12
    assert errors[49] <= errors[9] < errors[0]
    assert errors[49] < 0.5 * errors[0]
    staged = list(boost.staged_predict(X))
    np.testing.assert_array_equal(boost.predict(X), staged[-1])


def test_boosted_stumps_generalise(corner_boost):
    _, _, boost = corner_boost
    X_test, y_test = corner_problem(1000, seed=2, flip_rate=0.0)
    assert np.mean(boost.predict(X_test) == y_test) > 0.9


def test_sample_weights_are_a_distribution_each_round(corner_boost):
    X, y, boost = corner_boost
    history = boost.sample_weights_history
    assert len(history) == len(boost.learners)
    np.testing.assert_allclose(history[0], np.full(len(y), 1 / len(y)))
    for w in history:
        assert np.all(w > 0)
        assert abs(w.sum() - 1.0) < 1e-12
    for t in range(5):
        miss = boost.learners[t].predict(X) != y
        assert boost.errors[t] == pytest.approx(history[t][miss].sum())
        # Misclassified rows gain exp(alpha) relative to correct ones.
        ratio = history[t + 1] / history[t]
        np.testing.assert_allclose(ratio[miss] / ratio[~miss][0],
                                   np.exp(boost.alphas[t]))
        np.testing.assert_allclose(ratio[~miss], ratio[~miss][0])


def test_decision_function_sums_alpha_times_one_hot(corner_boost):
    X, _, boost = corner_boost
    scores = boost.decision_function(X[:20])
    assert scores.shape == (20, 2)
    expected = np.zeros((20, 2))
    for learner, alpha in zip(boost.learners, boost.alphas):
        expected[np.arange(20), learner.predict(X[:20])] += alpha
    np.testing.assert_allclose(scores, expected)
    np.testing.assert_allclose(scores.sum(axis=1), boost.alphas.sum())


def test_learning_rate_scales_the_alphas():
    X, y = corner_problem(100, seed=3)
    full = samme(X, y, n_estimators=1)
    half = samme(X, y, n_estimators=1, learning_rate=0.5)
    assert half.alphas[0] == pytest.approx(0.5 * full.alphas[0])


def test_perfect_learner_stops_boosting_with_weight_one():
    X, y = np.arange(4, dtype=np.float32)[:, None], np.array([0, 0, 1, 1])
    boost = samme(X, y, n_estimators=10, learning_rate=0.3)
    assert len(boost.learners) == 1
    assert list(boost.alphas) == [1.0] and list(boost.errors) == [0.0]
    np.testing.assert_array_equal(boost.predict(X), y)


def test_three_classes_use_log_k_minus_one():
    rng = np.random.default_rng(4)
    X = rng.random((150, 2)).astype(np.float32)
    y = np.digitize(X[:, 0], [0.33, 0.66])
    flip = rng.random(150) < 0.05
    y[flip] = (y[flip] + 1) % 3
    boost = samme(X, y, n_estimators=20)
    assert boost.n_classes == 3 and boost.decision_function(X).shape == (150, 3)
    e = boost.errors[0]  # an alpha without log(K - 1) would be log(2) smaller
    assert boost.alphas[0] == pytest.approx(np.log((1 - e) / e) + np.log(2))
    assert np.mean(boost.predict(X) == y) > 0.9


def test_samme_keeps_a_learner_better_than_chance_but_worse_than_half():
    y = np.array([0, 1, 2, 0, 1])
    pred = np.array([0, 1, 0, 1, 0])  # 3 of 5 wrong: 0.6 < 1 - 1/3
    boost = samme(np.zeros((5, 1)), y, n_estimators=1, fit_stump=fixed(pred))
    assert boost.errors[0] == pytest.approx(0.6)
    assert boost.alphas[0] == pytest.approx(np.log(0.4 / 0.6) + np.log(2))
    assert boost.alphas[0] > 0


def test_worse_than_random_first_learner_raises():
    y = np.array([0, 1, 2, 0, 1, 2])
    pred = np.array([1, 2, 0, 0, 2, 0])  # 4 of 6 wrong = 1 - 1/3
    with pytest.raises(ValueError, match="worse than random"):
        samme(np.zeros((6, 1)), y, n_estimators=3, fit_stump=fixed(pred))


def test_worse_than_random_later_learner_is_discarded():
    y = np.array([0, 1, 0, 1])
    rounds = iter([np.array([0, 1, 0, 0]), np.array([1, 0, 1, 0])])
    boost = samme(np.zeros((4, 1)), y, n_estimators=5,
                  fit_stump=lambda X, y, w: FixedLearner(next(rounds)))
    assert len(boost.learners) == 1 and boost.errors[0] == pytest.approx(0.25)


def test_resampling_is_reproducible_and_uses_counts():
    X, y = corner_problem(120, seed=5)
    first = samme(X, y, n_estimators=5, resample_rng=np.random.default_rng(7))
    again = samme(X, y, n_estimators=5, resample_rng=np.random.default_rng(7))
    np.testing.assert_array_equal(first.alphas, again.alphas)
    np.testing.assert_array_equal(first.predict(X), again.predict(X))

    calls = []

    def spy(X_fit, y_fit, w_fit):
        calls.append((X_fit, w_fit))
        return build_tree(X_fit, y_fit, w_fit, n_classes=2, max_depth=1)

    samme(X, y, n_estimators=1, fit_stump=spy,
          resample_rng=np.random.default_rng(7))
    draws = np.random.default_rng(7).choice(120, 120, p=np.full(120, 1 / 120))
    counts = np.bincount(draws, minlength=120)
    rows = np.flatnonzero(counts)
    np.testing.assert_array_equal(calls[0][0], X[rows])
    np.testing.assert_array_equal(calls[0][1], counts[rows])


def staircase(n_samples, seed):
    """Noisy 1-D step function with three levels 0, 1, 2."""
    rng = np.random.default_rng(seed)
    x = np.sort(rng.random(n_samples)).astype(np.float32)[:, None]
    return x, np.floor(3 * x[:, 0]) + 0.1 * rng.normal(size=n_samples)


def stump_regressor(X, y, w):
    return build_tree(X, y, w, criterion="squared_error", max_depth=1)


def test_r2_beats_a_single_stump_on_a_step_function():
    x, y = staircase(150, seed=0)
    x_test = np.linspace(0, 1, 301).astype(np.float32)[:, None]
    y_test = np.floor(3 * x_test[:, 0].astype(np.float64))
    single = build_tree(x, y, criterion="squared_error", max_depth=1)
    single_mse = np.mean((single.predict(x_test) - y_test) ** 2)
    boosted = adaboost_r2(x, y, n_estimators=30, fit_learner=stump_regressor,
                          rng=np.random.default_rng(1))
    assert np.mean((boosted.predict(x_test) - y_test) ** 2) < 0.85 * single_mse
    deeper = adaboost_r2(x, y, n_estimators=10, rng=np.random.default_rng(1))
    assert np.mean((deeper.predict(x_test) - y_test) ** 2) < 0.1 * single_mse
    for w in deeper.sample_weights_history:
        assert abs(w.sum() - 1.0) < 1e-12


def test_weighted_median_on_hand_made_learners():
    learners = [FixedLearner([3.0, 0.0]), FixedLearner([1.0, 5.0]),
                FixedLearner([2.0, 6.0])]
    X = np.zeros((2, 1))
    # Column 0 sorted 1, 2, 3 with weights 1, 1, 2: cumulative 1, 2 first
    # reaches half of 4 at 2.  Column 1 sorted 0, 5, 6 with weights 2, 1, 1:
    # exactly half at 0, and the smallest such prediction wins.
    boost = ReferenceBoostR2(learners, [2.0, 1.0, 1.0], [0.1] * 3)
    assert list(boost.predict(X)) == [2.0, 0.0]
    # Weights 3, 1, 1: column 0 cumulative 1, 2, 5 first reaches 2.5 at 3;
    # column 1 cumulative 3 at 0.
    boost = ReferenceBoostR2(learners, [3.0, 1.0, 1.0], [0.1] * 3)
    assert list(boost.predict(X)) == [3.0, 0.0]
    # Weights 1, 1, 3: column 0 cumulative 1, 4 gives 2; column 1 gives 6.
    boost = ReferenceBoostR2(learners, [1.0, 1.0, 3.0], [0.1] * 3)
    assert list(boost.predict(X)) == [2.0, 6.0]
    assert list(weighted_median([[4.0], [4.0], [1.0]], [1.0, 1.0, 1.0])) == [4.0]


def test_r2_round_follows_drucker():
    x, y = staircase(60, seed=2)
    boost = adaboost_r2(x, y, n_estimators=2, loss="square",
                        fit_learner=stump_regressor, rng=np.random.default_rng(3))
    err = np.abs(y - boost.learners[0].predict(x))
    losses = (err / err.max()) ** 2
    lbar = np.mean(losses)
    beta = lbar / (1 - lbar)
    assert boost.errors[0] == pytest.approx(lbar)
    assert boost.weights[0] == pytest.approx(np.log(1 / beta))
    expected = beta ** (1 - losses)
    np.testing.assert_allclose(boost.sample_weights_history[1],
                               expected / expected.sum())


@pytest.mark.parametrize("loss", ["linear", "square", "exponential"])
def test_r2_losses_run_and_are_reproducible(loss):
    x, y = staircase(80, seed=4)
    fits = [adaboost_r2(x, y, n_estimators=5, loss=loss,
                        fit_learner=stump_regressor, rng=np.random.default_rng(5))
            for _ in range(2)]
    assert 1 <= len(fits[0].learners) <= 5
    assert np.all(fits[0].errors < 0.5) and np.all(fits[0].weights > 0)
    np.testing.assert_array_equal(fits[0].predict(x), fits[1].predict(x))


def test_r2_stop_rules():
    x = np.arange(4, dtype=np.float32)[:, None]
    exact = adaboost_r2(x, [1.0, 2.0, 3.0, 4.0], n_estimators=5,
                        fit_learner=fixed([1.0, 2.0, 3.0, 4.0]),
                        rng=np.random.default_rng(0))
    assert len(exact.learners) == 1 and list(exact.weights) == [1.0]
    with pytest.raises(ValueError, match=">= 0.5"):
        adaboost_r2(x, [0.0, 0.0, 0.0, 0.0], n_estimators=5,
                    fit_learner=fixed([1.0, 1.0, 1.0, 0.0]),
                    rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="unknown loss"):
        adaboost_r2(x, np.zeros(4), n_estimators=1, loss="huber",
                    rng=np.random.default_rng(0))
