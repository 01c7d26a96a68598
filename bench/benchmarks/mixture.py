"""Timing benchmarks for the mixture of experts (``MixtureOfExpertsClassifier``):
the EM fit of 4 tree experts of depth 3 (``n_jobs=2``) and of 4 logistic
experts (the default) on 20,000 x 20 rows of four regimes, the number of EM
iterations each took (a fit's time follows it), the process's peak memory
over setup and each fit, ``predict_proba`` of 5,000 new rows
and of one row (a service's call), and the pickle's size.

The rows (``_regimes``): standard normal float64 from numpy's
``default_rng(0)``; the quadrant of (x0, x1) is the regime, and in regime k
the label is ``x[2 + 2k] + 0.5 x[3 + 2k] + 0.5 noise > 0``, as in
``bench/compare_mixture.py`` (which times the 100,000 x 50 fit against one
tree's).
"""

import pickle

import numpy as np

from fasttree import DecisionTreeClassifier, MixtureOfExpertsClassifier

from . import REPEAT

N_TRAIN = 20_000
N_NEW = 5_000
N_FEATURES = 20
N_EXPERTS = 4


def _regimes(n_samples, n_features, seed=0):
    """Four regimes, the quadrants of (x0, x1), each with its own rule."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_samples, n_features))
    regime = 2 * (X[:, 0] > 0) + (X[:, 1] > 0)
    first = 2 + 2 * regime
    rows = np.arange(n_samples)
    score = X[rows, first] + 0.5 * X[rows, first + 1] + 0.5 * rng.standard_normal(n_samples)
    return X, (score > 0).astype(np.int64)


def _mixture(expert):
    """The mixture of 4 experts: depth-3 trees ('tree') or logistic ('logistic')."""
    template = DecisionTreeClassifier(max_depth=3) if expert == "tree" else None
    return MixtureOfExpertsClassifier(template, n_experts=N_EXPERTS, n_jobs=2, random_state=0)


def _data():
    """20,000 training rows, their labels, and 5,000 new rows."""
    X, y = _regimes(N_TRAIN + N_NEW, N_FEATURES)
    return X[:N_TRAIN], y[:N_TRAIN], X[N_TRAIN:]


class _Mixture:
    number = 1
    repeat = REPEAT
    warmup_time = 0.0
    timeout = 900

    def setup(self, *params):
        self.X, self.y, self.X_new = _data()


class MixtureFit(_Mixture):
    """EM on 20,000 x 20 float64 with 4 experts, n_jobs=2: depth-3 trees
    (which share one ranking of the features) and logistic experts; the
    iterations each fit took; the process's peak memory over setup and fit."""

    params = [["tree", "logistic"]]
    param_names = ["expert"]

    def time_fit(self, expert):
        _mixture(expert).fit(self.X, self.y)

    def track_n_iter(self, expert):
        return _mixture(expert).fit(self.X, self.y).n_iter_

    track_n_iter.unit = "iterations"

    def peakmem_fit(self, expert):
        _mixture(expert).fit(self.X, self.y)


class MixturePredict(_Mixture):
    """The mixture of 4 depth-3 trees: ``predict_proba`` of 5,000 new rows, of
    one row; the pickle's size. Fitted once per environment."""

    def setup_cache(self):
        X, y, _ = _data()
        return _mixture("tree").fit(X, y)

    def setup(self, model):
        super().setup()
        self.model = model
        self.row = np.ascontiguousarray(self.X_new[:1])
        self.model.predict_proba(self.row)

    def time_predict_proba(self, model):
        self.model.predict_proba(self.X_new)

    def time_predict_proba_one_row(self, model):
        self.model.predict_proba(self.row)

    def track_pickle_bytes(self, model):
        return len(pickle.dumps(self.model))

    track_pickle_bytes.unit = "bytes"
