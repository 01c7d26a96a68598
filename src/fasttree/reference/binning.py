"""Reference binning of numeric features for the histogram splitter.

Each column's known values (as float32) are grouped into at most
``max_bins`` bins in their sorted order. With at most ``max_bins`` distinct
values every value has its own bin. Otherwise a value belongs to the bin of
the quantile at the middle of its rows::

    quantile(v) = floor(max_bins * (rows below v + rows of v / 2) / known rows)

and the bins are the runs of equal quantiles, numbered 0, 1, ... in order.
Missing values (NaN) get one more bin after the known ones. A split between
bins ``k`` and ``k + 1`` sits at ``midpoint(upper[k], lower[k + 1])``, the
largest value of bin ``k`` and the smallest of bin ``k + 1``.
"""

import math
from collections import Counter

import numpy as np

__all__ = ["BinnedColumn", "bin_column", "bin_matrix"]


class BinnedColumn:
    """One column's bins.

    Attributes
    ----------
    codes : list of int
        Each row's bin; missing values have bin ``n_known_bins``.
    lower, upper : list of numpy.float32
        The smallest and the largest training value of each known bin.
    n_known_bins : int
        Bins of known values (a bin for missing values comes after them).
    """

    def __init__(self, codes, lower, upper):
        self.codes = codes
        self.lower = lower
        self.upper = upper
        self.n_known_bins = len(lower)


def bin_column(column, max_bins):
    """Bin one column of values (NaN for missing ones).

    Parameters
    ----------
    column : sequence of float
        The column's training values.
    max_bins : int
        At most this many bins of known values.

    Returns
    -------
    BinnedColumn
    """
    values = [np.float32(value) for value in column]
    known = [value for value in values if not math.isnan(value)]
    rows_of = Counter(known)
    distinct = sorted(rows_of)
    if len(distinct) <= max_bins:
        bin_of = {value: index for index, value in enumerate(distinct)}
    else:
        bin_of, below, previous, current = {}, 0, None, -1
        for value in distinct:
            # Twice the middle position, in integers.
            quantile = (2 * below + rows_of[value]) * max_bins // (2 * len(known))
            if quantile != previous:
                current += 1
                previous = quantile
            bin_of[value] = current
            below += rows_of[value]
    n_bins = len(set(bin_of.values()))
    lower = [min(v for v in distinct if bin_of[v] == b) for b in range(n_bins)]
    upper = [max(v for v in distinct if bin_of[v] == b) for b in range(n_bins)]
    codes = [n_bins if math.isnan(value) else bin_of[value] for value in values]
    return BinnedColumn(codes, lower, upper)


def bin_matrix(X, max_bins, categorical=()):
    """Bin every numeric column of ``X``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Training values, NaN for missing ones.
    max_bins : int
        At most this many bins of known values per column.
    categorical : collection of int
        Columns left as they are (categories are not binned).

    Returns
    -------
    codes : ndarray of float64, shape (n_samples, n_features)
        Each row's bin per numeric column (NaN where the value is missing),
        the values themselves in categorical columns.
    columns : list of BinnedColumn or None
        Per column its bins, None for a categorical column.
    """
    X = np.asarray(X, dtype=np.float64)
    codes = X.copy()
    columns = []
    for feature in range(X.shape[1]):
        if feature in categorical:
            columns.append(None)
            continue
        binned = bin_column(X[:, feature], max_bins)
        codes[:, feature] = [np.nan if code == binned.n_known_bins else code
                             for code in binned.codes]
        columns.append(binned)
    return codes, columns
