"""The growth recipe every estimator that grows trees shares: the checks of a
fit's input and options, done once here for the trees and the forests alike;
the criteria by name and the criterion bound to a fit's targets; the limits
of a tree; and the growth of one tree, binary (``grow_tree``) or multiway
(``grow_c45_tree``)."""

import itertools
import math
import numbers
from collections.abc import Iterable

import numpy as np

from ._binning import binned_features
from ._c45 import grow_multiway_tree
from ._criterion_pinball import AbsoluteError, PinballLoss
from ._criterion_classification import CostSensitiveGini, Entropy, Gini, Misclassification
from ._criterion_multi_output import MultiOutput, OutputImpurity
from ._criterion_regression import Poisson, SquaredError
from ._features import feature_columns, feature_rows, random_split_features, rank_features
from ._frames import as_frame
from ._splitter import SplitMethod, Splitter
from ._structure import Tree
from ._targets import (QUANTILE_CRITERIA, check_regression_target, encode_outputs,
                       impurity_exponent, target_scale_exponent)
from ._tree import build_tree
from ._threads import resolve_n_jobs
from ._validation import (check_array_2d, check_int_or_fraction, check_open_fraction,
                          check_sample_weight, feature_names_of, invalid_parameter,
                          is_int_at_least, is_sparse, sparse_for_fit, warn_user)

# 'log_loss' is scikit-learn's name for the entropy criterion.
CLASSIFICATION_CRITERIA = {"gini": Gini, "entropy": Entropy, "log_loss": Entropy,
                           "misclassification": Misclassification}
ENTROPY_NAMES = ("entropy", "log_loss")
# 'friedman_mse' ranks a node's splits as the squared error does: Friedman's
# improvement, w_left w_right (mean_left - mean_right)^2 / w, is the drop in
# the sum of squared errors itself.
REGRESSION_CRITERIA = {"squared_error": SquaredError, "friedman_mse": SquaredError,
                       "poisson": Poisson, "absolute_error": AbsoluteError}
# 'quantile' (the pinball loss) reads its level from the estimator's
# ``quantile`` parameter: the estimators that take it accept these (the
# quantile forests take none yet, and keep REGRESSION_CRITERIA).
REGRESSION_CRITERIA_WITH_QUANTILE = {**REGRESSION_CRITERIA, "quantile": PinballLoss}
# The level of criterion='quantile' when none is given: the median.
DEFAULT_QUANTILE = 0.5
# What a multi-output tree measures in each output, by criterion name.
OUTPUT_IMPURITY = {"gini": OutputImpurity.IMPURITY_GINI,
                   "entropy": OutputImpurity.IMPURITY_ENTROPY,
                   "log_loss": OutputImpurity.IMPURITY_ENTROPY,
                   "misclassification": OutputImpurity.IMPURITY_MISCLASSIFICATION,
                   "squared_error": OutputImpurity.IMPURITY_SQUARED_ERROR,
                   "friedman_mse": OutputImpurity.IMPURITY_SQUARED_ERROR,
                   "poisson": OutputImpurity.IMPURITY_POISSON}


def regression_criterion(criterion, target, sample_weight, quantile=DEFAULT_QUANTILE):
    """The criterion of a regression tree, and its outputs' widths (None for
    one output).

    Parameters
    ----------
    criterion : str
        A key of ``REGRESSION_CRITERIA_WITH_QUANTILE``.
    target : ndarray of float64, shape (n_samples,) or (n_samples, n_outputs)
        The targets, as they are.
    sample_weight : ndarray of float64
    quantile : float, default=0.5
        The level of criterion='quantile' (checked by
        :func:`check_quantile_level`); the other criteria ignore it.

    Returns
    -------
    Criterion, ndarray of int64 or None
    """
    widths = None if target.ndim == 1 else np.ones(target.shape[1], dtype=np.int64)
    if criterion in QUANTILE_CRITERIA:  # one or several outputs alike
        per_output = np.ascontiguousarray(target.reshape(target.shape[0], -1))
        if criterion == "absolute_error":
            return AbsoluteError(per_output, sample_weight), widths
        return PinballLoss(per_output, sample_weight, float(quantile)), widths
    if target.ndim == 2:
        return multi_output_criterion(criterion, sample_weight, target=target)
    return REGRESSION_CRITERIA[criterion](target, sample_weight), widths


def classification_criterion(criterion, targets, sample_weight, loss=None):
    """The criterion of a classification tree, and its outputs' widths (None
    for one output).

    Parameters
    ----------
    criterion : str
        A key of ``CLASSIFICATION_CRITERIA``.
    targets : dict
        From :func:`class_targets`.
    sample_weight : ndarray of float64
    loss : ndarray of float64 or None
        A ``loss_matrix`` (one output): the cost-sensitive Gini.

    Returns
    -------
    Criterion, ndarray of int64 or None
    """
    if targets.get("widths") is not None:
        return multi_output_criterion(criterion, sample_weight, targets["class_index"],
                                      targets["widths"])
    n_classes = len(targets["classes"])
    if loss is not None:
        return CostSensitiveGini(targets["class_index"], sample_weight, n_classes, loss), None
    return CLASSIFICATION_CRITERIA[criterion](targets["class_index"], sample_weight,
                                              n_classes), None


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


def check_interaction_cst(interaction_cst, n_features):
    """``interaction_cst`` as the groups of features the splitter reads: a
    list of tuples of feature indices, ascending and without repeats, the
    features no group names added as one more group; None for no constraint.

    As scikit-learn's HistGradientBoosting reads it: ``'pairwise'`` makes
    every pair of features a group, ``'no_interactions'`` every feature a
    group of its own, and otherwise a list or tuple of groups, each any
    collection of int feature indices in [0, n_features) (an empty group
    allows nothing; an empty list, one group of every feature).

    Parameters
    ----------
    interaction_cst : {'pairwise', 'no_interactions'}, sequence of collections of int or None
    n_features : int

    Returns
    -------
    list of tuple of int, or None
    """
    if interaction_cst is None:
        return None
    if isinstance(interaction_cst, str):
        if interaction_cst == "pairwise":
            groups = list(itertools.combinations(range(n_features), 2))
        elif interaction_cst == "no_interactions":
            groups = [(feature,) for feature in range(n_features)]
        else:
            raise ValueError("interaction_cst must be 'pairwise', 'no_interactions', a list "
                             f"or tuple of groups of feature indices, or None; got "
                             f"{interaction_cst!r}")
    elif isinstance(interaction_cst, (list, tuple)):
        groups = [_interaction_group(group, n_features) for group in interaction_cst]
    else:
        raise ValueError("interaction_cst must be 'pairwise', 'no_interactions', a list or "
                         f"tuple of groups of feature indices, or None; got "
                         f"{interaction_cst!r}")
    named = set().union(*groups)
    unnamed = tuple(feature for feature in range(n_features) if feature not in named)
    if unnamed:
        groups.append(unnamed)
    return groups


def _interaction_group(group, n_features):
    """One group of ``interaction_cst`` as a sorted tuple of its features,
    or a ValueError naming what is wrong with it."""
    # A string or a mapping iterates, but over characters or keys: no group
    # of feature indices is written that way.
    if isinstance(group, (str, bytes, dict)) or not isinstance(group, Iterable):
        raise ValueError("interaction_cst must be a list or tuple of groups, each a list, "
                         f"tuple or set of feature indices; got the group {group!r}")
    features = list(group)
    for feature in features:
        if not isinstance(feature, numbers.Integral) or isinstance(feature, (bool, np.bool_)):
            raise ValueError("interaction_cst's groups hold feature indices (int); the group "
                             f"{group!r} holds {feature!r}")
        if not 0 <= feature < n_features:
            raise ValueError(f"interaction_cst's feature indices must lie in [0, "
                             f"{n_features - 1}] (X has {n_features} features); the group "
                             f"{group!r} holds {feature}")
    return tuple(sorted({int(feature) for feature in features}))


def check_criterion_features(criterion, categories):
    """Raise when the criterion cannot split the categorical features
    (``categories``: per feature its number of categories, or None): the
    weighted quantiles' criteria have no ordering of categories."""
    if criterion in QUANTILE_CRITERIA and categories is not None and np.any(categories):
        raise ValueError(f"criterion={criterion!r} splits numeric features only; encode "
                         "the categorical features as numbers (say, ordinal codes) or use "
                         "another criterion")


def check_quantile_level(quantile):
    """Raise unless ``quantile`` (the level of criterion='quantile') is a real
    number strictly between 0 and 1; bools are refused."""
    check_open_fraction(quantile, "quantile")


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
                     "min_impurity_decrease": 0.0, "ccp_alpha": 0.0, "loss_matrix": None}


# 'best' sweeps every threshold between values, 'hist' every threshold
# between bins of values (fasttree._binning), or draws one boundary between
# bins for the estimators that draw thresholds (random_thresholds below),
# 'random' draws one threshold between values.
SPLITTERS = ("best", "hist", "random")
MAX_BINS_DEFAULT = 255
# Bin numbers of known values fit in two bytes.
MAX_BINS_LIMIT = 65535


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
    splitter = getattr(params, "splitter", "best")
    if splitter != "best":
        raise ValueError(f"multiway (C4.5) trees search every threshold of a numeric feature: "
                         f"splitter={splitter!r} is not supported with "
                         "categorical_split='multiway'; use splitter='best'")
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
    # A forest checks its n_jobs itself; a tree's n_jobs is checked here,
    # before any work, as the other parameters are.
    resolve_n_jobs(getattr(params, "n_jobs", None))
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
    if not isinstance(splitter, str) or splitter not in SPLITTERS:
        raise invalid_parameter("splitter", "a str among {'best', 'hist', 'random'}", splitter)
    max_bins = getattr(params, "max_bins", MAX_BINS_DEFAULT)
    if not is_int_at_least(max_bins, 2) or max_bins > MAX_BINS_LIMIT:
        raise invalid_parameter("max_bins", f"an int in the range [2, {MAX_BINS_LIMIT}]",
                                max_bins)
    min_samples_leaf = min(int(min_samples_leaf), UNREACHED_COUNT)
    return {
        "splitter": splitter,
        # Extra trees (and their forests) draw their thresholds with 'hist'
        # too, between bins; the others sweep the bins.
        "random_thresholds": splitter == "random" or (
            splitter == "hist" and getattr(getattr(params, "_tree_class", None) or params,
                                           "_hist_draws_thresholds", False)),
        "max_bins": int(max_bins),
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


def split_method(limits):
    """The splitter's ``SplitMethod`` for the limits' splitter: None (the
    module's choice, the cheapest sweep) unless thresholds are drawn."""
    if not limits.get("random_thresholds"):
        return None
    return (SplitMethod.SPLIT_RANDOM_BINS if limits["splitter"] == "hist"
            else SplitMethod.SPLIT_RANDOM)


def grow_tree(ranked_features, criterion, sample_weight, limits, seed, output_widths=None,
              n_threads=1):
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
    n_threads : int, default=1
        Threads that sweep the features of a large node (see
        ``Splitter.set_threads``); the tree is the same for any number.

    Returns
    -------
    Tree
    """
    weighted_n_total = float(sample_weight.sum())
    min_weight_leaf = limits["min_weight_fraction_leaf"] * weighted_n_total
    samples = np.flatnonzero(sample_weight > 0).astype(np.uint32)

    def make_splitter(criterion):
        return Splitter(criterion, ranked_features, limits["max_features"],
                        limits["min_samples_leaf"], min_weight_leaf, seed,
                        method=split_method(limits),
                        categories=limits.get("categories"), columns=limits.get("columns"),
                        monotonic_cst=limits.get("monotonic_cst"), rows=limits.get("rows"),
                        interaction_cst=limits.get("interaction_cst"),
                        value_rows=limits.get("value_rows"))

    splitter = make_splitter(criterion)
    categories = limits.get("categories")
    # Only the exact sweeps of numeric features are spread over threads
    # (Splitter.set_threads); a single feature leaves nothing to spread.
    if (n_threads > 1 and split_method(limits) is None and ranked_features.ranks.shape[0] > 1
            and (categories is None or not np.any(categories))):
        splitter.set_threads([make_splitter(criterion.clone()) for _ in range(n_threads - 1)])
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



def class_targets(y, n_samples, estimator, classes=None):
    """Class labels as the growth reads them: ``classes`` (an array, or a
    list of one per output), ``class_index`` (every sample's class, one
    column per output) and, with several outputs, ``widths`` (the number of
    classes of each, int64)."""
    classes, class_index = encode_outputs(y, n_samples, estimator, classes)
    targets = {"classes": classes, "class_index": class_index}
    if isinstance(classes, list):
        targets["widths"] = np.array([len(output) for output in classes], dtype=np.int64)
    return targets


def regression_targets(y, n_samples, estimator):
    """Regression targets as the growth reads them: ``target`` (finite
    float64) and, with several outputs, ``widths`` (one value each)."""
    target = check_regression_target(y, n_samples, estimator)
    targets = {"target": target}
    if target.ndim == 2:
        targets["widths"] = np.ones(target.shape[1], dtype=np.int64)
    return targets


def checked_fit_input(estimator, X, y, sample_weight, encoding=None, classes=None):
    """The input of one fit of a tree or a forest, checked and encoded.

    X is checked first, then y, then the weights: the first fault is the
    one named. ``encoding`` (a CategoryEncoding) and ``classes`` encode a
    part of the rows as all of them are encoded: the categories and class
    labels of the whole; None takes those of the rows given.

    Parameters
    ----------
    estimator : BaseEstimator
        Its ``categorical_features`` say which columns are categorical, and
        its ``_encode_targets(y, n_samples)`` checks y and encodes it (see
        :func:`class_targets` and :func:`regression_targets`).
    X, y, sample_weight
        As given to ``fit``.

    Returns
    -------
    X : ndarray of float32 or a CSC matrix of float32, shape (n_samples, n_features)
        Categorical columns as codes, NaN for missing values.
    feature_names : ndarray of str or None
    encoding : CategoryEncoding or None
        The categorical columns and their levels (None without any).
    targets : dict
        What ``_encode_targets`` returns.
    sample_weight : ndarray of float64, or None when none was given
    """
    name = type(estimator).__name__
    X = as_frame(X)
    feature_names = feature_names_of(X)
    if encoding is None:
        X, encoding = estimator._categories_for_fit(X, feature_names)
    else:
        X = encoding.encode(X)
    if is_sparse(X):
        X = sparse_for_fit(X, estimator=name)
    else:
        X = check_array_2d(X, estimator=name, allow_nan=True)
    if X.shape[0] > MAX_SAMPLES:
        raise ValueError(f"{name} supports at most {MAX_SAMPLES} samples")
    targets = (estimator._encode_targets(y, X.shape[0]) if classes is None
               else estimator._encode_targets(y, X.shape[0], classes=classes))
    if sample_weight is not None:
        sample_weight = check_sample_weight(sample_weight, X.shape[0], estimator=name)
    return X, feature_names, encoding, targets, sample_weight


def check_growth_options(params, limits, n_features, encoding, targets):
    """Check the options that choose how trees grow against a fit's data,
    and record them in ``limits`` (from :func:`resolve_tree_limits`).

    Checked in this order: ``categorical_split``, ``missing`` and the
    criterion that goes with them; the criterion against the categorical
    features; ``monotonic_cst``; ``interaction_cst``; the options that take
    one output only.

    Parameters
    ----------
    params : object
        A tree or a forest: holds ``criterion``, ``monotonic_cst``,
        ``interaction_cst`` and (classifiers) ``categorical_split``,
        ``missing``, ``loss_matrix``.
    limits : dict
        Gains ``categories`` (per feature its number of categories, or None),
        ``multiway`` (True for multiway, C4.5-style, trees),
        ``monotonic_cst`` (int8 per feature, or None) and ``interaction_cst``
        (the groups of :func:`check_interaction_cst`, or None).
    n_features : int
    encoding : CategoryEncoding or None
    targets : dict
        From :func:`class_targets` or :func:`regression_targets`.

    Returns
    -------
    dict
        ``limits``.
    """
    limits["categories"] = None if encoding is None else encoding.counts
    limits["multiway"] = check_split_options(params)
    check_criterion_features(params.criterion, limits["categories"])
    widths = targets.get("widths")
    classes = targets.get("classes")
    limits["monotonic_cst"] = check_monotonic_cst(
        params.monotonic_cst, n_features, 1 if widths is None else len(widths),
        len(classes) if widths is None and classes is not None else None,
        limits["categories"])
    if limits["multiway"] and limits["monotonic_cst"] is not None:
        raise ValueError("monotonic_cst constrains binary trees; multiway (C4.5) trees "
                         "take none")
    limits["interaction_cst"] = check_interaction_cst(
        getattr(params, "interaction_cst", None), n_features)
    if limits["multiway"] and limits["interaction_cst"] is not None:
        raise ValueError("interaction_cst constrains binary trees; multiway (C4.5) trees "
                         "take none")
    if widths is not None:
        check_single_output_options(params, limits["multiway"])
    return limits


def features_for_growth(X, limits, ranked=None, n_threads=1):
    """What the splitter reads of X, made once per fit.

    The sorted splitter reads the ranks of X's values (``rank_features``),
    and of a dense X's numeric features the values of its splits from X
    itself (``value_rows`` in the limits) rather than their distinct values;
    the random one compares values, so it reads X's columns and rows, which
    go into the limits, and the ranks of its categorical features only
    (``random_split_features``).

    Parameters
    ----------
    X : ndarray of float32 or a CSC matrix
        From :func:`checked_fit_input`.
    limits : dict
        From :func:`resolve_tree_limits` and :func:`check_growth_options`.
    ranked : optional
        The ranks when the caller has them already (a booster fitting many
        trees on one X): kept as they are.
    n_threads : int, default=1
        Threads that rank the features.

    Returns
    -------
    ranked, dict
        The ranks for :func:`grow_tree`, and the limits (a new dict with
        ``columns`` and ``rows`` for the random splitter, ``value_rows`` for
        the sorted one).
    """
    if limits["splitter"] == "random":
        columns = feature_columns(X)
        limits = {**limits, "columns": columns, "rows": feature_rows(X)}
        if ranked is None:
            ranked = random_split_features(columns, limits.get("categories"))
    elif ranked is None and limits["splitter"] == "hist":
        ranked = binned_features(X, limits["max_bins"], limits.get("categories"), n_threads)
    elif ranked is None and (limits["multiway"] or is_sparse(X)):
        ranked = rank_features(X, n_threads)
    elif ranked is None:
        # Of a numeric feature, the split search needs a split's two
        # neighbouring values alone, which it reads from X's rows: the
        # distinct values (as large as X for continuous data) are not kept.
        # Categorical features keep theirs, their codes.
        categories = limits.get("categories")
        keep_values = (np.zeros(X.shape[1], dtype=bool) if categories is None
                       else np.asarray(categories) > 0)
        ranked = rank_features(X, n_threads, keep_values=keep_values)
        limits = {**limits, "value_rows": X}
    return ranked, limits
