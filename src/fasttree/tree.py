"""Decision trees for classification and regression."""

import copy
import math
import numbers

import numpy as np

from ._frames import as_frame
from ._base import BaseEstimator, ClassifierMixin, RegressorMixin, parameters_of
from ._criterion_absolute_error import AbsoluteError
from ._criterion_classification import CostSensitiveGini, Entropy, Gini, Misclassification
from ._criterion_multi_output import MultiOutput, OutputImpurity
from ._criterion_regression import Poisson, SquaredError
from ._error_pruning import pessimistic_collapse, reduced_error_collapse
from ._features import feature_columns, feature_rows, random_split_features, rank_features
from ._splitter import SplitMethod, Splitter
from ._structure import Tree
from ._threads import start_threads
from ._targets import (as_1d, class_weight_per_sample, check_regression_target,
                       encode_outputs, impurity_exponent, predicted_classes,
                       target_extent_exponent, target_scale_exponent, weight_exponent)
from ._c45 import grow_multiway_tree
from ._docstrings import shared_docs
from ._model_file import model_file_class
from ._tree import build_tree
from ._validation import (check_array_2d, check_int_or_fraction, check_not_empty,
                          check_random_state, check_sample_weight, check_weight_total,
                          csr_for_walk, densified, feature_names_of, invalid_parameter,
                          is_int_at_least, is_sparse, sparse_for_fit, warn_user)

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor", "ExtraTreeClassifier",
           "ExtraTreeRegressor"]

# 'log_loss' is scikit-learn's name for the entropy criterion.
CLASSIFICATION_CRITERIA = {"gini": Gini, "entropy": Entropy, "log_loss": Entropy,
                           "misclassification": Misclassification}
ENTROPY_NAMES = ("entropy", "log_loss")
# 'friedman_mse' ranks a node's splits as the squared error does: Friedman's
# improvement, w_left w_right (mean_left - mean_right)^2 / w, is the drop in
# the sum of squared errors itself.
REGRESSION_CRITERIA = {"squared_error": SquaredError, "friedman_mse": SquaredError,
                       "poisson": Poisson, "absolute_error": AbsoluteError}
# What a multi-output tree measures in each output, by criterion name.
OUTPUT_IMPURITY = {"gini": OutputImpurity.IMPURITY_GINI,
                   "entropy": OutputImpurity.IMPURITY_ENTROPY,
                   "log_loss": OutputImpurity.IMPURITY_ENTROPY,
                   "misclassification": OutputImpurity.IMPURITY_MISCLASSIFICATION,
                   "squared_error": OutputImpurity.IMPURITY_SQUARED_ERROR,
                   "friedman_mse": OutputImpurity.IMPURITY_SQUARED_ERROR,
                   "poisson": OutputImpurity.IMPURITY_POISSON}


def regression_criterion(criterion, target, sample_weight):
    """The criterion of a regression tree, and its outputs' widths (None for
    one output).

    Parameters
    ----------
    criterion : str
        A key of ``REGRESSION_CRITERIA``.
    target : ndarray of float64, shape (n_samples,) or (n_samples, n_outputs)
        The targets, as they are.
    sample_weight : ndarray of float64

    Returns
    -------
    Criterion, ndarray of int64 or None
    """
    widths = None if target.ndim == 1 else np.ones(target.shape[1], dtype=np.int64)
    if criterion == "absolute_error":  # one or several outputs alike
        return AbsoluteError(np.ascontiguousarray(target.reshape(target.shape[0], -1)),
                             sample_weight), widths
    if target.ndim == 2:
        return multi_output_criterion(criterion, sample_weight, target=target)
    return REGRESSION_CRITERIA[criterion](target, sample_weight), widths


def scale_targets(target, criterion, extent_exponent, limits):
    """The targets the criterion sees: ``target`` times the power of two of
    ``fasttree._targets.target_scale_exponent``, recorded in ``limits``
    (``target_exponent``, ``impurity_exponent``) for :func:`grow_tree`."""
    exponent = target_scale_exponent(target, criterion, extent_exponent)
    limits["target_exponent"] = exponent
    limits["impurity_exponent"] = impurity_exponent(criterion, exponent)
    return np.ldexp(target, exponent) if exponent else target


def check_monotonic_cst(monotonic_cst, n_features, n_outputs, n_classes=None,
                        categories=None):
    """``monotonic_cst`` as int8 (-1 decreasing, 0 free, 1 increasing per
    feature), or None; the messages are scikit-learn's.

    Parameters
    ----------
    monotonic_cst : array-like of shape (n_features,) or None
    n_features, n_outputs : int
    n_classes : int, optional
        For a classifier: its number of classes (two at most).
    categories : ndarray, optional
        Per feature its number of categories (categorical features take no
        constraint).
    """
    if monotonic_cst is None:
        return None
    if n_outputs > 1:
        raise ValueError("Monotonicity constraints are not supported with multiple outputs.")
    constraints = np.asarray(monotonic_cst)
    if constraints.ndim != 1 or constraints.shape[0] != n_features:
        shape = constraints.shape[0] if constraints.ndim == 1 else constraints.shape
        raise ValueError(f"monotonic_cst has shape {shape} but the input data X has "
                         f"{n_features} features.")
    if constraints.dtype.kind not in "biuf" or not np.isin(constraints, (-1, 0, 1)).all():
        raise ValueError("monotonic_cst must be None or an array-like of -1, 0 or 1, but "
                         f"got {np.unique(constraints)}")
    if n_classes is not None and n_classes > 2:
        raise ValueError("Monotonicity constraints are not supported with multiclass "
                         "classification.")
    if categories is not None and (constraints[np.asarray(categories) > 0] != 0).any():
        raise ValueError("monotonic_cst constrains numeric features only; give the "
                         "categorical features 0")
    return constraints.astype(np.int8)


def check_criterion_features(criterion, categories):
    """Raise when the criterion cannot split the categorical features
    (``categories``: per feature its number of categories, or None)."""
    if criterion == "absolute_error" and categories is not None and np.any(categories):
        raise ValueError("criterion='absolute_error' splits numeric features only; encode "
                         "the categorical features as numbers (say, ordinal codes) or use "
                         "another criterion")


def multi_output_criterion(criterion, sample_weight, class_index=None, n_classes=None,
                           target=None):
    """The criterion of a tree of several outputs, and the outputs' widths.

    Parameters
    ----------
    criterion : str
        A key of ``OUTPUT_IMPURITY``.
    sample_weight : ndarray of float64
    class_index, n_classes : ndarray of shape (n_samples, n_outputs), sequence of int
        Classification: every sample's class in each output, and the
        outputs' numbers of classes.
    target : ndarray of float64, shape (n_samples, n_outputs)
        Regression: the targets.

    Returns
    -------
    MultiOutput, ndarray of int64
    """
    if target is None:
        widths = np.asarray(n_classes, dtype=np.int64)
        start = np.concatenate([[0], np.cumsum(widths)])
        columns = class_index + start[:-1].astype(np.int32)
        values = np.ones(class_index.shape)
    else:
        widths = np.ones(target.shape[1], dtype=np.int64)
        start = np.arange(target.shape[1] + 1)
        columns = np.broadcast_to(np.arange(target.shape[1], dtype=np.int32), target.shape)
        values = target
    return MultiOutput(np.ascontiguousarray(columns, dtype=np.int32),
                       np.ascontiguousarray(values, dtype=np.float64), sample_weight,
                       start.astype(np.intp), OUTPUT_IMPURITY[criterion]), widths


def check_criterion_target(criterion, target, estimator):
    """Raise when the regression targets do not suit ``criterion`` (the
    Poisson deviance needs y >= 0 with a positive sum)."""
    if criterion != "poisson":
        return
    # scikit-learn's wording, which scripts match on (its forests say
    # "strictly positive", its trees "positive").
    if (target < 0).any():
        raise ValueError(f"{estimator}: Some value(s) of y are negative which is not allowed "
                         "for Poisson regression.")
    if not np.max(target) > 0:  # the sum, of targets >= 0, may overflow
        strictly = "strictly " if "Forest" in estimator else ""
        raise ValueError(f"{estimator}: Sum of y is not {strictly}positive which is necessary "
                         "for Poisson regression.")


# scikit-learn's criterion objects (sklearn.tree._criterion), which its
# trees and forests take in place of a name, by class name.
SKLEARN_CRITERIA = {"Gini": "gini", "Entropy": "entropy", "MSE": "squared_error",
                    "MAE": "absolute_error", "Poisson": "poisson"}


def criterion_named(criterion):
    """The name of ``criterion``: scikit-learn's criterion objects are taken by
    their class, and ``'friedman_mse'`` is ``'squared_error'`` (with a
    FutureWarning, as scikit-learn 1.9 gives); any other value unchanged."""
    kind = type(criterion)
    if kind.__module__.startswith("sklearn.tree._criterion") and kind.__name__ in SKLEARN_CRITERIA:
        return SKLEARN_CRITERIA[kind.__name__]
    if isinstance(criterion, str) and criterion == "friedman_mse":
        warn_user("criterion='friedman_mse' grows the same trees as 'squared_error', "
                      "which it now stands for; scikit-learn deprecates the name, so write "
                      "criterion='squared_error'", FutureWarning)
        return "squared_error"
    return criterion

# The kernel packs a sample index into 32 bits.
MAX_SAMPLES = 2**32 - 1
# Limits no tree reaches: max_depth=None stands for UNREACHED_DEPTH, and no
# node holds, nor any tree has leaves, more than MAX_SAMPLES. A larger
# max_depth, min_samples_split, min_samples_leaf or max_leaf_nodes is taken
# as these, which stop every tree where it would stop (and, unlike an int of
# any size, fit the kernel's 64-bit counts).
UNREACHED_DEPTH = np.iinfo(np.int32).max
UNREACHED_COUNT = MAX_SAMPLES + 1


def resolve_max_features(max_features, n_features):
    """Number of features to evaluate per node for a ``max_features`` setting."""
    if max_features is None:
        return n_features
    if isinstance(max_features, str):
        if max_features == "sqrt":
            return max(1, int(math.sqrt(n_features)))
        if max_features == "log2":
            return max(1, int(math.log2(n_features)))
        raise ValueError(f"max_features must be an int, a float in (0, 1], 'sqrt', 'log2' "
                         f"or None; got {max_features!r}")
    value = check_int_or_fraction(max_features, "max_features", minimum_int=1)
    if isinstance(value, float):
        return max(1, int(value * n_features))
    if value > n_features:
        raise ValueError(f"max_features={value} exceeds the number of features "
                         f"({n_features})")
    return value


def check_finite_non_negative(value, name):
    """``value`` if it is a finite real number >= 0 (not a bool), else a ValueError."""
    if (not isinstance(value, (numbers.Real, np.floating)) or isinstance(value, bool)
            or not value >= 0.0 or not math.isfinite(value)):
        raise invalid_parameter(name, "a float in the range [0.0, inf)", value)
    return value


def check_loss_matrix(loss_matrix, criterion, n_classes):
    """A ``loss_matrix`` parameter as a C-contiguous float64 array, or None.

    ``loss_matrix[i, j]`` is the cost of predicting class j for a row of
    class i: non-negative and finite, zero on the diagonal, one row and
    column per class; it selects the cost-sensitive Gini, so the criterion
    must be 'gini'.
    """
    if loss_matrix is None:
        return None
    if criterion != "gini":
        raise ValueError(f"loss_matrix is the cost-sensitive Gini criterion; it needs "
                         f"criterion='gini', not {criterion!r}")
    try:
        loss = np.array(loss_matrix, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("loss_matrix must be a square array of numbers") from None
    if loss.shape != (n_classes, n_classes):
        raise ValueError(f"loss_matrix must have shape ({n_classes}, {n_classes}), one row "
                         f"and column per class in classes_ order; got {loss.shape}")
    if not np.isfinite(loss).all() or (loss < 0).any():
        raise ValueError("loss_matrix must hold finite costs >= 0")
    if np.diagonal(loss).any():
        raise ValueError("loss_matrix must have a zero diagonal (a right answer costs "
                         "nothing)")
    return np.ascontiguousarray(loss)


# What a multiway (C4.5-style) tree grows by, and the parameters it leaves
# at their defaults.
MULTIWAY_CRITERIA = (*ENTROPY_NAMES, "gain_ratio")
MULTIWAY_DEFAULTS = {"max_leaf_nodes": None, "min_samples_leaf": 1,
                     "min_impurity_decrease": 0.0, "ccp_alpha": 0.0, "loss_matrix": None,
                     "splitter": "best"}


def check_split_options(params):
    """Check ``categorical_split``, ``missing`` and the criterion that goes
    with them; True for a multiway (C4.5-style) tree."""
    split = getattr(params, "categorical_split", "binary")
    missing = getattr(params, "missing", "learn")
    if not isinstance(split, str) or split not in ("binary", "multiway"):
        raise ValueError(f"categorical_split must be 'binary' or 'multiway'; got {split!r}")
    if not isinstance(missing, str) or missing not in ("learn", "fractional"):
        raise ValueError(f"missing must be 'learn' or 'fractional'; got {missing!r}")
    if split == "binary":
        if params.criterion == "gain_ratio":
            raise ValueError("criterion='gain_ratio' is C4.5's and needs "
                             "categorical_split='multiway'")
        if missing == "fractional":
            raise ValueError("missing='fractional' is C4.5's and needs "
                             "categorical_split='multiway'")
        return False
    if params.criterion not in MULTIWAY_CRITERIA:
        raise ValueError(f"categorical_split='multiway' grows by 'entropy' (ID3) or "
                         f"'gain_ratio' (C4.5); got criterion={params.criterion!r}")
    for name, default in MULTIWAY_DEFAULTS.items():
        value = getattr(params, name, default)
        if not (value is default or (default is not None and value == default)):
            raise ValueError(f"{name}={value!r} is not supported with "
                             "categorical_split='multiway' (leave it at its default)")
    return True


def check_criterion(criterion, criteria):
    """Raise unless ``criterion`` is one of the names ``criteria``."""
    if not isinstance(criterion, str) or criterion not in criteria:
        raise invalid_parameter("criterion", f"a str among {sorted(criteria)}", criterion)


def resolve_tree_limits(params, criteria, n_samples, n_features):
    """Check an estimator's tree hyper-parameters and turn fractions into counts.

    Parameters
    ----------
    params : object
    Holds ``criterion``, ``max_depth``, ``min_samples_split``,
    ``min_samples_leaf``, ``min_weight_fraction_leaf``,
    ``min_impurity_decrease``, ``max_leaf_nodes``, ``max_features`` and
    ``ccp_alpha`` as attributes (a tree or a forest).
    criteria : dict
    The criterion names the estimator accepts.
    n_samples, n_features : int

    Returns
    -------
    dict
    """
    check_criterion(params.criterion, criteria)
    if params.max_depth is not None and not is_int_at_least(params.max_depth, 1):
        raise invalid_parameter("max_depth", "an int in the range [1, inf) or None",
                                params.max_depth)
    min_samples_split = check_int_or_fraction(params.min_samples_split, "min_samples_split",
                                              minimum_int=2)
    if isinstance(min_samples_split, float):
        min_samples_split = max(2, math.ceil(min_samples_split * n_samples))
    min_samples_leaf = check_int_or_fraction(params.min_samples_leaf, "min_samples_leaf",
                                             minimum_int=1, fraction_open_high=True)
    if isinstance(min_samples_leaf, float):
        min_samples_leaf = max(1, math.ceil(min_samples_leaf * n_samples))
    fraction = params.min_weight_fraction_leaf
    if (not isinstance(fraction, (numbers.Real, np.floating)) or isinstance(fraction, bool)
            or not 0.0 <= fraction <= 0.5):
        raise invalid_parameter("min_weight_fraction_leaf", "a float in the range [0.0, 0.5]",
                                fraction)
    decrease = check_finite_non_negative(params.min_impurity_decrease, "min_impurity_decrease")
    ccp_alpha = check_finite_non_negative(params.ccp_alpha, "ccp_alpha")
    max_leaf_nodes = params.max_leaf_nodes
    if max_leaf_nodes is not None and not is_int_at_least(max_leaf_nodes, 2):
        raise invalid_parameter("max_leaf_nodes", "an int in the range [2, inf) or None",
                                max_leaf_nodes)
    splitter = getattr(params, "splitter", "best")
    if not isinstance(splitter, str) or splitter not in ("best", "random"):
        raise invalid_parameter("splitter", "a str among {'best', 'random'}", splitter)
    min_samples_leaf = min(int(min_samples_leaf), UNREACHED_COUNT)
    return {
        "splitter": splitter,
        "max_depth": UNREACHED_DEPTH if params.max_depth is None
        else min(int(params.max_depth), UNREACHED_DEPTH),
        "min_samples_split": max(min(int(min_samples_split), UNREACHED_COUNT),
                                 2 * min_samples_leaf),
        "min_samples_leaf": min_samples_leaf,
        "min_weight_fraction_leaf": float(fraction),
        "min_impurity_decrease": float(decrease),
        "max_leaf_nodes": -1 if max_leaf_nodes is None
        else min(int(max_leaf_nodes), UNREACHED_COUNT),
        "max_features": resolve_max_features(params.max_features, n_features),
        "ccp_alpha": float(ccp_alpha),
    }


def grow_tree(ranked_features, criterion, sample_weight, limits, seed, output_widths=None):
    """Grow one tree.

    Parameters
    ----------
    ranked_features : tuple
        ``rank_features(X)`` of the training matrix.
    criterion : Criterion
        Bound to the targets and ``sample_weight``.
    sample_weight : ndarray of float64
        Rows of zero weight take no part (a bootstrap passes its draw counts here).
    limits : dict
        From :func:`resolve_tree_limits`; a regressor's holds
        ``weight_exponent`` when ``sample_weight`` was divided by that power
        of two (see ``fasttree._targets.weight_exponent``): the tree's weights
        are multiplied back; ``target_exponent`` and ``impurity_exponent``
        when the criterion's targets were multiplied by a power of two (see
        ``fasttree._targets.target_scale_exponent``): the tree's values and
        impurities are divided back, and ``min_impurity_decrease`` is
        multiplied for the builder.
    seed : int
        Seed of the per-node feature draws.
    output_widths : sequence of int, optional
        Values per output of a multi-output criterion (see ``Tree``).

    Returns
    -------
    Tree
    """
    weighted_n_total = float(sample_weight.sum())
    min_weight_leaf = limits["min_weight_fraction_leaf"] * weighted_n_total
    samples = np.flatnonzero(sample_weight > 0).astype(np.uint32)
    splitter = Splitter(criterion, ranked_features, limits["max_features"],
                        limits["min_samples_leaf"], min_weight_leaf, seed,
                        method=SplitMethod.SPLIT_RANDOM if limits["splitter"] == "random" else None,
                        categories=limits.get("categories"), columns=limits.get("columns"),
                        monotonic_cst=limits.get("monotonic_cst"), rows=limits.get("rows"))
    arrays = build_tree(
        splitter, samples, n_values=criterion.n_values,
        max_depth=limits["max_depth"], min_samples_split=limits["min_samples_split"],
        min_samples_leaf=limits["min_samples_leaf"], min_weight_leaf=min_weight_leaf,
        min_impurity_decrease=np.ldexp(limits["min_impurity_decrease"],
                                       limits.get("impurity_exponent", 0)),
        max_leaf_nodes=limits["max_leaf_nodes"], weighted_n_total=weighted_n_total,
        sparse_values=criterion.n_values > 1 and not getattr(criterion, "regression", False))
    if limits.get("weight_exponent", 0):
        arrays["weighted_n_node_samples"] = np.ldexp(arrays["weighted_n_node_samples"],
                                                     limits["weight_exponent"])
    if limits.get("target_exponent", 0):
        arrays["value"] = np.ldexp(arrays["value"], -limits["target_exponent"])
        arrays["impurity"] = np.ldexp(arrays["impurity"], -limits["impurity_exponent"])
    tree = Tree(ranked_features.ranks.shape[0], criterion.n_values, arrays, trusted=True,
                output_widths=output_widths)
    if limits["ccp_alpha"] > 0.0:
        tree = tree.pruned(tree.cost_complexity_pruning(limits["ccp_alpha"])[2])
    return tree


def grow_c45_tree(X, ranked_features, class_index, sample_weight, n_classes, params, limits,
                  seed):
    """Grow one multiway (C4.5-style) tree.

    Parameters
    ----------
    X : ndarray of float32
        The training matrix (category codes, NaN for missing values).
    ranked_features : tuple
        ``rank_features(X)``.
    class_index : ndarray
    sample_weight : ndarray of float64
        Rows of zero weight take no part.
    n_classes : int
    params : object
        Holds ``criterion`` and ``missing``.
    limits : dict
        From :func:`resolve_tree_limits`, with ``categories``.
    seed : int
        Seed of the per-node feature draws.

    Returns
    -------
    Tree
    """
    arrays = grow_multiway_tree(
        X, ranked_features, class_index, sample_weight, n_classes, limits.get("categories"),
        criterion="entropy" if params.criterion in ENTROPY_NAMES else params.criterion,
        fractional=params.missing == "fractional",
        max_depth=limits["max_depth"], min_samples_split=limits["min_samples_split"],
        min_weight_leaf=limits["min_weight_fraction_leaf"] * sample_weight.sum(),
        max_features=limits["max_features"], seed=seed)
    return Tree(X.shape[1], n_classes, arrays, trusted=True)


def check_single_output_options(params, multiway):
    """Raise for the options that take one output only."""
    if multiway:
        raise ValueError("categorical_split='multiway' grows a tree for one output; y has "
                         "several columns")
    if getattr(params, "loss_matrix", None) is not None:
        raise ValueError("loss_matrix prices the classes of one output; y has several "
                         "columns")


def labels_of_outputs(classes, scores):
    """Per row and output, the label of the largest score (the first on
    ties): an array of shape (n_samples, n_outputs) from per-output classes
    and per-output score arrays."""
    labels = [output_classes[predicted_classes(output_scores)]
              for output_classes, output_scores in zip(classes, scores)]
    kinds = {output_classes.dtype.kind for output_classes in classes}
    dtype = np.result_type(*labels) if len(kinds) == 1 and "O" not in kinds else object
    return np.stack([np.asarray(output_labels, dtype=dtype) for output_labels in labels],
                    axis=1)


@model_file_class
class PruningPath(dict):
    """The result of ``cost_complexity_pruning_path``: a dict whose keys
    ``ccp_alphas`` and ``impurities`` are also attributes."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


class BaseDecisionTree(BaseEstimator):
    """Validation and growth shared by the classifier and the regressor."""

    _fitted_attribute = "tree_"

    _criteria = {}

    def _resolve_limits(self, n_samples, n_features):
        """Check the hyper-parameters and turn fractions into counts."""
        return resolve_tree_limits(self, self._criteria, n_samples, n_features)

    def _validate_X_for_fit(self, X):
        """Validated float32 X (categorical columns as codes), its feature
        names (None without names) and its category encoding (None without
        categorical columns)."""
        X = as_frame(X)
        names = feature_names_of(X)
        X, encoding = self._categories_for_fit(X, names)
        if is_sparse(X):
            X = sparse_for_fit(X, estimator=type(self).__name__)
        else:
            X = check_array_2d(X, estimator=type(self).__name__, allow_nan=True)
        if X.shape[0] > MAX_SAMPLES:
            raise ValueError(f"{type(self).__name__} supports at most {MAX_SAMPLES} samples")
        return X, names, encoding

    def _set_fitted(self, tree, feature_names, limits, encoding=None, **attributes):
        """Publish the fitted attributes together, once the fit has succeeded.

        A failed refit thus leaves the previous model whole.
        """
        self.tree_ = tree
        self._set_encoding(encoding)
        self.n_features_in_ = tree.n_features
        self.n_outputs_ = tree.n_outputs
        self.max_features_ = limits["max_features"]
        if feature_names is not None:
            self.feature_names_in_ = feature_names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        for name, value in attributes.items():
            setattr(self, name, value)
        start_threads()

    def _grow(self, X, criterion, sample_weight, limits, ranked=None, output_widths=None):
        """Grow a Tree from validated float32 X and a bound criterion.

        ``ranked`` is ``rank_features(X)`` when the caller has it already (a
        booster fitting many trees on one X); otherwise X is ranked here.
        """
        if limits["splitter"] == "random":
            columns = feature_columns(X)
            limits = {**limits, "columns": columns, "rows": feature_rows(X)}
            if ranked is None:
                ranked = random_split_features(columns, limits.get("categories"))
        elif ranked is None:
            ranked = rank_features(X)
        return grow_tree(ranked, criterion, sample_weight, limits,
                         check_random_state(self.random_state), output_widths)

    def _check_fitted(self):
        super()._check_fitted()
        if getattr(self, "n_features_in_", None) != self.tree_.n_features:
            raise ValueError(f"corrupt {type(self).__name__}: n_features_in_ does not match "
                             "the fitted tree")

    def _validate_X_for_predict(self, X, check_finite=False):
        """Validated float32 X for prediction.

        NaN is a missing value. The prediction kernels refuse infinity
        themselves, so that check is left to them unless ``check_finite``.
        """
        def convert(X):
            if is_sparse(X) and not check_finite:
                # The walks read sparse rows as they go (no dense copy of X).
                rows = csr_for_walk(X, estimator=type(self).__name__)
                check_not_empty(rows.shape, estimator=type(self).__name__)
                return rows
            return check_array_2d(X, estimator=type(self).__name__, check_finite=check_finite,
                                  keep_float=not check_finite, allow_nan=True)

        return self._checked_predict_input(X, convert)

    def apply(self, X):
        """Index of the leaf that each sample ends in.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of int, shape (n_samples,)
        """
        X = self._validate_X_for_predict(X)
        return self.tree_.apply(X)

    def decision_path(self, X):
        """Indicator matrix of the nodes that each sample passes through.

        Requires scipy, which builds the sparse matrix.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_samples, node_count)
            Entry (i, j) is 1 when sample i passes through node j.
        """
        X = self._validate_X_for_predict(X, check_finite=True)
        return self.tree_.decision_path(X)

    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        """The pruning path of minimal cost-complexity pruning (CART).

        A tree is grown on (X, y) with this estimator's parameters but
        ``ccp_alpha=0`` and pruned back to its root, weakest link first. A
        node's risk is its impurity times its share of the training weight;
        the tree's is the sum over its leaves.

        Parameters
        ----------
        X, y, sample_weight
            As for ``fit``.

        Returns
        -------
        PruningPath
            ``ccp_alphas``: 0, then the effective alpha of every collapse
            (non-decreasing); ``impurities``: the tree's total leaf risk at
            each step, from the full tree to the root alone. Fitting with
            ``ccp_alpha`` between two consecutive alphas gives the subtree
            of the earlier one.
        """
        grown = type(self)(**{**self.get_params(deep=False), "ccp_alpha": 0.0})
        grown.fit(X, y, sample_weight)
        alphas, risks, _ = grown.tree_.cost_complexity_pruning(math.inf)
        return PruningPath(ccp_alphas=alphas, impurities=risks)

    def prune_reduced_error(self, X, y, sample_weight=None):
        """Reduced-error pruning against a validation set.

        Bottom-up, every inner node whose subtree (as pruned so far) makes
        at least as much validation loss as the node alone would, predicting
        its own training value, becomes a leaf: misclassified weight for
        the classifier, the weighted sum of squared errors for the regressor.
        Subtrees no validation row reaches are pruned.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Validation rows, not those the tree was grown on.
        y : array-like of shape (n_samples,)
            Their labels (labels the tree never saw count as errors
            everywhere) or targets. A classifier with a ``loss_matrix``
            counts costs instead of errors.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        estimator
            A pruned copy; this estimator is left as it is.
        """
        self._check_fitted()
        self._check_prunable()
        X = self._validate_X_for_predict(X, check_finite=True)
        sample_weight = check_sample_weight(sample_weight, X.shape[0],
                                            estimator=type(self).__name__)
        loss_of = self._validation_loss(y, X.shape[0], sample_weight)
        return self._with_tree(self.tree_.pruned(
            reduced_error_collapse(self.tree_, X, loss_of)))

    def _check_prunable(self):
        if self.tree_.n_outputs > 1:
            raise ValueError("reduced-error and pessimistic pruning take one output; a tree "
                             "of several outputs can be pruned with ccp_alpha")
        if not self.tree_.has_statistics:
            raise ValueError("this tree belongs to a forest pickled by an older fasttree "
                             "and keeps no inner-node values; prune a tree fitted on its own")

    def _with_tree(self, tree):
        """A shallow copy of this estimator holding ``tree``."""
        pruned = copy.copy(self)
        pruned.tree_ = tree
        return pruned

    def get_depth(self):
        """Depth of the tree: the longest path from the root to a leaf."""
        self._check_fitted()
        return self.tree_.max_depth

    def get_n_leaves(self):
        """Number of leaves of the tree."""
        self._check_fitted()
        return self.tree_.n_leaves

    @property
    def feature_importances_(self):
        """Normalised total impurity decrease brought by each feature (sums to 1)."""
        self._check_fitted()
        return self.tree_.compute_feature_importances()


@model_file_class
@shared_docs
class DecisionTreeClassifier(ClassifierMixin, BaseDecisionTree):
    """A CART classification tree grown with an exact sorted-threshold search.

    Numeric features split on a threshold, categorical ones on a set of
    categories (or, with ``categorical_split='multiway'``, into one child
    per category, as ID3 and C4.5 do); rows missing a value follow the
    ``missing`` rule.

    Parameters
    ----------
    {classification_criterion}
    {splitter}
    {tree_limits}
    {max_features}
    {tree_random_state}
    {growth_limits}
    {tree_class_weight}
    {ccp_alpha}
        See :meth:`cost_complexity_pruning_path`.
    {tree_loss_matrix}
    {categorical_features}
    {categorical_split}
    {missing}
    {monotonic_cst}

    Attributes
    ----------
    {fitted_classes}
    {fitted_tree}
    {fitted_loss_matrix}
    {fitted_inputs}
    """

    # gain_ratio grows multiway (C4.5) trees only; it has no binary criterion.
    _criteria = {**CLASSIFICATION_CRITERIA, "gain_ratio": None}

    def __init__(self, *, criterion="gini", splitter="best", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=None,
                 random_state=None, max_leaf_nodes=None, min_impurity_decrease=0.0,
                 class_weight=None, ccp_alpha=0.0, loss_matrix=None,
                 categorical_features="from_dtype", categorical_split="binary",
                 missing="learn", monotonic_cst=None):
        self.criterion = criterion_named(criterion)
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.random_state = random_state
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.class_weight = class_weight
        self.ccp_alpha = ccp_alpha
        self.loss_matrix = loss_matrix
        self.categorical_features = categorical_features
        self.categorical_split = categorical_split
        self.missing = missing
        self.monotonic_cst = monotonic_cst

    @shared_docs
    def fit(self, X, y, sample_weight=None):
        """Grow the tree.

        Parameters
        ----------
        {fit_X}
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Class labels of any hashable, sortable type.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; weight 2 counts like a duplicated row.

        Returns
        -------
        self
        """
        return self._fit(X, y, sample_weight)

    def _fit(self, X, y, sample_weight, ranked=None):
        X, feature_names, encoding = self._validate_X_for_fit(X)
        classes, class_index = encode_outputs(y, X.shape[0], type(self).__name__)
        sample_weight = check_sample_weight(sample_weight, X.shape[0],
                                            estimator=type(self).__name__)
        if self.class_weight is not None:
            sample_weight = check_weight_total(
                sample_weight * class_weight_per_sample(self.class_weight, classes,
                                                        class_index),
                estimator=type(self).__name__, class_weighted=True)
        limits = self._resolve_limits(*X.shape)
        limits["categories"] = None if encoding is None else encoding.counts
        multiway = check_split_options(self)
        limits["monotonic_cst"] = check_monotonic_cst(
            self.monotonic_cst, X.shape[1], len(classes) if isinstance(classes, list) else 1,
            None if isinstance(classes, list) else len(classes), limits["categories"])
        if multiway and limits["monotonic_cst"] is not None:
            raise ValueError("monotonic_cst constrains binary trees; multiway (C4.5) trees "
                             "take none")
        if isinstance(classes, list):
            check_single_output_options(self, multiway)
            n_classes = [len(output_classes) for output_classes in classes]
            criterion, widths = multi_output_criterion(self.criterion, sample_weight,
                                                       class_index, n_classes)
            tree = self._grow(X, criterion, sample_weight, limits, ranked=ranked,
                              output_widths=widths)
            self._set_fitted(tree, feature_names, limits, encoding, classes_=classes,
                             n_classes_=n_classes, loss_matrix_=None)
            return self
        loss = check_loss_matrix(self.loss_matrix, self.criterion, len(classes))
        if multiway:
            tree = grow_c45_tree(densified(X), rank_features(X) if ranked is None else ranked,
                                 class_index, sample_weight, len(classes), self, limits,
                                 check_random_state(self.random_state))
        else:
            if loss is None:
                criterion = self._criteria[self.criterion](class_index, sample_weight,
                                                           len(classes))
            else:
                criterion = CostSensitiveGini(class_index, sample_weight, len(classes), loss)
            tree = self._grow(X, criterion, sample_weight, limits, ranked=ranked)
        self._set_fitted(tree, feature_names, limits, encoding, classes_=classes,
                         n_classes_=len(classes), loss_matrix_=loss)
        return self

    def _validation_loss(self, y, n_samples, sample_weight):
        position = {label: index for index, label in enumerate(self.classes_.tolist())}
        labels = as_1d(y, n_samples, type(self).__name__)
        class_index = np.array([position.get(label, -1) for label in labels.tolist()],
                               dtype=np.intp)
        loss = getattr(self, "loss_matrix_", None)
        if loss is None:
            majority = self.tree_.majority_class
            return lambda rows, nodes: sample_weight[rows] * (majority[nodes]
                                                              != class_index[rows])
        # With a loss matrix a node predicts its class of least expected cost,
        # and a validation row costs loss[truth, prediction] (an unknown label
        # its largest cost).
        predicted = predicted_classes(self.tree_.node_values, loss)
        padded = np.vstack([loss, loss.max(axis=0)])
        return lambda rows, nodes: sample_weight[rows] * padded[class_index[rows],
                                                                predicted[nodes]]

    def prune_pessimistic(self, confidence_factor=0.25):
        """C4.5's pessimistic pruning (subtree replacement), from the training
        counts alone.

        A node with training weight N, of which E lies outside its majority
        class, is expected to make ``N * U_CF(E, N)`` errors as a leaf, where
        ``U_CF`` is the upper limit of the binomial confidence interval at
        confidence ``CF`` (computed exactly, as Clopper-Pearson's; the C4.5
        program approximates it when E > 0). Bottom-up, a node becomes a
        leaf when that is no more than the sum of its leaves' estimates.

        Parameters
        ----------
        confidence_factor : float in (0, 1), default=0.25
            C4.5's ``-c`` option; smaller values prune more.

        Returns
        -------
        DecisionTreeClassifier
            A pruned copy; this estimator is left as it is.
        """
        self._check_fitted()
        self._check_prunable()
        if getattr(self, "loss_matrix_", None) is not None:
            raise ValueError("pessimistic pruning counts errors, not costs; prune a tree "
                             "grown with a loss_matrix with prune_reduced_error")
        if (not isinstance(confidence_factor, (numbers.Real, np.floating))
                or isinstance(confidence_factor, bool) or not 0.0 < confidence_factor < 1.0):
            raise ValueError(f"confidence_factor must be a float in (0, 1); "
                             f"got {confidence_factor!r}")
        return self._with_tree(self.tree_.pruned(
            pessimistic_collapse(self.tree_, float(confidence_factor))))

    def _check_fitted(self):
        super()._check_fitted()
        classes = getattr(self, "classes_", ())
        if isinstance(classes, list):
            if [len(output_classes) for output_classes in classes] != list(
                    self.tree_.output_widths):
                raise ValueError(f"corrupt {type(self).__name__}: classes_ does not match "
                                 "the fitted tree")
        elif len(classes) != self.tree_.n_values:
            raise ValueError(f"corrupt {type(self).__name__}: classes_ does not match the "
                             "fitted tree")

    def predict(self, X):
        """Most probable class of each sample (the first class on ties).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels of the same type as those given to ``fit``.
        """
        X = self._validate_X_for_predict(X)
        if self.tree_.n_outputs > 1:
            return labels_of_outputs(self.classes_,
                                     self.tree_.split_outputs(self.tree_.predict_values(X)))
        return self.classes_[self._class_index_of(X)]

    def _predict_class_index(self, X):
        """Per row, the position in ``classes_`` of the class ``predict``
        gives (one output)."""
        return self._class_index_of(self._validate_X_for_predict(X))

    def _class_index_of(self, X):
        """``_predict_class_index`` of a checked X."""
        loss = getattr(self, "loss_matrix_", None)
        if loss is not None:
            # The class of least expected cost under the leaf's class fractions.
            return predicted_classes(self.tree_.predict_values(X), loss)
        return self.tree_.predict_class_index(X)

    def predict_proba(self, X):
        """Class probabilities: the weighted class fractions of each sample's leaf.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes), or a list of them
            Columns in the order of ``classes_``; one array per output for
            several outputs.
        """
        X = self._validate_X_for_predict(X)
        if self.tree_.n_outputs > 1:
            return [np.ascontiguousarray(output) for output in
                    self.tree_.split_outputs(self.tree_.predict_values(X))]
        return self.tree_.predict_values(X)


@model_file_class
@shared_docs
class DecisionTreeRegressor(RegressorMixin, BaseDecisionTree):
    """A CART regression tree grown with an exact sorted-threshold search.

    Numeric features split on a threshold, categorical ones on a set of
    categories; rows missing a value go to the child learnt for them.

    Parameters
    ----------
    {regression_criterion}
    {splitter}
    {tree_limits}
    {max_features}
    {tree_random_state}
    {growth_limits}
    {ccp_alpha}
        See :meth:`cost_complexity_pruning_path`.
    {categorical_features}
    {monotonic_cst}

    Attributes
    ----------
    {fitted_tree}
    {fitted_inputs}
    """

    _criteria = REGRESSION_CRITERIA

    def __init__(self, *, criterion="squared_error", splitter="best", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=None,
                 random_state=None, max_leaf_nodes=None, min_impurity_decrease=0.0,
                 ccp_alpha=0.0, categorical_features="from_dtype", monotonic_cst=None):
        self.criterion = criterion_named(criterion)
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.random_state = random_state
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.ccp_alpha = ccp_alpha
        self.categorical_features = categorical_features
        self.monotonic_cst = monotonic_cst

    @shared_docs
    def fit(self, X, y, sample_weight=None):
        """Grow the tree.

        Parameters
        ----------
        {fit_X}
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Finite real targets.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        return self._fit(X, y, sample_weight)

    def _fit(self, X, y, sample_weight, ranked=None):
        X, feature_names, encoding = self._validate_X_for_fit(X)
        check_criterion(self.criterion, self._criteria)
        if self.criterion == "poisson":
            # scikit-learn judges a Poisson target before its length; any
            # other fault is left to check_regression_target to name.
            try:
                values = np.asarray(y, dtype=np.float64)
            except (TypeError, ValueError):
                values = None
            if values is not None and np.isfinite(values).all():
                check_criterion_target(self.criterion, values, type(self).__name__)
        target = check_regression_target(y, X.shape[0], type(self).__name__)
        sample_weight = check_sample_weight(sample_weight, X.shape[0],
                                            estimator=type(self).__name__)
        limits = self._resolve_limits(*X.shape)
        limits["categories"] = None if encoding is None else encoding.counts
        check_criterion_target(self.criterion, target, type(self).__name__)
        check_criterion_features(self.criterion, limits["categories"])
        limits["monotonic_cst"] = check_monotonic_cst(
            self.monotonic_cst, X.shape[1], 1 if target.ndim == 1 else target.shape[1],
            categories=limits["categories"])
        extent = target_extent_exponent(target, self.criterion, type(self).__name__)
        scaled_target = scale_targets(target, self.criterion, extent, limits)
        limits["weight_exponent"] = weight_exponent(float(sample_weight.sum()),
                                                    extent + limits["target_exponent"])
        if limits["weight_exponent"]:
            sample_weight = np.ldexp(sample_weight, -limits["weight_exponent"])
        criterion, widths = regression_criterion(self.criterion, scaled_target, sample_weight)
        tree = self._grow(X, criterion, sample_weight, limits, ranked=ranked,
                          output_widths=widths)
        self._set_fitted(tree, feature_names, limits, encoding)
        return self

    def _validation_loss(self, y, n_samples, sample_weight):
        target = check_regression_target(y, n_samples, type(self).__name__)
        mean = self.tree_.first_value
        return lambda rows, nodes: sample_weight[rows] * (mean[nodes] - target[rows]) ** 2

    def predict(self, X):
        """Mean training target of each sample's leaf.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of float64, shape (n_samples,) or (n_samples, n_outputs)
        """
        X = self._validate_X_for_predict(X)
        if self.tree_.n_outputs > 1:
            return self.tree_.predict_values(X)
        return self.tree_.predict_mean(X)


@model_file_class
@shared_docs
class ExtraTreeClassifier(DecisionTreeClassifier):
    """An extremely randomized classification tree: a
    :class:`DecisionTreeClassifier` that draws one threshold per feature
    tried (``splitter='random'``) among ``max_features='sqrt'`` features by
    default. Meant as a member of an ensemble (see
    :class:`fasttree.ExtraTreesClassifier`); alone it overfits.

    Parameters
    ----------
    {classification_criterion}
    {splitter}
    {tree_limits}
    {max_features}
    {tree_random_state}
    {growth_limits}
    {tree_class_weight}
    {ccp_alpha}
    {tree_loss_matrix}
    {categorical_features}
    {categorical_split}
    {missing}
    {monotonic_cst}

    Attributes
    ----------
    {fitted_classes}
    {fitted_tree}
    {fitted_loss_matrix}
    {fitted_inputs}
    """

    def __init__(self, *, criterion="gini", splitter="random", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features="sqrt", random_state=None, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, class_weight=None, ccp_alpha=0.0,
                 loss_matrix=None, categorical_features="from_dtype",
                 categorical_split="binary", missing="learn", monotonic_cst=None):
        super().__init__(**parameters_of(locals()))


@model_file_class
@shared_docs
class ExtraTreeRegressor(DecisionTreeRegressor):
    """An extremely randomized regression tree: a
    :class:`DecisionTreeRegressor` that draws one threshold per feature
    tried (``splitter='random'``) by default. Meant as a member of an
    ensemble (see :class:`fasttree.ExtraTreesRegressor`); alone it overfits.

    Parameters
    ----------
    {regression_criterion}
    {splitter}
    {tree_limits}
    {max_features}
    {tree_random_state}
    {growth_limits}
    {ccp_alpha}
    {categorical_features}
    {monotonic_cst}

    Attributes
    ----------
    {fitted_tree}
    {fitted_inputs}
    """

    def __init__(self, *, criterion="squared_error", splitter="random", max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_weight_fraction_leaf=0.0,
                 max_features=1.0, random_state=None, max_leaf_nodes=None,
                 min_impurity_decrease=0.0, ccp_alpha=0.0, categorical_features="from_dtype",
                 monotonic_cst=None):
        super().__init__(**parameters_of(locals()))
