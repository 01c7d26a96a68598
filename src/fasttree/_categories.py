"""Categorical columns: which they are, their levels, and their values as codes.

The kernels see categories as numbers: a categorical column becomes the code
of each value among the column's levels (0, 1, ...) and NaN where the value
is missing, or is a category the model never saw in training (prediction
then treats it as missing). Numeric columns pass through; NaN stays NaN.
"""

import math
import numbers
import sys

import numpy as np

from ._frames import as_frame, is_frame
from ._validation import (checked_sparse, column_label, holds_dates, is_sparse,
                          not_numbers_error, warn_user)

# The largest code float32 holds exactly (2**24): more levels than this in
# one column are refused.
MAX_LEVELS = 2**24


def is_missing(value):
    """None, a float NaN, or pandas' NA / NaT."""
    if value is None:
        return True
    if isinstance(value, (float, np.floating)):
        return math.isnan(value)
    # pandas.NA and NaT, recognised without importing pandas.
    return type(value).__name__ in ("NAType", "NaTType")


def _is_real(value):
    return isinstance(value, (numbers.Real, np.number)) and not isinstance(value, (bool, np.bool_))


def _dataframe_columns(X):
    """(name, values, dtype) of every column of a pandas DataFrame (or a
    polars DataFrame or pyarrow Table), or None."""
    X = as_frame(X)
    if not (is_frame(X) and hasattr(X, "iloc")):
        return None
    return [(name, X.iloc[:, index], dtype)
            for index, (name, dtype) in enumerate(zip(X.columns, list(X.dtypes)))]


def _dtype_is_categorical(dtype):
    """pandas category, object and string dtypes (and numpy str / object)."""
    if getattr(dtype, "kind", None) in ("O", "U", "S"):
        return True
    name = type(dtype).__name__
    return name in ("CategoricalDtype", "StringDtype") or (
        name == "ArrowDtype" and "string" in str(dtype))


def categorical_mask(X, categorical_features, n_features, feature_names=None):
    """Which features are categorical, as a boolean mask.

    Parameters
    ----------
    X : array-like or DataFrame
        The training X (read only for ``'from_dtype'``).
    categorical_features : None, 'from_dtype', array-like of int, of bool or of str
        None: no feature. 'from_dtype': the DataFrame columns of category,
        object or string dtype, and the columns of an object or string numpy
        array that hold anything but real numbers and missing values.
        Integers index the features; a boolean mask has one entry per
        feature; strings name features (X needs string column names).
    n_features : int
    feature_names : ndarray of str or None

    Returns
    -------
    ndarray of bool, shape (n_features,)
    """
    mask = np.zeros(n_features, dtype=bool)
    if categorical_features is None:
        return mask
    if isinstance(categorical_features, str):
        if categorical_features != "from_dtype":
            raise ValueError(f"categorical_features must be None, 'from_dtype', indices, a "
                             f"boolean mask or feature names; got {categorical_features!r}")
        columns = _dataframe_columns(X)
        if columns is not None:
            return np.array([_dtype_is_categorical(dtype) for _, _, dtype in columns],
                            dtype=bool)
        array = np.asarray(X)
        if array.dtype.kind in "USb":
            return np.ones(n_features, dtype=bool) if array.dtype.kind != "b" else mask
        if array.dtype.kind == "O" and array.ndim == 2:
            return np.array([any(not (_is_real(value) or is_missing(value))
                                 for value in array[:, column])
                             for column in range(n_features)], dtype=bool)
        return mask
    entries = np.asarray(categorical_features)
    if entries.ndim != 1:
        raise ValueError("categorical_features must be one-dimensional")
    if entries.size == 0:
        return mask
    if entries.dtype.kind == "b":
        if entries.shape[0] != n_features:
            raise ValueError(f"categorical_features as a boolean mask needs {n_features} "
                             f"entries, one per feature; got {entries.shape[0]}")
        return entries.copy()
    if entries.dtype.kind in "iu":
        if entries.min() < 0 or entries.max() >= n_features:
            raise ValueError(f"categorical_features indices must lie in [0, {n_features}); "
                             f"got {entries.tolist()}")
        mask[entries] = True
        return mask
    if entries.dtype.kind in "UO" and all(isinstance(entry, str) for entry in entries):
        if feature_names is None:
            raise ValueError("categorical_features names features, but X has no string "
                             "column names")
        position = {name: index for index, name in enumerate(feature_names)}
        unknown = [entry for entry in entries if entry not in position]
        if unknown:
            raise ValueError(f"categorical_features names unknown features {unknown}; "
                             f"X has {list(feature_names)}")
        mask[[position[entry] for entry in entries]] = True
        return mask
    raise ValueError("categorical_features must be None, 'from_dtype', or an array of "
                     f"integer indices, booleans or feature names; got {entries.dtype}")


def _column(source, index, numeric=False):
    """Column ``index`` as a 1-D numpy array (object for mixed data), from a
    2-D array or from ``_dataframe_columns``' list (``numeric``: a
    DataFrame's numpy numeric columns as they are)."""
    if isinstance(source, np.ndarray):
        return source[:, index]
    _, values, dtype = source[index]
    if numeric and isinstance(dtype, np.dtype) and dtype.kind in "biuf":
        return values.to_numpy()
    if type(dtype).__name__ == "CategoricalDtype":
        # The categories' own values, NaN for missing.
        return np.asarray(values.astype(object))
    return np.asarray(values.to_numpy(dtype=object))


def _sort_key(value):
    # Numbers before strings, each in their own order: levels of any mix of
    # types get one deterministic order.
    if _is_real(value):
        return (0, "", float(value))
    return (1, type(value).__name__, str(value))


def column_levels(values):
    """The sorted distinct non-missing values of a column (its levels)."""
    seen = {}
    for value in values.tolist():
        if not is_missing(value):
            try:
                seen.setdefault(_hashable(value), value)
            except TypeError:
                raise TypeError(f"a categorical column holds a value of type "
                                f"{type(value).__name__}, which cannot be a category: its "
                                "argument must be a string or a number (or another hashable "
                                "value)") from None
    levels = sorted(seen.values(), key=_sort_key)
    if len(levels) > MAX_LEVELS:
        raise ValueError(f"a categorical column has {len(levels)} distinct values; at most "
                         f"{MAX_LEVELS} are supported")
    return levels


def _missing_mask(values):
    pandas = sys.modules.get("pandas")
    if pandas is not None:
        return np.asarray(pandas.isna(values), dtype=bool)
    return np.fromiter((is_missing(value) for value in values.tolist()), dtype=bool,
                       count=values.shape[0])


def _all_strings(values):
    pandas = sys.modules.get("pandas")
    if pandas is not None:
        return pandas.api.types.infer_dtype(values, skipna=False) == "string"
    return all(isinstance(value, str) for value in values.tolist())


def _string_codes(values, levels=None):
    """The codes of a column of strings (and missing values) found by sorting
    (fit, ``levels`` None) or by binary search among sorted string levels:
    (codes, levels), or None when the column or the levels hold anything
    but strings. Sorting str in numpy and in Python orders code points
    alike, so the levels are those of ``column_levels``."""
    if values.dtype.kind not in "OU":
        return None
    missing = _missing_mask(values) if values.dtype.kind == "O" else np.zeros(
        values.shape[0], dtype=bool)
    present = values[~missing]
    if values.dtype.kind == "O" and not _all_strings(present):
        return None
    codes = np.full(values.shape[0], np.nan)
    pandas = sys.modules.get("pandas")
    if pandas is not None:
        # Hashing (pandas is loaded already when X is a DataFrame) instead of
        # sorting every value: only the distinct values are sorted.
        if levels is None:
            found, uniques = pandas.factorize(present)
            uniques = np.asarray(uniques, dtype=str)
            if uniques.shape[0] > MAX_LEVELS:
                raise ValueError(f"a categorical column has {uniques.shape[0]} distinct "
                                 f"values; at most {MAX_LEVELS} are supported")
            order = np.argsort(uniques, kind="stable")
            rank = np.empty_like(order)
            rank[order] = np.arange(order.shape[0])
            codes[~missing] = rank[found]
            return codes, uniques[order].tolist()
        if not all(isinstance(level, str) for level in levels):
            return None
        found = pandas.Index(levels, dtype=object).get_indexer(present)
        codes[~missing] = np.where(found >= 0, found, np.nan)
        return codes, levels
    strings = present.astype(str)
    if levels is None:
        uniques, inverse = np.unique(strings, return_inverse=True)
        if uniques.shape[0] > MAX_LEVELS:
            raise ValueError(f"a categorical column has {uniques.shape[0]} distinct values; "
                             f"at most {MAX_LEVELS} are supported")
        codes[~missing] = inverse.reshape(-1)
        return codes, uniques.tolist()
    if not all(isinstance(level, str) for level in levels):
        return None
    sorted_levels = np.asarray(levels, dtype=str) if len(levels) else np.empty(0, dtype=str)
    found = np.searchsorted(sorted_levels, strings)
    inside = found < sorted_levels.shape[0]
    known = np.zeros(strings.shape[0], dtype=bool)
    known[inside] = sorted_levels[found[inside]] == strings[inside]
    present_codes = np.where(known, found, np.nan)
    codes[~missing] = present_codes
    return codes, levels


def encode_column(values, levels):
    """Codes (float64) of a column's values among ``levels``; NaN for missing
    values and for values not among the levels."""
    fast = _string_codes(values, levels)
    if fast is not None:
        return fast[0]
    position = {_hashable(level): code for code, level in enumerate(levels)}
    return np.array([np.nan if is_missing(value) else position.get(_hashable(value), np.nan)
                     for value in values.tolist()], dtype=np.float64)


def _check_same_kind(values, levels, codes, label):
    """Raise when none of a column's values is among its levels because they
    are numbers where the levels are text, or text where they are numbers
    (codes passed for the categories, say): every row would otherwise go
    the unseen categories' way, silently."""
    if len(levels) == 0 or not np.isnan(codes).all():
        return
    given = values[~_missing_mask(values)] if values.dtype.kind == "O" else values
    if given.dtype.kind == "f":
        given = given[~np.isnan(given)]
    if given.shape[0] == 0:
        return
    level_kinds = {isinstance(level, str) for level in levels}
    given_kinds = ({True} if given.dtype.kind in "US" else {False} if given.dtype.kind != "O"
                   else {isinstance(value, str) for value in given[:1000].tolist()})
    if level_kinds & given_kinds:
        return
    shown = [repr(level) for level in np.asarray(levels, dtype=object)[:3].tolist()]
    if len(levels) > 3:
        shown.append("...")
    raise ValueError(f"{label} was fitted on categories of "
                     f"{'text' if True in level_kinds else 'numbers'} ({', '.join(shown)}) "
                     f"but holds {'text' if True in given_kinds else 'numbers'} here (such "
                     f"as {given[:1].tolist()[0]!r}): pass the categories themselves, as in "
                     "fit, not their codes")


def _hashable(value):
    # 1, 1.0 and True hash alike in Python; keep numbers and strings apart
    # by pairing each value with its kind.
    return (0, float(value)) if _is_real(value) else (1, value)


def encode_categories(X, mask, levels=None):
    """X as floats: categorical columns as codes among their levels.

    Parameters
    ----------
    X : array-like or DataFrame, shape (n_samples, n_features)
    mask : ndarray of bool
        The categorical features.
    levels : list or None
        Per categorical feature (in column order), its levels; None learns
        them from X (fit).

    Returns
    -------
    X_codes : ndarray of float64, shape (n_samples, n_features)
        Numeric columns as numbers (NaN kept), categorical ones as codes, NaN
        for missing and unseen values.
    levels : list of list
    """
    categorical = np.flatnonzero(mask)
    learn = levels is None
    if learn:
        levels = []
    elif len(levels) != categorical.size:
        raise ValueError("the category levels do not match the categorical features")
    # The columns are read from one source: a DataFrame's column list, or
    # X as one array.
    source = _dataframe_columns(X)
    if source is not None:
        n_samples, n_features = len(X), len(source)
    else:
        source = np.asarray(X)
        if source.ndim != 2:
            raise ValueError(f"X must be 2-D, got shape {source.shape}")
        n_samples, n_features = source.shape
    if mask.shape[0] != n_features:
        raise ValueError(f"X has {n_features} features; expected {mask.shape[0]}")
    codes = np.empty((n_samples, n_features), dtype=np.float64)
    names = None if isinstance(source, np.ndarray) else [str(name) for name, _, _ in source]
    for position, index in enumerate(categorical):
        values = _column(source, index)
        if learn:
            fast = _string_codes(values)
            if fast is not None:
                codes[:, index], column = fast
                levels.append(column)
                continue
            levels.append(column_levels(values))
        codes[:, index] = encode_column(values, levels[position])
        if not learn:
            _check_same_kind(values, levels[position], codes[:, index],
                             column_label(index, names))
    for index in np.flatnonzero(~mask):
        values = _column(source, index, numeric=True)
        if holds_dates(values):
            raise not_numbers_error(values, column_label(index, names))
        try:
            if values.dtype.kind == "O":
                numbers_only = np.where(_missing_mask(values), np.nan, values)
                codes[:, index] = numbers_only.astype(np.float64)
            else:
                codes[:, index] = values.astype(np.float64)
        except (TypeError, ValueError):
            raise not_numbers_error(values, column_label(index, names)) from None
    return codes, levels


def _n_columns(X):
    """X's number of columns, or None when X is not 2-D (left to the checks)."""
    if _dataframe_columns(X) is not None:
        return X.shape[1]
    try:
        # np.asarray, not np.shape: array-likes may refuse numpy's functions.
        shape = getattr(X, "shape", None) or np.asarray(X).shape
    except ValueError:  # ragged rows
        return None
    return shape[1] if len(shape) == 2 else None


def _as_table(X):
    """X as categorical_mask and encode_categories read it: a DataFrame as it
    is, nested lists of mixed values as an object array (so that numbers
    stay numbers), any other X as an array."""
    if _dataframe_columns(X) is not None or isinstance(X, np.ndarray):
        return X
    if is_sparse(X):
        # Checked as any sparse X is: NaN stored in it is refused, not read
        # as a missing value once dense.
        return checked_sparse(X).toarray()
    array = np.asarray(X)
    if array.dtype.kind in "US" and isinstance(X, (list, tuple)):
        return np.array(X, dtype=object)
    return array


def fit_categories(X, categorical_features, feature_names=None):
    """X with its categorical columns as codes, for fit.

    Parameters
    ----------
    X : array-like or DataFrame
    categorical_features : see :func:`categorical_mask`
    feature_names : ndarray of str or None

    Returns
    -------
    X : ndarray of float64, or X as given when no feature is categorical
    encoding : CategoryEncoding or None
    """
    n_features = _n_columns(X)
    if n_features is None:
        return X, None
    # A sparse X holds numbers of one dtype: only the dtype is read for
    # 'from_dtype', and X is densified only when it has categorical columns.
    table = np.empty((0, n_features), dtype=X.dtype) if is_sparse(X) else _as_table(X)
    mask = categorical_mask(table, categorical_features, n_features, feature_names)
    if not mask.any():
        return X, None
    if is_sparse(X):
        table = _as_table(X)
    codes, levels = encode_categories(table, mask)
    if isinstance(categorical_features, str):  # 'from_dtype': the dtype chose
        _warn_numbers_as_text(mask, levels, feature_names)
    return codes, CategoryEncoding(mask, levels)


def _warn_numbers_as_text(mask, levels, feature_names):
    """Warn about the columns taken as categorical for their dtype whose
    categories are all numbers written as text: their order would be
    text's ('10' before '2'), and numbers read as such split on it."""
    for index, column_levels in zip(np.flatnonzero(mask), levels):
        if len(column_levels) < 2 or not all(
                isinstance(level, str) and _is_number_text(level) for level in column_levels):
            continue
        shown = [repr(level) for level in list(column_levels)[:3]]
        shown += ["..."] if len(column_levels) > 3 else []
        warn_user(f"{column_label(index, feature_names)} holds numbers written as text "
                  f"({', '.join(shown)}), so it is taken as categorical, its categories in text "
                  "order; convert it to numbers (pandas.to_numeric) to split on their "
                  "order, or name it in categorical_features to keep it categorical")


def _is_number_text(text):
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def level_array(levels):
    """A column's levels as an array: of their own dtype when they are all
    strings, all numbers or all booleans; else of object dtype, so that 1 and
    '1' (which numpy would both turn into the string '1') stay two levels."""
    if isinstance(levels, np.ndarray):
        return levels
    kinds = {str if isinstance(level, str) else bool if isinstance(level, (bool, np.bool_))
             else numbers.Real if _is_real(level) else object for level in levels}
    if len(kinds) == 1 and object not in kinds:
        return np.asarray(levels)
    array = np.empty(len(levels), dtype=object)
    for position, level in enumerate(levels):
        array[position] = level  # one by one: a tuple level stays one item
    return array


class CategoryEncoding:
    """The categorical features of a fitted model and their levels.

    Parameters
    ----------
    mask : ndarray of bool, shape (n_features,)
    levels : list of ndarray
        Per categorical feature, in column order, its sorted levels (its
        codes are their positions).
    """

    def __init__(self, mask, levels):
        self.mask = np.asarray(mask, dtype=bool)
        self.levels = [level_array(level) for level in levels]

    @property
    def counts(self):
        """Per feature, its number of levels (0 for numeric features)."""
        counts = np.zeros(self.mask.shape[0], dtype=np.intp)
        counts[self.mask] = [len(level) for level in self.levels]
        return counts

    def encode(self, X):
        """X for prediction: categorical columns as codes, NaN for missing
        values and for categories not seen in training."""
        table = _as_table(X)
        n_features = _n_columns(table)
        if n_features is not None and n_features != self.mask.shape[0]:
            raise ValueError(f"X has {n_features} features, but the model is expecting "
                             f"{self.mask.shape[0]} features as input")
        return encode_categories(table, self.mask, self.levels)[0]
