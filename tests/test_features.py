"""Feature ranking (src/fasttree/_features.py): dense ranks and distinct values."""

import numpy as np
import pytest

from fasttree._features import rank_features


def random_matrix(seed, n_samples=500, n_features=7):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features)).astype(np.float32)
    X[:, 1] = np.round(X[:, 1])        # heavy ties
    X[:, 2] = 3.0                      # constant
    X[: n_samples // 2, 3] = -0.0      # -0.0 and 0.0 are one value
    X[n_samples // 2:, 3] = 0.0
    return X


@pytest.mark.parametrize("seed", range(3))
def test_ranks_and_values_match_numpy_unique(seed):
    X = random_matrix(seed)
    ranks, values, offsets = rank_features(X)
    for feature in range(X.shape[1]):
        distinct, inverse = np.unique(X[:, feature], return_inverse=True)
        np.testing.assert_array_equal(ranks[feature], inverse)
        np.testing.assert_array_equal(values[offsets[feature]:offsets[feature + 1]], distinct)


@pytest.mark.parametrize("n_threads", [2, 3, 7, 20])
def test_ranking_on_threads_equals_one_thread(n_threads):
    X = random_matrix(5)
    for single, threaded in zip(rank_features(X), rank_features(X, n_threads)):
        np.testing.assert_array_equal(single, threaded)
