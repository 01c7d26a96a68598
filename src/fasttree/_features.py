"""Turn a feature matrix into the dense value ranks the split kernel sorts."""

from collections import namedtuple
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ._utils import dense_ranks

RankedFeatures = namedtuple("RankedFeatures", "ranks values value_offsets narrow_ranks")
RankedFeatures.__doc__ = """The ranks of a training matrix's features (see ``rank_features``)."""


def feature_columns(X):
    """X's features as rows (float32, shape (n_features, n_samples)), missing
    values as +inf, which fit never sees otherwise: they rank last, and the
    random splitter reads an infinite value as missing."""
    columns = np.ascontiguousarray(X.T, dtype=np.float32)
    # min propagates NaN: one pass, no mask, unless X has missing values.
    if columns.size and np.isnan(columns.min()):
        missing = np.isnan(columns)
        if np.shares_memory(columns, X):
            columns = columns.copy()
        columns[missing] = np.inf
    return columns


def rank_features(X, n_threads=1):
    """Rank every feature's values once per fit.

    Parameters
    ----------
    X : ndarray of float32, shape (n_samples, n_features)
        Finite training values, or NaN for missing ones: those are ranked
        as ``+inf``, after every known value (the splitter reads an infinite
        last value as the feature's missing rank).
    n_threads : int, default=1
        Threads that rank groups of features at once (the ranking kernel
        releases the GIL).

    Returns
    -------
    RankedFeatures
        ``ranks`` : ndarray of uint32, shape (n_features, n_samples);
        ``ranks[f, i]`` is the position of ``X[i, f]`` among the distinct
        values of feature ``f`` (0 for the smallest).
        ``values`` : ndarray of float32; the distinct sorted values of every
        feature, concatenated.
        ``value_offsets`` : ndarray of intp, shape (n_features + 1,);
        feature ``f``'s distinct values are
        ``values[value_offsets[f]:value_offsets[f + 1]]``.
        ``narrow_ranks`` : ndarray of uint8, shape (n_features, n_samples);
        the ranks of the features of at most 256 values in one byte each (a
        quarter of the cache the histograms of such features read), zeros
        for the others.
    """
    columns = feature_columns(X)
    groups = np.array_split(np.arange(columns.shape[0]), max(1, min(n_threads,
                                                                    columns.shape[0])))
    if len(groups) == 1:
        return RankedFeatures(*dense_ranks(columns))
    with ThreadPoolExecutor(max_workers=len(groups)) as pool:
        parts = list(pool.map(lambda group: dense_ranks(columns[group]), groups))
    offsets = [parts[0][2]]
    for part in parts[1:]:
        offsets.append(part[2][1:] + offsets[-1][-1])
    return RankedFeatures(ranks=np.concatenate([part[0] for part in parts]),
                          values=np.concatenate([part[1] for part in parts]),
                          value_offsets=np.concatenate(offsets),
                          narrow_ranks=np.concatenate([part[3] for part in parts]))
