# cython: language_level=3
"""Forest prediction: every tree, every row, one nogil pass; and the running
out-of-bag sums of a forest as it grows."""

import numpy as np
cimport numpy as cnp

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t
from libc.stdlib cimport calloc, free
from libc.string cimport memset

from ._predict cimport (walk_block, walk_general_block, walk_interleaved,
                       walk_row_through_trees, walk_rows_refilled)
from ._row_source cimport (ROW_BLOCK, RowSource, any_infinite, any_non_finite, block_values,
                           clear_csr_rows, copy_source_rows, interleave_source, padded_block,
                           row_source)
from ._walk_layout cimport SplitTests, WalkNode, WalkTests
from ._interrupt cimport INTERRUPTED, Interrupt
from ._utils cimport intp_t

from ._interrupt import current_interrupt, raise_interrupt

cnp.import_array()

cdef enum:
    # Rows this wide are interleaved before they are walked (features). All
    # rows are walked in parts of up to FOREST_BUFFER_BYTES (as float32),
    # copied or in place: each part stays in the last-level cache while
    # every group of trees passes over it, and every tree's nodes are read
    # once per part. (One part of 100k x 50 rows in place, 20 MB, made a
    # one-thread predict_proba a fifth slower than 4 MiB parts.)
    INTERLEAVE_FEATURES = 64
    FOREST_BUFFER_BYTES = 4194304
    # Rows taken through a group of trees before the next rows: a chunk of X
    # that stays in cache beside the group's nodes (bytes, then bounds in
    # rows).
    CHUNK_BYTES = 262144
    MIN_CHUNK_ROWS = 16
    MAX_CHUNK_ROWS = 256
    # Walk nodes of a group of trees (16 bytes each), a quarter of a 1 MiB
    # second-level cache: every chunk of rows passes through the whole group
    # while the group's nodes stay cached beside the rows. Larger groups
    # (65536 nodes, several full trees) measured 5-9% slower on
    # bench/compare_predict.py's forest: the rows are re-read from the
    # third-level cache per group, which costs less than node misses.
    GROUP_NODES = 16384
    # Batches of fewer rows are walked a row at a time through eight trees
    # at once (few_rows_outputs).
    FEW_ROWS = 16
    # Sparse rows walked between two polls of the Interrupt.
    SPARSE_POLL_ROWS = 1024


cdef inline void add_outputs(const double* leaf_output, const intp_t* leaves, intp_t n_rows,
                             intp_t n_outputs, double* out) noexcept nogil:
    # out[row] += leaf_output[leaves[row]], rows of n_outputs values; the
    # common two-class case gets a loop the compiler can unroll.
    cdef intp_t row, k
    cdef const double* output
    if n_outputs == 2:
        for row in range(n_rows):
            output = leaf_output + 2 * leaves[row]
            out[2 * row] += output[0]
            out[2 * row + 1] += output[1]
        return
    for row in range(n_rows):
        output = leaf_output + n_outputs * leaves[row]
        for k in range(n_outputs):
            out[n_outputs * row + k] += output[k]


cdef inline void add_sparse_outputs(const intp_t* indptr, const int32_t* index,
                                    const double* data, const intp_t* leaves,
                                    intp_t n_rows, intp_t n_outputs,
                                    double* out) noexcept nogil:
    # out[row] += the leaf's sparse row: a pure leaf adds one value, not
    # n_outputs, and the sums are those of the dense rows, whose other
    # entries are zeros.
    cdef intp_t row, entry
    for row in range(n_rows):
        for entry in range(indptr[leaves[row]], indptr[leaves[row] + 1]):
            out[n_outputs * row + index[entry]] += data[entry]


# What tree_outputs writes for the leaves rows reach: where the leaves'
# outputs are, and where the rows' sums (or per-tree values) go.
cdef struct LeafOutputs:
    const double* dense          # leaf output rows, n_outputs each (NULL when sparse)
    const intp_t* sparse_indptr  # sparse leaf rows (NULL when dense), as tree_outputs's
    const int32_t* sparse_index
    const double* sparse_data
    const intp_t* output_starts  # tree t's leaves' outputs start at row output_starts[t]
    intp_t n_outputs
    bint per_tree                # out[row, t] = tree t's first output, else sums
    double* out                  # the part's first row of out
    intp_t out_width             # values per row of out


cdef inline void write_outputs(const LeafOutputs* outputs, intp_t tree, const intp_t* leaves,
                               intp_t n_rows, intp_t first_row) noexcept nogil:
    # The outputs of tree's leaves reached by rows first_row .. first_row +
    # n_rows - 1 (of the part), leaves[i] the leaf of row first_row + i.
    cdef double* out = outputs.out + first_row * outputs.out_width
    cdef const double* tree_output
    cdef intp_t row
    if outputs.dense == NULL:
        add_sparse_outputs(outputs.sparse_indptr + outputs.output_starts[tree],
                           outputs.sparse_index, outputs.sparse_data, leaves, n_rows,
                           outputs.n_outputs, out)
        return
    tree_output = outputs.dense + outputs.output_starts[tree] * outputs.n_outputs
    if outputs.per_tree:
        for row in range(n_rows):
            out[row * outputs.out_width + tree] = tree_output[leaves[row] * outputs.n_outputs]
    else:
        add_outputs(tree_output, leaves, n_rows, outputs.n_outputs, out)


cdef void few_rows_outputs(const WalkNode* nodes, const intp_t* tree_starts, intp_t n_trees,
                           const float* rows, intp_t n_rows, intp_t n_features,
                           bint interleaved, const LeafOutputs* outputs) noexcept nogil:
    # Rows of a batch smaller than a block (finite values, forests without
    # category sets), each walked through ROW_BLOCK trees at once: a block of
    # rows walked through one tree at a time would leave most lanes empty,
    # and the trees' nodes, not the rows, are what is read from memory.
    cdef const WalkNode* roots[ROW_BLOCK]
    cdef intp_t leaves[ROW_BLOCK]
    cdef intp_t row, first_tree, lane, n_lanes
    cdef const float* values
    for row in range(n_rows):
        if interleaved:
            # Row j of interleaved blocks: block j // ROW_BLOCK, lane j % ROW_BLOCK.
            values = rows + (row - row % ROW_BLOCK) * n_features + row % ROW_BLOCK
        else:
            values = rows + row * n_features
        first_tree = 0
        while first_tree < n_trees:
            n_lanes = min(<intp_t> ROW_BLOCK, n_trees - first_tree)
            for lane in range(ROW_BLOCK):
                # Spare lanes walk the last tree again.
                roots[lane] = nodes + tree_starts[first_tree + min(lane, n_lanes - 1)]
            walk_row_through_trees(roots, values, interleaved, leaves)
            for lane in range(n_lanes):
                write_outputs(outputs, first_tree + lane, leaves + lane, 1, row)
            first_tree += n_lanes


cdef int sparse_rows_outputs(const WalkNode* nodes, const intp_t* tree_starts, intp_t n_trees,
                             const RowSource* source, float* row_buffer,
                             LeafOutputs* outputs, Interrupt interrupt) noexcept nogil:
    # Sparse (CSR) rows one at a time: a row's stored values written into
    # row_buffer (n_features zeros), the row walked through every tree, eight
    # trees at once, while it stays in the first-level cache, and its values
    # cleared again. Wide rows of a few values cost their values, not their
    # width, and are never copied as dense blocks. Returns 1 if a stored
    # value is NaN or infinite in float32 (nothing is walked then; the caller
    # checks the rows first), INTERRUPTED, or 0.
    cdef double* first_out = outputs.out
    cdef intp_t row
    cdef int non_finite
    for row in range(source.n_rows):
        if row % SPARSE_POLL_ROWS == 0 and interrupt.should_stop():
            return INTERRUPTED
        non_finite = copy_source_rows(source, row, 1, row_buffer, False)
        if not non_finite:
            outputs.out = first_out + row * outputs.out_width
            few_rows_outputs(nodes, tree_starts, n_trees, row_buffer, 1, source.n_features,
                             False, outputs)
        clear_csr_rows(source, row, 1, row_buffer, False)
        if non_finite:
            return 1
    return 0


def tree_outputs(WalkTests walk not None, const intp_t[::1] tree_starts not None,
                 const intp_t[::1] output_starts not None,
                 object leaf_output, object X, double[:, ::1] out not None,
                 bint per_tree, const uint8_t[::1] refill_trees=None,
                 Interrupt interrupt=None):
    """Reads, for every tree, the output row of the leaf each row of X reaches.

    Parameters
    ----------
    walk : WalkTests
        The walk nodes of all trees, one after another, each tree's from
        ``walk_layout`` but with ``node`` at a leaf counting the tree's leaves;
        their flags, all trees' category sets and branch tables one after
        another (the walk nodes' starts counting from the first tree's), and
        each tree's nodes' walk positions counting from the tree's first walk
        node (None without multiway nodes).
    tree_starts, output_starts : ndarray of intp, shape (n_trees + 1,)
        Tree t's nodes are ``walk[tree_starts[t]:tree_starts[t + 1]]``, and the
        outputs of its leaves start at row ``output_starts[t]`` of ``leaf_output``.
    leaf_output : ndarray of float64, shape (n_leaves, n_outputs), or a tuple
        What each leaf gives (class probabilities, a one-hot vote, a mean):
        dense rows, or sparse rows ``(indptr, index, data)`` (intp, int32,
        float64; leaf i's values ``data[indptr[i]:indptr[i + 1]]`` in the
        columns ``index[...]``), summed only (not with ``per_tree``).
    X : ndarray of float32 or float64, shape (n_rows, n_features)
        In any order; rows other than C-contiguous float32 ones are copied,
        part by part, as wide rows are.
    out : ndarray of float64
        With ``per_tree`` false, shape (n_rows, n_outputs): overwritten with
        the sums over trees. With ``per_tree`` true, shape (n_rows, n_trees):
        ``out[row, t]`` is tree t's first output.
    per_tree : bool
    refill_trees : ndarray of uint8, shape (n_trees,), optional
        1 for the trees whose rows are walked with ``walk_rows_refilled``
        (paths of very different lengths), 0 for lockstep; None: all lockstep.
    interrupt : Interrupt, optional
        Polled before each group of trees walks a part of the rows (by
        default the thread's ``current_interrupt``); when it asks to stop,
        its error is raised.

    Returns
    -------
    int
        1 when X holds infinity (``out`` is then meaningless), else 0. NaN is
        a missing value.
    """
    cdef RowSource source
    cdef SplitTests tests = walk.tests, tree_tests
    # Rows with NaN, and forests with category sets, take the general walk:
    # all rows (general) or those of one part (part_general).
    cdef bint general = tests.general, part_general
    row_source(X, &source)
    cdef intp_t n_rows = source.n_rows
    cdef intp_t n_features = source.n_features
    cdef intp_t n_trees = tree_starts.shape[0] - 1
    cdef bint sparse = isinstance(leaf_output, tuple)
    cdef const double[:, ::1] dense_output
    cdef const intp_t[::1] sparse_indptr
    cdef const int32_t[::1] sparse_index
    cdef const double[::1] sparse_data
    cdef intp_t n_outputs, n_leaves
    cdef LeafOutputs outputs
    outputs.dense = outputs.sparse_indptr = NULL
    outputs.sparse_index = NULL
    outputs.sparse_data = NULL
    if sparse:
        sparse_indptr, sparse_index, sparse_data = leaf_output
        n_outputs = out.shape[1]
        n_leaves = sparse_indptr.shape[0] - 1
        if (per_tree or sparse_indptr[0] != 0 or sparse_index.shape[0] != sparse_data.shape[0]
                or sparse_indptr[n_leaves] != sparse_index.shape[0]):
            raise ValueError("sparse leaf outputs are inconsistent")
        outputs.sparse_indptr = &sparse_indptr[0]
        if sparse_index.shape[0]:
            outputs.sparse_index = &sparse_index[0]
            outputs.sparse_data = &sparse_data[0]
    else:
        dense_output = leaf_output
        n_outputs = dense_output.shape[1]
        n_leaves = dense_output.shape[0]
        outputs.dense = &dense_output[0, 0]
    outputs.output_starts = &output_starts[0]
    outputs.n_outputs = n_outputs
    outputs.per_tree = per_tree
    cdef intp_t chunk_rows = max(<intp_t> MIN_CHUNK_ROWS,
                                 min(<intp_t> MAX_CHUNK_ROWS, CHUNK_BYTES // (4 * n_features)))
    # Narrow C-contiguous float32 rows are walked in place, the last rows (if
    # fewer than a block) as a zero-padded copy; wide rows, and rows of any
    # other layout or precision, are interleaved part by part into a buffer.
    cdef bint interleaved = n_features >= INTERLEAVE_FEATURES or not source.in_place
    cdef intp_t n_full_rows = n_rows - n_rows % ROW_BLOCK
    cdef intp_t part_capacity = FOREST_BUFFER_BYTES // (sizeof(float) * n_features)
    cdef intp_t part_start, part_rows, group_start, group_end, chunk_start, chunk_end
    cdef intp_t tree, row
    cdef intp_t leaves[MAX_CHUNK_ROWS]
    cdef const WalkNode* nodes = walk.nodes
    cdef const WalkNode* tree_nodes
    cdef const float* rows
    cdef float* buffer = NULL
    cdef int status = 0
    # Whether the rows were walked already (sparse rows, row by row).
    cdef bint walked = False
    chunk_rows -= chunk_rows % ROW_BLOCK
    if walk.n_nodes != tree_starts[n_trees]:
        raise ValueError("walk nodes do not match the tree starts")
    if output_starts.shape[0] != n_trees + 1 or n_leaves != output_starts[n_trees]:
        raise ValueError("leaf outputs do not match the output starts")
    if refill_trees is not None and refill_trees.shape[0] != n_trees:
        raise ValueError("refill_trees needs one flag per tree")
    if out.shape[0] != n_rows or out.shape[1] != (n_trees if per_tree else n_outputs):
        raise ValueError("out has the wrong shape")
    if n_rows == 0:
        return 0
    if interrupt is None:
        interrupt = current_interrupt()
    part_capacity = min(max(<intp_t> ROW_BLOCK, part_capacity - part_capacity % ROW_BLOCK),
                        n_full_rows + ROW_BLOCK)
    if not per_tree:
        out[:, :] = 0.0
    outputs.out_width = out.shape[1]
    with nogil:
        if source.csr_indptr != NULL and not general:
            outputs.out = &out[0, 0]
            buffer = <float*> calloc(n_features, sizeof(float))
            status = -1 if buffer == NULL else sparse_rows_outputs(
                nodes, &tree_starts[0], n_trees, &source, buffer, &outputs, interrupt)
            free(buffer)
            buffer = NULL
            walked = status != 1
            if status == 1:
                # A stored NaN or infinity: all rows take the parts below,
                # which walk NaN and refuse infinity.
                status = 0
                if not per_tree:
                    memset(&out[0, 0], 0, n_rows * outputs.out_width * sizeof(double))
        if not interleaved and any_non_finite(<const float*> source.data,
                                              n_rows * n_features):
            general = True
            status = any_infinite(<const float*> source.data, n_rows * n_features)
        if walked:
            pass
        elif status == 0 and interleaved:
            # Zeros: sparse rows are written into it value by value.
            buffer = <float*> calloc(part_capacity * n_features, sizeof(float))
            status = -1 if buffer == NULL else 0
        elif status == 0 and n_full_rows < n_rows:
            buffer = padded_block(<const float*> (source.data
                                                  + n_full_rows * source.row_stride),
                                  n_rows - n_full_rows, n_features)
            status = -1 if buffer == NULL else 0
        part_start = 0
        while part_start < n_rows and status == 0 and not walked:
            part_rows = min(part_capacity, n_rows - part_start)
            part_general = general
            if interleaved and interleave_source(&source, part_start, part_rows, buffer):
                part_general = True
                if any_infinite(buffer, block_values(part_rows, n_features)):
                    status = 1
                    break
            outputs.out = &out[part_start, 0]
            if part_rows < FEW_ROWS and not part_general:
                # Rows walked one at a time need no padding to a block.
                few_rows_outputs(nodes, &tree_starts[0], n_trees,
                                 buffer if interleaved else <const float*> (
                                     source.data + part_start * source.row_stride),
                                 part_rows, n_features, interleaved, &outputs)
                if source.csr_indptr != NULL:
                    clear_csr_rows(&source, part_start, part_rows, buffer, True)
                part_start += part_rows
                continue
            group_start = 0
            while group_start < n_trees:
                if interrupt.should_stop():
                    status = INTERRUPTED
                    break
                group_end = group_start + 1
                while (group_end < n_trees and tree_starts[group_end + 1]
                       - tree_starts[group_start] <= GROUP_NODES):
                    group_end += 1
                chunk_start = 0
                while chunk_start < part_rows:
                    chunk_end = min(part_rows, chunk_start + chunk_rows)
                    for tree in range(group_start, group_end):
                        tree_nodes = nodes + tree_starts[tree]
                        tree_tests = tests
                        tree_tests.flags = tests.flags + tree_starts[tree]
                        if tests.node_position != NULL:
                            tree_tests.node_position = tests.node_position + tree_starts[tree]
                        # Rows count from the part's first row.
                        row = chunk_start
                        if (refill_trees is not None and refill_trees[tree] and interleaved
                                and not part_general):
                            walk_rows_refilled(tree_nodes, buffer + row * n_features, n_features,
                                               True, chunk_end - chunk_start, leaves)
                            row = chunk_end
                        while row < chunk_end:
                            if interleaved:
                                rows = buffer + row * n_features
                            else:
                                rows = buffer if part_start + row == n_full_rows else (
                                    <const float*> (source.data
                                                    + (part_start + row) * source.row_stride))
                            if part_general:
                                walk_general_block(tree_nodes, &tree_tests, rows, n_features,
                                                   interleaved, leaves + row - chunk_start)
                            elif interleaved:
                                walk_interleaved(tree_nodes, rows, leaves + row - chunk_start)
                            else:
                                walk_block(tree_nodes, rows, n_features,
                                           leaves + row - chunk_start)
                            row += ROW_BLOCK
                        write_outputs(&outputs, tree, leaves, chunk_end - chunk_start,
                                      chunk_start)
                    chunk_start = chunk_end
                group_start = group_end
            if source.csr_indptr != NULL:
                clear_csr_rows(&source, part_start, part_rows, buffer, True)
            part_start += part_rows
    free(buffer)
    if status == INTERRUPTED:
        raise_interrupt(interrupt)
    if status < 0:
        raise MemoryError()
    return status


def add_out_of_bag(double[:, ::1] sums not None, int64_t[::1] counts not None,
                   const intp_t[::1] rows not None, const double[:, ::1] values not None):
    """Add one member's ``values`` at the rows it left out, in row order:
    ``sums[rows[i]] += values[i]`` and ``counts[rows[i]] += 1``.

    Parameters
    ----------
    sums : ndarray of shape (n_samples, n_values), float64
        Running sums, updated in place.
    counts : ndarray of shape (n_samples,), int64
        Members that left each row out, updated in place.
    rows : ndarray of shape (n_rows,), intp
        The member's out-of-bag rows, each in ``[0, n_samples)``.
    values : ndarray of shape (n_rows, n_values), float64
        The member's values for those rows.
    """
    cdef intp_t n_rows = rows.shape[0], n_values = sums.shape[1]
    cdef intp_t i, k, row
    cdef double* row_sums
    if values.shape[0] != n_rows or values.shape[1] != n_values or counts.shape[0] != sums.shape[0]:
        raise ValueError(f"out-of-bag shapes disagree: sums ({sums.shape[0]}, {n_values}), "
                         f"counts {counts.shape[0]}, rows {n_rows}, values "
                         f"({values.shape[0]}, {values.shape[1]})")
    for i in range(n_rows):
        if not 0 <= rows[i] < sums.shape[0]:
            raise ValueError(f"out-of-bag row {rows[i]} is not in [0, {sums.shape[0]})")
    with nogil:
        for i in range(n_rows):
            row = rows[i]
            counts[row] += 1
            row_sums = &sums[row, 0]
            for k in range(n_values):
                row_sums[k] += values[i, k]


def out_of_bag_correct(const double[:, ::1] sums not None, const int64_t[::1] counts not None,
                       const int32_t[::1] class_index not None):
    """Rows with out-of-bag values, and those of them whose class of largest
    mean value (``sums[row] / counts[row]``, the first on ties, as
    ``numpy.argmax`` of the means) is ``class_index[row]``.

    Returns
    -------
    (n_covered, n_correct) : tuple of int
    """
    cdef intp_t n_samples = sums.shape[0], n_values = sums.shape[1]
    cdef intp_t row, k, best
    cdef intp_t n_covered = 0, n_correct = 0
    cdef double count, best_mean, mean
    if counts.shape[0] != n_samples or class_index.shape[0] != n_samples:
        raise ValueError(f"out-of-bag shapes disagree: sums {n_samples} rows, counts "
                         f"{counts.shape[0]}, class_index {class_index.shape[0]}")
    if n_values == 0:
        raise ValueError("out-of-bag sums hold no values")
    with nogil:
        for row in range(n_samples):
            if counts[row] <= 0:
                continue
            n_covered += 1
            # The means themselves, not the sums: dividing can round two
            # different sums to one mean, and then the first class wins.
            count = <double> counts[row]
            best = 0
            best_mean = sums[row, 0] / count
            for k in range(1, n_values):
                mean = sums[row, k] / count
                if mean > best_mean:
                    best_mean = mean
                    best = k
            n_correct += best == class_index[row]
    return n_covered, n_correct
