# cython: language_level=3
"""Prediction kernels: rows walked through a tree's walk layout (``_walk_layout``)
eight at a time, the rows they read, the entry points of prediction, and
decision paths."""

import numpy as np
cimport numpy as cnp

from libc.stdint cimport int32_t, uint8_t, uint32_t
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy, memset

from ._tree cimport (KIND_LEAF, KIND_MASK, KIND_MULTIWAY, Node, branch_of, node_side,
                     value_goes_left)
from ._walk_layout cimport LEAF_CHILD, SplitTests, WalkNode, WalkTests, checked_nodes
from ._interrupt cimport INTERRUPTED, Interrupt

from ._interrupt import current_interrupt, raise_interrupt

cnp.import_array()

class CSRRows:
    """Rows of a sparse matrix as the prediction kernels walk them, without
    densifying: row i's values are ``data[indptr[i]:indptr[i + 1]]`` in the
    columns ``indices[...]`` (intp indptr, int32 indices, float32 or float64
    data). Checked once when made by ``_validation.csr_for_walk``; a slice of rows
    shares the arrays (its indptr is a view, not rebased to 0)."""

    format = "csr"

    def __init__(self, indptr, indices, data, n_features):
        self.indptr = indptr
        self.indices = indices
        self.data = data
        self.shape = (indptr.shape[0] - 1, n_features)

    def __getitem__(self, rows):
        start, stop, step = rows.indices(self.shape[0])
        if step != 1:
            raise IndexError("CSRRows takes slices of consecutive rows only")
        stop = max(start, stop)
        return CSRRows(self.indptr[start:stop + 1], self.indices, self.data, self.shape[1])

    def toarray(self):
        """The rows as a dense C-ordered array (of the data's dtype)."""
        out = np.zeros(self.shape, dtype=self.data.dtype)
        first, last = self.indptr[0], self.indptr[-1]
        rows = np.repeat(np.arange(self.shape[0]), np.diff(self.indptr))
        out[rows, self.indices[first:last]] = self.data[first:last]
        return out


cdef enum:
    # Rows find_leaves checks for NaN and infinity and then walks, while they
    # are in cache.
    CHECKED_ROWS = 256
    # Steps walk_refilled takes between checks for rows at their leaves.
    REFILL_STEPS = 8


cdef int any_infinite(const float* values, intp_t n_values) noexcept nogil:
    cdef const uint32_t* bits = <const uint32_t*> values
    cdef uint32_t infinite = 0
    cdef intp_t i
    for i in range(n_values):
        infinite |= (bits[i] & 0x7FFFFFFFu) == 0x7F800000u
    return infinite != 0


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


cdef int any_non_finite(const float* values, intp_t n_values) noexcept nogil:
    # A float is NaN or infinite when its exponent bits are all ones; the OR
    # of plain integer tests vectorises.
    cdef const uint32_t* bits = <const uint32_t*> values
    cdef uint32_t exponent_all_ones = 0
    cdef intp_t i
    for i in range(n_values):
        exponent_all_ones |= (bits[i] & 0x7F800000u) == 0x7F800000u
    return exponent_all_ones != 0


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


cdef float* padded_block(const float* X, intp_t n_rows, intp_t n_features) noexcept nogil:
    cdef float* block = <float*> calloc(ROW_BLOCK * n_features, sizeof(float))
    if block != NULL:
        memcpy(block, X, n_rows * n_features * sizeof(float))
    return block


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


ctypedef fused real_t:
    float
    double


cdef enum:
    # Rows copied and walked at a time from a source that is not walked in
    # place: a copy that stays in the first cache levels (bytes), at most
    # CHECKED_ROWS rows when rows are copied one by one. Columns (Fortran
    # order) are copied in runs of up to COLUMN_RUN_ROWS values: long runs
    # keep the hardware prefetcher on each column.
    COPY_CHUNK_BYTES = 65536
    COLUMN_RUN_ROWS = 2048
    SPARSE_CHUNK_ROWS = 64


cdef int row_source(object X, RowSource* source) except -1:
    source.csr_indptr = NULL
    source.csr_indices = NULL
    source.first_row = 0
    if isinstance(X, CSRRows):
        return csr_row_source(X, source)
    if not isinstance(X, np.ndarray) or X.ndim != 2 or X.dtype not in (np.float32,
                                                                          np.float64):
        raise ValueError("rows to walk must be a 2-D float32 or float64 array")
    source.data = <const char*> cnp.PyArray_DATA(X)
    source.n_rows = X.shape[0]
    source.n_features = X.shape[1]
    source.row_stride = X.strides[0]
    source.feature_stride = X.strides[1]
    source.is_double = X.dtype == np.float64
    source.in_place = (not source.is_double and X.flags.c_contiguous
                       and source.feature_stride == sizeof(float))
    return 0


cdef int csr_row_source(object X, RowSource* source) except -1:
    # CSRRows were checked when made (column indices, indptr); the kernels
    # read the arrays raw, so their layouts and lengths are checked here.
    indptr, indices, data = X.indptr, X.indices, X.data
    n_rows, n_features = X.shape
    for array, dtypes in ((indptr, (np.intp,)), (indices, (np.int32,)),
                          (data, (np.float32, np.float64))):
        if (not isinstance(array, np.ndarray) or array.ndim != 1
                or not array.flags.c_contiguous or array.dtype not in dtypes):
            raise ValueError("sparse rows to walk must have intp indptr, int32 indices and "
                             "float32 or float64 data")
    if (indptr.shape[0] != n_rows + 1 or indices.shape[0] != data.shape[0]
            or (n_rows and (indptr[0] < 0 or indptr[n_rows] > indices.shape[0]))):
        raise ValueError("sparse rows to walk are inconsistent")
    source.data = <const char*> cnp.PyArray_DATA(data)
    source.n_rows = n_rows
    source.n_features = n_features
    source.row_stride = 0
    source.feature_stride = 0
    source.is_double = data.dtype == np.float64
    source.in_place = False
    source.csr_indptr = <const intp_t*> cnp.PyArray_DATA(indptr)
    source.csr_indices = <const int32_t*> cnp.PyArray_DATA(indices)
    return 0


cdef int scatter_csr(const real_t* data, const RowSource* source, intp_t first_row,
                     intp_t n_rows, float* out, bint interleaved, bint clear) noexcept nogil:
    # Rows first_row.. of a CSR source written into out, a buffer of zeros,
    # as dense float32 rows (row-major, or interleaved blocks): each row's
    # stored values in their places; with ``clear``, zeros there again once
    # the rows are walked. The cost is that of the stored values only, not
    # of the rows' width: wide word-presence rows hold a few values each.
    # Returns 1 if a stored value is NaN or infinite in float32, else 0.
    cdef intp_t n_features = source.n_features
    cdef intp_t row, entry, matrix_row, stride = ROW_BLOCK if interleaved else 1
    cdef float value
    cdef bint non_finite = False
    cdef float* row_start
    for row in range(n_rows):
        matrix_row = source.first_row + first_row + row
        if interleaved:
            row_start = out + (row - row % ROW_BLOCK) * n_features + row % ROW_BLOCK
        else:
            row_start = out + row * n_features
        for entry in range(source.csr_indptr[matrix_row], source.csr_indptr[matrix_row + 1]):
            value = 0.0 if clear else <float> data[entry]
            non_finite |= not (value - value == 0.0)
            row_start[source.csr_indices[entry] * stride] = value
    return non_finite


cdef int clear_csr_rows(const RowSource* source, intp_t first_row, intp_t n_rows,
                        float* out, bint interleaved) noexcept nogil:
    # Zeros again where scatter_csr wrote rows of a CSR source.
    if source.is_double:
        return scatter_csr(<const double*> source.data, source, first_row, n_rows, out,
                           interleaved, True)
    return scatter_csr(<const float*> source.data, source, first_row, n_rows, out,
                       interleaved, True)


cdef int copy_source_rows(const RowSource* source, intp_t first_row, intp_t n_rows,
                          float* out, bint interleaved) noexcept nogil:
    # Rows [first_row, first_row + n_rows) of a source that is not walked in
    # place, as row-major float32 rows or interleaved blocks (sparse rows
    # into a buffer of zeros, see scatter_csr). Returns 1 if a copied value
    # is NaN or infinite in float32, else 0.
    cdef const char* first
    if source.csr_indptr != NULL:
        if source.is_double:
            return scatter_csr(<const double*> source.data, source, first_row, n_rows, out,
                               interleaved, False)
        return scatter_csr(<const float*> source.data, source, first_row, n_rows, out,
                           interleaved, False)
    first = source.data + first_row * source.row_stride
    if interleaved:
        if source.is_double:
            copy_interleaved(<const double*> first, source, n_rows, out)
        else:
            copy_interleaved(<const float*> first, source, n_rows, out)
        # The last block's rows are spread over its whole length (padded
        # with zeros).
        return any_non_finite(out, block_values(n_rows, source.n_features))
    if source.is_double:
        copy_rows(<const double*> first, source, n_rows, out)
    else:
        copy_rows(<const float*> first, source, n_rows, out)
    return any_non_finite(out, n_rows * source.n_features)


cdef void copy_interleaved(const real_t* first, const RowSource* source, intp_t n_rows,
                           float* blocks) noexcept nogil:
    # Strided rows of either precision into blocks of ROW_BLOCK rows whose
    # values are interleaved; first is the first row's first value. Feature
    # by feature, a block's eight values come from eight rows: one cache
    # line of a Fortran-ordered array.
    cdef intp_t n_features = source.n_features
    cdef intp_t row_stride = source.row_stride
    cdef intp_t feature_stride = source.feature_stride
    cdef intp_t n_full = n_rows // ROW_BLOCK
    cdef intp_t block, feature, lane
    cdef const char* rows
    cdef const char* at
    cdef const real_t* column
    cdef float* out
    if row_stride == sizeof(real_t):
        # Fortran order: each column is read in one run, eight values at a
        # time into its place in every block (a copy the compiler
        # vectorises); the other columns wait in other runs.
        for feature in range(n_features):
            column = <const real_t*> (<const char*> first + feature * feature_stride)
            out = blocks + feature * ROW_BLOCK
            for block in range(n_full):
                for lane in range(ROW_BLOCK):
                    out[lane] = <float> column[lane]
                column += ROW_BLOCK
                out += ROW_BLOCK * n_features
    else:
        for block in range(n_full):
            rows = <const char*> first + block * ROW_BLOCK * row_stride
            out = blocks + block * ROW_BLOCK * n_features
            for feature in range(n_features):
                at = rows + feature * feature_stride
                out[0] = <float> (<const real_t*> at)[0]
                out[1] = <float> (<const real_t*> (at + row_stride))[0]
                out[2] = <float> (<const real_t*> (at + 2 * row_stride))[0]
                out[3] = <float> (<const real_t*> (at + 3 * row_stride))[0]
                out[4] = <float> (<const real_t*> (at + 4 * row_stride))[0]
                out[5] = <float> (<const real_t*> (at + 5 * row_stride))[0]
                out[6] = <float> (<const real_t*> (at + 6 * row_stride))[0]
                out[7] = <float> (<const real_t*> (at + 7 * row_stride))[0]
                out += ROW_BLOCK
    if n_rows == n_full * ROW_BLOCK:
        return
    rows = <const char*> first + n_full * ROW_BLOCK * row_stride
    out = blocks + n_full * ROW_BLOCK * n_features
    for feature in range(n_features):
        for lane in range(ROW_BLOCK):
            if n_full * ROW_BLOCK + lane < n_rows:
                out[lane] = <float> (<const real_t*> (rows + lane * row_stride
                                                      + feature * feature_stride))[0]
            else:
                out[lane] = 0.0
        out += ROW_BLOCK


cdef void copy_rows(const real_t* first, const RowSource* source, intp_t n_rows,
                    float* rows) noexcept nogil:
    # Rows whose values lie side by side, converted row by row into a
    # row-major float32 copy: contiguous reads the compiler vectorises.
    cdef intp_t n_features = source.n_features
    cdef intp_t row, feature
    cdef const real_t* values
    for row in range(n_rows):
        values = <const real_t*> (<const char*> first + row * source.row_stride)
        for feature in range(n_features):
            rows[row * n_features + feature] = <float> values[feature]


cdef int interleave_source(const RowSource* source, intp_t first_row, intp_t n_rows,
                           float* blocks) noexcept nogil:
    # Checked after the conversion, so that a float64 value beyond the
    # float32 range counts as infinite, as it does in fit.
    return copy_source_rows(source, first_row, n_rows, blocks, True)


cdef inline bint copies_rows(const RowSource* source) noexcept nogil:
    # Rows whose values lie side by side (C order, float64 or a row slice)
    # are copied row by row, and so are sparse rows; others (Fortran order,
    # column slices) are interleaved, which reads each column in runs.
    return source.csr_indptr != NULL or source.feature_stride == (
        sizeof(double) if source.is_double else sizeof(float))


cdef intp_t copy_chunk_rows(const RowSource* source) noexcept nogil:
    # Rows copied at a time: a multiple of ROW_BLOCK within COPY_CHUNK_BYTES.
    cdef intp_t rows = COPY_CHUNK_BYTES // (sizeof(float) * source.n_features)
    if source.csr_indptr != NULL:
        # Sparse rows: enough of them for refilled lanes to keep busy (a
        # lane takes the next row of the chunk), however wide the rows.
        rows = max(<intp_t> SPARSE_CHUNK_ROWS, min(<intp_t> CHECKED_ROWS, rows))
    elif copies_rows(source):
        rows = min(<intp_t> CHECKED_ROWS, rows)
    else:
        rows = max(rows, <intp_t> COLUMN_RUN_ROWS)
    rows = max(<intp_t> ROW_BLOCK, rows)
    return rows - rows % ROW_BLOCK


cdef float* copy_buffer(const RowSource* source) noexcept nogil:
    return <float*> calloc(copy_chunk_rows(source) * source.n_features, sizeof(float))


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


cdef float* checked_copy_buffer(const RowSource* source) except? NULL:
    # The copy buffer a source needs, allocated once per call of a kernel;
    # NULL for rows walked in place.
    cdef float* buffer
    if source.in_place or source.n_rows == 0:
        return NULL
    buffer = copy_buffer(source)
    if buffer == NULL:
        raise MemoryError()
    return buffer


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
