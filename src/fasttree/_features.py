"""Turn a feature matrix into the dense value ranks the split kernel sorts."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ._utils import dense_ranks


def rank_features(X, n_threads=1):
    """Rank every feature's values once per fit.

    Parameters
    ----------
    X : ndarray of float32, shape (n_samples, n_features)
        Finite training values.
    n_threads : int, default=1
        Threads that rank groups of features at once (the ranking kernel releases
        the GIL).

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
    groups = np.array_split(np.arange(columns.shape[0]), max(1, min(n_threads,
                                                                    columns.shape[0])))
    if len(groups) == 1:
        return _rank_columns(columns)
    with ThreadPoolExecutor(max_workers=len(groups)) as pool:
        parts = list(pool.map(lambda group: _rank_columns(columns[group]), groups))
    ranks = np.concatenate([part[0] for part in parts])
    values = np.concatenate([part[1] for part in parts])
    offsets = [parts[0][2]]
    for part in parts[1:]:
        offsets.append(part[2][1:] + offsets[-1][-1])
    return ranks, values, np.concatenate(offsets)


def _rank_columns(columns):
    return dense_ranks(columns)
