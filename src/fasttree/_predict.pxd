# Prediction: rows walked eight at a time through a tree laid out for walking
# (_walk_layout.pxd).

from libc.stdint cimport int32_t, uint8_t, uint32_t

from ._utils cimport intp_t
from ._walk_layout cimport SplitTests, WalkNode

cdef enum:
    # Rows walked together, each with its own node, in lockstep.
    ROW_BLOCK = 8


# 1 if any of the values is NaN or infinite, else 0. Rows must be checked
# before the fast walk takes them: a NaN would step off a leaf.
cdef int any_non_finite(const float* values, intp_t n_values) noexcept nogil

# 1 if any of the values is infinite, else 0 (NaN is a missing value, but
# infinity is refused, as in fit).
cdef int any_infinite(const float* values, intp_t n_values) noexcept nogil

# Walks n_lanes rows one at a time through a tree, testing each node by its
# flags (missing values, category sets). Row j's value of a node's feature
# is column_scale * column bytes after first + j * lane_stride (the scale is
# 1 for row-major rows, ROW_BLOCK for interleaved blocks).
cdef void walk_general(const WalkNode* tree, const SplitTests* tests, const char* first,
                       intp_t lane_stride, intp_t column_scale, intp_t n_lanes,
                       intp_t* leaves) noexcept nogil

# walk_general for one block of ROW_BLOCK rows: row-major rows of n_features
# values, or one block of interleave_source's output.
cdef inline void walk_general_block(const WalkNode* tree, const SplitTests* tests,
                                    const float* block, intp_t n_features,
                                    bint interleaved, intp_t* leaves) noexcept nogil:
    if interleaved:
        # A row's values are a float apart, a feature's ROW_BLOCK floats.
        walk_general(tree, tests, <const char*> block, sizeof(float), ROW_BLOCK, ROW_BLOCK,
                     leaves)
    else:
        walk_general(tree, tests, <const char*> block, n_features * sizeof(float), 1,
                     ROW_BLOCK, leaves)


# The floats that n_rows rows fill in blocks of ROW_BLOCK rows (the last
# block padded).
cdef inline intp_t block_values(intp_t n_rows, intp_t n_features) noexcept nogil:
    return (n_rows + ROW_BLOCK - 1) // ROW_BLOCK * ROW_BLOCK * n_features


# Walks ROW_BLOCK consecutive rows of the row-major X (finite values only)
# through a tree and writes the index of the leaf each row reaches.
cdef void walk_block(const WalkNode* tree, const float* X, intp_t n_features,
                     intp_t* leaves) noexcept nogil

# walk_block for one block of interleave_source's output.
cdef void walk_interleaved(const WalkNode* tree, const float* block,
                           intp_t* leaves) noexcept nogil

# The leaves of n_rows rows (finite values only; row-major rows of
# n_features values, or interleave_source's blocks), walked ROW_BLOCK at a
# time, a lane taking the next row as soon as its row reaches a leaf.
cdef void walk_rows_refilled(const WalkNode* tree, const float* rows, intp_t n_features,
                             bint interleaved, intp_t n_rows, intp_t* leaves) noexcept nogil

# One row (finite values only; row-major, or a row of an interleave_source
# block) walked through ROW_BLOCK trees at once, lane j from the root
# roots[j]: leaves[j] is the leaf it reaches there. A batch of a few rows
# walks its trees so, eight at a time, rather than each tree with its lanes
# mostly empty.
cdef void walk_row_through_trees(const WalkNode* const* roots, const float* row,
                                 bint interleaved, intp_t* leaves) noexcept nogil

# A ROW_BLOCK-row copy of n_rows (< ROW_BLOCK) rows, padded with zeros, for
# walk_block; the caller frees it. NULL if memory ran out.
cdef float* padded_block(const float* X, intp_t n_rows, intp_t n_features) noexcept nogil

# Leaf of every row of the row-major X. Returns 1 if X holds infinity, -1
# if memory ran out, else 0.
cdef int find_leaves(const WalkNode* tree, const SplitTests* tests, const float* X,
                     intp_t n_features, intp_t n_rows, intp_t* leaves) noexcept nogil


# Rows of any 2-D float32 or float64 array, in any order or strides, as the
# walks read them: C-contiguous float32 rows are walked where they lie; any
# other rows are copied block by block into blocks of ROW_BLOCK rows whose
# values are interleaved (feature by feature, the block's rows side by side;
# the rows of a block find a feature's values in one cache line), converted
# to float32 as fit converts X.
cdef struct RowSource:
    const char* data         # the first row's first value
    intp_t n_rows
    intp_t n_features
    intp_t row_stride        # bytes from a row to the next (may be negative)
    intp_t feature_stride    # bytes from a value to the next feature's
    bint is_double           # float64 values, else float32
    bint in_place            # C-contiguous float32: walked without a copy
    # Sparse rows (scipy CSR): row i of the source is row first_row + i of
    # the matrix, its entries csr_indptr[row] .. csr_indptr[row + 1] - 1 in
    # csr_indices (columns) and data (values); the other values are zeros.
    # NULL for dense rows.
    const intp_t* csr_indptr
    const int32_t* csr_indices
    intp_t first_row


# Fills source from X (a 2-D float32 or float64 ndarray, or a CSR matrix
# with intp indptr, int32 indices and float32 or float64 data) or raises.
cdef int row_source(object X, RowSource* source) except -1

# Copies rows [first_row, first_row + n_rows) of source into interleaved
# blocks, padding the last block with zeros; blocks holds
# ceil(n_rows / ROW_BLOCK) * ROW_BLOCK * n_features floats. Sparse rows
# are written into blocks of zeros (only their stored values), to be
# cleared by clear_csr_rows once walked. Returns 1 if a copied value is
# NaN or infinite in float32, else 0.
cdef int interleave_source(const RowSource* source, intp_t first_row, intp_t n_rows,
                           float* blocks) noexcept nogil

# Copies rows [first_row, first_row + n_rows) of source as row-major float32
# rows (or interleaved blocks), sparse rows into a buffer of zeros (see
# interleave_source). Returns 1 if a copied value is NaN or infinite in
# float32, else 0.
cdef int copy_source_rows(const RowSource* source, intp_t first_row, intp_t n_rows,
                          float* out, bint interleaved) noexcept nogil

# Zeros again where sparse rows [first_row, first_row + n_rows) of source
# were written (interleaved or row-major), so the buffer can take the next.
cdef int clear_csr_rows(const RowSource* source, intp_t first_row, intp_t n_rows,
                        float* out, bint interleaved) noexcept nogil

# find_leaves for any row source, copying rows that are not walked in place
# into buffer (of the copy chunk's size, zeroed once). Returns 1 if X holds
# infinity, -1 if memory ran out, else 0.
cdef int find_source_leaves(const WalkNode* tree, const SplitTests* tests,
                            const RowSource* source, intp_t* leaves,
                            float* buffer) noexcept nogil
