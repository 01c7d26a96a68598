"""A forest's trees laid out back to back for prediction: every tree's walk
nodes, category sets and leaf values in one set of arrays, built once per
fit (``forest_layout``), which the forest kernel walks for all trees in one
pass (``_forest.tree_outputs``); and what prediction reads through it: sums
over the trees or each tree's values, the mixtures of trees with fractional
missing values, the leaves' votes for hard voting and the values a mean
sums."""

import math

import numpy as np

from ._forest import tree_outputs
from ._row_source import CSRRows
from ._walk_layout import WalkTests, forest_walk
from ._structure import dense_rows
from ._targets import class_index_per_output, predicted_classes
from ._threads import map_rows
from ._tree import FLAG_KIND_MASK, FLAG_MULTIWAY, FLAG_SUBSET
from ._validation import non_finite_error


def forest_layout(trees, sparse_leaf_values):
    """All trees' walk nodes and leaf values back to back.

    In this copy of the walk nodes a leaf's ``node`` counts the tree's
    leaves, so that only leaf values are stored: half the bytes that
    prediction streams through the cache. The values are dense rows for
    one value per leaf ("values"), else sparse rows ("rows": indptr,
    index, data), so that a pure leaf costs one addition, not one per class.

    Parameters
    ----------
    trees : list of Tree
    sparse_leaf_values : bool
        Whether the leaf values are laid out as sparse rows (class
        probabilities) or dense ones (means).

    Returns
    -------
    dict
        ``walk`` (WalkTests), ``fractional`` (whether a tree mixes leaves,
        see ``Tree.leaf_mixture``), ``starts`` (each tree's first walk
        node), ``output_starts`` (each tree's first leaf value row),
        ``refill`` (per tree, whether its walk refills, uint8) and ``rows``
        or ``values``. Prediction caches what it derives from them here too.
    """
    walk, starts, output_starts = forest_walk([tree.walk for tree in trees],
                                              [tree.nodes for tree in trees])
    flags, category_bits, node_position = forest_tests(walk, starts, trees)
    layout = {"walk": WalkTests(walk, flags, category_bits, node_position),
              "fractional": any(tree.fractional for tree in trees),
              "starts": starts,
              "output_starts": output_starts,
              "refill": np.array([tree.refill_walk for tree in trees], dtype=np.uint8)}
    if sparse_leaf_values:
        layout["rows"] = concatenated_rows([tree.leaf_value_rows for tree in trees])
    else:
        layout["values"] = np.ascontiguousarray(
            np.concatenate([tree.leaf_values for tree in trees]))
    return layout


def forest_tests(walk, starts, trees):
    """The walk flags, category sets and node positions of trees whose walks
    ``forest_walk`` put back to back into ``walk``: the sets one after
    another, the set starts in ``walk`` moved to match (in place); each
    tree's node positions count from its first walk node (None when no tree
    has multiway nodes)."""
    flags = np.concatenate([tree.walk_tests.walk_flags for tree in trees])
    category_bits = np.concatenate([tree.category_bits for tree in trees])
    bit_starts = np.cumsum([0] + [tree.category_bits.size for tree in trees[:-1]])
    kind = flags & FLAG_KIND_MASK
    tables = (kind == FLAG_SUBSET) | (kind == FLAG_MULTIWAY)
    if tables.any():
        sides = walk["threshold"].view(np.int32)
        sides[tables] += np.repeat(bit_starts, np.diff(starts))[tables].astype(np.int32)
    node_position = None
    if (kind == FLAG_MULTIWAY).any():
        node_position = np.concatenate([tree.node_position for tree in trees])
    return flags, category_bits, node_position


def concatenated_rows(parts):
    """Sparse rows (indptr, index, data) of several trees, one after another,
    as the forest kernel reads them (intp offsets, int32 columns)."""
    sizes = [part[0][-1] for part in parts]
    offsets = np.cumsum([0] + sizes[:-1])
    indptr = np.concatenate([parts[0][0][:1].astype(np.intp)] + [
        part[0][1:].astype(np.intp) + offset for part, offset in zip(parts, offsets)])
    index = np.concatenate([part[1] for part in parts]).astype(np.int32)
    data = np.ascontiguousarray(np.concatenate([part[2] for part in parts]))
    return indptr, index, data


def walked_outputs(layout, trees, X, leaf_output, out, per_tree, n_threads):
    """Per row, the sum over the trees of ``leaf_output`` at the row's
    leaves, into ``out`` (n_samples, n_outputs); with ``per_tree``, each
    tree's value into its column of ``out`` (n_samples, n_trees).

    Parameters
    ----------
    layout : dict
        From :func:`forest_layout`, of trees without fractional missing
        values (see :func:`mixed_outputs`).
    trees : list of Tree
    X : ndarray of float32 or CSRRows
    leaf_output : ndarray of float64, or sparse rows (indptr, index, data)
        One row per leaf of every tree, in the layout's order.
    out : ndarray of float64
    per_tree : bool
    n_threads : int

    Returns
    -------
    ndarray
        ``out``.
    """
    if map_rows(tree_outputs, X, out, layout["walk"], layout["starts"],
                layout["output_starts"], leaf_output, n_threads=n_threads,
                n_trees=len(trees), per_tree=per_tree,
                refill_trees=layout["refill"]):
        raise non_finite_error(X, allow_nan=True)
    return out


def mixed_outputs(layout, trees, X, leaf_output, out):
    """The sums of :func:`walked_outputs` for trees with fractional missing
    values: every tree's leaf outputs mixed by its ``leaf_mixture``. (Such
    trees are C4.5's, classification trees, whose forests never ask for each
    tree's values: those serve the regressors' medians.)"""
    if isinstance(X, CSRRows):
        X = X.toarray()
    if np.isinf(np.asarray(X, dtype=np.float32)).any():
        raise non_finite_error(X, allow_nan=True)
    X = np.asarray(X, dtype=np.float32)
    if isinstance(leaf_output, tuple):
        leaf_output = dense_rows(*leaf_output, out.shape[1])
    out[:] = 0.0
    for index, tree in enumerate(trees):
        rows, nodes, shares = tree.leaf_mixture(X)
        leaf_number = np.cumsum(tree.nodes["left_child"] == -1) - 1
        outputs = leaf_output[layout["output_starts"][index] + leaf_number[nodes]]
        np.add.at(out, rows, shares[:, None] * outputs)
    return out


def leaf_votes(layout, trees, n_columns, several_outputs, loss=None):
    """One-hot majority class of every leaf (the first on ties), or with a
    loss matrix its class of least expected cost, for hard voting.

    Parameters
    ----------
    layout : dict
        From :func:`forest_layout`, with sparse leaf rows; the votes are
        kept there.
    trees : list of Tree
    n_columns : int
        Values per leaf: the classes of every output.
    several_outputs : bool
        One vote per output: its class of the largest value.
    loss : ndarray of float64, optional
        A loss matrix (one output).

    Returns
    -------
    tuple
        The votes as sparse rows (indptr, index, data), one row per leaf.
    """
    if "votes" not in layout:
        if several_outputs:
            # One vote per output: its class of the largest value.
            values = dense_rows(*layout["rows"], n_columns)
            start = trees[0].output_start
            index = class_index_per_output(trees[0].split_outputs(values)) + start[:-1]
            n_leaves, n_outputs = index.shape
            layout["votes"] = (np.arange(0, n_leaves * n_outputs + 1, n_outputs,
                                         dtype=np.intp),
                               np.ascontiguousarray(index.reshape(-1), dtype=np.int32),
                               np.ones(n_leaves * n_outputs))
        elif loss is None:
            layout["votes"] = majority_votes(*layout["rows"])
        else:
            values = dense_rows(*layout["rows"], n_columns)
            n_leaves = values.shape[0]
            layout["votes"] = (np.arange(n_leaves + 1, dtype=np.intp),
                               predicted_classes(values, loss).astype(np.int32),
                               np.ones(n_leaves))
    return layout["votes"]


def majority_votes(indptr, index, data):
    """One vote per leaf for its largest value's column (the first on ties), as
    sparse rows; a leaf without values casts none."""
    n_leaves = indptr.shape[0] - 1
    voting = np.flatnonzero(np.diff(indptr) > 0)
    starts = indptr[voting]
    entry_leaf = np.repeat(np.arange(n_leaves), np.diff(indptr))
    largest = np.full(n_leaves, -np.inf)
    np.maximum.at(largest, entry_leaf, data)
    at_largest = np.flatnonzero(data == largest[entry_leaf])
    first = at_largest[np.searchsorted(at_largest, starts)]
    vote_indptr = np.zeros(n_leaves + 1, dtype=np.intp)
    vote_indptr[voting + 1] = 1
    np.cumsum(vote_indptr, out=vote_indptr)
    return vote_indptr, np.ascontiguousarray(index[first]), np.ones(voting.size)


def mean_values(layout, n_trees):
    """The leaf values whose sum over ``n_trees`` trees makes a forest's
    mean, and the binary exponent the mean is multiplied back by (0 for the
    values as they are); kept in ``layout`` (from :func:`forest_layout`,
    with dense leaf values)."""
    if "mean_exponent" not in layout:
        # Values near the float64 limit are summed over a power of two
        # at least the number of trees, so that their sum cannot
        # overflow; the mean is multiplied back (exact both ways).
        largest = float(np.max(np.abs(layout["values"]), initial=0.0))
        layout["mean_exponent"] = (math.ceil(math.log2(n_trees))
                                   if largest > np.finfo(np.float64).max / n_trees else 0)
        layout["mean_values"] = (np.ldexp(layout["values"], -layout["mean_exponent"])
                                 if layout["mean_exponent"] else layout["values"])
    return layout["mean_values"], layout["mean_exponent"]
