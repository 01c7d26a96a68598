"""Turn a feature matrix into the dense value ranks the split kernel sorts."""

import numpy as np


def rank_features(X):
    """Rank every feature's values once per fit.

    Parameters
    ----------
    X : ndarray of float32, shape (n_samples, n_features)
        Finite training values.

    Returns
    -------
    ranks : ndarray of uint32, shape (n_features, n_samples)
        ``ranks[f, i]`` is the position of ``X[i, f]`` among the distinct
        values of feature ``f`` (0 for the smallest).
    values : ndarray of float32
        The distinct sorted values of every feature, concatenated.
    value_offsets : ndarray of intp, shape (n_features + 1,)
        Feature ``f``'s distinct values are
        ``values[value_offsets[f]:value_offsets[f + 1]]``.
    """
    n_samples, n_features = X.shape
    columns = np.ascontiguousarray(X.T)
    order = np.argsort(columns, axis=1)
    sorted_values = np.take_along_axis(columns, order, axis=1)
    starts_new_value = np.empty(sorted_values.shape, dtype=bool)
    starts_new_value[:, :1] = True
    np.not_equal(sorted_values[:, 1:], sorted_values[:, :-1], out=starts_new_value[:, 1:])
    sorted_ranks = np.cumsum(starts_new_value, axis=1, dtype=np.uint32)
    sorted_ranks -= 1
    ranks = np.empty((n_features, n_samples), dtype=np.uint32)
    np.put_along_axis(ranks, order, sorted_ranks, axis=1)
    values = sorted_values[starts_new_value]
    value_offsets = np.zeros(n_features + 1, dtype=np.intp)
    np.cumsum(starts_new_value.sum(axis=1), out=value_offsets[1:])
    return ranks, np.ascontiguousarray(values, dtype=np.float32), value_offsets
