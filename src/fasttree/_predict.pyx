# cython: language_level=3
"""Prediction kernels: rows (``_row_source``) walked eight at a time through a
tree's walk layout (``_walk_layout``), the entry points of prediction (the
leaf, output or output row of every row), and decision paths."""

import numpy as np
cimport numpy as cnp

from libc.stdint cimport int32_t, uint8_t, uint32_t
from libc.stdlib cimport free
from libc.string cimport memcpy, memset

from ._row_source cimport (CHECKED_ROWS, any_infinite, any_non_finite, block_values,
                           checked_copy_buffer, clear_csr_rows, copies_rows, copy_chunk_rows,
                           copy_source_rows, interleave_source, padded_block, row_source)
from ._tree cimport (KIND_LEAF, KIND_MASK, KIND_MULTIWAY, Node, branch_of, node_side,
                     value_goes_left)
from ._walk_layout cimport LEAF_CHILD, SplitTests, WalkNode, WalkTests, checked_nodes
from ._interrupt cimport INTERRUPTED, Interrupt

from ._interrupt import current_interrupt, raise_interrupt

cnp.import_array()


cdef enum:
    # Steps walk_refilled takes between checks for rows at their leaves.
    REFILL_STEPS = 8


cdef void walk_general(const WalkNode* tree, const SplitTests* tests, const char* first,
                       intp_t lane_stride, intp_t column_scale, intp_t n_lanes,
                       intp_t* leaves) noexcept nogil:
    cdef intp_t lane, position
    cdef const char* row
    cdef uint8_t flags
    cdef float value
    for lane in range(n_lanes):
        row = first + lane * lane_stride
        position = 0
        while True:
            flags = tests.flags[position]
            if flags & KIND_MASK == KIND_LEAF:
                break
            value = (<const float*> (row + column_scale * tree[position].column))[0]
            if flags & KIND_MASK == KIND_MULTIWAY:
                position = tests.node_position[branch_of(
                    value, tests.category_bits + node_side(tree[position].threshold))]
            elif value_goes_left(value, flags, tree[position].threshold,
                                 tests.category_bits):
                position += 1
            else:
                position += 1 + tree[position].right_jump // <int32_t> sizeof(WalkNode)
        leaves[lane] = tree[position].node


cdef int walk_rows_general(const WalkNode* tree, const SplitTests* tests, const float* X,
                           intp_t n_features, intp_t n_rows, intp_t* leaves) noexcept nogil:
    # Row-major rows that hold NaN, or a tree with category sets: 1 if a
    # value is infinite, else 0.
    if any_infinite(X, n_rows * n_features):
        return 1
    walk_general(tree, tests, <const char*> X, n_features * sizeof(float), 1, n_rows, leaves)
    return 0


# The two ways rows can lie in memory; as a fused type they make Cython
# compile the walk once for each, with the column scale a constant.
cdef struct RowMajor:           # rows of X as given: a feature is column bytes in
    char unused
cdef struct InterleavedRows:    # interleave_source's blocks: column * ROW_BLOCK bytes in
    char unused
ctypedef fused RowLayout:
    RowMajor
    InterleavedRows


cdef inline const char* step(const RowLayout* layout, const char* row,
                             const char* at) noexcept nogil:
    # ``at`` points at a node. Going left is going to the next node; going
    # right adds the jump. The choice is a mask, not a branch, so random
    # turns cost no mispredictions. A leaf (threshold -inf, a jump of minus
    # one node) sends every value right, onto itself: written as "not
    # x <= t", NaN goes right too, so no value can step off a leaf and past
    # the walk's end (rows with NaN take the general walk; this is the
    # guard should one ever reach these lanes).
    cdef const WalkNode* node = <const WalkNode*> at
    cdef intp_t offset
    if RowLayout is InterleavedRows:
        offset = <intp_t> node.column * ROW_BLOCK
    else:
        offset = node.column
    cdef intp_t go_right = -<intp_t> (not ((<const float*> (row + offset))[0]
                                          <= node.threshold))
    return at + sizeof(WalkNode) + (go_right & node.right_jump)


cdef inline void walk_lanes(const RowLayout* layout, const char* const* roots,
                            const char* const* rows, intp_t* leaves) noexcept nogil:
    # Eight walks in lockstep (lane j: the row at rows[j] from the node at
    # roots[j]), their positions in named locals that stay in registers;
    # their loads are independent, so their latencies overlap. Leaves step
    # to themselves, so the walks are done when two steps move none of them.
    cdef const char* r0 = rows[0]
    cdef const char* r1 = rows[1]
    cdef const char* r2 = rows[2]
    cdef const char* r3 = rows[3]
    cdef const char* r4 = rows[4]
    cdef const char* r5 = rows[5]
    cdef const char* r6 = rows[6]
    cdef const char* r7 = rows[7]
    cdef const char* a0 = roots[0]
    cdef const char* a1 = roots[1]
    cdef const char* a2 = roots[2]
    cdef const char* a3 = roots[3]
    cdef const char* a4 = roots[4]
    cdef const char* a5 = roots[5]
    cdef const char* a6 = roots[6]
    cdef const char* a7 = roots[7]
    cdef const char* b0
    cdef const char* b1
    cdef const char* b2
    cdef const char* b3
    cdef const char* b4
    cdef const char* b5
    cdef const char* b6
    cdef const char* b7
    while True:
        a0 = step(layout, r0, a0)
        a1 = step(layout, r1, a1)
        a2 = step(layout, r2, a2)
        a3 = step(layout, r3, a3)
        a4 = step(layout, r4, a4)
        a5 = step(layout, r5, a5)
        a6 = step(layout, r6, a6)
        a7 = step(layout, r7, a7)
        b0 = step(layout, r0, a0)
        b1 = step(layout, r1, a1)
        b2 = step(layout, r2, a2)
        b3 = step(layout, r3, a3)
        b4 = step(layout, r4, a4)
        b5 = step(layout, r5, a5)
        b6 = step(layout, r6, a6)
        b7 = step(layout, r7, a7)
        if ((a0 - b0) | (a1 - b1) | (a2 - b2) | (a3 - b3) | (a4 - b4) | (a5 - b5)
                | (a6 - b6) | (a7 - b7)) == 0:
            break
        a0 = b0
        a1 = b1
        a2 = b2
        a3 = b3
        a4 = b4
        a5 = b5
        a6 = b6
        a7 = b7
    leaves[0] = (<const WalkNode*> a0).node
    leaves[1] = (<const WalkNode*> a1).node
    leaves[2] = (<const WalkNode*> a2).node
    leaves[3] = (<const WalkNode*> a3).node
    leaves[4] = (<const WalkNode*> a4).node
    leaves[5] = (<const WalkNode*> a5).node
    leaves[6] = (<const WalkNode*> a6).node
    leaves[7] = (<const WalkNode*> a7).node


cdef inline intp_t row_bytes(const RowLayout* layout, intp_t row, intp_t n_features) noexcept nogil:
    # Where row ``row`` starts, in bytes from the first row.
    if RowLayout is InterleavedRows:
        return ((row // ROW_BLOCK) * ROW_BLOCK * n_features + row % ROW_BLOCK) * sizeof(float)
    return row * n_features * sizeof(float)


cdef inline void walk_refilled(const RowLayout* layout, const WalkNode* tree, const char* first,
                               intp_t n_features, intp_t n_rows, intp_t* leaves) noexcept nogil:
    # ROW_BLOCK rows at a time, as walk_lanes, but a row that reaches its
    # leaf hands its lane to the next row at once: in a tree whose paths
    # differ much in length, no lane idles while the longest path of its
    # block is walked (word-presence trees: rows' paths average a third of
    # the longest of their block's).
    cdef const char* base = <const char*> tree
    cdef const char* row_of[ROW_BLOCK]
    cdef const char* at[ROW_BLOCK]
    cdef intp_t row_id[ROW_BLOCK]
    cdef const char* moved
    cdef intp_t next_row = 0, lane, n_busy = 0, _
    for lane in range(ROW_BLOCK):
        at[lane] = base
        row_of[lane] = first
        row_id[lane] = -1
        if next_row < n_rows:
            row_of[lane] = first + row_bytes(layout, next_row, n_features)
            row_id[lane] = next_row
            next_row += 1
            n_busy += 1
    while n_busy:
        # Unchecked steps first (a row at its leaf stays there), then one
        # checked step: a finished row waits at most REFILL_STEPS steps.
        for _ in range(REFILL_STEPS - 1):
            for lane in range(ROW_BLOCK):
                at[lane] = step(layout, row_of[lane], at[lane])
        for lane in range(ROW_BLOCK):
            moved = step(layout, row_of[lane], at[lane])
            if moved != at[lane]:
                at[lane] = moved
            elif row_id[lane] >= 0:
                # A leaf (it steps to itself); an idle lane stays on its leaf.
                leaves[row_id[lane]] = (<const WalkNode*> moved).node
                if next_row < n_rows:
                    row_of[lane] = first + row_bytes(layout, next_row, n_features)
                    row_id[lane] = next_row
                    at[lane] = base
                    next_row += 1
                else:
                    row_id[lane] = -1
                    n_busy -= 1


cdef void walk_rows_refilled(const WalkNode* tree, const float* rows, intp_t n_features,
                             bint interleaved, intp_t n_rows, intp_t* leaves) noexcept nogil:
    if interleaved:
        walk_refilled(<const InterleavedRows*> NULL, tree, <const char*> rows, n_features,
                      n_rows, leaves)
    else:
        walk_refilled(<const RowMajor*> NULL, tree, <const char*> rows, n_features, n_rows,
                      leaves)


cdef inline void rows_of_block(const char* first, intp_t lane_stride,
                               const char** rows) noexcept nogil:
    cdef intp_t lane
    for lane in range(ROW_BLOCK):
        rows[lane] = first + lane * lane_stride


cdef void walk_block(const WalkNode* tree, const float* X, intp_t n_features,
                     intp_t* leaves) noexcept nogil:
    cdef const char* roots[ROW_BLOCK]
    cdef const char* rows[ROW_BLOCK]
    cdef intp_t lane
    for lane in range(ROW_BLOCK):
        roots[lane] = <const char*> tree
    rows_of_block(<const char*> X, n_features * sizeof(float), rows)
    walk_lanes(<const RowMajor*> NULL, roots, rows, leaves)


cdef void walk_interleaved(const WalkNode* tree, const float* block, intp_t* leaves) noexcept nogil:
    cdef const char* roots[ROW_BLOCK]
    cdef const char* rows[ROW_BLOCK]
    cdef intp_t lane
    for lane in range(ROW_BLOCK):
        roots[lane] = <const char*> tree
    rows_of_block(<const char*> block, sizeof(float), rows)
    walk_lanes(<const InterleavedRows*> NULL, roots, rows, leaves)


cdef void walk_row_through_trees(const WalkNode* const* roots, const float* row,
                                 bint interleaved, intp_t* leaves) noexcept nogil:
    cdef const char* rows[ROW_BLOCK]
    cdef intp_t lane
    for lane in range(ROW_BLOCK):
        rows[lane] = <const char*> row
    if interleaved:
        walk_lanes(<const InterleavedRows*> NULL, <const char* const*> roots, rows, leaves)
    else:
        walk_lanes(<const RowMajor*> NULL, <const char* const*> roots, rows, leaves)


cdef int find_leaves(const WalkNode* tree, const SplitTests* tests, const float* X,
                     intp_t n_features, intp_t n_rows, intp_t* leaves) noexcept nogil:
    cdef intp_t n_full_rows = n_rows - n_rows % ROW_BLOCK
    cdef intp_t reached[ROW_BLOCK]
    cdef float* last_block
    cdef intp_t start = 0, stop, row
    if tests.general:
        return walk_rows_general(tree, tests, X, n_features, n_rows, leaves)
    if tests.refill:
        while start < n_rows:
            stop = min(start + CHECKED_ROWS, n_rows)
            if any_non_finite(X + start * n_features, (stop - start) * n_features):
                if walk_rows_general(tree, tests, X + start * n_features, n_features,
                                     stop - start, leaves + start):
                    return 1
            else:
                walk_rows_refilled(tree, X + start * n_features, n_features, False,
                                   stop - start, leaves + start)
            start = stop
        return 0
    while start < n_full_rows:
        stop = min(start + CHECKED_ROWS, n_full_rows)
        if any_non_finite(X + start * n_features, (stop - start) * n_features):
            if walk_rows_general(tree, tests, X + start * n_features, n_features,
                                 stop - start, leaves + start):
                return 1
            start = stop
            continue
        row = start
        while row < stop:
            walk_block(tree, X + row * n_features, n_features, leaves + row)
            row += ROW_BLOCK
        start = stop
    if n_full_rows == n_rows:
        return 0
    if any_non_finite(X + n_full_rows * n_features, (n_rows - n_full_rows) * n_features):
        return walk_rows_general(tree, tests, X + n_full_rows * n_features, n_features,
                                 n_rows - n_full_rows, leaves + n_full_rows)
    last_block = padded_block(X + n_full_rows * n_features, n_rows - n_full_rows, n_features)
    if last_block == NULL:
        return -1
    walk_block(tree, last_block, n_features, reached)
    free(last_block)
    for row in range(n_full_rows, n_rows):
        leaves[row] = reached[row - n_full_rows]
    return 0


cdef int find_source_leaves(const WalkNode* tree, const SplitTests* tests,
                            const RowSource* source, intp_t* leaves,
                            float* buffer) noexcept nogil:
    cdef intp_t n_features = source.n_features
    cdef intp_t chunk_rows, start, n_chunk, row
    cdef intp_t reached[ROW_BLOCK]
    cdef bint general
    if source.in_place:
        return find_leaves(tree, tests, <const float*> source.data, n_features,
                           source.n_rows, leaves)
    chunk_rows = copy_chunk_rows(source)
    cdef bint by_rows = copies_rows(source)
    start = 0
    while start < source.n_rows:
        n_chunk = min(chunk_rows, source.n_rows - start)
        if by_rows:
            general = copy_source_rows(source, start, n_chunk, buffer, False) or tests.general
            # The last, partial block walks the buffer's rows after the
            # chunk too: zeros, not a previous chunk's rows, which may hold
            # NaN (that chunk took the general walk).
            memset(buffer + n_chunk * n_features, 0,
                   (block_values(n_chunk, n_features) - n_chunk * n_features) * sizeof(float))
        else:
            general = interleave_source(source, start, n_chunk, buffer) or tests.general
        if general and any_infinite(buffer, block_values(n_chunk, n_features)):
            return 1
        row = 0
        if tests.refill and not general:
            walk_rows_refilled(tree, buffer, n_features, not by_rows, n_chunk, leaves + start)
            row = n_chunk
        while row < n_chunk:
            # A last, partial block walks the zeros after it too; their
            # leaves are dropped.
            if general:
                walk_general_block(tree, tests, buffer + row * n_features, n_features,
                                   not by_rows, reached)
            elif by_rows:
                walk_block(tree, buffer + row * n_features, n_features, reached)
            else:
                walk_interleaved(tree, buffer + row * n_features, reached)
            memcpy(leaves + start + row, reached,
                   min(<intp_t> ROW_BLOCK, n_chunk - row) * sizeof(intp_t))
            row += ROW_BLOCK
        if source.csr_indptr != NULL:
            clear_csr_rows(source, start, n_chunk, buffer, not by_rows)
        start += n_chunk
    return 0


cdef int raise_for_status(int status, Interrupt interrupt) except -1:
    if status == INTERRUPTED:
        raise_interrupt(interrupt)
    if status < 0:
        raise MemoryError()
    return status


def apply_rows(WalkTests walk not None, object X, intp_t[::1] out not None,
               bint refill=False, Interrupt interrupt=None):
    """Writes into ``out`` the leaf each row of X reaches, in ``walk``'s numbering.

    X is a 2-D float32 or float64 array in any order (see ``RowSource``);
    NaN is a missing value. Returns 1 when X holds infinity (``out`` is then
    meaningless), else 0. ``interrupt`` (by default the thread's
    ``current_interrupt``) is polled between chunks of rows.
    """
    cdef const WalkNode* tree = walk.nodes
    cdef SplitTests tests = walk.tests
    tests.refill = refill
    cdef RowSource source
    cdef float* buffer
    cdef int status = 0
    row_source(X, &source)
    if out.shape[0] != source.n_rows:
        raise ValueError("out must have one entry per row")
    cdef intp_t start = 0, n_chunk
    if interrupt is None:
        interrupt = current_interrupt()
    buffer = checked_copy_buffer(&source)
    with nogil:
        while start < source.n_rows and status == 0:
            if interrupt.should_stop():
                status = INTERRUPTED
                break
            n_chunk = min(<intp_t> APPLY_CHUNK_ROWS, source.n_rows - start)
            status = chunk_leaves(tree, &tests, &source, start, n_chunk, &out[start], buffer)
            start += n_chunk
    free(buffer)
    return raise_for_status(status, interrupt)


ctypedef fused leaf_output:
    intp_t
    double


cdef enum:
    # Rows whose leaves are found before their outputs are written: the
    # outputs are written while the rows' leaves are in cache, with no
    # array of every row's leaf.
    OUTPUT_CHUNK_ROWS = 2048
    # Rows apply_rows walks between two polls of its Interrupt.
    APPLY_CHUNK_ROWS = 65536


cdef int chunk_leaves(const WalkNode* tree, const SplitTests* tests,
                      const RowSource* source, intp_t start, intp_t n_rows,
                      intp_t* leaves, float* buffer) noexcept nogil:
    # find_source_leaves for rows [start, start + n_rows) of source.
    cdef RowSource part = source[0]
    if source.csr_indptr != NULL:
        part.first_row = source.first_row + start
    else:
        part.data = source.data + start * source.row_stride
    part.n_rows = n_rows
    return find_source_leaves(tree, tests, &part, leaves, buffer)


def predict_leaf_outputs(WalkTests walk not None, const leaf_output[::1] node_output not None,
                         object X, leaf_output[::1] out not None,
                         bint refill=False, Interrupt interrupt=None):
    """Writes into ``out`` the ``node_output`` of the leaf each row reaches.

    ``node_output`` holds one entry per node: a class index, or a mean for
    regression. Returns 1 when X holds infinity, else 0. ``interrupt`` as in
    ``apply_rows``.
    """
    cdef const WalkNode* tree = walk.nodes
    cdef SplitTests tests = walk.tests
    tests.refill = refill
    cdef RowSource source
    cdef intp_t leaves[OUTPUT_CHUNK_ROWS]
    cdef float* buffer
    cdef intp_t start = 0, n_chunk, row
    cdef int status = 0
    row_source(X, &source)
    if out.shape[0] != source.n_rows or node_output.shape[0] != walk.n_nodes:
        raise ValueError("out must have one entry per row and node_output one per node")
    buffer = checked_copy_buffer(&source)
    if interrupt is None:
        interrupt = current_interrupt()
    with nogil:
        while start < source.n_rows and status == 0:
            if interrupt.should_stop():
                status = INTERRUPTED
                break
            n_chunk = min(<intp_t> OUTPUT_CHUNK_ROWS, source.n_rows - start)
            status = chunk_leaves(tree, &tests, &source, start, n_chunk, leaves, buffer)
            if status == 0:
                for row in range(n_chunk):
                    out[start + row] = node_output[leaves[row]]
            start += n_chunk
    free(buffer)
    return raise_for_status(status, interrupt)


def predict_leaf_rows(WalkTests walk not None, const double[:, ::1] node_rows not None,
                      object X, double[:, ::1] out not None,
                      bint refill=False, Interrupt interrupt=None):
    """Writes into ``out[i]`` the row of ``node_rows`` of the leaf row i of X reaches.

    ``node_rows`` holds one row per node (class probabilities, for example).
    Returns 1 when X holds infinity, else 0. ``interrupt`` as in ``apply_rows``.
    """
    cdef const WalkNode* tree = walk.nodes
    cdef SplitTests tests = walk.tests
    tests.refill = refill
    cdef RowSource source
    cdef intp_t leaves[OUTPUT_CHUNK_ROWS]
    cdef float* buffer
    cdef intp_t start = 0, n_chunk, row, k
    cdef intp_t width = node_rows.shape[1]
    cdef const double* node_row
    cdef int status = 0
    row_source(X, &source)
    if (out.shape[0] != source.n_rows or out.shape[1] != width
            or node_rows.shape[0] != walk.n_nodes):
        raise ValueError("out must have one row per row of X, node_rows one per node")
    if width == 0:
        return 0
    buffer = checked_copy_buffer(&source)
    if interrupt is None:
        interrupt = current_interrupt()
    with nogil:
        while start < source.n_rows and status == 0:
            if interrupt.should_stop():
                status = INTERRUPTED
                break
            n_chunk = min(<intp_t> OUTPUT_CHUNK_ROWS, source.n_rows - start)
            status = chunk_leaves(tree, &tests, &source, start, n_chunk, leaves, buffer)
            if status == 0:
                # A plain loop: rows are a few values wide, too few for a call.
                for row in range(n_chunk):
                    node_row = &node_rows[leaves[row], 0]
                    for k in range(width):
                        out[start + row, k] = node_row[k]
            start += n_chunk
    free(buffer)
    return raise_for_status(status, interrupt)


cdef intp_t path_of_row(const Node* tree, const uint8_t* flags, const uint32_t* category_bits,
                        const float* values, intp_t* path) noexcept nogil:
    # Length of the row's path from the root to its leaf; the nodes are
    # written into path unless it is NULL.
    cdef intp_t node_id = 0, length = 1
    if path != NULL:
        path[0] = 0
    while tree[node_id].left_child != LEAF_CHILD:
        if flags[node_id] & KIND_MASK == KIND_MULTIWAY:
            node_id = branch_of(values[tree[node_id].feature],
                                category_bits + node_side(tree[node_id].threshold))
        elif value_goes_left(values[tree[node_id].feature], flags[node_id],
                             tree[node_id].threshold, category_bits):
            node_id = tree[node_id].left_child
        else:
            node_id = tree[node_id].right_child
        if path != NULL:
            path[length] = node_id
        length += 1
    return length


def decision_paths(object nodes, const uint8_t[::1] flags not None,
                   const uint32_t[::1] category_bits not None, const float[:, ::1] X not None,
                   Interrupt interrupt=None):
    """CSR parts (indptr, indices) of the nodes each row passes through (a
    tree checked by walk_layout; NaN is a missing value). ``interrupt`` as in
    ``apply_rows``."""
    cdef const Node* tree = checked_nodes(nodes)
    cdef const uint32_t* bits = &category_bits[0] if category_bits.shape[0] else NULL
    if flags.shape[0] != nodes.shape[0]:
        raise ValueError("the node flags do not match the nodes")
    cdef intp_t n_rows = X.shape[0]
    cdef intp_t row
    cdef intp_t[::1] indptr = np.zeros(n_rows + 1, dtype=np.intp)
    cdef intp_t[::1] indices
    cdef int status = 0
    if interrupt is None:
        interrupt = current_interrupt()
    with nogil:
        for row in range(n_rows):
            if row % APPLY_CHUNK_ROWS == 0 and interrupt.should_stop():
                status = INTERRUPTED
                break
            indptr[row + 1] = indptr[row] + path_of_row(tree, &flags[0], bits, &X[row, 0], NULL)
    raise_for_status(status, interrupt)
    indices = np.empty(indptr[n_rows], dtype=np.intp)
    with nogil:
        for row in range(n_rows):
            if row % APPLY_CHUNK_ROWS == 0 and interrupt.should_stop():
                status = INTERRUPTED
                break
            path_of_row(tree, &flags[0], bits, &X[row, 0], &indices[indptr[row]])
    raise_for_status(status, interrupt)
    return np.asarray(indptr), np.asarray(indices)
