"""Brute-force search for the best binary split of one node.

This is the oracle for the compiled splitter: it tries every candidate
threshold of every feature and recomputes both children's impurities from
scratch each time, so it is O(n_features * n_samples**2) but has no running
statistics that could drift.

Tie-breaking, which the compiled splitter must reproduce: features are tried
in the order given (increasing index by default), thresholds in increasing
order, and a candidate replaces the best so far only if its improvement is
greater by more than rounding (:func:`improves_on`).  So among improvements
equal up to rounding the first feature wins, then the lowest threshold.
"""

from dataclasses import dataclass

import numpy as np

from .criteria import PinballLoss, _as_weights, impurity, output_mean_impurity

__all__ = ["Split", "best_split", "improves_on", "is_regression", "midpoint"]

CLASSIFICATION_CRITERIA = ("gini", "entropy", "misclassification")
REGRESSION_CRITERIA = ("squared_error", "poisson", "absolute_error")
# Improvements closer than this share of the node's impurity (and of the
# best improvement) are equal up to rounding: the same split scored in
# another order differs in its last bits (the compiled splitter's rule,
# fasttree._utils.beats_best, measured on its proxies).
TIE_TOLERANCE = 2.0 ** -40
# A Poisson child whose target sum is at most this would predict 0, which the
# deviance cannot score: such splits are not candidates.
POISSON_MIN_SUM = float(np.finfo(np.float64).eps)


@dataclass(frozen=True)
class Split:
    """The best binary split found for a node.

    Attributes
    ----------
    feature : int
        Index of the column split on.
    threshold : numpy.float32
        Rows with ``X[:, feature] <= threshold`` go to the left child.
    improvement : float
        ``impurity(node) - (w_left/w_node) * impurity_left
        - (w_right/w_node) * impurity_right`` (not scaled by the node's
        share of the root weight).
    impurity_left, impurity_right : float
        Impurities of the two children.
    n_left, n_right : int
        Number of rows (not weight) in each child.
    """

    feature: int
    threshold: np.float32
    improvement: float
    impurity_left: float
    impurity_right: float
    n_left: int
    n_right: int


def is_regression(criterion):
    """Whether `criterion` (a name or a criterion object) scores real
    targets: a name of ``REGRESSION_CRITERIA`` or a :class:`PinballLoss`."""
    if isinstance(criterion, PinballLoss):
        return True
    return isinstance(criterion, str) and criterion in REGRESSION_CRITERIA


def midpoint(a, b):
    """Threshold between two consecutive distinct float32 values ``a < b``.

    Parameters
    ----------
    a, b : float
        Consecutive distinct values of a feature, ``a < b``; both are cast
        to float32 first.

    Returns
    -------
    numpy.float32
        The float32 nearest to ``(a + b) / 2``, or `a` when that rounds up to
        `b`, so that ``x <= threshold`` holds exactly for the values ``<= a``.
    """
    lower = np.float32(a)
    upper = np.float32(b)
    threshold = np.float32((np.float64(lower) + np.float64(upper)) / 2.0)
    # Adjacent float32 values have no float32 strictly between them, and the
    # rounded mean may land on b, which would send b's rows left too.
    # "not <" also catches NaN from (-inf + inf) / 2.
    if not threshold < upper:
        threshold = lower
    return threshold


def _check_X(X):
    """Return X as a 2-D float32 array, rejecting NaN."""
    X = np.asarray(X, dtype=np.float32)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n_samples, n_features), got {X.ndim}-D")
    if np.isnan(X).any():
        raise ValueError(
            "X contains NaN; the reference splitter has no missing-value rule"
        )
    return X


def _check_features(features, n_features):
    """Return the feature indices to try, in order, as a list of ints."""
    if features is None:
        return list(range(n_features))
    feature_list = [int(feature) for feature in features]
    for feature in feature_list:
        if not 0 <= feature < n_features:
            raise ValueError(
                f"feature index {feature} out of range for {n_features} features"
            )
    return feature_list


def best_split(
    X,
    y,
    sample_weight=None,
    *,
    criterion,
    min_samples_leaf=1,
    min_weight_leaf=0.0,
    features=None,
):
    """Find the best threshold split of a node by trying every candidate.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The node's rows; cast to float32.  NaN is rejected.
    y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Class indices, or float targets for ``criterion='squared_error'``;
        a 2-D array of several outputs is scored by the mean of its
        columns' impurities.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative weights; None means all ones.
    criterion : str, CostSensitiveGini or PinballLoss
        Impurity function name, a cost-sensitive Gini, or a pinball loss
        (quantile regression).
    min_samples_leaf : int, default=1
        Minimum number of rows in each child.
    min_weight_leaf : float, default=0.0
        Minimum total weight in each child.
    features : iterable of int, optional
        Feature indices to try, in this order; default all, increasing.

    Returns
    -------
    Split or None
        The first candidate with the strictly largest improvement, or None
        if no candidate satisfies the leaf constraints.

    Notes
    -----
    For each feature, every pair of consecutive distinct values ``a < b``
    among the node's rows gives the threshold ``midpoint(a, b)``.  Zero or
    negative improvements are still accepted, as long as nothing better
    exists.
    """
    X = _check_X(X)
    n_samples, n_features = X.shape
    y = np.asarray(y, dtype=np.float64 if is_regression(criterion) else None)
    if y.ndim != 2:
        y = y.reshape(-1)
    node_impurity_of = output_mean_impurity if y.ndim == 2 else impurity
    if y.shape[0] != n_samples:
        raise ValueError(f"X has {n_samples} rows but y has {y.shape[0]}")
    weights = _as_weights(sample_weight, n_samples)
    feature_list = _check_features(features, n_features)

    node_weight = weights.sum()
    node_impurity = node_impurity_of(criterion, y, weights)
    if node_weight <= 0:
        # Child weight fractions are undefined without any weight.
        return None

    best = None
    for feature in feature_list:
        column = X[:, feature]
        distinct_values = np.unique(column)
        for lower, upper in zip(distinct_values[:-1], distinct_values[1:]):
            threshold = midpoint(lower, upper)
            goes_left = column <= threshold
            n_left = int(goes_left.sum())
            n_right = n_samples - n_left
            if n_left < min_samples_leaf or n_right < min_samples_leaf:
                continue
            weight_left = weights[goes_left].sum()
            weight_right = weights[~goes_left].sum()
            if weight_left < min_weight_leaf or weight_right < min_weight_leaf:
                continue
            if criterion == "poisson" and min(np.min(np.dot(weights[goes_left], y[goes_left])),
                                              np.min(np.dot(weights[~goes_left], y[~goes_left]))
                                              ) <= POISSON_MIN_SUM:
                continue
            impurity_left = node_impurity_of(criterion, y[goes_left], weights[goes_left])
            impurity_right = node_impurity_of(criterion, y[~goes_left], weights[~goes_left])
            improvement = (
                node_impurity
                - (weight_left / node_weight) * impurity_left
                - (weight_right / node_weight) * impurity_right
            )
            if best is None or improves_on(improvement, best.improvement, node_impurity):
                best = Split(
                    feature=feature,
                    threshold=threshold,
                    improvement=float(improvement),
                    impurity_left=impurity_left,
                    impurity_right=impurity_right,
                    n_left=n_left,
                    n_right=n_right,
                )
    return best


def improves_on(improvement, best_improvement, node_impurity):
    """Whether an improvement beats the best so far by more than rounding
    (``TIE_TOLERANCE`` of the node's impurity and the best's magnitude)."""
    margin = TIE_TOLERANCE * (abs(node_impurity) + abs(best_improvement))
    return improvement > best_improvement + margin
