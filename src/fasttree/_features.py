"""Turn a feature matrix into the dense value ranks the split kernel sorts."""

import numpy as np

from ._utils import dense_ranks


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
    columns = np.ascontiguousarray(X.T)
    order = np.argsort(columns, axis=1).astype(np.intp, copy=False)
    return dense_ranks(columns, order)
