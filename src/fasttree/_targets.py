"""Targets: class labels to indices and predicted labels back from scores,
class weights, regression targets.

A y of one column per output (shape (n_samples, n_outputs), n_outputs > 1)
is a multi-output target: each column is encoded on its own, and the
functions that take it return one entry per output.
"""

import math
import numbers

import numpy as np

from ._validation import SparseTargetError, data_conversion_warning, warn_user


def as_targets(y, n_samples, estimator):
    """y as a 1-D array (one output) or of shape (n_samples, n_outputs) with
    n_outputs > 1 (several outputs); see :func:`as_1d` for one column."""
    if y is not None and hasattr(y, "toarray") and hasattr(y, "nnz"):
        # scikit-learn's words, which scripts match on.
        raise SparseTargetError(f"{estimator}: sparse multilabel-indicator for y is not "
                                "supported. Pass a dense array (one column per output)")
    if hasattr(y, "to_numpy"):
        y = y.to_numpy()
    if y is not None:
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] > 1:
            if y.shape[0] != n_samples:
                raise ValueError(f"{estimator}: y has {y.shape[0]} rows but X has "
                                 f"{n_samples} samples")
            return y
    return as_1d(y, n_samples, estimator)


def as_1d(y, n_samples, estimator):
    """y as a 1-D array of n_samples entries (a single column is accepted,
    with scikit-learn's DataConversionWarning)."""
    if y is None:
        raise ValueError(f"{estimator} requires y to be passed, but the target y is None")
    if hasattr(y, "to_numpy"):
        y = y.to_numpy()
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warn_user("A column-vector y was passed when a 1d array was expected; it is "
                      "read as y.ravel()", data_conversion_warning())
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"{estimator}: y must be 1-D (one target per sample); got shape "
                         f"{y.shape}")
    if y.shape[0] != n_samples:
        raise ValueError(f"{estimator}: y has {y.shape[0]} entries but X has {n_samples} "
                         "samples")
    return y


def encode_outputs(y, n_samples, estimator, classes=None):
    """Class labels of one output or several.

    ``classes`` (an array, or a list of one per output) numbers the labels
    by the classes given, which must hold every label (a part of the rows
    encoded as all of them are); None takes the labels' own.

    Returns
    -------
    classes : ndarray, or list of ndarray (one per output)
    class_index : ndarray of int32, shape (n_samples,) or (n_samples, n_outputs)
    """
    check_label_types(y, estimator)
    y = as_targets(y, n_samples, estimator)
    if y.ndim == 1:
        return encode_labels(y, n_samples, estimator, classes)
    encoded = [encode_labels(y[:, k], n_samples, estimator,
                             None if classes is None else classes[k])
               for k in range(y.shape[1])]
    class_index = np.ascontiguousarray(np.stack([index for _, index in encoded], axis=1))
    return [classes for classes, _ in encoded], class_index


def check_label_types(y, estimator):
    """Warn when a list of labels mixes strings and numbers: numpy makes
    them all strings (1 becomes the class '1'), as scikit-learn takes them;
    arrays keep their dtype and are left as they are."""
    if y is None or hasattr(y, "dtype") or hasattr(y, "to_numpy"):
        return
    try:
        labels = np.asarray(y, dtype=object).ravel().tolist()
    except ValueError:  # ragged: as_targets names the problem
        return
    texts = [label for label in labels if isinstance(label, str)]
    if texts and len(texts) < len(labels):
        number = next(label for label in labels if not isinstance(label, str))
        warn_user(f"{estimator}: y mixes strings and numbers as class labels (such as "
                  f"{texts[0]!r} and {number!r}); all are taken as strings, so {number!r} "
                  f"is the class {str(number)!r}. Make them all strings or all numbers to "
                  "say which you mean", data_conversion_warning())


def encode_labels(y, n_samples, estimator, classes=None):
    """Sorted distinct labels (or ``classes``, sorted, when given) and every
    sample's index into them (int32)."""
    check_label_types(y, estimator)
    y = as_1d(y, n_samples, estimator)
    if y.dtype.kind == "f" and np.isnan(y).any():
        raise ValueError(f"{estimator}: y contains NaN; every sample needs a class label")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y) & (y == np.round(y))):
        # As in scikit-learn: float labels must be whole numbers, since real
        # targets given to a classifier by mistake would each become a class.
        raise ValueError(f"{estimator}: Unknown label type: continuous. y holds real values "
                         "that are not whole numbers; a classifier needs class labels (use "
                         "a regressor for continuous targets)")
    if y.dtype.kind == "O" and any(label is None or (isinstance(label, float)
                                   and math.isnan(label)) for label in y):
        raise ValueError(f"{estimator}: y contains missing labels (None or NaN)")
    given = classes
    try:
        classes, class_index = np.unique(y, return_inverse=True)
    except TypeError:
        raise TypeError(f"{estimator}: class labels must be of one sortable type; got a mix "
                        f"of {sorted({type(label).__name__ for label in y})}") from None
    if given is not None:
        given = np.asarray(given)
        positions = np.minimum(np.searchsorted(given, classes), max(len(given) - 1, 0))
        if len(given) == 0 or not np.all(given[positions] == classes):
            unknown = classes[given[positions] != classes] if len(given) else classes
            raise ValueError(f"{estimator}: y holds the label {unknown.tolist()[0]!r}, "
                             "which is not among the classes given")
        classes, class_index = given, positions[class_index.reshape(-1)]
    return classes, np.ascontiguousarray(class_index.reshape(-1), dtype=np.int32)


def class_weight_per_sample(class_weight, classes, class_index, sample_weight=None):
    """Weight factor of every sample from ``class_weight``.

    With several outputs (``classes`` a list, ``class_index`` 2-D) it is the
    product of the outputs' factors, as in scikit-learn: ``class_weight`` is
    'balanced' (each output balanced) or a list of one dict per output.
    'balanced' makes every class's total weight alike: its samples', or
    their ``sample_weight``'s when given (as scikit-learn's forests count).
    """
    if isinstance(classes, list):
        n_outputs = len(classes)
        if class_weight is None:
            return np.ones(class_index.shape[0], dtype=np.float64)
        if isinstance(class_weight, dict):
            raise ValueError("For multi-output, class_weight should be a list of dicts, or "
                             "the string 'balanced'.")
        if not isinstance(class_weight, str):
            if not isinstance(class_weight, (list, tuple)):
                raise ValueError(f"class_weight must be None, 'balanced' or a list of dicts "
                                 f"for multi-output; got {type(class_weight).__name__}")
            if len(class_weight) != n_outputs:
                raise ValueError(f"For multi-output, number of elements in class_weight "
                                 f"should match number of outputs. Got {len(class_weight)} "
                                 f"element(s) while having {n_outputs} outputs.")
        factor = np.ones(class_index.shape[0], dtype=np.float64)
        for k in range(n_outputs):
            weight_k = class_weight if isinstance(class_weight, str) else class_weight[k]
            factor *= class_weight_per_sample(weight_k, classes[k], class_index[:, k],
                                              sample_weight)
        return factor
    if class_weight is None:
        return np.ones(class_index.shape[0], dtype=np.float64)
    if isinstance(class_weight, str):
        if class_weight != "balanced":
            raise ValueError(f"class_weight must be None, 'balanced' or a dict; "
                             f"got {class_weight!r}")
        counts = np.bincount(class_index, weights=sample_weight, minlength=len(classes))
        # A class of no weight has no weight to balance.
        per_class = np.divide(counts.sum(), len(classes) * counts,
                              out=np.zeros(len(classes)), where=counts > 0)
        return per_class[class_index]
    if not isinstance(class_weight, dict):
        raise ValueError(f"class_weight must be None, 'balanced' or a dict; "
                         f"got {type(class_weight).__name__}")
    per_class = np.ones(len(classes), dtype=np.float64)
    known = {label: position for position, label in enumerate(classes.tolist())}
    for label, weight in class_weight.items():
        if label not in known:
            raise ValueError(f"class_weight names the class {label!r}, which is not in y "
                             f"(classes: {classes.tolist()})")
        if (not isinstance(weight, (numbers.Real, np.floating)) or not math.isfinite(weight)
                or weight < 0):
            raise ValueError(f"class_weight for class {label!r} must be a finite number >= 0; "
                             f"got {weight!r}")
        per_class[known[label]] = float(weight)
    return per_class[class_index]


def check_regression_target(y, n_samples, estimator):
    """Finite float64 targets: one per sample, or one row of n_outputs per
    sample for several outputs."""
    y = as_targets(y, n_samples, estimator)
    try:
        target = np.ascontiguousarray(y, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{estimator}: y must hold numbers for regression") from None
    if not np.isfinite(target).all():
        raise ValueError(f"{estimator}: y contains NaN or infinity")
    return target


# The regression criteria sum weights times differences of targets (the
# Poisson deviance: times targets), and the squared error squares such sums:
# weights whose total times the targets' extent passes 2**WEIGHTED_EXTENT_EXPONENT
# are scaled down by a power of two (exact, and no change to any value or
# impurity) so that none overflows.
WEIGHTED_EXTENT_EXPONENT = 500
# Differences of targets beyond it have squares beyond float64.
SQUARE_ROOT_OF_MAX = math.sqrt(np.finfo(np.float64).max)


def target_extent_exponent(target, criterion, estimator):
    """The binary exponent of the extent of regression targets: the largest
    spread of an output (max - min), or for 'poisson' the largest target.

    Raises a ValueError for the squared error when a spread's square
    overflows float64: the variance of its two ends could not be held.
    """
    if criterion == "poisson":
        return math.frexp(float(np.max(target)))[1]
    # From half the spread: the spread of +-1e308 overflows.
    half_spread = float(np.max(0.5 * np.max(target, axis=0) - 0.5 * np.min(target, axis=0)))
    if criterion == "squared_error" and not 2.0 * half_spread <= SQUARE_ROOT_OF_MAX:
        spread = 2.0 * half_spread
        raise ValueError(f"{estimator}: y spreads too wide for criterion='squared_error': "
                         f"max(y) - min(y) = {spread:.3g}, whose square exceeds the largest "
                         "float64 (1.8e308), so no squared error could be held; divide y by a "
                         "constant, or use criterion='absolute_error'"
                         if math.isfinite(spread) else
                         f"{estimator}: y spreads too wide for criterion='squared_error': "
                         "max(y) - min(y) is beyond the largest float64 (1.8e308), and so is "
                         "its square; divide y by a constant, or use "
                         "criterion='absolute_error'")
    return math.frexp(half_spread)[1] + 1


# Targets of a spread below 2**-1 are multiplied by a power of two that
# brings it to [2**-1, 1) for the criteria, and the tree's values and
# impurities divided back (exact either way): the builders take an impurity
# at or below float64 epsilon for pure, so that targets in small units
# (a spread of 1e-8, whose variances are below 1e-16) would otherwise grow
# a single leaf, and targets near 1e-300, whose squared deviations
# underflow to 0, too. Larger spreads are left as they are, so that their
# trees are scikit-learn's.
LARGEST_SCALED_TARGET_EXPONENT = 1000


def target_scale_exponent(target, criterion, extent_exponent):
    """The power of two (its exponent, 0 or more) that regression targets of
    that extent are multiplied by for the criterion (0 for 'poisson', whose
    deviance is judged against absolute bounds)."""
    if criterion == "poisson" or extent_exponent >= 0:
        return 0
    largest = float(np.max(np.abs(target))) if target.size else 0.0
    headroom = LARGEST_SCALED_TARGET_EXPONENT - math.frexp(largest)[1]
    return max(0, min(-extent_exponent, headroom))


# The criteria whose nodes predict a weighted quantile of their targets (the
# median, for 'absolute_error') and whose impurities, losses around it, are
# linear in the targets.
QUANTILE_CRITERIA = ("absolute_error", "quantile")


def impurity_exponent(criterion, scale_exponent):
    """How many powers of two targets scaled by ``2**scale_exponent`` scale
    the criterion's impurities by: squared errors twice as many as the
    absolute error and the pinball loss."""
    return scale_exponent if criterion in QUANTILE_CRITERIA else 2 * scale_exponent


def weight_exponent(weight_total, extent_exponent):
    """The power of two (its exponent, 0 or more) that weights of total
    ``weight_total`` are divided by for targets of that extent (see
    WEIGHTED_EXTENT_EXPONENT)."""
    return max(0, math.frexp(weight_total)[1] + extent_exponent - WEIGHTED_EXTENT_EXPONENT)


def predicted_classes(scores, loss=None):
    """Per row of class scores (probabilities or votes), the index of the
    class predicted: the largest score, or with a ``loss`` matrix the class of
    least expected cost; the first on ties, 0 for a row of NaN (numpy's
    argmax and argmin stop at the first NaN)."""
    if loss is None:
        return np.argmax(scores, axis=1)
    return np.argmin(scores @ loss, axis=1)


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


def class_index_per_output(outputs):
    """Per row and output, the index of the class predicted from that
    output's scores (see :func:`predicted_classes`): an array of shape
    (n_samples, n_outputs) from per-output score arrays."""
    return np.stack([predicted_classes(output_scores) for output_scores in outputs], axis=1)


def same_classes(classes, other):
    """Whether two ``classes_`` (an array, or a list of one per output) agree."""
    if isinstance(classes, list) != isinstance(other, list):
        return False
    if not isinstance(classes, list):
        return np.array_equal(classes, other)
    return len(classes) == len(other) and all(
        np.array_equal(mine, theirs) for mine, theirs in zip(classes, other))
