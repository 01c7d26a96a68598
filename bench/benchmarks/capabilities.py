"""Timing benchmarks of the capabilities with a cost of their own: sparse X,
several outputs, absolute_error and poisson, extra trees, missing values,
bagging and AdaBoost, prediction on new rows, and model files (save, load).

Each benchmark fits on data made in ``setup`` (fixed seeds) and, for
prediction, predicts rows not used in fit.
"""

import os
import tempfile

import numpy as np

import fasttree

from . import REPEAT

N_SAMPLES = 20_000
N_FEATURES = 20


def _dense(seed=0, n_samples=N_SAMPLES, n_features=N_FEATURES):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(2 * n_samples, n_features))
    signal = X[:, :5] @ rng.normal(size=5)
    return X, signal


def _sparse(n_samples=N_SAMPLES, n_features=1000, density=0.01):
    import scipy.sparse

    rng = np.random.default_rng(0)
    X = scipy.sparse.random(2 * n_samples, n_features, density=density, format="csr",
                            random_state=rng, data_rvs=np.ones)
    weights = np.zeros(n_features)
    weights[:20] = rng.normal(size=20) * 3
    score = X @ weights + 0.3 * rng.normal(size=2 * n_samples)
    return X, (score > np.median(score)).astype(int)


class _Timed:
    number = 1
    repeat = REPEAT
    warmup_time = 0.0
    timeout = 600


class SparseInput(_Timed):
    """CSR X, 1% dense binary columns (word presence): a tree and a forest."""

    def setup(self):
        X, y = _sparse()
        self.X, self.y, self.X_new = X[:N_SAMPLES], y[:N_SAMPLES], X[N_SAMPLES:]
        self.forest = fasttree.RandomForestClassifier(n_estimators=20, n_jobs=2,
                                                      random_state=0).fit(self.X, self.y)

    def time_tree_fit(self):
        fasttree.DecisionTreeClassifier(random_state=0).fit(self.X, self.y)

    def time_forest_fit(self):
        fasttree.RandomForestClassifier(n_estimators=20, n_jobs=2,
                                        random_state=0).fit(self.X, self.y)

    def time_forest_predict_proba_new_rows(self):
        self.forest.predict_proba(self.X_new)


class Criteria(_Timed):
    """Regression trees of depth 12 by criterion, on counts and on heavy-tailed targets."""

    params = [["squared_error", "absolute_error", "poisson"]]
    param_names = ["criterion"]

    def setup(self, criterion):
        X, signal = _dense()
        rng = np.random.default_rng(1)
        target = (rng.poisson(np.exp(0.3 * signal - 0.3)).astype(np.float64)
                  if criterion == "poisson" else signal + rng.standard_t(2, size=len(signal)))
        self.X, self.y = X[:N_SAMPLES], target[:N_SAMPLES]

    def time_tree_fit(self, criterion):
        fasttree.DecisionTreeRegressor(criterion=criterion, max_depth=12).fit(self.X, self.y)


class MultiOutput(_Timed):
    """Three outputs at once: classification (2, 3, 5 classes) and regression."""

    def setup(self):
        X, signal = _dense()
        X, signal = X[:N_SAMPLES], signal[:N_SAMPLES]
        self.X = X
        self.classes = np.column_stack([signal > 0, np.digitize(X[:, 1], [-0.5, 0.5]),
                                        np.digitize(X[:, 2], [-1, -0.3, 0.3, 1])])
        self.values = np.column_stack([signal, X[:, 1] ** 2, X[:, 2] - X[:, 3]])

    def time_classifier_fit(self):
        fasttree.DecisionTreeClassifier(random_state=0).fit(self.X, self.classes)

    def time_regressor_fit(self):
        fasttree.DecisionTreeRegressor(max_depth=12, random_state=0).fit(self.X, self.values)


class ExtraTrees(_Timed):
    """Random thresholds: a fully grown extra tree and 20 of them on 2 threads."""

    def setup(self):
        X, signal = _dense(n_features=40)
        self.X, self.y = X[:N_SAMPLES], (signal[:N_SAMPLES] > 0).astype(int)

    def time_tree_fit(self):
        fasttree.ExtraTreeClassifier(random_state=0).fit(self.X, self.y)

    def time_forest_fit(self):
        fasttree.ExtraTreesClassifier(n_estimators=20, n_jobs=2, random_state=0).fit(
            self.X, self.y)


class MissingValues(_Timed):
    """A tenth of the values missing (NaN): tree fit and forest prediction on new rows."""

    def setup(self):
        X, signal = _dense()
        X[np.random.default_rng(2).random(X.shape) < 0.1] = np.nan
        self.X, self.y, self.X_new = X[:N_SAMPLES], (signal[:N_SAMPLES] > 0).astype(int), \
            X[N_SAMPLES:]
        self.forest = fasttree.RandomForestClassifier(n_estimators=20, n_jobs=2,
                                                      random_state=0).fit(self.X, self.y)

    def time_tree_fit(self):
        fasttree.DecisionTreeClassifier(random_state=0).fit(self.X, self.y)

    def time_forest_predict_proba_new_rows(self):
        self.forest.predict_proba(self.X_new)


class Ensembles(_Timed):
    """Bagging (20 trees, half the features) and AdaBoost (100 stumps)."""

    def setup(self):
        X, signal = _dense()
        self.X, self.y = X[:N_SAMPLES], (signal[:N_SAMPLES] > 0).astype(int)

    def time_bagging_fit(self):
        fasttree.BaggingClassifier(n_estimators=20, max_features=0.5, n_jobs=2,
                                   random_state=0).fit(self.X, self.y)

    def time_adaboost_fit(self):
        fasttree.AdaBoostClassifier(n_estimators=100, random_state=0).fit(self.X, self.y)


class AdaBoostStringLabels(_Timed):
    """AdaBoost of 30 depth-3 trees on three string labels: the members fit on
    class indices and take the labels as their classes_; prediction maps them
    back per member (big batch of new rows, and one row as a service asks)."""

    def setup(self):
        X, signal = _dense()
        labels = np.array(["alpha", "beta", "gamma"], dtype=object)
        y = labels[np.digitize(signal, np.quantile(signal, [1 / 3, 2 / 3]))]
        self.X, self.y = X[:N_SAMPLES], y[:N_SAMPLES]
        self.X_new = X[N_SAMPLES:]
        self.model = self._fit()

    def _fit(self):
        return fasttree.AdaBoostClassifier(fasttree.DecisionTreeClassifier(max_depth=3),
                                           n_estimators=30, random_state=0).fit(self.X, self.y)

    def time_fit(self):
        self._fit()

    def time_predict_new_rows(self):
        self.model.predict(self.X_new)

    def time_predict_one_row(self):
        self.model.predict(self.X_new[:1])


class ModelFiles(_Timed):
    """A 50-tree forest saved as a model file and loaded back; the file's size."""

    def setup(self):
        X, signal = _dense()
        self.forest = fasttree.RandomForestClassifier(n_estimators=50, n_jobs=2,
                                                      random_state=0).fit(
            X[:N_SAMPLES], (signal[:N_SAMPLES] > 0).astype(int))
        self.directory = tempfile.mkdtemp()
        self.path = os.path.join(self.directory, "forest.ft")
        self.forest.save(self.path)

    def teardown(self):
        os.remove(self.path)
        os.rmdir(self.directory)

    def time_save(self):
        self.forest.save(self.path)

    def time_load(self):
        fasttree.load(self.path)

    def track_file_bytes(self):
        return os.path.getsize(self.path)

    track_file_bytes.unit = "bytes"
