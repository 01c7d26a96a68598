"""A quantile forest's leaf lists: for every leaf of every tree, the ranks of
the training targets it holds (the rows its tree drew there, repeated as
drawn, ascending), built once per fit; stored compactly (each target once,
ranks and list sizes in the narrowest unsigned integers, the targets in
float32 where the user allows it), checked when a model is loaded, and
read by the ``_quantiles`` kernels on threads."""

import math

import numpy as np

from ._model_file import ModelFileError
from ._quantiles import forest_means, forest_quantile_ranks, forest_quantiles
from ._threads import map_rows
from ._tree_state import compressed_state, _decompressed

INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")
RANK_KINDS = ("weak", "strict", "mean", "rank")  # the kernel's RankKind order
# The arrays of a fitted quantile forest's lists (see ``build_leaf_lists``).
STORED = ("targets", "entries", "sizes", "rank_weights")
# Leaf list entries drawn again for each tree from its seed and this stream.
SUBSAMPLE_STREAM = 0x51F


def _narrow_unsigned(values, largest):
    for dtype in (np.uint8, np.uint16, np.uint32):
        if largest <= np.iinfo(dtype).max:
            return values.astype(dtype)
    raise ValueError(f"a leaf list of {largest} entries is more than fasttree keeps")


def resolve_max_samples_leaf(max_samples_leaf, n_samples):
    """The most entries a leaf keeps (None: all), from an int >= 1, a float
    in (0, 1] (that fraction of the rows, rounded up) or None."""
    if max_samples_leaf is None:
        return None
    if isinstance(max_samples_leaf, (bool, np.bool_)):
        pass
    elif isinstance(max_samples_leaf, (int, np.integer)) and max_samples_leaf >= 1:
        return int(max_samples_leaf)
    elif isinstance(max_samples_leaf, (float, np.floating)) and 0 < max_samples_leaf <= 1:
        return max(1, math.ceil(max_samples_leaf * n_samples))
    raise ValueError("The 'max_samples_leaf' parameter of the quantile forest must be an "
                     "int >= 1, a float in (0.0, 1.0] or None, got "
                     f"{max_samples_leaf!r}")


def build_leaf_lists(trees, rows, targets, counts_of, weights, max_samples_leaf, seeds,
                     target_dtype, map_trees):
    """Every tree's leaf lists, as a quantile forest stores them.

    Parameters
    ----------
    trees : list of Tree
    rows : ndarray or CSRRows
        The training rows, as the trees' ``apply`` reads them.
    targets : ndarray of float64, shape (n_samples, n_outputs)
    counts_of : callable
        ``counts_of(index)``: how often tree ``index`` drew each row.
    weights : ndarray of float64 or None
        Each row's weight in the trees' leaves (None: its draws alone).
    max_samples_leaf : int or None
        The most entries a leaf keeps, drawn at random from its tree's seed.
    seeds : list of int
        Each tree's seed.
    target_dtype : numpy dtype
        float64 or float32: how the targets are stored.
    map_trees : callable
        ``map_trees(function, indices)``: ``function`` over the trees, in order.

    Returns
    -------
    dict
        ``targets`` (n_outputs, n_samples): each output's targets ascending;
        ``entries`` (n_outputs, n_entries): each output's ranks, leaf after
        leaf, ascending within a leaf; ``sizes`` (n_leaves): each leaf's
        entries; ``rank_weights`` (n_outputs, n_samples) or None.
    """
    n_samples, n_outputs = targets.shape
    sorters = [np.argsort(targets[:, output], kind="stable") for output in range(n_outputs)]
    rank_of_row = np.empty((n_outputs, n_samples), dtype=np.int64)
    for output, sorter in enumerate(sorters):
        rank_of_row[output, sorter] = np.arange(n_samples)
    usable = None if weights is None else weights > 0

    def lists_of(index):
        tree = trees[index]
        leaf_of_row = tree.leaf_numbers()[tree.apply(rows)]
        counts = np.asarray(counts_of(index), dtype=np.int64)
        if usable is not None:
            counts = np.where(usable, counts, 0)
        drawn = np.repeat(np.arange(n_samples), counts)
        drawn_leaf = leaf_of_row[drawn]
        n_leaves = tree.n_leaves
        if max_samples_leaf is not None and drawn.size > 0:
            # A random max_samples_leaf of each leaf's draws, drawn from the tree's seed.
            generator = np.random.default_rng([int(seeds[index]), SUBSAMPLE_STREAM])
            order = np.lexsort((generator.random(drawn.size), drawn_leaf))
            drawn, drawn_leaf = drawn[order], drawn_leaf[order]
            leaf_sizes = np.bincount(drawn_leaf, minlength=n_leaves)
            first_of_leaf = np.repeat(np.cumsum(leaf_sizes) - leaf_sizes, leaf_sizes)
            kept = np.arange(drawn.size) - first_of_leaf < max_samples_leaf
            drawn, drawn_leaf = drawn[kept], drawn_leaf[kept]
        sizes = np.bincount(drawn_leaf, minlength=n_leaves)
        entries = np.empty((n_outputs, drawn.size), dtype=np.int64)
        for output in range(n_outputs):
            ranks = rank_of_row[output, drawn]
            entries[output] = ranks[np.lexsort((ranks, drawn_leaf))]
        return entries, sizes

    per_tree = map_trees(lists_of, range(len(trees)))
    entries = np.concatenate([tree_entries for tree_entries, _ in per_tree], axis=1)
    sizes = np.concatenate([tree_sizes for _, tree_sizes in per_tree])
    sorted_targets = np.stack([targets[sorter, output] for output, sorter in enumerate(sorters)])
    rank_weights = None
    if weights is not None and not np.all(weights == weights[0]):
        rank_weights = np.stack([weights[sorter] for sorter in sorters]).astype(np.float64)
    return {"targets": sorted_targets.astype(target_dtype),
            "entries": _narrow_unsigned(entries, max(n_samples - 1, 0)),
            "sizes": _narrow_unsigned(sizes, int(sizes.max(initial=0))),
            "rank_weights": rank_weights}


def packed_lists(lists):
    """``lists`` as pickles hold them: the arrays compressed."""
    return compressed_state({name: value for name, value in lists.items() if value is not None})


def unpacked_lists(packed):
    """The arrays of ``packed_lists``' output (a ValueError if damaged)."""
    if not isinstance(packed, dict) or "compressed" not in packed:
        raise ValueError("corrupt fasttree model: the quantile forest's leaf lists are "
                         "malformed")
    arrays = {name: value for name, value in packed.items() if name != "compressed"}
    arrays.update(_decompressed(packed["compressed"]))
    arrays.setdefault("rank_weights", None)
    return arrays


def check_leaf_lists(lists, trees, name):
    """Raise ``ModelFileError`` unless ``lists`` are leaf lists a fit of
    ``trees`` could have left: arrays of the stored dtypes and shapes, one
    size per leaf summing to the entries, ranks within the targets, the
    targets ascending and finite, the weights positive."""
    def refuse(what):
        raise ModelFileError(f"the {name}'s leaf lists are corrupt: {what}")

    if not isinstance(lists, dict) or set(lists) != set(STORED):
        refuse("they do not hold the arrays " + ", ".join(STORED))
    targets, entries, sizes = lists["targets"], lists["entries"], lists["sizes"]
    weights = lists["rank_weights"]
    for label, array, kinds in (("targets", targets, "f"), ("entries", entries, "u"),
                                ("sizes", sizes, "u")):
        if not isinstance(array, np.ndarray) or array.dtype.kind not in kinds:
            refuse(f"{label} are not an array of the stored kind")
    if targets.dtype not in (np.float32, np.float64) or targets.ndim != 2:
        refuse("the targets are not a 2-D array of float32 or float64")
    n_outputs, n_samples = targets.shape
    if entries.ndim != 2 or entries.shape[0] != n_outputs:
        refuse(f"the entries are not {n_outputs} rows, one per output")
    n_leaves = sum(tree.n_leaves for tree in trees)
    if sizes.shape != (n_leaves,):
        refuse(f"{sizes.shape} leaf sizes for the trees' {n_leaves} leaves")
    if int(sizes.sum(dtype=np.int64)) != entries.shape[1]:
        refuse(f"the leaf sizes total {int(sizes.sum(dtype=np.int64))}, not the "
               f"{entries.shape[1]} entries")
    if entries.size and int(entries.max()) >= n_samples:
        refuse(f"an entry is not the rank of one of the {n_samples} targets")
    if not np.isfinite(targets).all() or (np.diff(targets, axis=1) < 0).any():
        refuse("the targets are not finite and ascending")
    if weights is not None and not (
            isinstance(weights, np.ndarray) and weights.dtype == np.float64
            and weights.shape == targets.shape and np.isfinite(weights).all()
            and (weights >= 0).all()):
        refuse("the rank weights are not float64 numbers >= 0, one per target")
    if weights is not None and entries.size and not (
            np.take_along_axis(weights, entries.astype(np.intp), axis=1) > 0).all():
        # Rows of no weight are left out of the lists: a leaf's total is positive.
        refuse("an entry has no weight")
    starts = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)])
    for output in range(n_outputs):
        ascending = np.diff(entries[output].astype(np.int64)) >= 0
        # Each leaf's entries ascend; only where a leaf starts may they drop.
        ascending[starts[1:-1][(starts[1:-1] > 0) & (starts[1:-1] < entries.shape[1])] - 1] = True
        if not ascending.all():
            refuse("a leaf's entries are not in ascending rank")


class LeafListReader:
    """The kernels' view of stored leaf lists: per output, the leaf starts
    (int64), ranks (uint32), targets (float64) and weights (float64, empty
    when every entry weighs 1), made once and shared by every prediction."""

    def __init__(self, lists):
        sizes = lists["sizes"]
        self.starts = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)])
        # Leaf numbers as the forest's per-tree walk gives them back.
        self.leaf_numbers = np.arange(sizes.shape[0], dtype=np.float64).reshape(-1, 1)
        self.n_outputs = lists["targets"].shape[0]
        self.outputs = []
        for output in range(self.n_outputs):
            weights = lists["rank_weights"]
            self.outputs.append((
                self.starts,
                np.ascontiguousarray(lists["entries"][output], dtype=np.uint32),
                np.ascontiguousarray(lists["targets"][output], dtype=np.float64),
                np.empty(0) if weights is None else np.ascontiguousarray(weights[output])))

    def quantiles(self, row_leaves, quantiles, interpolation, tree_weighted, pooled,
                  n_threads):
        """(n_rows, n_outputs, n_quantiles): each row's quantiles, in the order asked."""
        quantiles = np.asarray(quantiles, dtype=np.float64)
        order = np.argsort(quantiles, kind="stable")
        ascending = np.ascontiguousarray(quantiles[order])
        code = INTERPOLATIONS.index(interpolation)
        out = np.empty((row_leaves.shape[0], self.n_outputs, len(quantiles)))
        for output, arrays in enumerate(self.outputs):
            part = np.empty((row_leaves.shape[0], len(quantiles)))
            map_rows(forest_quantiles, row_leaves, part, *arrays, tree_weighted, pooled,
                     ascending, code, n_threads=n_threads, n_trees=row_leaves.shape[1])
            out[:, output, order] = part
        return out

    def means(self, row_leaves, tree_weighted, n_threads):
        """(n_rows, n_outputs): each row's weighted mean of its leaves' targets."""
        out = np.empty((row_leaves.shape[0], self.n_outputs))
        for output, arrays in enumerate(self.outputs):
            part = np.empty((row_leaves.shape[0], 1))
            map_rows(forest_means, row_leaves, part, *arrays, tree_weighted,
                     n_threads=n_threads, n_trees=row_leaves.shape[1])
            out[:, output] = part[:, 0]
        return out

    def ranks(self, row_leaves, y, kind, tree_weighted, n_threads):
        """(n_rows, n_outputs): each row's quantile rank of its ``y``."""
        out = np.empty((row_leaves.shape[0], self.n_outputs))
        code = RANK_KINDS.index(kind)
        for output, arrays in enumerate(self.outputs):
            # A copy: the kernel writes the ranks over the values.
            part = np.array(y[:, output:output + 1], dtype=np.float64, order="C")
            map_rows(forest_quantile_ranks, row_leaves, part, *arrays, tree_weighted, code,
                     n_threads=n_threads, n_trees=row_leaves.shape[1])
            out[:, output] = part[:, 0]
        return out
