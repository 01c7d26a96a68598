# Prediction: a tree laid out for walking, and rows walked through it eight at
# a time.

from libc.stdint cimport int32_t

from ._utils cimport intp_t

cdef enum:
    # Rows walked together. Their values are interleaved (feature-major within
    # a block), so one register addresses every row of the block.
    ROW_BLOCK = 8


# A node as prediction reads it. Nodes are in preorder: the left child of a
# node is the node that follows it, so only the right child needs a link.
cdef struct WalkNode:
    int32_t column      # byte offset of the tested feature's values in a row block
    float threshold     # x > threshold goes right; -inf at a leaf
    int32_t right_jump  # bytes from the following node to the right child;
                        # -sizeof(WalkNode) at a leaf, which then steps to itself
    int32_t node        # the node's index in the tree's own numbering


# Copies n_rows rows of the row-major X into blocks of ROW_BLOCK interleaved
# rows, padding the last block with zeros. blocks must hold
# ceil(n_rows / ROW_BLOCK) * ROW_BLOCK * n_features floats. Returns 1 if the
# rows hold NaN or infinity (which must not be walked), else 0.
cdef int interleave_rows(const float* X, intp_t n_rows, intp_t n_features,
                         float* blocks) noexcept nogil

# Walks the ROW_BLOCK rows of one interleaved block (finite values only)
# through a tree and writes the index of the leaf each row reaches.
cdef void walk_block(const WalkNode* tree, const float* block, intp_t* leaves) noexcept nogil

# Rows that interleave_rows takes at once so that its buffer stays near
# BLOCK_BUFFER_BYTES; a multiple of ROW_BLOCK.
cdef intp_t rows_per_buffer(intp_t n_features) noexcept nogil

# Leaf of every row of the row-major X. Returns 1 if X holds NaN or
# infinity, -1 if memory ran out, else 0.
cdef int find_leaves(const WalkNode* tree, const float* X, intp_t n_features,
                     intp_t n_rows, intp_t* leaves) noexcept nogil
