"""Binned features for ``splitter='hist'``: every numeric feature's distinct
values grouped into at most ``max_bins`` bins of about equal row counts,
once per fit, so that a node's split search sweeps bins, not values.

A binned feature is ranked features (``fasttree._features.RankedFeatures``)
whose ranks are bin numbers: a bin's ``values`` entry is the smallest
training value in it, its ``upper_values`` entry the largest, and a split
between two bins is placed halfway between the left bin's largest value and
the right bin's smallest, where the exact splitter places a split between
those two values. A feature of at most ``max_bins`` known values keeps a bin
per value, so its splits are the exact ones. Missing values keep their own
last bin; categorical features keep their categories.
"""

import numpy as np

from ._features import NARROW_RANKS, RankedFeatures, rare_rows


def quantile_bins(counts, max_bins):
    """The bin of each distinct value of a feature, from its rows per value.

    A value goes to the bin of the quantile at the middle of its rows: bin
    ``floor(max_bins * (rows below it + half its rows) / rows))``, the bins
    then numbered from 0 without gaps. Values in ascending order stay in
    ascending bins, and a value holding many rows gets a bin of its own
    rather than joining its neighbours'.

    Parameters
    ----------
    counts : ndarray of int, shape (n_values,)
        Rows holding each distinct value, in ascending order of the values.
    max_bins : int
        At most this many bins.

    Returns
    -------
    ndarray of uint32, shape (n_values,)
        Each value's bin; one bin per value when there are at most
        ``max_bins`` values.
    """
    counts = np.asarray(counts, dtype=np.int64)
    if counts.size <= max_bins:
        return np.arange(counts.size, dtype=np.uint32)
    below = np.cumsum(counts) - counts
    # Twice the middle position, so that the arithmetic stays in integers.
    quantile = (2 * below + counts) * max_bins // (2 * int(counts.sum()))
    starts_bin = np.r_[False, np.diff(quantile) > 0]
    return np.cumsum(starts_bin, dtype=np.uint32)


def bin_features(ranked, max_bins, categories=None):
    """Group ranked features into bins (see the module's docstring).

    Parameters
    ----------
    ranked : RankedFeatures
        From ``fasttree._features.rank_features``.
    max_bins : int
        At most this many bins of known values per feature (missing values
        add one).
    categories : ndarray of intp or None
        Per feature its number of categories (0 for a numeric feature):
        categorical features are not binned.

    Returns
    -------
    RankedFeatures
        Ranks that are bin numbers, with ``values`` and ``upper_values``
        the smallest and largest training value of each bin.
    """
    n_features = ranked.ranks.shape[0]
    ranks = ranked.ranks.copy()
    lower_parts, upper_parts, offsets = [], [], [0]
    for feature in range(n_features):
        start, end = ranked.value_offsets[feature], ranked.value_offsets[feature + 1]
        values = ranked.values[start:end]
        n_known = values.size - int(values.size > 0 and values[-1] == np.inf)
        if n_known <= max_bins or (categories is not None and categories[feature] > 0):
            lower_parts.append(values)
            upper_parts.append(values)
            offsets.append(offsets[-1] + values.size)
            continue
        counts = np.bincount(ranked.ranks[feature], minlength=values.size)
        bin_of_rank = quantile_bins(counts[:n_known], max_bins)
        n_bins = int(bin_of_rank[-1]) + 1
        if n_known < values.size:
            bin_of_rank = np.r_[bin_of_rank, np.uint32(n_bins)]  # the missing values' own bin
            n_bins += 1
        ranks[feature] = bin_of_rank[ranked.ranks[feature]]
        first = np.r_[0, np.flatnonzero(np.diff(bin_of_rank)) + 1]
        last = np.r_[first[1:] - 1, values.size - 1]
        lower_parts.append(values[first])
        upper_parts.append(values[last])
        offsets.append(offsets[-1] + n_bins)
    value_offsets = np.asarray(offsets, dtype=np.intp)
    lower = np.concatenate(lower_parts) if lower_parts else ranked.values[:0]
    upper = np.concatenate(upper_parts) if upper_parts else ranked.values[:0]
    narrow_ranks = np.zeros_like(ranked.narrow_ranks)
    narrow = np.diff(value_offsets) <= NARROW_RANKS
    narrow_ranks[narrow] = ranks[narrow]
    return RankedFeatures(ranks, np.ascontiguousarray(lower, dtype=np.float32), value_offsets,
                          narrow_ranks, *rare_rows(ranks, narrow_ranks, lower, value_offsets),
                          upper_values=np.ascontiguousarray(upper, dtype=np.float32))
