# Prediction: rows (_row_source.pxd) walked eight at a time through a tree
# laid out for walking (_walk_layout.pxd).

from ._row_source cimport ROW_BLOCK, RowSource
from ._utils cimport intp_t
from ._walk_layout cimport SplitTests, WalkNode


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

# Leaf of every row of the row-major X. Returns 1 if X holds infinity, -1
# if memory ran out, else 0.
cdef int find_leaves(const WalkNode* tree, const SplitTests* tests, const float* X,
                     intp_t n_features, intp_t n_rows, intp_t* leaves) noexcept nogil


# find_leaves for any row source, copying rows that are not walked in place
# into buffer (of the copy chunk's size, zeroed once). Returns 1 if X holds
# infinity, -1 if memory ran out, else 0.
cdef int find_source_leaves(const WalkNode* tree, const SplitTests* tests,
                            const RowSource* source, intp_t* leaves,
                            float* buffer) noexcept nogil
