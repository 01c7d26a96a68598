"""Timing benchmarks for the quantile regression forests and prediction
intervals: the fit of ``RandomForestQuantileRegressor`` (one target kept per
leaf, quantile-forest's default, and all of them), 3 quantiles of new rows,
one row at a time as a service asks, quantile ranks, the size of the
pickle, and the conformal intervals (jackknife+ after bootstrap, CQR)."""

import pickle

import numpy as np

from fasttree import RandomForestQuantileRegressor

from . import REPEAT
from .tree import _regression

N_TREES = 50
N_TRAIN = 20_000
N_NEW = 5_000
QUANTILES = [0.05, 0.5, 0.95]


class _Quantile:
    number = 1
    repeat = REPEAT
    warmup_time = 0.0
    timeout = 900
    params = [[1, None]]
    param_names = ["max_samples_leaf"]

    def setup(self, max_samples_leaf):
        X, y = _regression(N_TRAIN + N_NEW, 20)
        self.X, self.y = X[:N_TRAIN], y[:N_TRAIN]
        self.X_new, self.y_new = X[N_TRAIN:], y[N_TRAIN:]
        self.forest = RandomForestQuantileRegressor(
            N_TREES, min_samples_leaf=5, max_samples_leaf=max_samples_leaf, oob_score=True,
            n_jobs=2, random_state=0).fit(self.X, self.y)


class QuantileForestFit(_Quantile):
    """``RandomForestQuantileRegressor(n_estimators=50, min_samples_leaf=5)``
    on 20,000 x 20 rows, 2 threads (its leaf lists built after the trees)."""

    def time_fit(self, max_samples_leaf):
        RandomForestQuantileRegressor(N_TREES, min_samples_leaf=5,
                                      max_samples_leaf=max_samples_leaf, n_jobs=2,
                                      random_state=0).fit(self.X, self.y)


class QuantileForestPredict(_Quantile):
    """3 quantiles of 5,000 new rows; one row at a time; quantile ranks; the
    pickle's size."""

    def time_predict_quantiles(self, max_samples_leaf):
        self.forest.predict(self.X_new, quantiles=QUANTILES)

    def time_predict_one_row(self, max_samples_leaf):
        self.forest.predict(self.X_new[:1], quantiles=QUANTILES)

    def time_quantile_ranks(self, max_samples_leaf):
        self.forest.quantile_ranks(self.X_new, self.y_new)

    def track_pickle_bytes(self, max_samples_leaf):
        return len(pickle.dumps(self.forest))

    track_pickle_bytes.unit = "bytes"


class PredictionIntervals(_Quantile):
    """Calibrated 90% intervals of 1,000 new rows: jackknife+ after bootstrap
    ('oob', every new row against every training row) and CQR calibrated
    out of bag, with closed and with randomized ties."""

    params = [[1]]

    def setup(self, max_samples_leaf):
        super().setup(max_samples_leaf)
        self.forest.calibrate(self.X, self.y, oob=True)
        self.rows = np.ascontiguousarray(self.X_new[:1000])

    def time_jackknife_plus(self, max_samples_leaf):
        self.forest.predict_interval(self.rows, method="oob")

    def time_cqr(self, max_samples_leaf):
        self.forest.predict_interval(self.rows, method="cqr")

    def time_cqr_randomized_ties(self, max_samples_leaf):
        self.forest.predict_interval(self.rows, method="cqr", ties="randomized", random_state=0)
