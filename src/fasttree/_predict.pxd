# Prediction: a tree laid out for walking, and rows walked through it eight at
# a time.

from libc.stdint cimport int32_t

from ._utils cimport intp_t

cdef enum:
    # Rows walked together, each with its own node, in lockstep.
    ROW_BLOCK = 8


# A node as prediction reads it. Nodes are in preorder: the left child of a
# node is the node that follows it, so only the right child needs a link.
cdef struct WalkNode:
    int32_t column      # byte offset of the tested feature in a row
    float threshold     # x > threshold goes right; -inf at a leaf
    int32_t right_jump  # bytes from the following node to the right child;
                        # -sizeof(WalkNode) at a leaf, which then steps to itself
    int32_t node        # the node's index in the tree's own numbering


# 1 if any of the values is NaN or infinite, else 0. Rows must be checked
# before they are walked: a NaN would step off a leaf.
cdef int any_non_finite(const float* values, intp_t n_values) noexcept nogil

# Walks ROW_BLOCK consecutive rows of the row-major X (finite values only)
# through a tree and writes the index of the leaf each row reaches.
cdef void walk_block(const WalkNode* tree, const float* X, intp_t n_features,
                     intp_t* leaves) noexcept nogil

# walk_block for one block of interleave_source's output.
cdef void walk_interleaved(const WalkNode* tree, const float* block,
                           intp_t* leaves) noexcept nogil

# A ROW_BLOCK-row copy of n_rows (< ROW_BLOCK) rows, padded with zeros, for
# walk_block; the caller frees it. NULL if memory ran out.
cdef float* padded_block(const float* X, intp_t n_rows, intp_t n_features) noexcept nogil

# Leaf of every row of the row-major X. Returns 1 if X holds NaN or
# infinity, -1 if memory ran out, else 0.
cdef int find_leaves(const WalkNode* tree, const float* X, intp_t n_features,
                     intp_t n_rows, intp_t* leaves) noexcept nogil


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


# Fills source from X (a 2-D float32 or float64 ndarray) or raises.
cdef int row_source(object X, RowSource* source) except -1

# Copies rows [first_row, first_row + n_rows) of source into interleaved
# blocks, padding the last block with zeros; blocks holds
# ceil(n_rows / ROW_BLOCK) * ROW_BLOCK * n_features floats. Returns 1 if a
# copied value is NaN or infinite in float32, else 0.
cdef int interleave_source(const RowSource* source, intp_t first_row, intp_t n_rows,
                           float* blocks) noexcept nogil

# find_leaves for any row source, copying rows that are not walked in place
# into buffer (of the copy chunk's size, zeroed once). Returns 1 if X holds
# NaN or infinity, -1 if memory ran out, else 0.
cdef int find_source_leaves(const WalkNode* tree, const RowSource* source,
                            intp_t* leaves, float* buffer) noexcept nogil
