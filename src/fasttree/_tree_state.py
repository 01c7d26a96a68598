"""A fitted tree's saved state: the format versions of pickles and model
files, the state they hold, and the checks of the arrays read back from them
(a loaded tree may hold anything until checked, so that prediction cannot go
astray). ``Tree``'s ``__getstate__``, ``plain_state`` and ``__setstate__``
call these, and ``Tree.__init__`` checks an untrusted tree's arrays with them."""

import zlib

import numpy as np

from ._tree import FLAG_MISSING_LEFT, FLAG_THRESHOLD, NODE_DTYPE

# 5: pickles hold the larger arrays zlib-compressed ("compressed": name ->
#    (dtype descr, shape, bytes)); model files keep them plain.
# 4: compact trees keep their leaves' counts and weights, and every node's
#    impurity and value unless they follow from the leaf values; sparse
#    rows and leaf statistics are pickled in the narrowest exact dtypes.
# 3: node flags (split kind, missing-value direction) and category sets.
# 2: compact trees keep their leaf values as sparse rows. Versions 1 to 3
# are read too: compact trees of versions 1 to 3 have no statistics; those
# of versions 1 and 2 (thresholds only, no missing values seen) send missing
# values to the heavier child, or right when the weights are not kept.
FORMAT_VERSION = 5
READABLE_VERSIONS = (1, 2, 3, 4, 5)
# Arrays of at least this many bytes are compressed in pickles. Level 1 is
# the fastest: node records and statistics shrink about 3x at level 1 and
# gain little more at higher levels.
COMPRESS_FROM_BYTES = 256
COMPRESS_LEVEL = 1


def state_of(tree):
    """``tree``'s state as a dict of numbers and arrays (what model files
    store, compressing the file as a whole): the arrays ``Tree.__init__``
    reads back, and the format version."""
    state = {
        "format_version": FORMAT_VERSION,
        "n_features": tree.n_features,
        "n_values": tree.n_values,
        "nodes": tree._nodes,
        "flags": tree._flags,
        "category_bits": tree._category_bits,
        "max_depth": tree.max_depth,
    }
    if tree.n_outputs > 1:
        state["output_widths"] = tree.output_widths
    # Sparse rows and leaf statistics in the narrowest dtypes that hold
    # them exactly: most leaves of a full-grown classifier are pure (one
    # entry of 1.0) and hold a few rows of whole weights.
    if tree._leaf_rows is not None:
        state.update(_narrow_rows("leaf_value", tree._leaf_rows))
    elif tree._leaf_value is not None:
        state["leaf_value"] = tree._leaf_value
    elif tree._node_rows is not None:
        state.update(_narrow_rows("value", tree._node_rows))
    else:
        state["value"] = tree._value
    if not tree.compact:
        state.update(impurity=tree._impurity, n_node_samples=tree._n_node_samples,
                     weighted_n_node_samples=tree._weighted_n_node_samples)
    elif tree._leaf_counts is not None:
        state.update(leaf_n_node_samples=narrowest(tree._leaf_counts,
                                                   [np.uint8, np.uint16]),
                     leaf_weighted_n_node_samples=narrowest(
                         tree._leaf_weights, [np.uint8, np.uint16, np.float32]))
        if tree.impurity_rule is not None:
            state["impurity_rule"] = tree.impurity_rule
            if tree.impurity_rule == "squared_error":
                state["leaf_impurity"] = tree._leaf_impurity
        else:
            state["impurity"] = tree._impurity
    if tree._fractions is not None:
        state.update(branch_fractions=tree._fractions[0],
                     fraction_offsets=tree._fractions[1])
    return state


def _narrow_rows(prefix, rows):
    """Sparse rows (indptr, index, data) as pickled: ``prefix``_indptr, ..."""
    indptr, index, data = rows
    return {f"{prefix}_indptr": narrowest(indptr, [np.int32]),
            f"{prefix}_index": index,
            f"{prefix}_data": narrowest(data, [np.float32])}


def narrowest(values, dtypes):
    """``values`` in the first of ``dtypes`` that holds every one exactly,
    else as they are."""
    for dtype in dtypes:
        with np.errstate(invalid="ignore", over="ignore"):
            narrow = values.astype(dtype)
        if np.array_equal(narrow, values):
            return narrow
    return values


def compressed_state(state):
    """A tree's ``state`` (see :func:`state_of`) as pickles hold it: the
    larger arrays compressed, so that a pickle is smaller than the arrays
    prediction reads in memory."""
    compressed = {}
    for name, value in list(state.items()):
        if isinstance(value, np.ndarray) and value.nbytes >= COMPRESS_FROM_BYTES:
            compressed[name] = (np.lib.format.dtype_to_descr(value.dtype), value.shape,
                                zlib.compress(np.ascontiguousarray(value).tobytes(),
                                              COMPRESS_LEVEL))
            del state[name]
    state["compressed"] = compressed
    return state


def readable_state(state):
    """A pickled tree's ``state``, its format version checked, its arrays
    decompressed and in this machine's byte order (``Tree.__init__`` checks
    them)."""
    if not isinstance(state, dict) or state.get("format_version") not in READABLE_VERSIONS:
        found = state.get("format_version") if isinstance(state, dict) else None
        raise ValueError(f"cannot load a fasttree tree of format version {found!r}; "
                         "this version of fasttree reads versions "
                         f"{', '.join(map(str, READABLE_VERSIONS))}")
    if "compressed" in state:
        state = {**state, **_decompressed(state.pop("compressed"))}
    # Arrays pickled on a machine of the other byte order come back in
    # it: the kernels read native ones.
    state = {key: value.astype(value.dtype.newbyteorder("="))
             if isinstance(value, np.ndarray) and not _native(value.dtype) else value
             for key, value in state.items()}
    return state


def _decompressed(compressed):
    """The arrays of a pickle's "compressed" entry, each checked to be of a
    plain dtype and to decompress to exactly its shape's bytes."""
    if not isinstance(compressed, dict):
        raise ValueError("corrupt fasttree model: the compressed arrays are not a dict")
    arrays = {}
    for name, entry in compressed.items():
        try:
            descr, shape, blob = entry
            dtype = np.lib.format.descr_to_dtype(descr)
            shape = tuple(int(length) for length in shape)
        except (TypeError, ValueError, KeyError) as error:
            raise ValueError(f"corrupt fasttree model: compressed array {name!r} is "
                             f"malformed ({error})") from None
        if dtype.hasobject or any(length < 0 for length in shape) or not isinstance(
                blob, bytes):
            raise ValueError(f"corrupt fasttree model: compressed array {name!r} is "
                             "malformed")
        expected = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        decompressor = zlib.decompressobj()
        try:
            # At most the expected bytes (and one more, to see an excess):
            # a damaged length cannot make it allocate more.
            data = decompressor.decompress(blob, expected + 1)
        except zlib.error as error:
            raise ValueError(f"corrupt fasttree model: compressed array {name!r} does not "
                             f"decompress ({error})") from None
        if len(data) != expected or not decompressor.eof or decompressor.unused_data:
            raise ValueError(f"corrupt fasttree model: compressed array {name!r} holds "
                             f"{len(data)} bytes, not the {expected} of its shape")
        arrays[name] = np.frombuffer(bytearray(data), dtype=dtype).reshape(shape)
    return arrays


def _native(dtype):
    """Whether every field of ``dtype`` is in this machine's byte order."""
    if dtype.fields is not None:
        return all(_native(field[0]) for field in dtype.fields.values())
    return dtype.isnative


def check_nodes(nodes, n_features):
    """Check the nodes' layout and links so that prediction cannot go astray."""
    if not isinstance(nodes, np.ndarray) or nodes.dtype != NODE_DTYPE or nodes.ndim != 1:
        raise ValueError("corrupt fasttree model: node records have an unexpected layout")
    count = nodes.shape[0]
    if count == 0:
        raise ValueError("corrupt fasttree model: the tree has no nodes")
    left = nodes["left_child"].astype(np.int64)
    right = nodes["right_child"].astype(np.int64)
    index = np.arange(count)
    leaf = left == -1
    if not np.array_equal(leaf, right == -1):
        raise ValueError("corrupt fasttree model: a node has exactly one child")
    # Children always come after their parent, so no walk can loop.
    internal = ~leaf
    if ((left[internal] <= index[internal]) | (left[internal] >= count)
            | (right[internal] <= index[internal]) | (right[internal] >= count)).any():
        raise ValueError("corrupt fasttree model: a child index is out of range")
    feature = nodes["feature"][internal]
    if ((feature < 0) | (feature >= n_features)).any():
        raise ValueError("corrupt fasttree model: a split feature is out of range")


def checked_statistic(arrays, name, n_nodes, dtype):
    """A node statistic from ``arrays``, checked: one finite value per node
    (a count or a weight: >= 0), kept in ``dtype`` or, if given so, a wider
    one of its kind (pickles narrow them further, see ``state_of``)."""
    if name not in arrays:
        raise KeyError(name)
    values = np.asarray(arrays[name])
    if values.dtype.kind not in "uif":
        raise ValueError(f"corrupt fasttree model: {name} is not numeric")
    if values.shape != (n_nodes,):
        raise ValueError(f"corrupt fasttree model: {name} has the wrong length")
    if values.size and not np.isfinite(values).all():
        raise ValueError(f"corrupt fasttree model: {name} holds a non-finite value")
    if name != "impurity" and values.size and values.min() < 0:
        raise ValueError(f"corrupt fasttree model: {name} holds a negative value")
    dtype = np.dtype(dtype)
    if (values.dtype.kind == "f") != (dtype.kind == "f") or values.dtype.itemsize < dtype.itemsize:
        if dtype.kind != "f" and not np.array_equal(values, np.floor(values)):
            raise ValueError(f"corrupt fasttree model: {name} holds a fraction")
        if dtype.kind != "f" and values.size and values.max() > np.iinfo(dtype).max:
            raise ValueError(f"corrupt fasttree model: {name} is out of range")
        values = values.astype(dtype)
    return np.ascontiguousarray(values)


def checked_output_widths(widths, n_values):
    """Checked int64 widths of a tree's outputs, which must add up to
    ``n_values`` (None: one output of all the values)."""
    if widths is None:
        return np.array([n_values], dtype=np.int64)
    try:
        widths = np.array(widths, dtype=np.int64)
    except (TypeError, ValueError, OverflowError):
        raise ValueError("corrupt fasttree model: output_widths is not a list of counts") from None
    if widths.ndim != 1 or widths.shape[0] == 0 or (widths < 1).any() or widths.sum() != n_values:
        raise ValueError("corrupt fasttree model: output_widths does not match the values")
    return widths


def checked_sparse_rows(indptr, index, data, n_rows, n_columns, trusted=False, what="leaf"):
    """``sparse_rows``' output read from a file, checked before it is used
    (``trusted``: made by the builder, taken as they are); ``what`` names the
    rows in errors: 'leaf' or 'node' values."""
    if trusted:
        return indptr, index, data
    try:
        indptr = np.ascontiguousarray(indptr, dtype=np.int64)
        index = np.asarray(index)
        data = float_array(data, f"{what}_value_data")
    except (TypeError, ValueError):
        raise ValueError(f"corrupt fasttree model: the {what} values are not numeric") from None
    if index.dtype.kind not in "iu" or index.ndim != 1 or indptr.shape != (n_rows + 1,):
        raise ValueError(f"corrupt fasttree model: the {what} values have the wrong shape")
    if (indptr[0] != 0 or np.any(np.diff(indptr) < 0) or indptr[-1] != index.shape[0]
            or data.shape != index.shape):
        raise ValueError(f"corrupt fasttree model: the {what} value offsets are inconsistent")
    if index.size and (index.min() < 0 or index.max() >= n_columns):
        raise ValueError(f"corrupt fasttree model: a {what} value column is out of range")
    if not np.isfinite(data).all():
        raise ValueError(f"corrupt fasttree model: a {what} value is not finite")
    return indptr, index, data


def checked_fractions(fractions, offsets, tree):
    """A fractional tree's branch fractions, checked against its nodes."""
    try:
        fractions = np.ascontiguousarray(fractions, dtype=np.float64)
        offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    except (TypeError, ValueError):
        raise ValueError("corrupt fasttree model: the branch fractions are not numeric") from None
    n_children = np.diff(tree.children_lists()[0])
    if (offsets.shape != (tree.node_count + 1,) or offsets[0] != 0
            or not np.array_equal(np.diff(offsets), n_children)
            or fractions.shape != (offsets[-1],)):
        raise ValueError("corrupt fasttree model: the branch fractions do not match the nodes")
    if not (np.isfinite(fractions).all() and (fractions >= 0).all()
            and (fractions <= 1).all()):
        raise ValueError("corrupt fasttree model: a branch fraction is not in [0, 1]")
    inner = n_children > 0
    if inner.any() and (np.abs(np.add.reduceat(fractions, offsets[:-1][inner]) - 1.0)
                        > 1e-6).any():
        raise ValueError("corrupt fasttree model: a node's branch fractions do not sum to 1")
    return fractions, offsets


def threshold_flags(nodes, weighted_n_node_samples=None):
    """Node flags of a tree of threshold tests only (made before flags
    existed, or by hand): missing values go to the child of more weight (the
    right one on ties, or when the weights are unknown)."""
    left = nodes["left_child"].astype(np.intp)
    right = nodes["right_child"].astype(np.intp)
    inner = left != -1
    flags = np.where(inner, FLAG_THRESHOLD, 0).astype(np.uint8)
    if weighted_n_node_samples is not None:
        weights = float_array(weighted_n_node_samples, "weighted_n_node_samples")
        if weights.shape == left.shape and (
                (left[inner] < weights.size) & (right[inner] < weights.size)).all():
            heavier_left = np.zeros(left.shape, dtype=bool)
            heavier_left[inner] = weights[left[inner]] > weights[right[inner]]
            flags[heavier_left] |= FLAG_MISSING_LEFT
    return flags


def uint_array(values, dtype, name):
    values = np.asarray(values)
    if values.ndim != 1 or values.dtype.kind not in "ui":
        raise ValueError(f"corrupt fasttree model: {name} is not a 1-D integer array")
    if values.size and (values.min() < 0 or values.max() > np.iinfo(dtype).max):
        raise ValueError(f"corrupt fasttree model: {name} is out of range")
    return np.ascontiguousarray(values, dtype=dtype)


def float_array(values, name):
    try:
        return np.ascontiguousarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"corrupt fasttree model: {name} is not numeric") from None
