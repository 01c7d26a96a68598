"""Impurity criteria computed from scratch, for use as test oracles.

Every function here takes the labels (or targets) of one set of samples and
returns a number; nothing is incremental and nothing is cached, so each result
can be checked by hand.  Entropy is measured in bits (log base 2) and uses the
convention 0 log 0 = 0.  A set whose total weight is zero is treated as pure
(impurity 0.0), so an empty child never contributes to a weighted sum.
"""

import numpy as np

__all__ = [
    "CRITERIA",
    "absolute_error",
    "conditional_entropy",
    "entropy",
    "entropy_of_probabilities",
    "gini",
    "impurity",
    "information_gain",
    "misclassification",
    "output_mean_impurity",
    "PinballLoss",
    "pinball_loss",
    "squared_error",
    "poisson",
    "weighted_median",
    "weighted_quantile",
]

# Probabilities given by hand are often rounded; this tolerance accepts that
# while still catching a vector that is plainly not a distribution.
_PROBABILITY_SUM_TOLERANCE = 1e-6


def _as_label_array(values):
    """Return `values` as a 1-D array with one element per sample."""
    array = np.asarray(values)
    if array.ndim == 1:
        return array
    if array.ndim == 0:
        raise ValueError("labels must be a 1-D sequence, got a scalar")
    # A sequence of tuples becomes a 2-D array; each tuple is still one label.
    labels = np.empty(len(values), dtype=object)
    for index, label in enumerate(values):
        labels[index] = label
    return labels


def _as_weights(sample_weight, n_samples):
    """Return float64 weights of length `n_samples` (ones when None)."""
    if sample_weight is None:
        return np.ones(n_samples, dtype=np.float64)
    weights = np.asarray(sample_weight, dtype=np.float64)
    if weights.ndim != 1 or weights.shape[0] != n_samples:
        raise ValueError(
            f"sample_weight must be 1-D with {n_samples} entries, "
            f"got shape {weights.shape}"
        )
    if not np.all(np.isfinite(weights)):
        raise ValueError("sample_weight must be finite")
    if np.any(weights < 0):
        raise ValueError("sample_weight must be non-negative")
    return weights


def _encode(values):
    """Map each value to a group code.

    Returns
    -------
    uniques : list
        The distinct values.
    codes : ndarray of intp
        ``uniques[codes[i]] == values[i]``.
    """
    array = _as_label_array(values)
    if array.dtype != object:
        uniques, codes = np.unique(array, return_inverse=True)
        return list(uniques), codes.reshape(-1).astype(np.intp)
    # Object arrays may mix types that cannot be sorted; a dict only needs
    # hashing.  Groups are numbered in order of first appearance.
    code_of = {}
    codes = np.empty(array.shape[0], dtype=np.intp)
    for index, value in enumerate(array):
        codes[index] = code_of.setdefault(value, len(code_of))
    return list(code_of), codes


def _class_weights(y, sample_weight):
    """Total weight of each distinct label of `y` (order unspecified)."""
    _, codes = _encode(y)
    weights = _as_weights(sample_weight, codes.shape[0])
    return np.bincount(codes, weights=weights)


def _proportions(y, sample_weight):
    """Weighted class proportions, or None when the total weight is zero."""
    class_weights = _class_weights(y, sample_weight)
    total_weight = class_weights.sum()
    if total_weight <= 0:
        return None
    return class_weights / total_weight


def entropy_of_probabilities(p):
    """Shannon entropy in bits of a probability vector.

    Parameters
    ----------
    p : array-like of float
        Non-negative probabilities summing to 1.

    Returns
    -------
    float
        ``-sum(p_k * log2(p_k))`` over the non-zero ``p_k``.

    Examples
    --------
    >>> entropy_of_probabilities([0.5, 0.125, 0.125, 0.125, 0.125])
    2.0
    """
    probabilities = np.asarray(p, dtype=np.float64).reshape(-1)
    if np.any(probabilities < 0) or not np.all(np.isfinite(probabilities)):
        raise ValueError("probabilities must be finite and non-negative")
    if abs(probabilities.sum() - 1.0) > _PROBABILITY_SUM_TOLERANCE:
        raise ValueError(
            f"probabilities must sum to 1, got {probabilities.sum()!r}"
        )
    # 0 log 0 = 0: dropping zeros avoids log2(0) = -inf.
    nonzero = probabilities[probabilities > 0]
    return float(-np.sum(nonzero * np.log2(nonzero)))


def entropy(y, sample_weight=None):
    """Shannon entropy in bits of the weighted class distribution of `y`.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels; any hashable values.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative weights; None means all ones.

    Returns
    -------
    float
        Entropy in bits; 0.0 for a pure or weightless set.
    """
    proportions = _proportions(y, sample_weight)
    if proportions is None:
        return 0.0
    nonzero = proportions[proportions > 0]
    # max() turns the -0.0 of a pure set into 0.0.
    return max(0.0, float(-np.sum(nonzero * np.log2(nonzero))))


def gini(y, sample_weight=None):
    """Gini impurity ``1 - sum_k p_k**2`` of the weighted classes of `y`.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels; any hashable values.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative weights; None means all ones.

    Returns
    -------
    float
        Gini impurity; 0.0 for a pure or weightless set.
    """
    proportions = _proportions(y, sample_weight)
    if proportions is None:
        return 0.0
    return float(1.0 - np.sum(proportions**2))


def misclassification(y, sample_weight=None):
    """Misclassification impurity ``1 - max_k p_k`` of the classes of `y`.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels; any hashable values.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative weights; None means all ones.

    Returns
    -------
    float
        Share of weight outside the majority class; 0.0 for a pure or
        weightless set.
    """
    proportions = _proportions(y, sample_weight)
    if proportions is None:
        return 0.0
    return float(1.0 - proportions.max())


def squared_error(y, sample_weight=None):
    """Weighted variance of the float targets `y`.

    Parameters
    ----------
    y : array-like of float, shape (n_samples,)
        Regression targets.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative weights; None means all ones.

    Returns
    -------
    float
        ``sum(w * (y - mean)**2) / sum(w)`` with the weighted mean; 0.0 for
        a weightless set.
    """
    targets = np.asarray(y, dtype=np.float64).reshape(-1)
    weights = _as_weights(sample_weight, targets.shape[0])
    total_weight = weights.sum()
    if total_weight <= 0:
        return 0.0
    mean = np.dot(weights, targets) / total_weight
    # Two passes (mean first) avoid the cancellation of E[y^2] - E[y]^2.
    return float(np.dot(weights, (targets - mean) ** 2) / total_weight)


def poisson(y, sample_weight=None):
    """Half the Poisson deviance of the targets ``y >= 0`` about their
    weighted mean m, per unit of weight: ``sum(w * y * log(y / m)) / sum(w)``
    (``0 log 0 = 0``; the deviance's other terms, ``m - y``, sum to zero).

    Parameters
    ----------
    y : array-like of float, shape (n_samples,)
        Non-negative regression targets.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative weights; None means all ones.

    Returns
    -------
    float
        0.0 for a weightless set or a mean of 0.
    """
    targets = np.asarray(y, dtype=np.float64).reshape(-1)
    weights = _as_weights(sample_weight, targets.shape[0])
    total_weight = weights.sum()
    if total_weight <= 0:
        return 0.0
    mean = np.dot(weights, targets) / total_weight
    if mean <= 0:
        return 0.0
    positive = targets > 0
    return float(np.dot(weights[positive], targets[positive] * np.log(targets[positive] / mean))
                 / total_weight)


class CostSensitiveGini:
    """Gini impurity with a loss matrix (Breiman et al., CART, section 4.4).

    ``sum over i != j of L[i, j] p_i p_j`` of the weighted class fractions p
    of class indices; a loss matrix of ones off the diagonal gives
    :func:`gini`. Instances are criteria: :func:`impurity` and the
    reference builders accept them where they accept a criterion's name.

    Parameters
    ----------
    loss_matrix : array-like of shape (n_classes, n_classes)
        ``L[i, j]``, the cost of predicting class j when the truth is class
        i; non-negative with a zero diagonal.
    """

    def __init__(self, loss_matrix):
        loss = np.asarray(loss_matrix, dtype=np.float64)
        if loss.ndim != 2 or loss.shape[0] != loss.shape[1]:
            raise ValueError("the loss matrix must be square")
        if (loss < 0).any() or np.diagonal(loss).any():
            raise ValueError("the loss matrix must be non-negative with a zero diagonal")
        self.loss_matrix = loss

    def __call__(self, y, sample_weight=None):
        labels = np.asarray(y).reshape(-1).astype(np.intp)
        weights = _as_weights(sample_weight, labels.shape[0])
        total = weights.sum()
        if total <= 0:
            return 0.0
        n_classes = self.loss_matrix.shape[0]
        fractions = np.bincount(labels, weights=weights, minlength=n_classes) / total
        return float(sum(self.loss_matrix[i, j] * fractions[i] * fractions[j]
                         for i in range(n_classes) for j in range(n_classes) if i != j))

    def __repr__(self):
        return f"CostSensitiveGini({self.loss_matrix.tolist()!r})"


def weighted_quantile(y, sample_weight=None, alpha=0.5):
    """The weighted alpha-quantile of the targets `y`, as scikit-learn's
    weighted percentile (``average=True``) defines it: sort them; the
    quantile is the first target at which the cumulative weight reaches
    ``alpha`` times the total, or the mean of it and the next sorted target
    (equal to it when equal targets follow) when the cumulative weight there
    equals that exactly. It minimises the weighted pinball loss of level
    `alpha` (see :func:`pinball_loss`). Zero weights take no part; NaN for a
    weightless set."""
    targets = np.asarray(y, dtype=np.float64).reshape(-1)
    weights = _as_weights(sample_weight, targets.shape[0])
    keep = weights > 0
    targets, weights = targets[keep], weights[keep]
    if targets.size == 0:
        return float("nan")
    order = np.argsort(targets, kind="stable")
    targets, weights = targets[order], weights[order]
    reached = alpha * weights.sum()
    cumulative = 0.0
    for index, (target, weight) in enumerate(zip(targets, weights)):
        cumulative += weight
        if cumulative >= reached:
            if cumulative == reached and index + 1 < targets.size:
                return float((target + targets[index + 1]) / 2.0)
            return float(target)
    return float(targets[-1])


def weighted_median(y, sample_weight=None):
    """The weighted median of the targets `y`: :func:`weighted_quantile` at
    0.5, the first target at which the cumulative weight reaches half the
    total, or the mean of it and the next when it reaches half exactly."""
    return weighted_quantile(y, sample_weight, 0.5)


def pinball_loss(y, sample_weight=None, alpha=0.5):
    """Weighted mean pinball loss of level `alpha` of the targets `y` around
    their weighted alpha-quantile q (see :func:`weighted_quantile`).

    Returns
    -------
    float
        ``sum(w * rho(y - q)) / sum(w)`` with ``rho(r) = alpha * r`` for
        ``r >= 0`` and ``(alpha - 1) * r`` otherwise; 0.0 for a weightless
        set. At ``alpha=0.5`` half of :func:`absolute_error`.
    """
    targets = np.asarray(y, dtype=np.float64).reshape(-1)
    weights = _as_weights(sample_weight, targets.shape[0])
    total_weight = weights.sum()
    if total_weight <= 0:
        return 0.0
    residuals = targets - weighted_quantile(targets, weights, alpha)
    losses = np.where(residuals >= 0, alpha * residuals, (alpha - 1.0) * residuals)
    return float(np.dot(weights, losses) / total_weight)


class PinballLoss:
    """The pinball-loss criterion of one level (``criterion='quantile'``):
    :func:`pinball_loss`, whose nodes predict :func:`weighted_quantile`.
    Instances are regression criteria: :func:`impurity`, the brute-force
    split search and the reference tree builder accept them where they
    accept a criterion's name.

    Parameters
    ----------
    alpha : float
        The quantile level, in (0, 1).
    """

    def __init__(self, alpha):
        if not 0.0 < alpha < 1.0:
            raise ValueError(f"the quantile level must lie in (0, 1); got {alpha!r}")
        self.alpha = float(alpha)

    def __call__(self, y, sample_weight=None):
        return pinball_loss(y, sample_weight, self.alpha)

    def value(self, y, sample_weight=None):
        """The value a node of targets `y` predicts: their weighted quantile."""
        return weighted_quantile(y, sample_weight, self.alpha)

    def __repr__(self):
        return f"PinballLoss({self.alpha!r})"


def absolute_error(y, sample_weight=None):
    """Weighted mean absolute deviation of the targets `y` from their
    weighted median (see :func:`weighted_median`).

    Returns
    -------
    float
        ``sum(w * |y - median|) / sum(w)``; 0.0 for a weightless set.
    """
    targets = np.asarray(y, dtype=np.float64).reshape(-1)
    weights = _as_weights(sample_weight, targets.shape[0])
    total_weight = weights.sum()
    if total_weight <= 0:
        return 0.0
    median = weighted_median(targets, weights)
    return float(np.dot(weights, np.abs(targets - median)) / total_weight)


CRITERIA = {
    "gini": gini,
    "entropy": entropy,
    "misclassification": misclassification,
    "squared_error": squared_error,
    "poisson": poisson,
    "absolute_error": absolute_error,
}
"""dict: criterion name -> impurity function ``f(y, sample_weight=None)``."""


def impurity(criterion, y, sample_weight=None):
    """Impurity of `y` under the criterion called `criterion`.

    Parameters
    ----------
    criterion : str, CostSensitiveGini or PinballLoss
        Name of the impurity function (a key of ``CRITERIA``), a
        cost-sensitive Gini, or a pinball loss.
    y : array-like of shape (n_samples,)
        Class labels, or float targets for the regression criteria.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative weights; None means all ones.

    Returns
    -------
    float
        The impurity.
    """
    if isinstance(criterion, (CostSensitiveGini, PinballLoss)):
        return criterion(y, sample_weight)
    try:
        function = CRITERIA[criterion]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown criterion {criterion!r}; expected one of "
            f"{sorted(CRITERIA)}"
        ) from None
    return function(y, sample_weight)


def output_mean_impurity(criterion, y, sample_weight=None):
    """Impurity of a node of several outputs: the mean over the columns of
    `y` (one per output, shape (n_samples, n_outputs)) of each column's
    impurity under `criterion`, as scikit-learn defines it."""
    y = np.asarray(y)
    return float(np.mean([impurity(criterion, y[:, k], sample_weight)
                          for k in range(y.shape[1])]))


def _conditional_impurity(criterion, y, feature_values, sample_weight):
    """``sum_v (w_v / w) * impurity(y[feature == v])`` and the total weight."""
    labels = _as_label_array(y)
    _, codes = _encode(feature_values)
    if codes.shape[0] != labels.shape[0]:
        raise ValueError(
            f"y has {labels.shape[0]} samples but feature_values has "
            f"{codes.shape[0]}"
        )
    weights = _as_weights(sample_weight, labels.shape[0])
    total_weight = weights.sum()
    if total_weight <= 0:
        return 0.0
    weighted_sum = 0.0
    for code in range(codes.max() + 1 if codes.size else 0):
        in_group = codes == code
        group_weight = weights[in_group].sum()
        weighted_sum += (group_weight / total_weight) * impurity(
            criterion, labels[in_group], weights[in_group]
        )
    return weighted_sum


def conditional_entropy(y, feature_values, sample_weight=None):
    """Expected entropy of `y` after a multiway split on `feature_values`.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels; any hashable values.
    feature_values : array-like of shape (n_samples,)
        Value of the splitting feature for each sample; any hashable values.
        Each distinct value makes one branch.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative weights; None means all ones.

    Returns
    -------
    float
        ``sum_v (w_v / w) * entropy(y[feature_values == v])`` in bits.
    """
    return _conditional_impurity("entropy", y, feature_values, sample_weight)


def information_gain(y, feature_values, sample_weight=None, criterion="entropy"):
    """Impurity decrease of a multiway (ID3) split on `feature_values`.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Class labels (or float targets for 'squared_error').
    feature_values : array-like of shape (n_samples,)
        Value of the splitting feature for each sample; any hashable values.
        Each distinct value makes one branch.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative weights; None means all ones.
    criterion : str, default='entropy'
        Impurity function name, as for :func:`impurity`.

    Returns
    -------
    float
        ``impurity(y) - sum_v (w_v / w) * impurity(y[feature_values == v])``.
    """
    parent = impurity(criterion, y, sample_weight)
    children = _conditional_impurity(criterion, y, feature_values, sample_weight)
    return parent - children
