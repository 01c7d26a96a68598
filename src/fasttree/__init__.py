"""fasttree: fast, exact decision trees with a scikit-learn compatible API."""

from ._validation import DataConversionWarning, InvalidParameterError, NotFittedError
from ._model_file import ModelFileError, load
from ._onnx import export_onnx, onnx_rows
from ._plots import plot_importances, plot_oob_curve, plot_staged_scores
from ._shap import export_shap
from ._version import __version__
from .bagging import BaggingClassifier, BaggingRegressor
from .boosting import AdaBoostClassifier, AdaBoostRegressor
from .forest import (ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier,
                     RandomForestRegressor)
from .rule_list import RuleListClassifier
from .rules import export_graphviz, export_text, plot_tree, tree_rules
from .tree import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier,
                   ExtraTreeRegressor)

__all__ = [
    "AdaBoostClassifier",
    "AdaBoostRegressor",
    "BaggingClassifier",
    "BaggingRegressor",
    "DataConversionWarning",
    "DecisionTreeClassifier",
    "DecisionTreeRegressor",
    "ExtraTreeClassifier",
    "ExtraTreeRegressor",
    "ExtraTreesClassifier",
    "ExtraTreesRegressor",
    "InvalidParameterError",
    "ModelFileError",
    "NotFittedError",
    "RandomForestClassifier",
    "RandomForestRegressor",
    "RuleListClassifier",
    "__version__",
    "export_graphviz",
    "export_onnx",
    "export_shap",
    "export_text",
    "load",
    "onnx_rows",
    "plot_importances",
    "plot_oob_curve",
    "plot_staged_scores",
    "plot_tree",
    "tree_rules",
]
