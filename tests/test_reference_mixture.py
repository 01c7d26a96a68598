"""Tests of the pure-Python mixture-of-experts oracle (fasttree.reference.mixture)."""

import numpy as np
import pytest

from fasttree.reference.mixture import (LinearExpert, LogisticExpert, fit_mixture, gate_inputs,
                                        kmeans, softmax_gate_step, update_gate, with_intercept)


def two_regime_problem(n_samples, seed):
    """Class x1 > 0 where x0 > 0 and x2 > 0 elsewhere: one logistic model per half."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, 3))
    return X, np.where(X[:, 0] > 0, X[:, 1] > 0, X[:, 2] > 0).astype(np.intp)


def noisy_problem(kind, n_samples, seed):
    """Random inputs, weights and targets with some structure and much noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, 3))
    weights = rng.uniform(0.5, 2.0, n_samples)
    if kind == "classifier":
        y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=n_samples) > 0).astype(np.intp)
        y[rng.random(n_samples) < 0.2] = 2
    else:
        y = np.where(X[:, 0] > 0, 2 * X[:, 1], -X[:, 2]) + 0.5 * rng.normal(size=n_samples)
    return X, y, weights


def log_softmax(scores):
    shifted = scores - scores.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def logistic_objective(free, X, y, weights, mean, scale, alpha, n_classes):
    """The penalised objective of the spec, written out again for the tests."""
    design = np.hstack([np.ones((len(X), 1)), (X - mean) / scale])
    coef = np.zeros((design.shape[1], n_classes))
    coef[:, :-1] = free.reshape(design.shape[1], n_classes - 1)
    log_p = log_softmax(design @ coef)[np.arange(len(y)), y]
    return np.sum(weights * log_p) / weights.sum() - 0.5 * alpha * np.sum(coef[1:] ** 2)


def penalised_gate_fit(V, Zi, targets, weights, alpha):
    log_g = log_softmax(Zi @ V)
    return (np.sum(weights[:, None] * targets * log_g) / weights.sum()
            - 0.5 * alpha * np.sum(V[1:, :-1] ** 2))


@pytest.mark.parametrize("levels", [1, 2])
@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_log_likelihood_never_decreases_over_the_em_iterations(kind, levels):
    X, y, weights = noisy_problem(kind, 150, seed=levels)
    mixture = fit_mixture(X, y, kind=kind, n_experts=2, levels=levels, max_iter=25,
                          tol=-np.inf, sample_weight=weights)
    log_likelihood = np.array(mixture.log_likelihood)
    assert mixture.n_iter == len(log_likelihood) == 25
    assert np.all(np.diff(log_likelihood) >= -1e-10)
    assert log_likelihood[-1] > log_likelihood[0] + 0.01
    assert mixture.average_log_likelihood(X, y, weights) == pytest.approx(log_likelihood[-1])
    np.testing.assert_allclose(mixture.gate_weights(X).sum(axis=1), 1.0)
    np.testing.assert_allclose(mixture.responsibilities(X, y).sum(axis=1), 1.0)


def test_em_stops_at_the_first_gain_below_tol():
    X, y, _ = noisy_problem("regressor", 150, seed=3)
    mixture = fit_mixture(X, y, kind="regressor", n_experts=2, tol=1e-2)
    gains = np.diff(mixture.log_likelihood)
    assert 2 <= mixture.n_iter < 100
    assert np.all(gains[:-1] >= 1e-2) and gains[-1] < 1e-2


def test_gate_inputs_standardise_numbers_and_one_hot_categories():
    X = np.array([[1.0, 2.0, 5.0], [3.0, np.nan, 5.0], [np.nan, 0.0, 5.0], [2.0, 1.0, 5.0]])
    inputs = gate_inputs(X, categorical=[False, True, False], n_levels=[4])
    scale = np.std([1.0, 3.0, 2.0])
    expected = np.array([[-1 / scale, 0, 0, 1, 0, 0], [1 / scale, 0, 0, 0, 0, 0],
                         [0, 1, 0, 0, 0, 0], [0, 0, 1, 0, 0, 0]])
    np.testing.assert_allclose(inputs.transform(X), expected, atol=1e-15)
    with pytest.raises(ValueError, match="not a code"):
        inputs.transform(np.array([[0.0, 4.0, 1.0]]))


@pytest.mark.parametrize("alpha", [0.05, 1e-4])
def test_logistic_expert_has_zero_penalised_gradient_at_its_fit(alpha):
    X, y, weights = noisy_problem("classifier", 200, seed=4)
    weights[y == 1] *= 3.0
    expert = LogisticExpert(alpha=alpha).fit(X, y, sample_weight=weights)
    np.testing.assert_array_equal(expert.classes_, [0, 1, 2])
    np.testing.assert_allclose(expert.mean_, np.average(X, axis=0, weights=weights))
    np.testing.assert_allclose(expert.scale_, np.sqrt(np.average(
        (X - expert.mean_) ** 2, axis=0, weights=weights)))
    assert np.all(expert.coef_[:, -1] == 0)
    free = expert.coef_[:, :-1].reshape(-1)
    args = (X, y, weights, expert.mean_, expert.scale_, alpha, 3)
    step = 1e-5
    gradient = [(logistic_objective(free + step * e, *args)
                 - logistic_objective(free - step * e, *args)) / (2 * step)
                for e in np.eye(len(free))]
    assert np.max(np.abs(gradient)) < 1e-7
    # Brute force: no nearby coefficients do better.
    rng = np.random.default_rng(0)
    best = logistic_objective(free, *args)
    for _ in range(50):
        assert logistic_objective(free + 1e-3 * rng.normal(size=free.shape), *args) < best


def test_logistic_expert_matches_a_general_purpose_optimiser():
    optimize = pytest.importorskip("scipy.optimize")
    X, y, weights = noisy_problem("classifier", 200, seed=5)
    expert = LogisticExpert(alpha=0.01).fit(X, y, sample_weight=weights)
    args = (X, y, weights, expert.mean_, expert.scale_, 0.01, 3)
    result = optimize.minimize(lambda free: -logistic_objective(free, *args),
                               np.zeros(8), method="BFGS", options={"gtol": 1e-10})
    np.testing.assert_allclose(expert.coef_[:, :-1].reshape(-1), result.x, atol=1e-5)
    assert logistic_objective(expert.coef_[:, :-1].reshape(-1), *args) >= -result.fun - 1e-12
    one_class = LogisticExpert().fit(X, y, sample_weight=(y == 2).astype(float))
    np.testing.assert_array_equal(one_class.classes_, [2])
    np.testing.assert_array_equal(one_class.predict_proba(X), 1.0)


def test_linear_expert_equals_the_closed_form_weighted_ridge_solution():
    X, y, weights = noisy_problem("regressor", 120, seed=6)
    weights[:10] = 0.0
    alpha = 0.3
    expert = LinearExpert(alpha=alpha).fit(X, y, sample_weight=weights)
    mean = np.average(X, axis=0, weights=weights)
    scale = np.sqrt(np.average((X - mean) ** 2, axis=0, weights=weights))
    design = np.hstack([np.ones((len(X), 1)), (X - mean) / scale])
    # Ridge as least squares: rows scaled by sqrt(s/S), then sqrt(alpha) rows
    # pulling each slope (not the intercept) to 0.
    root = np.sqrt(weights / weights.sum())
    augmented = np.vstack([root[:, None] * design, np.sqrt(alpha) * np.eye(4)[1:]])
    target = np.concatenate([root * y, np.zeros(3)])
    coef = np.linalg.lstsq(augmented, target, rcond=None)[0]
    np.testing.assert_allclose(expert.coef_, coef, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(expert.predict(X), design @ coef, rtol=1e-10, atol=1e-12)


def test_one_gate_bound_step_never_decreases_the_penalised_gate_objective():
    rng = np.random.default_rng(7)
    for trial in range(30):
        n_branches = 2 + trial % 3
        alpha = (0.0, 1e-3, 0.1)[trial % 3]
        Zi = with_intercept(rng.normal(size=(60, 3)))
        V = 2.0 * rng.normal(size=(4, n_branches))
        V[:, -1] = 0.0
        targets = rng.dirichlet(np.ones(n_branches), size=60)
        weights = rng.uniform(0.0, 2.0, 60)
        stepped = softmax_gate_step(V, Zi, targets, weights, alpha)
        assert np.all(stepped[:, -1] == 0)
        assert (penalised_gate_fit(stepped, Zi, targets, weights, alpha)
                > penalised_gate_fit(V, Zi, targets, weights, alpha))


def test_gate_update_keeps_the_old_coefficients_when_the_fit_would_fall():
    rng = np.random.default_rng(8)
    Zi = with_intercept(rng.normal(size=(80, 2)))
    weights = np.ones(80)
    V = np.array([[0.5, -1.0, 0.0], [3.0, 1.0, 0.0], [-2.0, 4.0, 0.0]])
    # Targets equal to the gate's own probabilities: V maximises the
    # unpenalised fit, so steps shrinking V under a large penalty lower it.
    targets = np.exp(log_softmax(Zi @ V))
    np.testing.assert_array_equal(update_gate(V, Zi, targets, weights, alpha=1.0), V)
    moved = update_gate(np.zeros_like(V), Zi, targets, weights, alpha=0.0)
    assert not np.all(moved == 0)
    np.testing.assert_array_equal(update_gate(V, Zi, targets, 0 * weights, 0.0), V)


def test_kmeans_recovers_well_separated_blobs_with_one_draw_per_centre():
    rng = np.random.default_rng(9)
    centres = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]])
    blob = np.repeat(np.arange(3), 30)
    Z = centres[blob] + 0.3 * rng.normal(size=(90, 2))
    weights = rng.uniform(0.5, 1.5, 90)
    generator = np.random.default_rng(1)
    labels = kmeans(Z, 3, weights, generator)
    for k in range(3):
        assert len(set(labels[blob == k])) == 1
    assert len(set(labels)) == 3
    # Exactly one uniform draw per centre (rng.choice with p).
    reference = np.random.default_rng(1)
    reference.random(3)
    assert generator.bit_generator.state == reference.bit_generator.state
    np.testing.assert_array_equal(kmeans(Z, 3, weights, np.random.default_rng(1)), labels)


@pytest.mark.parametrize("levels", [1, 2])
@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_a_mixture_of_one_expert_predicts_what_that_expert_predicts_alone(kind, levels):
    X, y, weights = noisy_problem(kind, 100, seed=10)
    X[3, 1] = np.nan
    mixture = fit_mixture(X, y, kind=kind, n_experts=1, levels=levels, sample_weight=weights)
    assert len(mixture.experts) == 1
    Z = gate_inputs(X).transform(X)
    expert_class = LogisticExpert if kind == "classifier" else LinearExpert
    alone = expert_class().fit(Z, y, sample_weight=weights)
    if kind == "classifier":
        np.testing.assert_array_equal(mixture.predict_proba(X), alone.predict_proba(Z))
    np.testing.assert_array_equal(mixture.predict(X), alone.predict(Z))


class WorseEachTimeExpert:
    """Predicts the weighted mean of y, plus 1 more for each earlier fit."""

    fits = 0

    def fit(self, X, y, sample_weight=None):
        self.value = np.average(y, weights=sample_weight) + WorseEachTimeExpert.fits
        WorseEachTimeExpert.fits += 1
        return self

    def predict(self, X):
        return np.full(len(X), self.value)


def test_an_expert_is_replaced_only_by_one_that_fits_at_least_as_well():
    X, y, weights = noisy_problem("regressor", 50, seed=13)
    WorseEachTimeExpert.fits = 0
    mixture = fit_mixture(X, y, kind="regressor", n_experts=1, max_iter=4, tol=-np.inf,
                          sample_weight=weights, make_expert=lambda j: WorseEachTimeExpert())
    assert WorseEachTimeExpert.fits == 4
    assert mixture.experts[0].value == np.average(y, weights=weights)
    assert np.ptp(mixture.log_likelihood) == 0


class RecordingExpert(LinearExpert):
    """A linear expert that keeps the inputs and weights of every fit of its index."""

    def __init__(self, record):
        super().__init__()
        self.record = record

    def fit(self, X, y, sample_weight=None):
        self.record.append((np.array(X), np.array(sample_weight)))
        return super().fit(X, y, sample_weight=sample_weight)


def test_given_experts_are_fitted_on_X_weighted_by_trimmed_responsibilities():
    rng = np.random.default_rng(14)
    X = rng.normal(size=(120, 2))
    y = np.where(X[:, 0] > 0, 5 * X[:, 1], -5 * X[:, 1]) + 0.05 * rng.normal(size=120)
    weights = rng.uniform(0.5, 2.0, 120)
    records = [[], []]
    fit_mixture(X, y, kind="regressor", sample_weight=weights, max_iter=2, tol=-np.inf,
                make_expert=lambda j: RecordingExpert(records[j]))
    first = fit_mixture(X, y, kind="regressor", sample_weight=weights, max_iter=1,
                        make_expert=lambda j: RecordingExpert([]))
    responsibilities = first.responsibilities(X, y)
    assert np.any((responsibilities > 0) & (responsibilities < 1e-6))
    for j in range(2):
        h = responsibilities[:, j]
        np.testing.assert_array_equal(records[j][1][0], X)
        np.testing.assert_array_equal(records[j][1][1], np.where(h < 1e-6, 0.0, weights * h))


def test_a_class_an_expert_did_not_learn_has_probability_zero_floored_in_the_likelihood():
    X, y = two_regime_problem(60, seed=15)
    y[0] = 2
    weights = np.ones(60)
    weights[0] = 0.0
    mixture = fit_mixture(X, y, kind="classifier", n_experts=1, sample_weight=weights)
    np.testing.assert_array_equal(mixture.experts[0].classes_, [0, 1])
    assert mixture.predict_proba(X).shape == (60, 3)
    assert np.all(mixture.predict_proba(X)[:, 2] == 0)
    assert mixture.average_log_likelihood(X[:1], [2]) == pytest.approx(np.log(1e-12))


def test_two_logistic_experts_fit_two_regime_data_better_than_one():
    X, y = two_regime_problem(300, seed=11)
    one = fit_mixture(X, y, kind="classifier", n_experts=1)
    two = fit_mixture(X, y, kind="classifier", n_experts=2)
    assert two.log_likelihood[-1] > one.log_likelihood[-1] + 0.2
    assert np.mean(two.predict(X) == y) > 0.9 > np.mean(one.predict(X) == y)


@pytest.mark.parametrize("levels, n_experts", [(1, 4), (2, 2)])
def test_more_experts_than_distinct_rows_is_an_error(levels, n_experts):
    X = np.tile([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]], (5, 1))
    y = np.arange(15) % 2
    with pytest.raises(ValueError, match="fewer distinct rows than experts"):
        fit_mixture(X, y, kind="classifier", n_experts=n_experts, levels=levels)
    # Rows of no weight do not count.
    X4, y4 = np.vstack([X, [[5.0, 5.0]]]), np.append(y, 0)
    fit_mixture(X4, y4, kind="classifier", n_experts=4, max_iter=2)
    with pytest.raises(ValueError, match="fewer distinct rows than experts"):
        fit_mixture(X4, y4, kind="classifier", n_experts=4,
                    sample_weight=np.append(np.ones(15), 0.0))


@pytest.mark.parametrize("change, message", [
    ({"kind": "ranker"}, "kind"), ({"levels": 3}, "levels"), ({"n_experts": 0}, "n_experts"),
    ({"max_iter": 0}, "max_iter"), ({"sample_weight": -np.ones(20)}, "sample_weight"),
    ({"y": np.full(20, 0.5)}, "class indices"), ({"categorical": [True, False]}, "code")])
def test_bad_parameters_and_inputs_are_errors(change, message):
    rng = np.random.default_rng(12)
    arguments = {"X": rng.normal(size=(20, 2)), "y": np.arange(20) % 2, "kind": "classifier"}
    arguments.update(change)
    with pytest.raises(ValueError, match=message):
        fit_mixture(**arguments)
