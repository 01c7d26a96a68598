"""The bins of the histogram splitter (``fasttree._binning``) against the
pure-Python reference (``fasttree.reference.binning``), and the rules the
bins follow."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fasttree._binning import bin_columns, bin_features, binned_features, quantile_bins
from fasttree._features import rank_features
from fasttree.reference import bin_column, bin_matrix
from synthetic import spread_columns


def test_a_feature_of_at_most_max_bins_values_keeps_a_bin_per_value():
    np.testing.assert_array_equal(quantile_bins([3, 1, 7, 2], 4), [0, 1, 2, 3])
    np.testing.assert_array_equal(quantile_bins([5], 2), [0])


@pytest.mark.parametrize("n_values, max_bins", [(1000, 255), (1000, 7), (300, 256), (17, 16)])
def test_values_of_one_row_each_fill_bins_of_nearly_equal_rows(n_values, max_bins):
    bins = quantile_bins(np.ones(n_values, dtype=np.int64), max_bins)
    sizes = np.bincount(bins)
    assert sizes.size == max_bins
    assert sizes.max() - sizes.min() <= 1


@settings(max_examples=200, deadline=None)
@given(counts=st.lists(st.integers(1, 50), min_size=1, max_size=120),
       max_bins=st.integers(2, 40))
def test_quantile_bins_are_the_references_ascending_and_at_most_max_bins(counts, max_bins):
    bins = quantile_bins(np.array(counts), max_bins)
    column = np.repeat(np.arange(len(counts), dtype=np.float64), counts)
    reference = bin_column(column, max_bins)
    np.testing.assert_array_equal(bins[np.repeat(np.arange(len(counts)), counts)],
                                  reference.codes)
    assert bins[0] == 0 and np.all(np.diff(bins.astype(np.int64)) >= 0)
    assert np.all(np.diff(bins.astype(np.int64)) <= 1)  # numbered without gaps
    assert bins[-1] + 1 <= max_bins


@settings(max_examples=200, deadline=None)
@given(counts=st.lists(st.integers(1, 30), min_size=3, max_size=80),
       heavy=st.integers(0, 79), max_bins=st.integers(3, 30))
def test_a_value_holding_two_bins_worth_of_rows_has_a_bin_of_its_own(counts, heavy, max_bins):
    heavy %= len(counts)
    others = sum(counts) - counts[heavy]
    # At least 2 / max_bins of all rows, its own included.
    counts[heavy] = max(counts[heavy], -(-2 * others // (max_bins - 2)))
    bins = quantile_bins(np.array(counts), max_bins)
    assert np.count_nonzero(bins == bins[heavy]) == 1


def random_matrix(seed, missing_share=0.1):
    """``spread_columns`` and a column of three categories, float32."""
    X = spread_columns(300, seed, missing_share)
    categories = np.random.default_rng(seed).integers(0, 3, 300).astype(float)
    return np.column_stack([X, categories]).astype(np.float32)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("max_bins", [2, 5, 32, 255])
def test_bin_features_bins_as_the_reference_does(seed, max_bins):
    X = random_matrix(seed)
    categories = np.array([0, 0, 0, 0, 3])  # the last column is categorical
    binned = bin_features(rank_features(X), max_bins, categories)
    codes, columns = bin_matrix(X, max_bins, categorical={4})
    for feature, column in enumerate(columns):
        start, end = binned.value_offsets[feature], binned.value_offsets[feature + 1]
        if column is None:
            # Categories keep their ranks: the exact ones.
            exact = rank_features(X)
            np.testing.assert_array_equal(binned.ranks[feature], exact.ranks[feature])
            np.testing.assert_array_equal(binned.values[start:end],
                                          exact.values[exact.value_offsets[feature]:
                                                       exact.value_offsets[feature + 1]])
            continue
        np.testing.assert_array_equal(binned.ranks[feature], column.codes)
        known = column.n_known_bins
        np.testing.assert_array_equal(binned.values[start:start + known], column.lower)
        np.testing.assert_array_equal(binned.upper_values[start:start + known], column.upper)
        # Missing values keep their bin, last, standing for +inf.
        assert end - start == known + int(np.isnan(X[:, feature]).any())
        assert np.all(binned.values[start + known:end] == np.inf)
        narrow = end - start <= 256
        if narrow:
            np.testing.assert_array_equal(binned.narrow_ranks[feature], column.codes)


def test_a_sparse_matrix_bins_as_its_dense_twin():
    from scipy import sparse

    X = random_matrix(1, missing_share=0.0)
    X[:, 2][X[:, 2] < 0.5] = 0.0
    dense = bin_features(rank_features(X), 8)
    from_sparse = bin_features(rank_features(sparse.csc_matrix(X)), 8)
    for name in ("ranks", "values", "upper_values", "value_offsets", "narrow_ranks",
                 "common_rank", "rare_rows", "rare_ranks"):
        np.testing.assert_array_equal(getattr(from_sparse, name), getattr(dense, name))


RANKED_FIELDS = ("values", "upper_values", "value_offsets", "narrow_ranks", "common_rank",
                 "rare_offsets", "rare_rows", "rare_ranks", "rare_feature_offsets",
                 "rare_features", "rare_feature_ranks")


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("max_bins", [2, 5, 32, 255])
def test_binning_the_columns_makes_the_bins_of_the_ranks_in_bytes_alone(seed, max_bins, order):
    X = np.asarray(random_matrix(seed), order=order)
    X[: X.shape[0] * 7 // 8, 3] = 1.5  # a common value, whose rare rows are listed
    categories = np.array([0, 0, 0, 0, 3])
    from_columns = bin_columns(X, max_bins, categories, n_threads=2)
    from_ranks = bin_features(rank_features(X), max_bins, categories)
    assert from_columns.ranks.shape == (X.shape[1], 0)  # no four-byte ranks
    for name in RANKED_FIELDS:
        np.testing.assert_array_equal(getattr(from_columns, name), getattr(from_ranks, name),
                                      err_msg=name)


def test_binning_the_columns_of_a_memory_map_reads_it_in_place(tmp_path):
    X = random_matrix(2)
    np.save(tmp_path / "X.npy", X.astype(np.float32))
    mapped = np.load(tmp_path / "X.npy", mmap_mode="r")
    from_map = bin_columns(mapped, 16)
    in_memory = bin_columns(X.astype(np.float32), 16)
    for name in RANKED_FIELDS:
        np.testing.assert_array_equal(getattr(from_map, name), getattr(in_memory, name))


def test_a_categorical_feature_of_more_categories_than_a_byte_holds_is_binned_from_ranks():
    rng = np.random.default_rng(0)
    X = np.column_stack([np.arange(2000) % 300, rng.normal(size=2000)]).astype(np.float32)
    categories = np.array([300, 0])
    assert bin_columns(X, 8, categories) is None
    binned = binned_features(X, 8, categories)
    np.testing.assert_array_equal(binned.ranks[0], rank_features(X).ranks[0])
    assert binned.value_offsets[1] - binned.value_offsets[0] == 300


@pytest.mark.parametrize("max_bins", [1, 65536])
def test_bin_columns_refuses_bins_two_bytes_do_not_number(max_bins):
    # 65535 bins and the missing values' own: codes 0 .. 65535.
    with pytest.raises(ValueError, match="at most 65535 bins"):
        bin_columns(random_matrix(0), max_bins)
