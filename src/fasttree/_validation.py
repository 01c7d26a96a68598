"""Input checks shared by the estimators: everything invalid stops here."""

import math
import numbers
import os
import sys
import warnings

import numpy as np

from ._frames import as_frame, is_frame
from ._row_source import CSRRows, all_finite


class NotFittedError(ValueError, AttributeError):
    """Raised when a method that needs a fitted estimator is called before ``fit``.

    It is both a ``ValueError`` and an ``AttributeError``, like scikit-learn's;
    where scikit-learn's exceptions are imported, the error raised is also an
    instance of ``sklearn.exceptions.NotFittedError``.
    """


class DataConversionWarning(UserWarning):
    """Warns that the input was converted to the form an estimator needs (a
    column-vector y read as 1-D); also scikit-learn's ``DataConversionWarning``
    where its exceptions are imported."""


class ConvergenceWarning(UserWarning):
    """Warns that an iterative fit stopped at its most iterations before it
    converged; also scikit-learn's ``ConvergenceWarning`` where its
    exceptions are imported."""


_BRIDGES = {}


class InvalidParameterError(ValueError, TypeError):
    """Raised for a hyper-parameter of the wrong type or out of its range.

    Both a ValueError and a TypeError, like scikit-learn's; where scikit-learn's
    parameter validation is imported, also an instance of its
    ``InvalidParameterError``.
    """


class SparseTargetError(ValueError, TypeError):
    """Raised for a sparse y: both a ValueError (scikit-learn's forests raise
    one) and a TypeError (its trees raise one)."""


def _bridged(fasttree_class, name, module="sklearn.exceptions"):
    """``fasttree_class``, or where scikit-learn's ``module`` has been imported
    a subclass of it that is also scikit-learn's class of that ``name``.

    Code that catches scikit-learn's class must have imported it, so the
    check of ``sys.modules`` finds every such caller without importing
    scikit-learn here.
    """
    sklearn_class = getattr(sys.modules.get(module), name, None)
    kind = Warning if issubclass(fasttree_class, Warning) else Exception
    if not isinstance(sklearn_class, type) or not issubclass(sklearn_class, kind):
        return fasttree_class
    key = (fasttree_class, sklearn_class)
    if key not in _BRIDGES:
        _BRIDGES[key] = type(name, (fasttree_class, sklearn_class),
                             {"__module__": __name__, "__doc__": fasttree_class.__doc__})
    return _BRIDGES[key]


def warn_user(message, category=UserWarning):
    """``warnings.warn`` pointing at the caller's line that called into
    fasttree, however deep inside fasttree the warning is raised."""
    package = os.path.dirname(os.path.abspath(__file__))

    def inside(frame):
        directory = os.path.dirname(os.path.abspath(frame.f_code.co_filename))
        return directory == package or directory.startswith(package + os.sep)

    frame, level = sys._getframe(1), 2  # level 2: the function that called warn_user
    while frame is not None and inside(frame):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def not_fitted_error(message):
    """A :class:`NotFittedError` with ``message``, which is also scikit-learn's
    ``NotFittedError`` when ``sklearn.exceptions`` has been imported."""
    return _bridged(NotFittedError, "NotFittedError")(message)


def invalid_parameter(name, expected, value):
    """An :class:`InvalidParameterError` in scikit-learn's words: "The 'name'
    parameter must be <expected>. Got <value> instead." (scripts match on
    them)."""
    error_class = _bridged(InvalidParameterError, "InvalidParameterError",
                           "sklearn.utils._param_validation")
    return error_class(f"The {name!r} parameter must be {expected}. Got {value!r} instead.")


def check_open_fraction(value, name):
    """``value`` as a float, after checking that it is a real number strictly
    between 0 and 1 (bools refused)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not (
            0.0 < float(value) < 1.0):
        raise invalid_parameter(name, "a float in the range (0.0, 1.0)", value)
    return float(value)


def check_choice(value, name, choices):
    """Raise unless ``value`` is one of the strings ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise invalid_parameter(name, f"a str among {sorted(choices)}", value)


def data_conversion_warning():
    """The class of the warning for converted input (see
    :class:`DataConversionWarning`)."""
    return _bridged(DataConversionWarning, "DataConversionWarning")


def convergence_warning():
    """The class of the warning that a fit did not converge (see
    :class:`ConvergenceWarning`)."""
    return _bridged(ConvergenceWarning, "ConvergenceWarning")


def feature_names_of(X):
    """Column names of a DataFrame-like X when they are all strings, else None."""
    X = as_frame(X)
    columns = getattr(X, "columns", None)
    if columns is None or not is_frame(X):
        return None
    names = np.asarray(columns, dtype=object)
    if len(names) and all(isinstance(name, str) for name in names):
        return names
    return None


def not_numbers_error(values, label, prefix=""):
    """The ValueError for a column (called ``label``) whose ``values`` are
    not numbers: dates and times get their own advice."""
    if holds_dates(values):
        return ValueError(
            f"{prefix}{label} holds dates or times, not numbers: convert it to numbers "
            "first (for example days since a start date, or year, month and weekday "
            "columns), or mark it categorical (categorical_features) if each value is a "
            "category")
    return ValueError(f"{prefix}{label} holds values that are not numbers; mark it "
                      "categorical (categorical_features) if they are categories")


def holds_dates(values):
    """Whether a column holds dates, times or durations: numpy datetime64 or
    timedelta64, or Python date, time and timedelta objects."""
    import datetime
    kind = getattr(getattr(values, "dtype", None), "kind", None)
    if kind in ("M", "m"):
        return True
    if kind != "O":
        return False
    present = [value for value in np.ravel(values)[:1000] if value is not None
               and not (isinstance(value, float) and math.isnan(value))]
    return bool(present) and isinstance(present[0], (datetime.date, datetime.time,
                                                     datetime.timedelta, np.datetime64,
                                                     np.timedelta64))


def column_names(frame):
    """The column names of a DataFrame-like ``frame`` as text; None for None."""
    return None if frame is None else [str(column) for column in frame.columns]


def column_label(index, names=None):
    """How messages name feature ``index``: by its column name when X has them."""
    return f"column {names[index]!r}" if names is not None else f"feature {index}"


def _check_numeric_columns(array, names, prefix):
    """Raise the error of the first column of a 2-D array that is not numbers."""
    for index in range(array.shape[1]):
        try:
            array[:, index].astype(np.float64)
        except (ValueError, TypeError):
            raise not_numbers_error(array[:, index], column_label(index, names),
                                    prefix) from None


def check_array_2d(X, *, name="X", estimator=None, check_finite=True, keep_float=False,
                   allow_nan=False):
    """Convert X to a finite float32 C-contiguous 2-D array, or raise.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Numbers of any real dtype, in C or Fortran order, nested lists, or a
        pandas DataFrame.
    name : str
        How the error messages call X.
    estimator : str or None
        Estimator name put in front of the error messages.
    check_finite : bool, default=True
        Reject NaN, infinity and values beyond the float32 range.
    allow_nan : bool, default=False
        With ``check_finite``: accept NaN (a missing value), still rejecting
        infinity and values beyond the float32 range.
    keep_float : bool, default=False
        With ``check_finite=False``: return float32 and float64 arrays as
        they are, in any order or strides, without a copy (the prediction
        kernels read them so and check them); other dtypes are still
        converted.

    Returns
    -------
    ndarray of float32 (or float64 with ``keep_float``), shape (n_samples, n_features)
    """
    prefix = f"{estimator}: " if estimator else ""
    X = as_frame(X)
    frame = None
    if is_frame(X):
        frame, X = X, X.to_numpy()
        # datetime64 columns would convert to numbers silently (nanoseconds).
        # A frame of numbers only converts to numbers; looking at the column
        # dtypes (a new Series at every access) is left to other frames.
        if X.dtype.kind not in "biuf":
            for index, dtype in enumerate(list(frame.dtypes)):
                if getattr(dtype, "kind", None) in ("M", "m"):
                    raise not_numbers_error(frame.iloc[:, index].to_numpy(),
                                            column_label(index, column_names(frame)), prefix)
    if is_sparse(X):
        X = dense_from_sparse(X, name=name, estimator=estimator)
    try:
        array = np.asarray(X)
    except (ValueError, TypeError) as error:
        raise ValueError(f"{prefix}{name} cannot be read as an array: {error}") from None
    if array.dtype.kind in "Mm":
        raise not_numbers_error(array, name, prefix)
    if array.dtype.kind in "OUSV":
        try:
            array = array.astype(np.float64)
        except (ValueError, TypeError):
            if array.ndim == 2:
                _check_numeric_columns(array, column_names(frame), prefix)
            raise ValueError(
                f"{prefix}{name} must hold numbers; it holds values of dtype "
                f"{array.dtype} that cannot be converted to float (estimators take "
                "string columns as categorical features: see categorical_features)"
            ) from None
    if array.dtype.kind == "c":
        raise ValueError(f"{prefix}{name} holds complex numbers: Complex data not supported "
                         "(only real values)")
    if array.dtype.kind not in "biuf":
        raise ValueError(f"{prefix}{name} has unsupported dtype {array.dtype}")
    if array.ndim != 2:
        hint = ("; Reshape your data with X.reshape(-1, 1) for a single feature or "
                "X.reshape(1, -1) for a single sample" if array.ndim == 1 else "")
        raise ValueError(f"{prefix}{name} must be 2-D, got {array.ndim}-D with shape "
                         f"{array.shape}{hint}")
    check_not_empty(array.shape, name=name, estimator=estimator)
    if keep_float and not check_finite and array.dtype in (np.float32, np.float64):
        return array
    with np.errstate(over="ignore"):
        converted = np.ascontiguousarray(array, dtype=np.float32)
    # One pass over the converted values catches NaN, infinity and values
    # that overflowed float32. Prediction kernels make this check themselves
    # while they read the rows, so they skip it here.
    if check_finite and not all_finite(converted) and not (
            allow_nan and not np.isinf(converted).any()):
        raise non_finite_error(array, name=name, estimator=estimator, allow_nan=allow_nan)
    return converted


def check_not_empty(shape, *, name="X", estimator=None):
    """Raise unless a 2-D ``shape`` has at least one sample and one feature."""
    prefix = f"{estimator}: " if estimator else ""
    # The counts are worded as scikit-learn words them, which scripts match on.
    if shape[0] == 0:
        raise ValueError(f"{prefix}{name} has 0 sample(s) (shape={tuple(shape)}) while a "
                         "minimum of 1 is required.")
    if shape[1] == 0:
        raise ValueError(f"{prefix}{name} has 0 feature(s) (shape={tuple(shape)}) while a "
                         "minimum of 1 is required.")


def is_sparse(X):
    """Whether X is a scipy.sparse matrix or array (without importing scipy:
    a sparse X exists only once its module has been imported)."""
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and sparse.issparse(X)


def _index_array(array, what, invalid):
    array = np.asarray(array)
    if array.ndim != 1 or array.dtype.kind not in "iu":
        raise invalid(f"its {what} must be a 1-D array of integers")
    return array


def check_sparse_structure(X, *, name="X", estimator=None):
    """Raise a ValueError unless a sparse X's index arrays describe a matrix
    of its shape: every index in range, indptr from 0 and never decreasing.

    scipy's compiled routines (``tocsr``, ``sum_duplicates``, even
    ``has_canonical_format``) trust these arrays and read or write out of
    bounds when they are corrupt, so this runs before anything reads them.
    DOK and LIL matrices hold Python structures, which scipy checks itself.
    """
    prefix = f"{estimator}: " if estimator else ""

    def invalid(problem):
        return ValueError(f"{prefix}{name} is not a valid {X.format.upper()} matrix: "
                          f"{problem}")

    if len(X.shape) != 2 or X.format not in ("csr", "csc", "bsr", "coo"):
        return
    data = np.asarray(X.data)
    if X.format == "coo":
        coords = [_index_array(X.row, "row indices", invalid),
                  _index_array(X.col, "column indices", invalid)]
        for axis, (index, size) in enumerate(zip(coords, X.shape)):
            if index.shape[0] != data.shape[0]:
                raise invalid(f"it has {data.shape[0]} values but {index.shape[0]} "
                              f"{('row', 'column')[axis]} indices")
            if index.size and (index.min() < 0 or index.max() >= size):
                raise invalid(f"a {('row', 'column')[axis]} index is outside 0..{size - 1}")
        return
    n_major, n_minor = X.shape if X.format != "csc" else X.shape[::-1]
    n_values = data.shape[0]
    if X.format == "bsr":
        rows_per_block, columns_per_block = X.blocksize
        n_major, n_minor = n_major // rows_per_block, n_minor // columns_per_block
        if data.ndim != 3 or data.shape[1:] != X.blocksize:
            raise invalid(f"its data must hold blocks of shape {X.blocksize}")
    elif data.ndim != 1:
        raise invalid("its data must be 1-D")
    indptr = _index_array(X.indptr, "indptr", invalid)
    indices = _index_array(X.indices, "indices", invalid)
    if indptr.shape[0] != n_major + 1:
        raise invalid(f"indptr has {indptr.shape[0]} entries; its shape needs {n_major + 1}")
    if indptr[0] != 0 or np.any(indptr[1:] < indptr[:-1]):
        raise invalid("indptr must start at 0 and never decrease")
    if indptr[-1] > min(indices.shape[0], n_values):
        raise invalid(f"indptr ends at {indptr[-1]}, past its {min(indices.shape[0], n_values)} "
                      "stored entries")
    used = indices[:indptr[-1]]
    if used.size and (used.min() < 0 or used.max() >= n_minor):
        raise invalid(f"an index is outside 0..{n_minor - 1}")


def canonical_sparse(X, *, name="X", estimator=None):
    """A sparse X, its structure checked, as CSR or CSC (as given, else CSR)
    with no duplicate entries.

    Duplicates are summed once, here, in X's own dtype (integers in int64,
    so that a sum cannot wrap around): as ``X.toarray()`` sums them,
    so that fit, prediction and the dense copy of X all see the same
    values. X itself is never changed.
    """
    check_sparse_structure(X, name=name, estimator=estimator)
    stored = X.tocsr() if X.format not in ("csr", "csc") else X
    if not stored.has_canonical_format:
        if stored.data.dtype.kind in "iu":
            stored = stored.astype(np.int64)
        elif stored is X:
            stored = stored.copy()
        stored.sum_duplicates()
    return stored


def checked_sparse(X, *, name="X", estimator=None):
    """A sparse X as CSR or CSC (as given, else CSR), checked: a valid
    structure, 2-D, real values, no NaN (scikit-learn's rule: only dense X
    may miss values), duplicate entries summed (see canonical_sparse)."""
    prefix = f"{estimator}: " if estimator else ""
    if len(X.shape) != 2:
        raise ValueError(f"{prefix}{name} must be 2-D, got a sparse array of shape {X.shape}")
    stored = canonical_sparse(X, name=name, estimator=estimator)
    if stored.data.dtype.kind not in "biuf":
        raise ValueError(f"{prefix}{name} has unsupported dtype {stored.data.dtype}")
    # The phrase is scikit-learn's own, which scripts match on.
    if stored.data.dtype.kind == "f" and np.isnan(stored.data).any():
        raise ValueError(f"{prefix}Input {name} contains NaN in a sparse matrix; missing "
                         "values are supported in dense X only")
    return stored


def dense_from_sparse(X, *, name="X", estimator=None):
    """A sparse X as a dense float32 array, its implicit entries as zeros.

    The split kernel reads dense rows, and fit ranks every feature into a
    dense array anyway, so densifying costs fit at most the memory of one
    more copy of X (as float32).
    """
    stored = checked_sparse(X, name=name, estimator=estimator)
    with np.errstate(over="ignore"):
        return stored.astype(np.float32).toarray(order="C")


def densified(X):
    """X as a dense C-ordered float32 array when it is sparse, else as it is."""
    return np.ascontiguousarray(X.toarray(), dtype=np.float32) if is_sparse(X) else X


def sparse_for_fit(X, *, name="X", estimator=None):
    """A sparse training X as float32 CSC, checked as :func:`check_array_2d`
    checks a dense one (no NaN, infinity or value beyond float32, at least
    one row and one feature), duplicate entries summed before the
    conversion (see canonical_sparse). Fit ranks its columns straight from
    it, with no dense copy."""
    stored = checked_sparse(X, name=name, estimator=estimator)
    check_not_empty(stored.shape, name=name, estimator=estimator)
    with np.errstate(over="ignore"):
        columns = stored.tocsc().astype(np.float32)
    if not np.isfinite(columns.data).all():
        raise non_finite_error(columns, name=name, estimator=estimator, allow_nan=True)
    return columns


def csr_for_walk(X, *, name="X", estimator=None):
    """A sparse X as :class:`CSRRows`: float32 values (float64 kept), its
    structure checked and its duplicate entries summed (each would
    overwrite the other in a walk, where densifying adds them)."""
    stored = checked_sparse(X, name=name, estimator=estimator).tocsr()
    data = stored.data
    if data.dtype not in (np.float32, np.float64):
        with np.errstate(over="ignore"):
            data = data.astype(np.float32)
    n_rows, n_features = stored.shape
    if n_features > np.iinfo(np.int32).max:
        raise ValueError(f"{name} has {n_features} features; the walks index at most "
                         f"{np.iinfo(np.int32).max}")
    indptr = np.ascontiguousarray(stored.indptr, dtype=np.intp)
    indices = np.ascontiguousarray(stored.indices, dtype=np.int32)
    return CSRRows(indptr, indices, np.ascontiguousarray(data), n_features)


def rows_for_walk(X, *, estimator=None, check_finite=False):
    """X as the prediction walks read it: a sparse X as :class:`CSRRows`,
    whose rows the walks read as they go (no dense copy of X), else rows of
    float32 (float64 kept unless ``check_finite``).

    NaN is a missing value. The prediction kernels refuse infinity
    themselves, so that check is left to them unless ``check_finite`` (then a
    sparse X is checked and densified as a dense one).
    """
    if is_sparse(X) and not check_finite:
        rows = csr_for_walk(X, estimator=estimator)
        check_not_empty(rows.shape, estimator=estimator)
        return rows
    return check_array_2d(X, estimator=estimator, check_finite=check_finite,
                          keep_float=not check_finite, allow_nan=True)


def non_finite_error(X, *, name="X", estimator=None, allow_nan=False):
    """The ValueError that says where X holds NaN (unless ``allow_nan``),
    infinity or float32 overflow."""
    prefix = f"{estimator}: " if estimator else ""
    if isinstance(X, CSRRows):
        array = X.toarray()
    else:
        array = dense_from_sparse(X) if is_sparse(X) else np.asarray(X)
    if array.dtype.kind == "f":
        bad = np.isinf(array) if allow_nan else ~np.isfinite(array)
    else:
        bad = np.zeros(array.shape, bool)
    if not bad.any():
        return ValueError(f"{prefix}{name} has values too large for float32 "
                          f"(|x| > {np.finfo(np.float32).max:.3g})")
    kind = "infinity" if allow_nan or not np.isnan(array).any() else "NaN"
    column = int(np.nonzero(bad.any(axis=0))[0][0])
    supported = ("infinite values are not supported" if allow_nan
                 else "missing and infinite values are not supported")
    return ValueError(f"{prefix}{name} contains {kind} ({int(bad.sum())} cells, first in "
                      f"column {column}); {supported}")


# Weights of a total below 2**-WEIGHT_TOTAL_EXPONENT or above
# 2**WEIGHT_TOTAL_EXPONENT are scaled by a power of two (exact) to a total in
# [0.5, 1): the criteria square weight sums, and multiply them by targets,
# which would underflow or overflow. Totals in between, every weight a user
# would choose, are taken as they are.
WEIGHT_TOTAL_EXPONENT = 100


def check_weight_total(weights, *, estimator=None, class_weighted=False):
    """Weights (finite, >= 0) that a fit can sum: refused when their total is
    zero or beyond the float64 range, scaled by a power of two when it is
    tiny or huge (models depend on the weights' ratios alone).

    Parameters
    ----------
    weights : ndarray of float64
    estimator : str or None
        Estimator name put in front of the error messages.
    class_weighted : bool, default=False
        The weights are ``sample_weight`` times the class weights (the
        messages say so).

    Returns
    -------
    ndarray of float64
    """
    prefix = f"{estimator}: " if estimator else ""
    with np.errstate(over="ignore"):
        total = float(np.sum(weights))
    what = "sample_weight times class_weight" if class_weighted else "sample_weight"
    if not total > 0.0:
        if class_weighted:
            raise ValueError(f"{prefix}the class weights leave every sample with weight zero: "
                             "class_weight must give a positive weight to a class of y that "
                             "has samples of positive weight")
        raise ValueError(f"{prefix}sample_weight sums to zero; at least one sample needs a "
                         "positive weight")
    if not math.isfinite(total):
        raise ValueError(f"{prefix}{what} is too large: the weights sum beyond the largest "
                         "float64 (1.8e308); divide them all by one factor, which changes "
                         "no prediction")
    exponent = math.frexp(total)[1]
    if abs(exponent) > WEIGHT_TOTAL_EXPONENT:
        return np.ldexp(weights, -exponent)
    return weights


def check_sample_weight(sample_weight, n_samples, *, estimator=None):
    """Validate ``sample_weight``: None (all ones) or n_samples finite values
    >= 0 (a number stands for that weight on every sample) of a positive
    total, scaled as :func:`check_weight_total` says."""
    prefix = f"{estimator}: " if estimator else ""
    if sample_weight is None:
        return np.ones(n_samples, dtype=np.float64)
    if isinstance(sample_weight, numbers.Number):
        weights = np.full(n_samples, sample_weight, dtype=np.float64)
    else:
        try:
            weights = np.asarray(sample_weight, dtype=np.float64)
        except (ValueError, TypeError):
            raise ValueError(f"{prefix}sample_weight must hold numbers") from None
    # The messages hold scikit-learn's phrases, which scripts match on.
    if weights.ndim == 0:
        # A 0-d array is not a number here: it is taken for a broken collection.
        raise TypeError(f"{prefix}sample_weight: Input should have at least 1 dimension i.e. "
                        f"satisfy `len(x.shape) > 0`, got scalar `{weights!r}` instead.")
    if weights.ndim != 1 or weights.shape[0] != n_samples:
        raise ValueError(f"{prefix}sample_weight.shape == {weights.shape}, expected "
                         f"({n_samples},): one weight per sample")
    if not np.isfinite(weights).all():
        raise ValueError(f"{prefix}sample_weight contains NaN or infinity")
    if (weights < 0).any():
        raise ValueError(f"{prefix}Negative values in data passed to `sample_weight`: "
                         "weights must be >= 0, and negative ones are refused")
    return check_weight_total(np.ascontiguousarray(weights), estimator=estimator)


def check_random_state(random_state):
    """Turn None, an int, a Generator or a RandomState into a 64-bit seed."""
    if random_state is None:
        return int(np.random.default_rng().integers(0, 2**63))
    if isinstance(random_state, (numbers.Integral, np.integer)) and not isinstance(
            random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be non-negative, got {random_state}")
        return int(np.random.default_rng(int(random_state)).integers(0, 2**63))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**63))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1)) * 2**32 + int(
            random_state.randint(0, 2**31 - 1))
    raise ValueError(f"random_state must be None, an int, a numpy Generator or a "
                     f"RandomState; got {random_state!r}")


def legacy_random_state(random_state):
    """A numpy RandomState from ``random_state``, as scikit-learn's
    ``check_random_state`` gives it (None: numpy's global one; a RandomState:
    itself), so that draws made from it follow scikit-learn's; a Generator
    seeds a new one, and so does an int beyond RandomState's 32 bits."""
    if random_state is None:
        return np.random.mtrand._rand
    if isinstance(random_state, np.random.RandomState):
        return random_state
    if isinstance(random_state, np.random.Generator):
        return np.random.RandomState(int(random_state.integers(0, 2**32)))
    check_random_state(random_state)  # raises for anything but an int >= 0 here
    if int(random_state) < 2**32:
        return np.random.RandomState(int(random_state))
    return np.random.RandomState(np.random.SeedSequence(int(random_state)).generate_state(4))


def is_int_at_least(value, minimum):
    """Whether ``value`` is an int (not a bool) >= ``minimum``."""
    return (isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, bool)
            and value >= minimum)


def check_int_or_fraction(value, name, *, minimum_int, allow_none=False,
                          fraction_open_low=True, fraction_max=1.0, fraction_open_high=False):
    """Validate a parameter that is either a count (int) or a fraction (float)."""
    if value is None and allow_none:
        return None
    low = "(0.0" if fraction_open_low else "[0.0"
    high = f"{fraction_max:.1f})" if fraction_open_high else f"{fraction_max:.1f}]"
    expected = (f"an int in the range [{minimum_int}, inf) or a float in the range "
                f"{low}, {high}" + (" or None" if allow_none else ""))
    if isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, bool):
        if value < minimum_int:
            raise invalid_parameter(name, expected, value)
        return int(value)
    if isinstance(value, (numbers.Real, np.floating)) and not isinstance(value, bool):
        value = float(value)
        low_ok = value > 0.0 if fraction_open_low else value >= 0.0
        high_ok = value < fraction_max if fraction_open_high else value <= fraction_max
        if not (low_ok and high_ok):
            raise invalid_parameter(name, expected, value)
        return value
    raise invalid_parameter(name, expected, value)
