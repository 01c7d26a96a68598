"""The quantile forest kernels (``_quantiles.pyx``) against the pure-Python
oracle ``fasttree.reference.quantile_forest``: random leaf lists, exact
agreement (the same arithmetic in the same order)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fasttree._quantiles import forest_means, forest_quantile_ranks, forest_quantiles
from fasttree.reference.quantile_forest import (INTERPOLATIONS, RANK_KINDS, leaf_entries,
                                                quantile_forest_means,
                                                quantile_forest_predict,
                                                quantile_forest_ranks)


def kernel_lists(leaves, counts, y, weights, n_leaves):
    """The kernels' arrays for trees whose training rows reach ``leaves`` and
    were drawn ``counts`` times: per leaf (tree after tree) the ranks of its
    entries, ascending; leaf numbers offset by ``n_leaves`` per tree."""
    sorter = np.argsort(y, kind="stable")
    rank_of_row = np.empty(len(y), dtype=np.int64)
    rank_of_row[sorter] = np.arange(len(y))
    usable = np.ones(len(y), bool) if weights is None else weights > 0
    entries, sizes = [], []
    for tree_leaves, tree_counts in zip(leaves, counts):
        for leaf in range(n_leaves):
            rows = [row for row in range(len(y)) if tree_leaves[row] == leaf and usable[row]
                    for _ in range(tree_counts[row])]
            ranks = sorted(rank_of_row[rows].tolist())
            entries.extend(ranks)
            sizes.append(len(ranks))
    starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    rank_weights = np.empty(0) if weights is None else np.ascontiguousarray(
        np.asarray(weights, dtype=np.float64)[sorter])
    return (starts, np.array(entries, dtype=np.uint32), np.ascontiguousarray(y[sorter]),
            rank_weights)


@st.composite
def forests(draw):
    """Random trees' leaves and draws, targets with ties, weights or none, and
    rows to predict (their leaves; -1 where a tree does not count)."""
    n_samples = draw(st.integers(1, 12))
    n_trees = draw(st.integers(1, 5))
    n_leaves = draw(st.integers(1, 4))
    ints = st.integers
    y = np.array(draw(st.lists(st.sampled_from([-2.5, 0.0, 0.1, 1.0, 3.0, 7.25, 1e6]),
                               min_size=n_samples, max_size=n_samples)))
    leaves = np.array(draw(st.lists(st.lists(ints(0, n_leaves - 1), min_size=n_samples,
                                             max_size=n_samples),
                                    min_size=n_trees, max_size=n_trees)))
    counts = np.array(draw(st.lists(st.lists(ints(0, 3), min_size=n_samples,
                                             max_size=n_samples),
                                    min_size=n_trees, max_size=n_trees)))
    weights = None
    if draw(st.booleans()):
        weights = np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.3]),
                                         min_size=n_samples, max_size=n_samples)))
    n_rows = draw(st.integers(1, 6))
    row_leaves = np.array(draw(st.lists(st.lists(ints(-1, n_leaves - 1), min_size=n_trees,
                                                 max_size=n_trees),
                                        min_size=n_rows, max_size=n_rows)))
    return y, leaves, counts, weights, n_leaves, row_leaves


def numbered(row_leaves, n_leaves):
    """Rows' leaves as the kernels take them: numbered across the trees, float64."""
    offsets = np.arange(row_leaves.shape[1]) * n_leaves
    return np.ascontiguousarray(np.where(row_leaves >= 0, row_leaves + offsets, -1),
                                dtype=np.float64)


@settings(max_examples=300, deadline=None)
@given(forests(), st.lists(st.sampled_from([0.0, 0.05, 0.1, 0.25, 0.5, 0.5, 0.73, 0.9, 1.0]),
                           min_size=1, max_size=4),
       st.sampled_from(INTERPOLATIONS), st.booleans(), st.booleans())
def test_quantiles_equal_the_oracle_exactly(forest, quantiles, interpolation, tree_weighted,
                                            pooled):
    y, leaves, counts, weights, n_leaves, row_leaves = forest
    arrays = kernel_lists(leaves, counts, y, weights, n_leaves)
    ascending = np.sort(quantiles)
    out = np.empty((len(row_leaves), len(quantiles)))
    forest_quantiles(*arrays, tree_weighted, pooled, np.ascontiguousarray(ascending),
                     INTERPOLATIONS.index(interpolation), numbered(row_leaves, n_leaves), out)
    expected = quantile_forest_predict(leaf_entries(leaves, counts, y, weights), row_leaves,
                                       ascending, interpolation, tree_weighted, pooled)
    np.testing.assert_array_equal(out, expected)


@settings(max_examples=200, deadline=None)
@given(forests(), st.booleans())
def test_means_equal_the_oracle_exactly(forest, tree_weighted):
    y, leaves, counts, weights, n_leaves, row_leaves = forest
    out = np.empty((len(row_leaves), 1))
    forest_means(*kernel_lists(leaves, counts, y, weights, n_leaves), tree_weighted,
                 numbered(row_leaves, n_leaves), out)
    np.testing.assert_array_equal(
        out[:, 0], quantile_forest_means(leaf_entries(leaves, counts, y, weights), row_leaves,
                                         tree_weighted))


@settings(max_examples=200, deadline=None)
@given(forests(), st.sampled_from(RANK_KINDS), st.booleans(), st.data())
def test_quantile_ranks_equal_the_oracle_exactly(forest, kind, tree_weighted, data):
    y, leaves, counts, weights, n_leaves, row_leaves = forest
    values = np.array(data.draw(st.lists(st.sampled_from([-3.0, 0.0, 0.1, 1.0, 5.0, 1e7]),
                                         min_size=len(row_leaves), max_size=len(row_leaves))))
    out = values.reshape(-1, 1).copy()
    forest_quantile_ranks(*kernel_lists(leaves, counts, y, weights, n_leaves), tree_weighted,
                          RANK_KINDS.index(kind), numbered(row_leaves, n_leaves), out)
    np.testing.assert_array_equal(
        out[:, 0], quantile_forest_ranks(leaf_entries(leaves, counts, y, weights), row_leaves,
                                         values, kind, tree_weighted))


def test_entries_weighed_alike_give_numpys_quantiles_of_the_pooled_targets():
    # tree_weighted=False pools every leaf's targets, each weighing 1:
    # numpy's quantiles of the pooled list, whatever the leaves' sizes.
    rng = np.random.default_rng(1)
    y = np.sort(rng.normal(size=12))
    starts = np.array([0, 2, 7, 12], dtype=np.int64)
    entries = np.concatenate([np.sort(part) for part in np.split(rng.permutation(12), [2, 7])])
    row_leaves = np.array([[0.0, 1.0, 2.0]])
    quantiles = np.array([0.0, 0.1, 0.5, 0.77, 1.0])
    out = np.empty((1, 5))
    forest_quantiles(starts, entries.astype(np.uint32), y, np.empty(0), False, True,
                     quantiles, 0, row_leaves, out)
    np.testing.assert_allclose(out[0], np.quantile(y, quantiles), rtol=1e-12, atol=1e-12)


def test_equal_weights_give_numpys_quantiles():
    # One entry per tree and leaf: the row's quantiles are np.quantile's of
    # its trees' values, for every method the two share.
    rng = np.random.default_rng(0)
    n_trees = 9
    y = np.sort(rng.normal(size=n_trees))
    starts = np.arange(n_trees + 1, dtype=np.int64)
    entries = rng.permutation(n_trees).astype(np.uint32)
    row_leaves = np.arange(n_trees, dtype=np.float64).reshape(1, -1)
    quantiles = np.array([0.0, 0.1, 0.33, 0.5, 0.8, 0.95, 1.0])
    for interpolation in ("linear", "lower", "higher", "midpoint"):
        out = np.empty((1, len(quantiles)))
        forest_quantiles(starts, entries, y, np.empty(0), True, True, quantiles,
                         INTERPOLATIONS.index(interpolation), row_leaves, out)
        np.testing.assert_allclose(out[0], np.quantile(y, quantiles, method=interpolation),
                                   rtol=1e-12, atol=1e-12)


def test_a_row_no_tree_counts_for_is_nan():
    starts = np.array([0, 1, 2], dtype=np.int64)
    entries = np.array([0, 1], dtype=np.uint32)
    y = np.array([1.0, 2.0])
    row_leaves = np.array([[-1.0, -1.0], [0.0, -1.0]])
    out = np.empty((2, 2))
    forest_quantiles(starts, entries, y, np.empty(0), True, True, np.array([0.1, 0.9]), 0,
                     row_leaves, out)
    assert np.isnan(out[0]).all()
    np.testing.assert_array_equal(out[1], [1.0, 1.0])


def test_the_kernels_refuse_lists_that_disagree():
    y = np.array([1.0, 2.0])
    out = np.empty((1, 1))
    with pytest.raises(ValueError, match="leaf lists disagree"):
        forest_means(np.array([0, 3], dtype=np.int64), np.array([0, 1], dtype=np.uint32), y,
                     np.empty(0), True, np.zeros((1, 1)), out)
    with pytest.raises(ValueError, match="rank weights"):
        forest_means(np.array([0, 2], dtype=np.int64), np.array([0, 1], dtype=np.uint32), y,
                     np.ones(3), True, np.zeros((1, 1)), out)
