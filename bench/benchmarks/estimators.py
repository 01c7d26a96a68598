"""Fit and predict times of every estimator fasttree exports, each with its
defaults (ensembles of 20 members) on the same data: a regression flagged
here names the estimator it slowed.
"""

import numpy as np

import fasttree

from . import REPEAT

N_SAMPLES = 10_000
N_FEATURES = 20
CLASSIFIERS = ["DecisionTreeClassifier", "ExtraTreeClassifier", "RandomForestClassifier",
               "ExtraTreesClassifier", "BaggingClassifier", "AdaBoostClassifier",
               "RuleListClassifier"]
REGRESSORS = ["DecisionTreeRegressor", "ExtraTreeRegressor", "RandomForestRegressor",
              "ExtraTreesRegressor", "BaggingRegressor", "AdaBoostRegressor",
              "RandomForestQuantileRegressor", "ExtraTreesQuantileRegressor"]
ENSEMBLES = ("RandomForest", "ExtraTrees", "Bagging", "AdaBoost")


def _estimator(name):
    params = {"random_state": 0}
    if name.startswith(ENSEMBLES):
        params["n_estimators"] = 20
    return getattr(fasttree, name)(**params)


def _data(classification):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2 * N_SAMPLES, N_FEATURES))
    signal = X[:, :5] @ rng.normal(size=5) + 0.5 * rng.normal(size=2 * N_SAMPLES)
    y = np.digitize(signal, np.quantile(signal, [0.33, 0.66])) if classification else signal
    return X[:N_SAMPLES], y[:N_SAMPLES], X[N_SAMPLES:]


class _Estimators:
    number = 1
    repeat = REPEAT
    warmup_time = 0.0
    param_names = ["estimator"]

    def setup(self, name):
        self.X, self.y, self.X_new = _data(name in CLASSIFIERS)
        self.model = _estimator(name)


class EstimatorFit(_Estimators):
    params = [CLASSIFIERS + REGRESSORS]

    def time_fit(self, name):
        self.model.fit(self.X, self.y)


class EstimatorPredict(_Estimators):
    params = [CLASSIFIERS + REGRESSORS]

    def setup(self, name):
        super().setup(name)
        self.model.fit(self.X, self.y)

    def time_predict_new_rows(self, name):
        self.model.predict(self.X_new)
