# cython: language_level=3
"""Prediction kernels: the walk layout of a tree, and rows walked through it."""

import numpy as np
cimport numpy as cnp

from libc.stdint cimport int32_t, uint32_t
from libc.stdlib cimport free, malloc

from ._tree cimport Node
from ._tree import NODE_DTYPE

cnp.import_array()

cdef WalkNode _layout_probe
# The numpy view of WalkNode, read off the C struct.
WALK_DTYPE = np.dtype({
    "names": ["column", "threshold", "right_jump", "node"],
    "formats": [np.int32, np.float32, np.int32, np.int32],
    "offsets": [
        <Py_ssize_t> (<char*> &_layout_probe.column - <char*> &_layout_probe),
        <Py_ssize_t> (<char*> &_layout_probe.threshold - <char*> &_layout_probe),
        <Py_ssize_t> (<char*> &_layout_probe.right_jump - <char*> &_layout_probe),
        <Py_ssize_t> (<char*> &_layout_probe.node - <char*> &_layout_probe),
    ],
    "itemsize": sizeof(WalkNode),
})

cdef enum:
    LEAF_CHILD = -1
    # The interleaved rows of one find_leaves or forest pass (bytes): large
    # enough that a tree's nodes are fetched for many blocks, small enough to
    # stay in the last-level cache.
    BLOCK_BUFFER_BYTES = 4194304

# Byte offsets live in int32 fields: the largest tree and widest row block
# they can address.
MAX_WALK_NODES = (2 ** 31 - 1) // sizeof(WalkNode)
MAX_WALK_FEATURES = (2 ** 31 - 1) // (ROW_BLOCK * sizeof(float))


def walk_layout(object nodes, Py_ssize_t n_features):
    """The tree's nodes in preorder as WalkNode records.

    Parameters
    ----------
    nodes : ndarray of NODE_DTYPE
        A validated tree: children come after their parent, leaves have
        ``left_child == -1``.
    n_features : int
        Features of the rows the tree is walked with.

    Returns
    -------
    ndarray of WALK_DTYPE, one record per node
    """
    cdef const Node* tree = checked_nodes(nodes)
    cdef Py_ssize_t n_nodes = nodes.shape[0]
    if n_nodes > MAX_WALK_NODES:
        raise ValueError(f"a tree of {n_nodes} nodes is too large to predict with "
                         f"(at most {MAX_WALK_NODES})")
    if n_features > MAX_WALK_FEATURES:
        raise ValueError(f"{n_features} features are too many to predict with "
                         f"(at most {MAX_WALK_FEATURES})")
    walk_array = np.empty(n_nodes, dtype=WALK_DTYPE)
    cdef WalkNode* walk = <WalkNode*> cnp.PyArray_DATA(walk_array)
    cdef Py_ssize_t[::1] pending = np.empty(n_nodes + 1, dtype=np.intp)
    # Preorder position of each node's right child, filled when it is placed.
    cdef Py_ssize_t[::1] parent_of_right = np.full(n_nodes, -1, dtype=np.intp)
    cdef char[::1] placed = np.zeros(n_nodes, dtype=np.int8)
    cdef Py_ssize_t n_pending = 1, position = 0, node_id, parent
    pending[0] = 0
    while n_pending > 0:
        n_pending -= 1
        node_id = pending[n_pending]
        if placed[node_id]:
            raise ValueError("corrupt fasttree model: a node is reached twice")
        placed[node_id] = 1
        parent = parent_of_right[node_id]
        if parent >= 0:
            walk[parent].right_jump = <int32_t> ((position - parent - 1) * sizeof(WalkNode))
        walk[position].node = <int32_t> node_id
        if tree[node_id].left_child == LEAF_CHILD:
            walk[position].column = 0
            walk[position].threshold = -np.inf
            walk[position].right_jump = -<int32_t> sizeof(WalkNode)
        else:
            walk[position].column = <int32_t> (tree[node_id].feature * ROW_BLOCK * sizeof(float))
            walk[position].threshold = tree[node_id].threshold
            parent_of_right[tree[node_id].right_child] = position
            pending[n_pending] = tree[node_id].right_child
            pending[n_pending + 1] = tree[node_id].left_child
            n_pending += 2
        position += 1
    if position != n_nodes:
        raise ValueError("corrupt fasttree model: a node is not reached from the root")
    return walk_array


cdef int interleave_rows(const float* X, intp_t n_rows, intp_t n_features,
                         float* blocks) noexcept nogil:
    cdef intp_t n_blocks = (n_rows + ROW_BLOCK - 1) // ROW_BLOCK
    cdef intp_t block, lane, feature, row
    cdef float* block_values
    cdef const uint32_t* bits
    cdef uint32_t exponent_all_ones = 0
    for block in range(n_blocks):
        block_values = blocks + block * ROW_BLOCK * n_features
        for lane in range(ROW_BLOCK):
            row = block * ROW_BLOCK + lane
            if row < n_rows:
                bits = <const uint32_t*> (X + row * n_features)
                for feature in range(n_features):
                    exponent_all_ones |= (bits[feature] & 0x7F800000u) == 0x7F800000u
                    block_values[feature * ROW_BLOCK + lane] = X[row * n_features + feature]
            else:
                for feature in range(n_features):
                    block_values[feature * ROW_BLOCK + lane] = 0.0
    return exponent_all_ones != 0


cdef inline intp_t step(const char* tree, const char* block, intp_t at,
                        intp_t lane) noexcept nogil:
    # ``at`` is the byte offset of a node. Going left is going to the next
    # node; going right adds the jump. The choice is a mask, not a branch,
    # so random turns cost no mispredictions.
    cdef const WalkNode* node = <const WalkNode*> (tree + at)
    cdef intp_t go_right = -<intp_t> (
        (<const float*> (block + node.column))[lane] > node.threshold)
    return at + <intp_t> sizeof(WalkNode) + (go_right & node.right_jump)


cdef void walk_block(const WalkNode* tree, const float* block, intp_t* leaves) noexcept nogil:
    # Eight rows in lockstep, their positions in named locals that stay in
    # registers; their loads are independent, so their latencies overlap.
    # Leaves step to themselves, so the rows are done when two steps move
    # none of them.
    cdef const char* base = <const char*> tree
    cdef const char* values = <const char*> block
    cdef intp_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0
    cdef intp_t b0, b1, b2, b3, b4, b5, b6, b7
    while True:
        a0 = step(base, values, a0, 0)
        a1 = step(base, values, a1, 1)
        a2 = step(base, values, a2, 2)
        a3 = step(base, values, a3, 3)
        a4 = step(base, values, a4, 4)
        a5 = step(base, values, a5, 5)
        a6 = step(base, values, a6, 6)
        a7 = step(base, values, a7, 7)
        b0 = step(base, values, a0, 0)
        b1 = step(base, values, a1, 1)
        b2 = step(base, values, a2, 2)
        b3 = step(base, values, a3, 3)
        b4 = step(base, values, a4, 4)
        b5 = step(base, values, a5, 5)
        b6 = step(base, values, a6, 6)
        b7 = step(base, values, a7, 7)
        if ((a0 ^ b0) | (a1 ^ b1) | (a2 ^ b2) | (a3 ^ b3) | (a4 ^ b4) | (a5 ^ b5)
                | (a6 ^ b6) | (a7 ^ b7)) == 0:
            break
        a0 = b0
        a1 = b1
        a2 = b2
        a3 = b3
        a4 = b4
        a5 = b5
        a6 = b6
        a7 = b7
    leaves[0] = (<const WalkNode*> (base + a0)).node
    leaves[1] = (<const WalkNode*> (base + a1)).node
    leaves[2] = (<const WalkNode*> (base + a2)).node
    leaves[3] = (<const WalkNode*> (base + a3)).node
    leaves[4] = (<const WalkNode*> (base + a4)).node
    leaves[5] = (<const WalkNode*> (base + a5)).node
    leaves[6] = (<const WalkNode*> (base + a6)).node
    leaves[7] = (<const WalkNode*> (base + a7)).node


cdef intp_t rows_per_buffer(intp_t n_features) noexcept nogil:
    cdef intp_t rows = BLOCK_BUFFER_BYTES // (sizeof(float) * max(n_features, 1))
    return max(<intp_t> ROW_BLOCK, rows - rows % ROW_BLOCK)


cdef int find_leaves(const WalkNode* tree, const float* X, intp_t n_features,
                     intp_t n_rows, intp_t* leaves) noexcept nogil:
    cdef intp_t buffer_rows = min(rows_per_buffer(n_features),
                                  (n_rows + ROW_BLOCK - 1) // ROW_BLOCK * ROW_BLOCK)
    cdef float* blocks = <float*> malloc(buffer_rows * n_features * sizeof(float))
    cdef intp_t start = 0, n_part, block, lane
    cdef intp_t reached[ROW_BLOCK]
    cdef int status = 0
    if blocks == NULL:
        return -1
    while start < n_rows and status == 0:
        n_part = min(buffer_rows, n_rows - start)
        status = interleave_rows(X + start * n_features, n_part, n_features, blocks)
        if status:
            break
        for block in range(n_part // ROW_BLOCK):
            walk_block(tree, blocks + block * ROW_BLOCK * n_features,
                       leaves + start + block * ROW_BLOCK)
        if n_part % ROW_BLOCK:
            block = n_part // ROW_BLOCK
            walk_block(tree, blocks + block * ROW_BLOCK * n_features, reached)
            for lane in range(n_part % ROW_BLOCK):
                leaves[start + block * ROW_BLOCK + lane] = reached[lane]
        start += n_part
    free(blocks)
    return status


cdef const void* checked_records(object records, object dtype, str what) except NULL:
    # The kernels read raw records: only a non-empty contiguous 1-D array of
    # exactly this dtype may reach them.
    if not isinstance(records, np.ndarray) or records.dtype != dtype or records.ndim != 1:
        raise ValueError(f"{what} have an unexpected layout")
    if not records.flags.c_contiguous or records.shape[0] == 0:
        raise ValueError(f"{what} must be a non-empty contiguous array")
    return cnp.PyArray_DATA(records)


cdef const Node* checked_nodes(object nodes) except NULL:
    return <const Node*> checked_records(nodes, NODE_DTYPE, "tree nodes")


cdef const WalkNode* checked_walk(object walk) except NULL:
    return <const WalkNode*> checked_records(walk, WALK_DTYPE, "walk nodes")


cdef int raise_for_status(int status) except -1:
    if status < 0:
        raise MemoryError()
    return status


def apply_rows(object walk, const float[:, ::1] X not None, intp_t[::1] out not None):
    """Writes into ``out`` the leaf each row of X reaches (walk from walk_layout).

    Returns 1 when X holds NaN or infinity (``out`` is then meaningless), else 0.
    """
    cdef const WalkNode* tree = checked_walk(walk)
    cdef int status = 0
    if X.shape[0]:
        with nogil:
            status = find_leaves(tree, &X[0, 0], X.shape[1], X.shape[0], &out[0])
    return raise_for_status(status)


ctypedef fused leaf_output:
    intp_t
    double


def predict_leaf_outputs(object walk, const leaf_output[::1] node_output not None,
                         const float[:, ::1] X not None, leaf_output[::1] out not None):
    """Writes into ``out`` the ``node_output`` of the leaf each row reaches.

    ``node_output`` holds one entry per node: a class index, or a mean for
    regression. Returns 1 when X holds NaN or infinity, else 0.
    """
    cdef const WalkNode* tree = checked_walk(walk)
    cdef intp_t[::1] leaves = np.empty(X.shape[0], dtype=np.intp)
    cdef intp_t row
    cdef int status = 0
    if X.shape[0]:
        with nogil:
            status = find_leaves(tree, &X[0, 0], X.shape[1], X.shape[0], &leaves[0])
            if status == 0:
                for row in range(X.shape[0]):
                    out[row] = node_output[leaves[row]]
    return raise_for_status(status)


cdef intp_t path_of_row(const Node* tree, const float* values, intp_t* path) noexcept nogil:
    # Length of the row's path from the root to its leaf; the nodes are
    # written into path unless it is NULL.
    cdef intp_t node_id = 0, length = 1
    if path != NULL:
        path[0] = 0
    while tree[node_id].left_child != LEAF_CHILD:
        if values[tree[node_id].feature] <= tree[node_id].threshold:
            node_id = tree[node_id].left_child
        else:
            node_id = tree[node_id].right_child
        if path != NULL:
            path[length] = node_id
        length += 1
    return length


def decision_paths(object nodes, const float[:, ::1] X not None):
    """CSR parts (indptr, indices) of the nodes each row passes through."""
    cdef const Node* tree = checked_nodes(nodes)
    cdef intp_t n_rows = X.shape[0]
    cdef intp_t row
    cdef intp_t[::1] indptr = np.zeros(n_rows + 1, dtype=np.intp)
    cdef intp_t[::1] indices
    with nogil:
        for row in range(n_rows):
            indptr[row + 1] = indptr[row] + path_of_row(tree, &X[row, 0], NULL)
    indices = np.empty(indptr[n_rows], dtype=np.intp)
    with nogil:
        for row in range(n_rows):
            path_of_row(tree, &X[row, 0], &indices[indptr[row]])
    return np.asarray(indptr), np.asarray(indices)
