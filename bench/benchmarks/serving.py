"""Timing benchmarks of serving: the costs a service pays per request, which
issue 28 found grown 25-fold without any benchmark noticing.

- ``Serve*``: ``predict`` and ``predict_proba`` of 1 and of 10 new rows (rows
  not used in fit; the same fixed rows in every call, as asv calls a
  function with no arguments of its own), given as a float32 ndarray to the
  estimator fitted on the ndarray, and as a pandas DataFrame with string
  column names (``feature_0``, ...) to the same estimator fitted on that
  DataFrame. Estimators: a 100-tree ``RandomForestClassifier`` of 2 classes
  (20,000 x 50 rows) and of 26 classes (letter-like, 16,000 x 16), a fully
  grown ``DecisionTreeClassifier``, ``AdaBoostClassifier`` of 50 rounds
  (its default stumps) and ``BaggingClassifier`` of 10 full trees (all three
  on the 2-class rows). The ensembles are fitted with ``n_jobs=2`` and
  predict as fitted. Each is fitted once per environment (``setup_cache``)
  and predicted once in ``setup``, so the samples time the calls after the
  first.
- ``FirstPredictAfterLoad``: the first ``predict_proba`` of one row by the
  2-class forest just unpickled (a fresh copy in every sample), which lays
  the trees out for prediction again.
- ``ForestFitOutOfBag``: ``fit()`` and ``fit(oob_score=True)`` of a 100-tree
  forest, ``n_jobs=2``, on letter-like data:
  ``make_classification(16000, 16, n_informative=12, n_classes=26,
  n_clusters_per_class=1, random_state=0)`` as float32. The ratio of the two
  is what out-of-bag scoring costs (issue 28 measured 1.9x; the target is
  at most 1.15x).
- ``PredictFloat64``: ``predict`` of 20,000 new rows as a float64 C-order
  array, and as float32 for comparison, by a full tree and a 50-tree forest
  fitted on 20,000 x 50 float32 rows.
- ``PredictSparse``: ``predict`` of 20,000 new CSR rows of 2,000 columns by
  a full tree and a 50-tree forest fitted on 8,000 other rows: 1% of the
  values stored, each 1 (word presence), or 5%, each standard normal. (On
  20,000 training rows the 5% fits alone took a minute of setup.)
"""

import pickle

import numpy as np
from sklearn.datasets import make_classification

import fasttree

from . import REPEAT

N_TRAIN = 20_000
N_FEATURES = 50
N_NEW = 20_000
# Training rows of the sparse benchmarks: full trees on 5% normal values fit slowly.
N_SPARSE_TRAIN = 8_000


def _two_classes():
    """20,000 training rows of 50 features (float32) and 20,000 new rows."""
    X, y = make_classification(n_samples=N_TRAIN + N_NEW, n_features=N_FEATURES,
                               n_informative=20, random_state=0)
    X = X.astype(np.float32)
    return X[:N_TRAIN], y[:N_TRAIN], X[N_TRAIN:]


def _letter_like(n_samples):
    """Letter-like rows: 16 features, 26 classes of one cluster each (float32)."""
    X, y = make_classification(n_samples=n_samples, n_features=16, n_informative=12,
                               n_classes=26, n_clusters_per_class=1, random_state=0)
    return X.astype(np.float32), y


def _frame(X):
    import pandas as pd

    return pd.DataFrame(X, columns=[f"feature_{i}" for i in range(X.shape[1])])


def _fitted_both_ways(make_estimator, X, y, X_new):
    """The estimator fitted on the ndarray and (a second one) on its DataFrame,
    with the first ten new rows in each form, keyed by input kind."""
    frame, new_frame = _frame(X), _frame(X_new[:10])
    return {"ndarray": (make_estimator().fit(X, y), np.ascontiguousarray(X_new[:10])),
            "DataFrame": (make_estimator().fit(frame, y), new_frame)}


class _Timed:
    repeat = REPEAT
    timeout = 900


class _Serve(_Timed):
    """predict and predict_proba of 1 and 10 new rows, by ndarray and DataFrame;
    a subclass's ``setup_cache`` fits its estimator both ways."""

    params = [["ndarray", "DataFrame"], [1, 10]]
    param_names = ["input", "rows"]

    def setup(self, fitted, kind, n_rows):
        self.model, new_rows = fitted[kind]
        self.rows = new_rows[:n_rows]
        self.model.predict_proba(self.rows)

    def time_predict(self, fitted, kind, n_rows):
        self.model.predict(self.rows)

    def time_predict_proba(self, fitted, kind, n_rows):
        self.model.predict_proba(self.rows)


class _TwoClassForest:
    """The 100-tree forest of 2 classes on 20,000 x 50, fitted once (on the ndarray
    and on its DataFrame) for ServeForest and FirstPredictAfterLoad: asv keys
    the cache by the function, shared by inheritance."""

    def setup_cache(self):
        X, y, X_new = _two_classes()
        return _fitted_both_ways(
            lambda: fasttree.RandomForestClassifier(n_estimators=100, n_jobs=2,
                                                    random_state=0),
            X, y, X_new)


class ServeForest(_TwoClassForest, _Serve):
    """A 100-tree forest of 2 classes on 20,000 x 50."""


class ServeForestManyClasses(_Serve):
    """A 100-tree forest of 26 classes on 16,000 letter-like rows x 16."""

    def setup_cache(self):
        X, y = _letter_like(20_000)
        return _fitted_both_ways(
            lambda: fasttree.RandomForestClassifier(n_estimators=100, n_jobs=2,
                                                    random_state=0),
            X[:16_000], y[:16_000], X[16_000:])


class ServeTree(_Serve):
    """A fully grown tree on 20,000 x 50."""

    def setup_cache(self):
        return _fitted_both_ways(lambda: fasttree.DecisionTreeClassifier(random_state=0),
                                 *_two_classes())


class ServeAdaBoost(_Serve):
    """AdaBoost of 50 stumps on 20,000 x 50."""

    def setup_cache(self):
        return _fitted_both_ways(
            lambda: fasttree.AdaBoostClassifier(n_estimators=50, random_state=0),
            *_two_classes())


class ServeBagging(_Serve):
    """Bagging of 10 full trees on 20,000 x 50."""

    def setup_cache(self):
        return _fitted_both_ways(
            lambda: fasttree.BaggingClassifier(n_estimators=10, n_jobs=2, random_state=0),
            *_two_classes())


class FirstPredictAfterLoad(_TwoClassForest, _Timed):
    """The first one-row predict_proba of the 2-class forest, just unpickled."""

    number = 1
    warmup_time = 0.0

    def setup(self, fitted):
        forest, new_rows = fitted["ndarray"]
        self.row = new_rows[:1]
        # setup runs before every sample (number = 1): each times a fresh copy.
        self.forest = pickle.loads(pickle.dumps(forest))

    def time_first_predict_proba(self, fitted):
        self.forest.predict_proba(self.row)


class ForestFitOutOfBag(_Timed):
    """fit of 100 trees (n_jobs=2) on 16,000 letter-like rows, with and without
    out-of-bag scoring."""

    params = [[False, True]]
    param_names = ["oob_score"]
    number = 1
    warmup_time = 0.0

    def setup(self, oob_score):
        self.X, self.y = _letter_like(16_000)

    def time_fit(self, oob_score):
        fasttree.RandomForestClassifier(n_estimators=100, oob_score=oob_score, n_jobs=2,
                                        random_state=0).fit(self.X, self.y)


class PredictFloat64(_Timed):
    """predict of 20,000 new rows, float64 C order against float32, by a full tree
    and a 50-tree forest (n_jobs=2) on 20,000 x 50."""

    params = [["tree", "forest"], ["float64", "float32"]]
    param_names = ["model", "dtype"]
    number = 1
    warmup_time = 0.0

    def setup_cache(self):
        X, y, X_new = _two_classes()
        models = {"tree": fasttree.DecisionTreeClassifier(random_state=0).fit(X, y),
                  "forest": fasttree.RandomForestClassifier(n_estimators=50, n_jobs=2,
                                                            random_state=0).fit(X, y)}
        return models, X_new

    def setup(self, fitted, model, dtype):
        models, X_new = fitted
        self.model = models[model]
        self.X_new = np.ascontiguousarray(X_new, dtype=dtype)
        self.model.predict(self.X_new[:10])

    def time_predict(self, fitted, model, dtype):
        self.model.predict(self.X_new)


def _sparse_rows(n_rows, density, words, seed=0):
    """CSR rows of 2,000 columns, ``density`` of them stored (ones for words, else
    standard normal), labelled by a noisy linear score of the first 20 columns."""
    import scipy.sparse

    rng = np.random.default_rng(seed)
    values = np.ones if words else rng.standard_normal
    X = scipy.sparse.random(n_rows, 2_000, density=density, format="csr", random_state=rng,
                            data_rvs=values)
    weights = np.zeros(2_000)
    weights[:20] = rng.normal(size=20) * 3
    score = X @ weights + 0.3 * rng.normal(size=n_rows)
    return X, (score > np.median(score)).astype(int)


SPARSE_DATA = {"1% word presence": (0.01, True), "5% normal values": (0.05, False)}


class PredictSparse(_Timed):
    """predict of 20,000 new CSR rows x 2,000 by a full tree and a 50-tree forest
    (n_jobs=2) fitted on 8,000 other rows."""

    params = [list(SPARSE_DATA), ["tree", "forest"]]
    param_names = ["data", "model"]
    number = 1
    warmup_time = 0.0

    def setup_cache(self):
        fitted = {}
        for data, (density, words) in SPARSE_DATA.items():
            X, y = _sparse_rows(N_SPARSE_TRAIN + N_NEW, density, words)
            X_train, y_train = X[:N_SPARSE_TRAIN], y[:N_SPARSE_TRAIN]
            X_new = X[N_SPARSE_TRAIN:]
            fitted[data] = ({"tree": fasttree.DecisionTreeClassifier(random_state=0).fit(
                                 X_train, y_train),
                             "forest": fasttree.RandomForestClassifier(
                                 n_estimators=50, n_jobs=2, random_state=0).fit(
                                 X_train, y_train)},
                            X_new)
        return fitted

    def setup(self, fitted, data, model):
        models, self.X_new = fitted[data]
        self.model = models[model]
        self.model.predict(self.X_new[:10])

    def time_predict(self, fitted, data, model):
        self.model.predict(self.X_new)
