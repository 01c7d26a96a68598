"""The prediction kernels of fasttree._predict, with the walk layout they read
(fasttree._walk_layout): rows walked eight at a time, and their checks."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fasttree import DecisionTreeClassifier
from fasttree._predict import apply_rows, predict_leaf_outputs
from fasttree._tree_state import threshold_flags
from fasttree._tree import (FLAG_MISSING_LEFT, FLAG_SUBSET, FLAG_THRESHOLD, NODE_DTYPE)
from fasttree._walk_layout import MAX_WALK_FEATURES, WALK_DTYPE, WalkTests, walk_layout
from synthetic import classification_data

WALK_NODE_BYTES = WALK_DTYPE.itemsize


def random_nodes(rng, n_splits, n_features):
    """A random tree of thresholds numbered as a best-first builder numbers it:
    a leaf picked at random is split and its children appended, so numbering
    is not preorder."""
    nodes = np.zeros(2 * n_splits + 1, dtype=NODE_DTYPE)
    nodes["left_child"] = nodes["right_child"] = -1
    nodes["feature"] = -2
    leaves = [0]
    for split in range(n_splits):
        parent = leaves.pop(rng.integers(len(leaves)))
        left, right = 2 * split + 1, 2 * split + 2
        nodes[parent] = (left, right, rng.integers(n_features),
                         np.float32(rng.choice([-1.0, -0.0, 0.0, 0.5, 1.0])))
        leaves += [left, right]
    return nodes


def random_tests(rng, nodes, n_codes=5):
    """Random node flags for ``nodes``: a random missing-value direction
    everywhere, and about half the inner nodes turned into tests of a random
    set of the codes 0 .. n_codes - 1. Returns (nodes, flags, category_bits)."""
    nodes = nodes.copy()
    inner = nodes["left_child"] != -1
    flags = np.where(inner, FLAG_THRESHOLD, 0).astype(np.uint8)
    flags[inner & (rng.random(len(nodes)) < 0.5)] |= FLAG_MISSING_LEFT
    words = []
    for node in np.flatnonzero(inner & (rng.random(len(nodes)) < 0.5)):
        members = rng.random(n_codes) < 0.5
        bits = np.packbits(np.r_[members, np.zeros(-n_codes % 32, bool)],
                           bitorder="little").view("<u4")
        nodes["threshold"][node:node + 1].view(np.int32)[0] = len(words)
        flags[node] = (flags[node] & FLAG_MISSING_LEFT) | FLAG_SUBSET
        words += [n_codes, *bits.tolist()]
    return nodes, flags, np.array(words, dtype=np.uint32)


def walk_of(nodes, n_features, flags=None, category_bits=None):
    """What the walk kernels take before the rows, for a tree of ``nodes``."""
    flags = threshold_flags(nodes) if flags is None else flags
    category_bits = np.zeros(0, np.uint32) if category_bits is None else category_bits
    walk = walk_layout(nodes, flags, category_bits, n_features)
    return WalkTests(walk, np.ascontiguousarray(flags[walk["node"]]), category_bits, None)


def leaf_by_reading_nodes(nodes, row, flags=None, category_bits=None):
    """The test's own walk: x <= threshold goes left; with flags, NaN goes as
    the flags say, and a subset node sends its set's codes left (any other
    value goes with the missing ones)."""
    node = 0
    while nodes["left_child"][node] != -1:
        value = row[nodes["feature"][node]]
        node_flags = 0 if flags is None else flags[node]
        if np.isnan(value):
            left = bool(node_flags & FLAG_MISSING_LEFT)
        elif node_flags & 3 == FLAG_SUBSET:
            side = int(nodes["threshold"][node:node + 1].view(np.int32)[0])
            n_codes = int(category_bits[side])
            if value >= 0 and value < n_codes and value == int(value):
                code = int(value)
                left = bool(category_bits[side + 1 + code // 32] >> (code % 32) & 1)
            else:
                left = bool(node_flags & FLAG_MISSING_LEFT)
        else:
            left = value <= nodes["threshold"][node]
        node = nodes["left_child"][node] if left else nodes["right_child"][node]
    return node


def walk_children(walk, position):
    """Left and right child positions of an inner walk node."""
    return position + 1, position + 1 + walk["right_jump"][position] // WALK_NODE_BYTES


@given(seed=st.integers(0, 2**32 - 1), n_splits=st.integers(0, 40),
       n_rows=st.integers(1, 40), n_features=st.integers(1, 6))
@settings(max_examples=300, deadline=None)
def test_apply_rows_reaches_the_leaf_a_plain_walk_reaches(seed, n_splits, n_rows,
                                                          n_features):
    rng = np.random.default_rng(seed)
    nodes = random_nodes(rng, n_splits, n_features)
    # Values on the thresholds (ties go left), both zeros and values between.
    X = rng.choice(np.float32([-1.0, -0.0, 0.0, 0.25, 0.5, 1.0, 2.0, -3.0]),
                   size=(n_rows, n_features))
    leaves = np.full(n_rows, -7, dtype=np.intp)
    assert apply_rows(walk_of(nodes, n_features), X, leaves) == 0
    np.testing.assert_array_equal(leaves, [leaf_by_reading_nodes(nodes, row) for row in X])


@given(seed=st.integers(0, 2**32 - 1), n_splits=st.integers(0, 40),
       n_rows=st.integers(1, 40), n_features=st.integers(1, 6))
@settings(max_examples=300, deadline=None)
def test_rows_with_nan_and_trees_with_category_sets_reach_the_leaf_a_plain_walk_reaches(
        seed, n_splits, n_rows, n_features):
    rng = np.random.default_rng(seed)
    nodes, flags, category_bits = random_tests(rng, random_nodes(rng, n_splits, n_features))
    # Codes in and beyond the sets, values between codes, and NaN.
    X = rng.choice(np.float32([-1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 7.0, 0.5, np.nan]),
                   size=(n_rows, n_features))
    tests = walk_of(nodes, n_features, flags, category_bits)
    expected = [leaf_by_reading_nodes(nodes, row, flags, category_bits) for row in X]
    for rows in (X, np.asfortranarray(X), X.astype(np.float64)):
        leaves = np.full(n_rows, -7, dtype=np.intp)
        assert apply_rows(tests, rows, leaves) == 0
        np.testing.assert_array_equal(leaves, expected)


@given(seed=st.integers(0, 2**32 - 1), n_splits=st.integers(0, 40))
@settings(max_examples=100, deadline=None)
def test_walk_layout_is_the_preorder_of_the_tree(seed, n_splits):
    rng = np.random.default_rng(seed)
    nodes = random_nodes(rng, n_splits, 3)
    walk = walk_of(nodes, 3).walk
    assert walk.dtype == WALK_DTYPE and walk.shape == nodes.shape
    np.testing.assert_array_equal(np.sort(walk["node"]), np.arange(len(nodes)))
    for position, node in enumerate(walk["node"]):
        if nodes["left_child"][node] == -1:
            assert walk["threshold"][position] == -np.inf
            assert walk["right_jump"][position] == -WALK_NODE_BYTES
            continue
        left, right = walk_children(walk, position)
        assert walk["node"][left] == nodes["left_child"][node]
        assert walk["node"][right] == nodes["right_child"][node]
        assert walk["column"][position] == nodes["feature"][node] * 4  # bytes
        assert walk["threshold"][position] == nodes["threshold"][node]


def test_rows_checked_and_walked_in_several_parts_reach_their_leaves():
    # Rows are checked for NaN 256 at a time before they are walked; 1,003
    # rows take four parts and a last, partial block of three rows. A part
    # with NaN takes the general walk, the others the fast one.
    rng = np.random.default_rng(4)
    nodes = random_nodes(rng, 60, 30)
    flags = threshold_flags(nodes)
    flags[rng.random(len(nodes)) < 0.5] |= FLAG_MISSING_LEFT
    flags[nodes["left_child"] == -1] = 0
    X = rng.choice(np.float32([-1.0, 0.0, 0.5, 1.0, 2.0]), size=(1003, 30))
    leaves = np.empty(1003, dtype=np.intp)
    tests = walk_of(nodes, 30, flags)
    assert apply_rows(tests, X, leaves) == 0
    np.testing.assert_array_equal(leaves, [leaf_by_reading_nodes(nodes, row) for row in X])
    X[[3, 900, 1001], 7] = np.nan  # in the first and a later part, and the last block
    assert apply_rows(tests, X, leaves) == 0
    np.testing.assert_array_equal(leaves, [leaf_by_reading_nodes(nodes, row, flags)
                                           for row in X])
    X[950, 2] = np.inf
    assert apply_rows(tests, X, leaves) == 1


def test_a_depth_first_tree_is_already_in_preorder():
    X, y = classification_data(n_samples=400)
    tree = DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    np.testing.assert_array_equal(tree.walk["node"], np.arange(tree.node_count))


def test_a_best_first_tree_is_renumbered_and_predicts_as_its_arrays_say():
    X, y = classification_data(n_samples=400)
    estimator = DecisionTreeClassifier(max_leaf_nodes=30, random_state=0).fit(X, y)
    tree = estimator.tree_
    assert not np.array_equal(tree.walk["node"], np.arange(tree.node_count))
    X_new = np.random.default_rng(1).normal(size=(101, X.shape[1])).astype(np.float32)
    expected = [leaf_by_reading_nodes(tree.nodes, row) for row in X_new]
    np.testing.assert_array_equal(estimator.apply(X_new), expected)


def test_a_single_leaf_tree_sends_every_row_to_the_root():
    nodes = np.array([(-1, -1, -2, -2.0)], dtype=NODE_DTYPE)
    X = np.random.default_rng(0).normal(size=(13, 4)).astype(np.float32)
    leaves = np.full(13, -1, dtype=np.intp)
    assert apply_rows(walk_of(nodes, 4), X, leaves) == 0
    assert (leaves == 0).all()


@pytest.mark.parametrize("bad_value", [np.inf, -np.inf])
@pytest.mark.parametrize("bad_row", [0, 7, 8, 12])
@pytest.mark.parametrize("with_nan", [False, True])
def test_infinite_values_in_any_row_are_reported(bad_value, bad_row, with_nan):
    nodes = random_nodes(np.random.default_rng(0), 5, 3)
    X = np.zeros((13, 3), dtype=np.float32)  # one full block and a partial one
    X[bad_row, 2] = bad_value
    if with_nan:  # the general walk checks too
        X[(bad_row + 5) % 13, 0] = np.nan
    tests = walk_of(nodes, 3)
    for rows in (X, np.asfortranarray(X), X.astype(np.float64)):
        assert apply_rows(tests, rows, np.empty(13, dtype=np.intp)) == 1
        assert predict_leaf_outputs(tests, np.zeros(len(nodes)), rows, np.empty(13)) == 1


def test_predict_leaf_outputs_reads_the_output_of_each_rows_leaf():
    rng = np.random.default_rng(3)
    nodes = random_nodes(rng, 20, 4)
    X = rng.normal(size=(30, 4)).astype(np.float32)
    node_output = rng.normal(size=len(nodes))
    out = np.empty(30)
    assert predict_leaf_outputs(walk_of(nodes, 4), node_output, X, out) == 0
    np.testing.assert_array_equal(out, node_output[[leaf_by_reading_nodes(nodes, row)
                                                    for row in X]])


def test_a_node_reached_twice_is_refused():
    nodes = random_nodes(np.random.default_rng(0), 3, 2)
    inner = np.flatnonzero(nodes["left_child"] != -1)
    nodes["right_child"][inner[-1]] = nodes["left_child"][inner[-1]]
    with pytest.raises(ValueError, match="reached twice"):
        walk_of(nodes, 2)


def test_a_node_not_reached_from_the_root_is_refused():
    nodes = np.zeros(4, dtype=NODE_DTYPE)
    nodes[0] = (1, 2, 0, 0.5)
    nodes[1:] = (-1, -1, -2, -2.0)
    with pytest.raises(ValueError, match="not reached from the root"):
        walk_of(nodes, 1)


@pytest.mark.parametrize("field, value, message", [
    ("right_child", 9, "child index is out of range"),
    ("left_child", -5, "child index is out of range"),
    ("feature", 2, "split feature is out of range"),
    ("feature", -1, "split feature is out of range")])
def test_links_and_features_that_would_read_out_of_bounds_are_refused(field, value,
                                                                       message):
    nodes = random_nodes(np.random.default_rng(0), 1, 2)
    nodes[field][0] = value
    with pytest.raises(ValueError, match=message):
        walk_of(nodes, 2)


def test_features_beyond_the_byte_offsets_reach_are_refused():
    nodes = np.array([(-1, -1, -2, -2.0)], dtype=NODE_DTYPE)
    with pytest.raises(ValueError, match="too many to predict with"):
        walk_of(nodes, MAX_WALK_FEATURES + 1)


def test_nodes_of_another_layout_are_refused():
    with pytest.raises(ValueError, match="unexpected layout"):
        walk_layout(np.zeros(3, dtype=np.float64), np.zeros(3, np.uint8),
                    np.zeros(0, np.uint32), 2)


@pytest.mark.parametrize("change, message", [
    ("leaf kind at an inner node", "kind does not match"),
    ("inner kind at a leaf", "kind does not match"),
    ("multiway kind without a branch table", "branch table"),
    ("unknown bit", "unknown flags"),
    ("set beyond the bits", "category set is out of range"),
    ("set longer than the bits", "category set is out of range"),
    ("too few flags", "flags do not match")])
def test_flags_that_would_misroute_or_read_out_of_bounds_are_refused(change, message):
    rng = np.random.default_rng(1)
    nodes, flags, category_bits = random_tests(rng, random_nodes(rng, 6, 2), n_codes=40)
    subset = np.flatnonzero(flags & 3 == FLAG_SUBSET)[0]
    inner = np.flatnonzero(flags & 3 == FLAG_THRESHOLD)[0]
    leaf = np.flatnonzero(nodes["left_child"] == -1)[0]
    if change == "leaf kind at an inner node":
        flags[inner] = 0
    elif change == "inner kind at a leaf":
        flags[leaf] = FLAG_THRESHOLD
    elif change == "multiway kind without a branch table":
        flags[inner] = 3
    elif change == "unknown bit":
        flags[inner] |= 16
    elif change == "set beyond the bits":
        nodes["threshold"][subset:subset + 1].view(np.int32)[0] = len(category_bits)
    elif change == "set longer than the bits":
        category_bits = category_bits.copy()
        category_bits[nodes["threshold"][subset:subset + 1].view(np.int32)[0]] = 10**6
    else:
        flags = flags[:-1]
    with pytest.raises(ValueError, match=message):
        walk_of(nodes, 2, flags, category_bits)


def chain_nodes(n_features, length):
    """A tree that is one long chain: node i tests feature i % n_features at
    0.5, its right child a leaf, its left child the next test."""
    nodes = np.zeros(2 * length + 1, dtype=NODE_DTYPE)
    nodes["left_child"] = nodes["right_child"] = -1
    nodes["feature"] = -2
    for depth in range(length):
        test = 2 * depth
        nodes[test] = (test + 2, test + 1, depth % n_features, 0.5)
    return nodes


@given(seed=st.integers(0, 2**32 - 1), n_splits=st.integers(0, 60),
       n_rows=st.integers(1, 600), n_features=st.integers(1, 9), chain=st.booleans(),
       with_nan=st.booleans())
@settings(max_examples=150, deadline=None)
def test_refilled_lanes_reach_the_leaves_lockstep_lanes_reach(seed, n_splits, n_rows,
                                                              n_features, chain, with_nan):
    # Every layout the kernels read (in place, interleaved, copied rows,
    # sparse rows), over several checked parts, rows of every path length.
    import scipy.sparse

    from fasttree._validation import csr_for_walk

    rng = np.random.default_rng(seed)
    nodes = chain_nodes(n_features, n_splits) if chain else random_nodes(rng, n_splits,
                                                                         n_features)
    flags = threshold_flags(nodes)
    flags[(rng.random(len(nodes)) < 0.5) & (flags != 0)] |= FLAG_MISSING_LEFT
    X = rng.choice(np.float32([-1.0, 0.0, 0.0, 0.0, 0.5, 1.0]), size=(n_rows, n_features))
    if with_nan:
        X[rng.integers(n_rows), rng.integers(n_features)] = np.nan
    tests = walk_of(nodes, n_features, flags)
    expected = [leaf_by_reading_nodes(nodes, row, flags) for row in X]
    layouts = [X, np.asfortranarray(X), X.astype(np.float64)]
    if not with_nan:
        layouts.append(csr_for_walk(scipy.sparse.csr_matrix(X)))
    for rows in layouts:
        for refill in (False, True):
            leaves = np.full(n_rows, -7, dtype=np.intp)
            assert apply_rows(tests, rows, leaves, refill=refill) == 0
            np.testing.assert_array_equal(leaves, expected)
    X[rng.integers(n_rows), rng.integers(n_features)] = np.inf
    assert apply_rows(tests, X, np.empty(n_rows, dtype=np.intp), refill=True) == 1


@pytest.mark.parametrize("layout", ["float64", "float32 row slice", "float64 row slice"])
@pytest.mark.parametrize("refill", [False, True])
def test_a_finite_last_chunk_after_chunks_of_nan_reaches_its_leaves(layout, refill):
    # Rows that are copied before the walk go through one buffer, 256 rows
    # at a time for one feature: two chunks of NaN (the general walk), then
    # a last chunk of three finite rows, whose block of eight lanes also
    # walks the five buffer rows after them. Those once held NaN, on which a
    # lockstep lane stepped off its leaf and past the end of the walk.
    nodes = chain_nodes(1, 20)
    flags = threshold_flags(nodes)
    flags[(flags != 0) & (np.arange(len(flags)) % 3 == 0)] |= FLAG_MISSING_LEFT
    X = np.full((515, 1), np.nan)
    X[-3:, 0] = [-1.0, 0.5, 1.0]
    rows = {"float64": X,
            "float32 row slice": np.repeat(X.astype(np.float32), 2, axis=0)[::2],
            "float64 row slice": np.repeat(X, 2, axis=0)[::2]}[layout]
    assert not rows.flags.c_contiguous or rows.dtype == np.float64
    leaves = np.full(len(X), -7, dtype=np.intp)
    assert apply_rows(walk_of(nodes, 1, flags), rows, leaves, refill=refill) == 0
    np.testing.assert_array_equal(leaves, [leaf_by_reading_nodes(nodes, row, flags)
                                           for row in X])


def test_lockstep_spread_is_one_for_a_full_tree_and_large_for_a_chain_with_few_rows():
    # Three bits and their eight codes as classes: every leaf at depth 3.
    codes = np.repeat(np.arange(8), 5)
    X_bits = ((codes[:, None] >> np.arange(3)) & 1).astype(np.float32)
    full = DecisionTreeClassifier().fit(X_bits, codes).tree_
    assert full.max_depth == 3
    assert full.lockstep_spread() == pytest.approx(1.0)
    assert not full.refill_walk
    # Nine rows in ten at a leaf below the root (feature 20 set), the others
    # down a chain of 20 words (two rows a word, a class a word): the longest
    # of eight paths is far longer than the mean, as in trees of word presence.
    X_words = np.zeros((400, 21), dtype=np.float32)
    y_words = np.full(400, 20)
    X_words[40:, 20] = 1.0
    X_words[np.arange(40), np.arange(40) // 2] = 1.0
    y_words[:40] = np.arange(40) // 2
    chain = DecisionTreeClassifier(random_state=0).fit(X_words, y_words).tree_
    assert chain.max_depth >= 19
    assert chain.lockstep_spread() > 1.8
    assert chain.refill_walk
