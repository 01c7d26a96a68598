"""Timing benchmarks for fasttree's single decision trees.

Each benchmark grows a full-depth tree (the defaults) on synthetic data from
scikit-learn, with X as float32, the dtype fasttree works in.
"""

import numpy as np
from sklearn.datasets import make_classification, make_regression

from fasttree import DecisionTreeClassifier, DecisionTreeRegressor

from . import REPEAT

# (n_samples, n_features)
SIZES = [(10_000, 20), (100_000, 50)]


def _classification(n_samples, n_features):
    X, y = make_classification(
        n_samples=n_samples,
        n_features=n_features,
        n_informative=min(20, n_features // 2),
        random_state=0,
    )
    return X.astype(np.float32), y


def _regression(n_samples, n_features):
    X, y = make_regression(
        n_samples=n_samples,
        n_features=n_features,
        n_informative=min(20, n_features // 2),
        noise=1.0,
        random_state=0,
    )
    return X.astype(np.float32), y


class _Sized:
    params = [SIZES]
    param_names = ["n_samples, n_features"]
    # A full-depth fit on 100k x 50 takes seconds, so one call per sample is
    # plenty.
    number = 1
    repeat = REPEAT
    warmup_time = 0.0
    timeout = 600

    # Filled in by the concrete classes below.
    estimator = None
    make_data = None

    def setup(self, size):
        self.X, self.y = self.make_data(*size)


class _Fit(_Sized):
    # The estimator's parameters beside random_state (the splitter, say).
    params_of_fit = {}

    def time_fit(self, size):
        self.estimator(random_state=0, **self.params_of_fit).fit(self.X, self.y)


class _Predict(_Sized):
    def setup(self, size):
        # Fitting lives here, outside the timed call, and only in the predict
        # benchmarks so that time_fit's setup stays cheap.
        super().setup(size)
        self.model = self.estimator(random_state=0).fit(self.X, self.y)

    def time_predict(self, size):
        self.model.predict(self.X)


class TreeClassifierFit(_Fit):
    """``DecisionTreeClassifier()`` (gini, full depth): fit."""

    estimator = DecisionTreeClassifier
    make_data = staticmethod(_classification)


class TreeClassifierPredict(_Predict):
    """``DecisionTreeClassifier()`` (gini, full depth): predict on the training X."""

    estimator = DecisionTreeClassifier
    make_data = staticmethod(_classification)


class TreeRegressorFit(_Fit):
    """``DecisionTreeRegressor()`` (squared error, full depth): fit."""

    estimator = DecisionTreeRegressor
    make_data = staticmethod(_regression)


class TreeRegressorPredict(_Predict):
    """``DecisionTreeRegressor()`` (squared error, full depth): predict on the training X."""

    estimator = DecisionTreeRegressor
    make_data = staticmethod(_regression)


class TreeClassifierHistFit(TreeClassifierFit):
    """``DecisionTreeClassifier(splitter='hist')`` (255 bins, full depth): fit."""

    params_of_fit = {"splitter": "hist"}


class TreeRegressorHistFit(TreeRegressorFit):
    """``DecisionTreeRegressor(splitter='hist')`` (255 bins, full depth): fit."""

    params_of_fit = {"splitter": "hist"}


class TreeClassifierThreadsFit:
    """W1 (``make_classification`` 100,000 x 50, 80,000 rows to train, float32):
    one full ``DecisionTreeClassifier(n_jobs=2)``, exact and ``splitter='hist'``
    (bench/compare_tree_threads.py times scikit-learn's beside it)."""

    params = [["best", "hist"]]
    param_names = ["splitter"]
    number = 1
    repeat = REPEAT
    warmup_time = 0.0
    timeout = 600

    def setup(self, splitter):
        X, y = _classification(100_000, 50)
        train = np.random.default_rng(0).permutation(len(y))[20_000:]
        self.X, self.y = X[train], y[train]

    def time_fit(self, splitter):
        DecisionTreeClassifier(splitter=splitter, random_state=0, n_jobs=2).fit(self.X, self.y)
