"""Small synthetic data sets shared by the estimator tests."""

import numpy as np

from fasttree import DecisionTreeClassifier


def classification_data(n_samples=300, n_features=5, n_classes=3, seed=0):
    """Gaussian X; the class is the argmax of noisy copies of the first columns."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features))
    scores = X[:, :n_classes] + 0.7 * rng.normal(size=(n_samples, n_classes))
    return X, np.argmax(scores, axis=1)


def regression_data(n_samples=300, n_features=5, seed=0):
    """Gaussian X; a smooth target of the first two columns plus noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features))
    return X, 2.0 * X[:, 0] + np.sin(3.0 * X[:, 1]) + 0.3 * rng.normal(size=n_samples)


def data_for(estimator_class, **kwargs):
    """Data suited to the estimator class: labels or real targets."""
    if estimator_class is DecisionTreeClassifier:
        return classification_data(**kwargs)
    return regression_data(**kwargs)


def tied_columns(X, levels=8):
    """X with its columns cut into ``levels`` integer codes (ties everywhere),
    but for the last column, which keeps its distinct values."""
    codes = np.floor((X - X.min(axis=0)) / np.ptp(X, axis=0) * (levels - 1e-9))
    return np.column_stack([codes[:, :-1], X[:, -1]])


def spread_columns(n_samples=400, seed=0, missing_share=0.1):
    """Columns of every kind of spread a binning meets: continuous, whole
    numbers 0-59 (ties), mostly zeros with a continuous rest (a heavy value),
    and continuous with ``missing_share`` of NaN."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([
        rng.normal(size=n_samples),
        rng.integers(0, 60, n_samples).astype(float),
        np.where(rng.random(n_samples) < 0.5, 0.0, rng.exponential(size=n_samples)),
        rng.normal(size=n_samples),
    ])
    X[rng.random(n_samples) < missing_share, 3] = np.nan
    return X
