"""Timing benchmarks for fasttree's random forests.

A forest of ``N_TREES`` full-depth trees with ``max_features='sqrt'`` on
synthetic float32 data; fit with one and with two threads (and with the
histogram splitter), and ``predict_proba`` and one-row ``predict`` of the
fitted forest.
"""

from fasttree import RandomForestClassifier

from . import REPEAT
from .tree import _classification

N_TREES = 50
# (n_samples, n_features): long and wide data.
SIZES = [(20_000, 50), (10_000, 500)]


class _Forest:
    params = [SIZES]
    param_names = ["n_samples, n_features"]
    number = 1
    repeat = REPEAT
    warmup_time = 0.0
    timeout = 900

    def setup(self, size):
        self.X, self.y = _classification(*size)


class ForestFit(_Forest):
    """``RandomForestClassifier(n_estimators=50)``: fit with n_jobs=1 and n_jobs=2."""

    params = [SIZES, [1, 2]]
    param_names = ["n_samples, n_features", "n_jobs"]

    def setup(self, size, n_jobs):
        super().setup(size)

    def time_fit(self, size, n_jobs):
        RandomForestClassifier(n_estimators=N_TREES, n_jobs=n_jobs,
                               random_state=0).fit(self.X, self.y)


class ForestHistFit(_Forest):
    """``RandomForestClassifier(n_estimators=50, splitter='hist', n_jobs=2)``: fit
    (the bins made once, shared by the trees)."""

    def time_fit(self, size):
        RandomForestClassifier(n_estimators=N_TREES, n_jobs=2, splitter="hist",
                               random_state=0).fit(self.X, self.y)


class ForestPredict(_Forest):
    """``RandomForestClassifier(n_estimators=50, n_jobs=2)``: predict_proba and one row."""

    def setup(self, size):
        super().setup(size)
        self.model = RandomForestClassifier(n_estimators=N_TREES, n_jobs=2,
                                            random_state=0).fit(self.X, self.y)
        self.row = self.X[:1]
        # The first prediction lays the trees out back to back; time the rest.
        self.model.predict(self.row)

    def time_predict_proba(self, size):
        self.model.predict_proba(self.X)

    def time_predict_one_row(self, size):
        self.model.predict(self.row)
