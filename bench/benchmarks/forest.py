"""Timing benchmarks for fasttree's random forests.

A forest of ``N_TREES`` full-depth trees with ``max_features='sqrt'`` on
synthetic float32 data; fit with one and with two threads (and with the
histogram splitter), and ``predict_proba`` and one-row ``predict`` of the
fitted forest. Beside them, the workloads of the histogram splitter's
targets (W2, W3) at a size asv runs in seconds: fit time and peak memory;
and the peak memory of an exact and a hist fit on rows enough that what a
fit holds per row shows (ForestFitMemory); and the exact and hist fits on the
real tables of ``bench/data`` (ForestRealTables).
"""

import numpy as np

from fasttree import ExtraTreesClassifier, RandomForestClassifier, RandomForestRegressor

from . import REPEAT
from .real_tables import TABLES
from .tree import _classification, _regression

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
    """``RandomForestClassifier`` and ``ExtraTreesClassifier`` of 50 trees with
    ``splitter='hist'`` and n_jobs=2: fit (the bins made once, shared by the
    trees; the extra trees draw a boundary between bins)."""

    params = [SIZES, ["RandomForestClassifier", "ExtraTreesClassifier"]]
    param_names = ["n_samples, n_features", "forest"]

    def setup(self, size, forest):
        super().setup(size)

    def time_fit(self, size, forest):
        FORESTS[forest](n_estimators=N_TREES, n_jobs=2, splitter="hist",
                        random_state=0).fit(self.X, self.y)


FORESTS = {"RandomForestClassifier": RandomForestClassifier,
           "ExtraTreesClassifier": ExtraTreesClassifier}


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


# The hist splitter's target workloads, as bench/compare_forest.py runs them
# at 100,000 rows, cut to 20,000 rows and 20 trees: W2 classifies 50
# features drawing sqrt of them per split, W3 regresses on 20 features using
# them all. name: (forest, data, (n_samples, n_features), max_features).
WORKLOADS = {
    "W2": (RandomForestClassifier, _classification, (20_000, 50), "sqrt"),
    "W3": (RandomForestRegressor, _regression, (20_000, 20), 1.0),
}
WORKLOAD_TREES = 20


class ForestHistWorkloads(_Forest):
    """W2 and W3 with ``splitter='hist'``, 20 trees and ``n_jobs=2``: fit time, and the
    process's peak resident memory over setup and fit (data included, so it catches a
    regression; ``bench/compare_memory.py`` measures the growth over X itself)."""

    params = [list(WORKLOADS)]
    param_names = ["workload"]

    def setup(self, workload):
        forest, make_data, size, max_features = WORKLOADS[workload]
        self.X, self.y = make_data(*size)
        self.forest = forest
        self.params_of_fit = {"n_estimators": WORKLOAD_TREES, "max_features": max_features,
                              "n_jobs": 2, "splitter": "hist", "random_state": 0}

    def time_fit(self, workload):
        self.forest(**self.params_of_fit).fit(self.X, self.y)

    def peakmem_fit(self, workload):
        self.forest(**self.params_of_fit).fit(self.X, self.y)


class ForestRealTables:
    """``RandomForestClassifier(n_estimators=50, n_jobs=2)`` on the real tables of
    ``bench/data`` (Adult as a DataFrame of strings and missing values; the
    tied integer columns of credit default), exact and hist: fit time."""

    params = [list(TABLES), ["best", "hist"]]
    param_names = ["table", "splitter"]
    number = 1
    repeat = REPEAT
    warmup_time = 0.0
    timeout = 900

    def setup(self, table, splitter):
        self.X, self.y, _, _ = TABLES[table]()

    def time_fit(self, table, splitter):
        RandomForestClassifier(n_estimators=N_TREES, n_jobs=2, splitter=splitter,
                               random_state=0).fit(self.X, self.y)


# Rows enough that what a fit holds per row (the ranks or bin codes, the
# working arrays of each tree growing at once) outweighs the interpreter
# and the libraries; few trees, leaves of at least 5 rows, as in
# bench/compare_memory.py's runs at 4,000,000 rows.
MEMORY_SIZE = (400_000, 50)
MEMORY_TREES = 4


def _lean_classification(n_samples, n_features, seed=0):
    """Gaussian float32 X made a block of rows at a time, and a class from a
    few of its columns: the process never holds more than X itself, so that
    a peak of setup and fit is the fit's (make_classification's float64
    intermediates would peak above any fit here)."""
    rng = np.random.default_rng(seed)
    X = np.empty((n_samples, n_features), dtype=np.float32)
    for start in range(0, n_samples, 50_000):
        block = X[start:start + 50_000]
        block[:] = rng.standard_normal(block.shape, dtype=np.float32)
    y = (X[:, 0] - X[:, 1] + 0.5 * X[:, 2] * X[:, 3] > 0.2).astype(np.int64)
    return X, y


class ForestFitMemory(_Forest):
    """``RandomForestClassifier`` of 4 trees, ``min_samples_leaf=5``, n_jobs=2 on
    400,000 x 50 float32 (X 80 MB), with the exact and the hist splitter: the
    process's peak resident memory over setup and fit (the data included, made
    without a peak above it; ``bench/compare_memory.py`` measures the growth
    over X at full size)."""

    params = [["best", "hist"]]
    param_names = ["splitter"]

    def setup(self, splitter):
        self.X, self.y = _lean_classification(*MEMORY_SIZE)

    def peakmem_fit(self, splitter):
        RandomForestClassifier(n_estimators=MEMORY_TREES, min_samples_leaf=5, n_jobs=2,
                               splitter=splitter, random_state=0).fit(self.X, self.y)
