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

from ._features import (NARROW_RANKS, SHORT_RANKS, RankedFeatures, for_ranked_chunks,
                        rank_features, rare_rows)
from ._validation import is_sparse


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


def feature_bins(feature_ranks, values, max_bins, categorical=False):
    """One feature's bins from its ranks and its distinct sorted values
    (missing ones last, as +inf).

    Returns
    -------
    bin_of_rank : ndarray of uint32
        Each rank's bin: a bin per category, or per value where the known
        values are at most ``max_bins``, else :func:`quantile_bins`;
        missing values keep a bin of their own, last.
    lower, upper : ndarray of float32
        The smallest and the largest value of each bin.
    """
    n_known = values.size - int(values.size > 0 and values[-1] == np.inf)
    if categorical:
        bin_of_rank = np.arange(values.size, dtype=np.uint32)
    else:
        bin_of_rank = quantile_bins(np.bincount(feature_ranks, minlength=n_known)[:n_known],
                                    max_bins)
        if n_known < values.size:
            bin_of_rank = np.r_[bin_of_rank, np.uint32(bin_of_rank[-1] + 1 if n_known else 0)]
    first = np.r_[0, np.flatnonzero(np.diff(bin_of_rank)) + 1]
    last = np.r_[first[1:] - 1, values.size - 1]
    return bin_of_rank, values[first], values[last]


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
        bin_of_rank, lower, upper = feature_bins(
            ranked.ranks[feature], ranked.values[start:end], max_bins,
            categories is not None and categories[feature] > 0)
        if bin_of_rank.size > lower.size:  # grouped: the ranks become bin numbers
            ranks[feature] = bin_of_rank[ranked.ranks[feature]]
        lower_parts.append(lower)
        upper_parts.append(upper)
        offsets.append(offsets[-1] + lower.size)
    value_offsets = np.asarray(offsets, dtype=np.intp)
    lower = np.concatenate(lower_parts) if lower_parts else ranked.values[:0]
    upper = np.concatenate(upper_parts) if upper_parts else ranked.values[:0]
    narrow_ranks = np.zeros_like(ranked.narrow_ranks)
    narrow = np.diff(value_offsets) <= NARROW_RANKS
    narrow_ranks[narrow] = ranks[narrow]
    return RankedFeatures(ranks, np.ascontiguousarray(lower, dtype=np.float32), value_offsets,
                          narrow_ranks, *rare_rows(ranks, narrow_ranks, lower, value_offsets),
                          upper_values=np.ascontiguousarray(upper, dtype=np.float32))


def bin_columns(X, max_bins, categories=None, n_threads=1):
    """Bin the features of a dense X straight from its columns, a few at a
    time (``fasttree._features.for_ranked_chunks``), without keeping the
    ranks of all of them: the bin codes the splitter reads, one byte each
    (``narrow_ranks``) for a feature of at most 256 bins, two
    (``short_ranks``) for one of more (``max_bins`` > 255), and no four-byte
    ranks, so that a fit holds X and a byte or two per value. The bins are
    those of :func:`bin_features` on ``rank_features(X)``.

    A few columns are read (copied) at a time, so X may be a read-only
    ``numpy.memmap`` larger than memory allows to copy whole.

    Parameters
    ----------
    X : ndarray of float32, shape (n_samples, n_features)
        Training values, NaN for missing ones; any memory order.
    max_bins : int
        At most this many bins of known values per feature, at most 65535
        (so that a bin code, the missing values' bin included, fits in two
        bytes).
    categories : ndarray of intp or None
        Per feature its number of categories (0 for a numeric feature):
        categorical features keep a bin per category.
    n_threads : int, default=1
        Threads that bin groups of columns at once.

    Returns
    -------
    RankedFeatures or None
        With ``ranks`` of shape (n_features, 0): every feature is read from
        ``narrow_ranks`` or ``short_ranks`` (None when no feature has more
        than 256 bins). None when a categorical feature has more categories
        than the codes number (then :func:`bin_features` bins).
    """
    if not 2 <= max_bins <= SHORT_RANKS - 1:
        raise ValueError(f"bin_columns bins into at most {SHORT_RANKS - 1} bins; "
                         f"got max_bins={max_bins}")
    n_samples, n_features = X.shape
    # Each feature's codes go to one of the two arrays. Both start as zeros
    # (numpy's calloc maps fresh zero pages, which take memory only once
    # written), so the rows left untouched in the other array cost nothing.
    narrow_ranks = np.zeros((n_features, n_samples), dtype=np.uint8)
    short_ranks = (np.zeros((n_features, n_samples), dtype=np.uint16)
                   if max_bins >= NARROW_RANKS else None)
    most_codes = NARROW_RANKS if short_ranks is None else SHORT_RANKS
    lower_parts, upper_parts = [None] * n_features, [None] * n_features

    def bin_chunk(features, part):
        ranks, values, value_offsets = part[:3]
        for index, feature in enumerate(features):
            categorical = categories is not None and categories[feature] > 0
            feature_values = values[value_offsets[index]:value_offsets[index + 1]]
            if categorical and feature_values.size > most_codes:
                return False
            bin_of_rank, lower_parts[feature], upper_parts[feature] = feature_bins(
                ranks[index], feature_values, max_bins, categorical)
            codes = narrow_ranks if lower_parts[feature].size <= NARROW_RANKS else short_ranks
            codes[feature] = bin_of_rank[ranks[index]]
        return True

    if not all(for_ranked_chunks(X, bin_chunk, n_threads)):
        return None
    offsets = np.zeros(n_features + 1, dtype=np.intp)
    offsets[1:] = np.cumsum([part.size for part in lower_parts])
    if short_ranks is not None and not (np.diff(offsets) > NARROW_RANKS).any():
        short_ranks = None
    lower = np.ascontiguousarray(np.concatenate(lower_parts) if n_features else
                                 np.zeros(0), dtype=np.float32)
    upper = np.ascontiguousarray(np.concatenate(upper_parts) if n_features else
                                 np.zeros(0), dtype=np.float32)
    no_wide_ranks = np.zeros((n_features, 0), dtype=np.uint32)
    return RankedFeatures(no_wide_ranks, lower, offsets, narrow_ranks,
                          *rare_rows(no_wide_ranks, narrow_ranks, lower, offsets, short_ranks),
                          upper_values=upper, short_ranks=short_ranks)


def binned_features(X, max_bins, categories=None, n_threads=1):
    """The binned features ``splitter='hist'`` sweeps, made once per fit:
    straight from the columns of a dense X into one- or two-byte codes
    (:func:`bin_columns`), else (a sparse X, or categories too many for two
    bytes) from the ranks of X (:func:`bin_features` of
    ``rank_features(X)``). The bins are the same.

    Parameters
    ----------
    X : ndarray of float32 or a CSC matrix, shape (n_samples, n_features)
    max_bins : int
    categories : ndarray of intp or None
        Per feature its number of categories (0 for a numeric feature).
    n_threads : int, default=1

    Returns
    -------
    RankedFeatures
    """
    if not is_sparse(X) and max_bins < SHORT_RANKS:
        ranked = bin_columns(X, max_bins, categories, n_threads)
        if ranked is not None:
            return ranked
    return bin_features(rank_features(X, n_threads), max_bins, categories)


def select_features(binned, features):
    """The binned features ``features`` (indices, repeats allowed) of
    ``binned``, in that order: what a member fitted on ``X[:, features]``
    sweeps, without binning again.

    Parameters
    ----------
    binned : RankedFeatures
        From :func:`binned_features`.
    features : ndarray of intp

    Returns
    -------
    RankedFeatures
    """
    features = np.asarray(features, dtype=np.intp)
    offsets = binned.value_offsets
    spans = [np.arange(offsets[feature], offsets[feature + 1]) for feature in features]
    taken = np.concatenate(spans) if spans else np.zeros(0, dtype=np.intp)
    value_offsets = np.zeros(features.size + 1, dtype=np.intp)
    value_offsets[1:] = np.cumsum([span.size for span in spans])
    values = np.ascontiguousarray(binned.values[taken])
    ranks = binned.ranks[features] if binned.ranks.shape[1] else np.zeros(
        (features.size, 0), dtype=np.uint32)
    narrow_ranks = binned.narrow_ranks[features]
    short_ranks = None if binned.short_ranks is None else binned.short_ranks[features]
    return RankedFeatures(ranks, values, value_offsets, narrow_ranks,
                          *rare_rows(ranks, narrow_ranks, values, value_offsets, short_ranks),
                          upper_values=np.ascontiguousarray(binned.upper_values[taken]),
                          short_ranks=short_ranks)
