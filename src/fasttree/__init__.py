"""fasttree: fast, exact decision trees with a scikit-learn compatible API."""

import os

# A tree's threads (the splitter's OpenMP regions) sweep a large node and
# wait while the calling thread partitions it and splits the small nodes
# below; waiting threads that spin (libgomp's default) take a core from it,
# which made a 2-thread tree 3x slower than one thread on a busy 2-core
# machine. Sleeping costs a wake-up per region, a few microseconds. libgomp
# reads this once, when the first module that needs it loads (the kernels
# below); a value the user set is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from ._validation import (ConvergenceWarning, DataConversionWarning, InvalidParameterError,
                          NotFittedError)
from ._model_file import ModelFileError, load
from ._merge import merge_forests
from ._onnx import export_onnx, onnx_rows
from ._plots import plot_importances, plot_oob_curve, plot_staged_scores
from ._shap import export_shap
from ._version import __version__
from .bagging import BaggingClassifier, BaggingRegressor
from .boosting import AdaBoostClassifier, AdaBoostRegressor
from .experts import LinearExpert, LogisticExpert
from .forest import (ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier,
                     RandomForestRegressor)
from .mixture import MixtureOfExpertsClassifier, MixtureOfExpertsRegressor
from .quantile import ExtraTreesQuantileRegressor, RandomForestQuantileRegressor
from .rule_list import RuleListClassifier
from .rules import export_graphviz, export_text, plot_tree, tree_rules
from .tree import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier,
                   ExtraTreeRegressor)

__all__ = [
    "AdaBoostClassifier",
    "AdaBoostRegressor",
    "BaggingClassifier",
    "BaggingRegressor",
    "ConvergenceWarning",
    "DataConversionWarning",
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "ExtraTreeClassifier",
    "ExtraTreeRegressor",
    "ExtraTreesClassifier",
    "ExtraTreesQuantileRegressor",
    "ExtraTreesRegressor",
    "InvalidParameterError",
    "LinearExpert",
    "LogisticExpert",
    "MixtureOfExpertsClassifier",
    "MixtureOfExpertsRegressor",
    "ModelFileError",
    "NotFittedError",
    "RandomForestClassifier",
    "RandomForestQuantileRegressor",
    "RandomForestRegressor",
    "RuleListClassifier",
    "__version__",
    "export_graphviz",
    "export_onnx",
    "export_shap",
    "export_text",
    "load",
    "merge_forests",
    "onnx_rows",
    "plot_importances",
    "plot_oob_curve",
    "plot_staged_scores",
    "plot_tree",
    "tree_rules",
]
