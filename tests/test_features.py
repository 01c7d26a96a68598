"""Feature columns and ranking (src/fasttree/_features.py): dense ranks and distinct values."""

import numpy as np
import pytest

from fasttree._features import feature_columns, rank_features


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
    ranks, values, offsets = rank_features(X)[:3]
    for feature in range(X.shape[1]):
        distinct, inverse = np.unique(X[:, feature], return_inverse=True)
        np.testing.assert_array_equal(ranks[feature], inverse)
        np.testing.assert_array_equal(values[offsets[feature]:offsets[feature + 1]], distinct)


@pytest.mark.parametrize("n_threads", [2, 3, 7, 20])
def test_ranking_on_threads_equals_one_thread(n_threads):
    X = random_matrix(5)
    for single, threaded in zip(rank_features(X), rank_features(X, n_threads)):
        np.testing.assert_array_equal(single, threaded)


@pytest.mark.parametrize("n_samples", [1, 2, 17, 383, 384, 5000])
def test_ranks_order_every_kind_of_float_as_numpy_does(n_samples):
    # The kernel sorts the floats' bits as integers: signs, subnormals, the
    # largest magnitudes and both zeros must still order as the numbers do.
    rng = np.random.default_rng(n_samples)
    tiny = np.finfo(np.float32).smallest_subnormal
    huge = np.finfo(np.float32).max
    pool = np.array([-huge, -1e30, -2.5, -1.0, -tiny, -0.0, 0.0, tiny, 2 * tiny,
                     1e-38, 1.0, 1.5, 3.0, 1e30, huge], dtype=np.float32)
    X = np.column_stack([
        rng.choice(pool, size=n_samples),
        rng.normal(scale=1e-30, size=n_samples),
        rng.integers(-3, 4, size=n_samples),
        np.float32(rng.integers(0, 2**24, size=n_samples)),
    ]).astype(np.float32)
    ranks, values, offsets = rank_features(X)[:3]
    for feature in range(X.shape[1]):
        distinct, inverse = np.unique(X[:, feature], return_inverse=True)
        np.testing.assert_array_equal(ranks[feature], inverse)
        np.testing.assert_array_equal(values[offsets[feature]:offsets[feature + 1]], distinct)
    # The one zero value is stored as +0.0.
    zeros = values[values == 0.0]
    assert not np.signbit(zeros).any()


@pytest.mark.parametrize("n_samples", [1, 3, 100, 4000])
def test_whole_number_columns_rank_as_numpy_does_through_either_path(n_samples):
    # Columns of whole numbers with a small range are ranked through a table
    # of their values, the others by the sort; both must agree with numpy.
    rng = np.random.default_rng(n_samples)
    span = 4 * n_samples  # the table takes at most 4 values per sample
    X = np.column_stack([
        rng.integers(0, 2, size=n_samples),                       # binary
        rng.integers(-7, 8, size=n_samples),                      # negatives
        rng.choice([-0.0, 0.0, -1.0, 2.0], size=n_samples),       # both zeros
        rng.integers(-10**6, -10**6 + span, size=n_samples),      # far from zero
        rng.integers(0, span + 5, size=n_samples),                # beyond the table: sorted
        np.where(np.arange(n_samples) == 0, 0.5, rng.integers(0, 9, size=n_samples)),
        rng.choice([-3e9, 0.0, 3e9], size=n_samples),             # whole, out of int range
    ]).astype(np.float32)
    ranks, values, offsets = rank_features(X)[:3]
    for feature in range(X.shape[1]):
        distinct, inverse = np.unique(X[:, feature], return_inverse=True)
        np.testing.assert_array_equal(ranks[feature], inverse)
        np.testing.assert_array_equal(values[offsets[feature]:offsets[feature + 1]], distinct)
    assert not np.signbit(values[values == 0.0]).any()


def test_rare_rows_list_the_rows_without_a_features_common_value_both_ways():
    from fasttree._features import NO_COMMON

    rng = np.random.default_rng(0)
    X = np.zeros((400, 5), dtype=np.float32)
    X[rng.random(400) < 0.05, 0] = 1.0                  # sparse, binary
    X[rng.random(400) < 0.1, 1] = rng.normal(size=400)[:1]  # one rare value
    X[:, 2] = rng.normal(size=400)                      # continuous: no common value
    X[:, 3] = rng.integers(0, 2, 400)                   # balanced: no common value
    X[:, 4] = np.nan                                    # mostly missing: never common
    X[:5, 4] = 2.0
    ranked = rank_features(X)
    for feature in range(5):
        column = ranked.ranks[feature]
        listed = ranked.rare_rows[ranked.rare_offsets[feature]:ranked.rare_offsets[feature + 1]]
        if feature >= 2:
            assert ranked.common_rank[feature] == NO_COMMON and listed.size == 0
            continue
        common = np.bincount(column).argmax()
        assert ranked.common_rank[feature] == common
        np.testing.assert_array_equal(listed, np.flatnonzero(column != common))
        # The lists carry the rows' ranks.
        np.testing.assert_array_equal(
            ranked.rare_ranks[ranked.rare_offsets[feature]:ranked.rare_offsets[feature + 1]],
            column[listed])
    # Row by row, the same (feature, row, rank) triples.
    triples = {(feature, int(row), int(ranked.ranks[feature, row]))
               for feature in range(5) for row in ranked.rare_rows[
                   ranked.rare_offsets[feature]:ranked.rare_offsets[feature + 1]]}
    by_row = {(int(feature), row, int(rank)) for row in range(400)
              for feature, rank in zip(*(entries[ranked.rare_feature_offsets[row]:
                                                 ranked.rare_feature_offsets[row + 1]]
                                         for entries in (ranked.rare_features,
                                                         ranked.rare_feature_ranks)))}
    assert triples == by_row


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (1, 1), (63, 5), (64, 5), (65, 5), (200, 41)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_feature_columns_transpose_to_float32_with_missing_values_as_infinity(shape, dtype):
    rng = np.random.default_rng(sum(shape))
    X = rng.normal(size=shape).astype(dtype)
    X[rng.random(shape) < 0.1] = np.nan
    expected = np.where(np.isnan(X.T), np.inf, X.T).astype(np.float32)
    columns = feature_columns(np.asfortranarray(X))
    assert columns.dtype == np.float32 and columns.flags.c_contiguous
    np.testing.assert_array_equal(columns, expected)
