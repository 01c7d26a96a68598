"""The linear experts (``fasttree.experts``): the penalised optima they
reach, against the oracle's and by their definitions; their inputs; errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fasttree import LinearExpert, LogisticExpert, ModelFileError
from fasttree.reference.mixture import LinearExpert as ReferenceLinearExpert
from fasttree.reference.mixture import LogisticExpert as ReferenceLogisticExpert

TOLERANCE = dict(rtol=1e-6, atol=1e-8)


def problem(seed, n_samples=120, n_features=3, n_classes=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features)) * rng.uniform(0.1, 10, n_features)
    scores = X @ rng.normal(size=(n_features, n_classes)) + rng.normal(size=(n_samples, n_classes))
    weights = rng.uniform(0.0, 2.0, n_samples)
    return X, np.argmax(scores, axis=1), X @ rng.normal(size=n_features), weights


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n_classes=st.integers(2, 4),
       alpha=st.sampled_from([1e-4, 1e-2, 1.0]))
def test_logistic_expert_reaches_the_oracles_optimum(seed, n_classes, alpha):
    X, y, _, weights = problem(seed, n_classes=n_classes)
    ours = LogisticExpert(alpha=alpha).fit(X, y, sample_weight=weights)
    oracle = ReferenceLogisticExpert(alpha=alpha).fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(ours.predict_proba(X), oracle.predict_proba(X), **TOLERANCE)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), alpha=st.sampled_from([0.0, 1e-4, 1.0]))
def test_linear_expert_is_the_oracles_weighted_ridge_solution(seed, alpha):
    X, _, y, weights = problem(seed)
    ours = LinearExpert(alpha=alpha).fit(X, y, sample_weight=weights)
    oracle = ReferenceLinearExpert(alpha=alpha).fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(ours.predict(X), oracle.predict(X), **TOLERANCE)


def test_linear_expert_without_penalty_is_weighted_least_squares():
    X, _, y, weights = problem(1)
    y = y + np.random.default_rng(1).normal(size=len(y))
    model = LinearExpert(alpha=0.0).fit(X, y, sample_weight=weights)
    design = np.hstack([np.ones((len(y), 1)), X]) * np.sqrt(weights)[:, None]
    solution = np.linalg.lstsq(design, y * np.sqrt(weights), rcond=None)[0]
    np.testing.assert_allclose(model.intercept_, solution[0], **TOLERANCE)
    np.testing.assert_allclose(model.coef_, solution[1:], **TOLERANCE)


def test_logistic_expert_gradient_vanishes_at_its_fit():
    X, y, _, weights = problem(2)
    alpha = 1e-2
    model = LogisticExpert(alpha=alpha).fit(X, y, sample_weight=weights)
    # The gradient of the penalised objective in the standardised inputs.
    mean = weights @ X / weights.sum()
    scale = np.sqrt(weights @ (X - mean) ** 2 / weights.sum())
    Z = (X - mean) / scale
    P = model.predict_proba(X)
    targets = np.eye(3)[y]
    gradient = Z.T @ (weights[:, None] * (targets - P)) / weights.sum()
    coefficients = (model.coef_ * scale).T
    free = gradient[:, :-1] - alpha * coefficients[:, :-1]
    assert np.abs(free).max() < 1e-7
    np.testing.assert_array_equal(model.coef_[-1], 0.0)


def test_a_class_of_zero_weight_is_not_learnt():
    X, y, _, weights = problem(3)
    weights[y == 1] = 0.0
    model = LogisticExpert().fit(X, y, sample_weight=weights)
    np.testing.assert_array_equal(model.classes_, [0, 2])
    assert model.predict_proba(X).shape == (len(y), 2)


def test_categorical_columns_are_one_hot_and_missing_values_the_mean():
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame({"colour": pd.Categorical(["red", "blue", "red", "green"] * 10),
                      "size": [1.0, np.nan, 3.0, 5.0] * 10})
    y = (X["colour"] == "red").to_numpy().astype(int)
    model = LinearExpert().fit(X, y)
    assert model.coef_.shape == (4,)  # blue, green, red, size
    np.testing.assert_allclose(model.predict(X), y, atol=1e-3)
    # A missing size is the training mean (3.0): the same prediction.
    filled = X.assign(size=X["size"].fillna(3.0))
    np.testing.assert_allclose(model.predict(X), model.predict(filled), atol=1e-12)


def test_a_loaded_expert_with_mismatched_coefficients_is_refused():
    import pickle

    X, y, _, _ = problem(4)
    model = LogisticExpert().fit(X, y)
    model.coef_ = model.coef_[:, :-1]
    with pytest.raises(ModelFileError, match="coefficients do not match"):
        pickle.loads(pickle.dumps(model))


@pytest.mark.parametrize("cls", [LinearExpert, LogisticExpert])
def test_bad_input_is_refused_by_name(cls):
    X, y, _, _ = problem(5)
    with pytest.raises(ValueError, match="'alpha' parameter"):
        cls(alpha=-1.0).fit(X, y)
    X[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        cls().fit(X, y)
