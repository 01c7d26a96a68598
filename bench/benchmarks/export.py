"""Timing benchmarks of exporting a fitted forest: ``export_onnx`` (the
ONNX TreeEnsemble graph), ``export_shap`` (SHAP's dictionary of trees) and
``save`` (a fasttree model file).

The forests are fitted once per environment (``setup_cache``): a 100-tree
forest of full trees on 80,000 x 50 (about 1.2 million nodes; issue 28
measured its ONNX export at 28 s when it walked the nodes in Python, 0.6 s
once built from the node arrays), and a 20-tree forest of 26 classes, whose
ONNX graph holds each tree once per class.
"""

import os
import pickle
import tempfile

import numpy as np
from sklearn.datasets import make_classification

import fasttree

from . import REPEAT


def _forest(n_samples, n_features, n_classes, n_estimators):
    X, y = make_classification(n_samples=n_samples, n_features=n_features,
                               n_informative=min(20, n_features - 4), n_classes=n_classes,
                               n_clusters_per_class=1 if n_classes > 2 else 2,
                               random_state=0)
    # The first 80% train, as the measurement did.
    n_train = n_samples * 4 // 5
    return fasttree.RandomForestClassifier(n_estimators=n_estimators, n_jobs=2,
                                           random_state=0).fit(
        X[:n_train].astype(np.float32), y[:n_train])


def _fresh(forest):
    """A copy of the forest as loaded from a pickle: the values a tree derives
    when first asked (its inner nodes' values, for SHAP) are derived again
    in every sample, as a user's first export derives them."""
    return pickle.loads(pickle.dumps(forest))


def _import_onnx():
    # Without onnx in the environment the ONNX benchmarks are skipped; with
    # it, its import (a second or so) is kept out of the first sample.
    try:
        import onnx  # noqa: F401
    except ImportError:
        raise NotImplementedError("onnx is not installed") from None


class _Timed:
    number = 1
    repeat = REPEAT
    warmup_time = 0.0
    timeout = 900


class _FullForest(_Timed):
    """The 100-tree forest on 80,000 x 50, fitted once for both classes below
    (asv keys the cache by the function, shared by inheritance)."""

    def setup_cache(self):
        return _forest(100_000, 50, 2, 100)


class ExportOnnx(_FullForest):
    """``export_onnx`` of the 100-tree forest on 80,000 x 50 (2 classes)."""

    def setup(self, forest):
        _import_onnx()
        self.forest = _fresh(forest)

    def time_export_onnx(self, forest):
        fasttree.export_onnx(self.forest)


class ExportShapAndSave(_FullForest):
    """``export_shap`` and ``save`` (a model file) of the same forest."""

    def setup(self, forest):
        self.forest = _fresh(forest)
        self.directory = tempfile.mkdtemp()
        self.path = os.path.join(self.directory, "forest.ft")

    def teardown(self, forest):
        if os.path.exists(self.path):
            os.remove(self.path)
        os.rmdir(self.directory)

    def time_export_shap(self, forest):
        fasttree.export_shap(self.forest)

    def time_save(self, forest):
        self.forest.save(self.path)


class ExportOnnxManyClasses(_Timed):
    """``export_onnx`` of a 20-tree forest of 26 classes on 16,000 x 16
    (letter-like): its graph adds each tree once per class."""

    def setup_cache(self):
        return _forest(20_000, 16, 26, 20)

    def setup(self, forest):
        _import_onnx()
        self.forest = _fresh(forest)

    def time_export_onnx(self, forest):
        fasttree.export_onnx(self.forest)
