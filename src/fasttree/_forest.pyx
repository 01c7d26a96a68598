# cython: language_level=3
"""Forest prediction: every tree, every row, one nogil pass."""

import numpy as np
cimport numpy as cnp

from libc.stdint cimport uint32_t
from libc.stdlib cimport free, malloc

from ._tree cimport Node, find_leaves
from ._utils cimport intp_t

cnp.import_array()

cdef enum:
    # Rows taken through a group of trees before the next rows: a chunk of X
    # that stays in cache beside the group's nodes (bytes, then row bounds;
    # tuned on 50- and 500-feature data).
    CHUNK_BYTES = 262144
    MIN_CHUNK_ROWS = 16
    MAX_CHUNK_ROWS = 256
    # Nodes of a group of trees: 16 bytes each, about half of a 1 MiB cache,
    # so the group's nodes stay cached while every chunk passes through it.
    GROUP_NODES = 32768


cdef int check_rows_finite(const float* X, intp_t n_values) noexcept nogil:
    cdef const uint32_t* bits = <const uint32_t*> X
    cdef uint32_t exponent_all_ones = 0
    cdef intp_t i
    for i in range(n_values):
        exponent_all_ones |= (bits[i] & 0x7F800000u) == 0x7F800000u
    return exponent_all_ones != 0


def tree_outputs(object walk, const intp_t[::1] tree_starts not None,
                 const double[:, ::1] node_output not None,
                 const float[:, ::1] X not None, double[:, ::1] out not None,
                 bint per_tree):
    """Reads, for every tree, the output row of the leaf each row of X reaches.

    Parameters
    ----------
    walk : ndarray of NODE_DTYPE
        The walk nodes (leaves loop to themselves) of all trees, one after
        another; child indices count from their tree's first node.
    tree_starts : ndarray of intp, shape (n_trees + 1,)
        Tree t's nodes are ``walk[tree_starts[t]:tree_starts[t + 1]]``.
    node_output : ndarray of float64, shape (n_nodes, n_outputs)
        What each node gives (class probabilities, a one-hot vote, a mean).
    X : ndarray of float32, shape (n_rows, n_features)
    out : ndarray of float64
        With ``per_tree`` false, shape (n_rows, n_outputs): overwritten with
        the sums over trees. With ``per_tree`` true, shape (n_rows, n_trees):
        ``out[row, t]`` is tree t's first output.
    per_tree : bool

    Returns
    -------
    int
        1 when X holds NaN or infinity (``out`` is then meaningless), else 0.
    """
    cdef const Node* nodes = <const Node*> cnp.PyArray_DATA(walk)
    cdef intp_t n_rows = X.shape[0]
    cdef intp_t n_features = X.shape[1]
    cdef intp_t n_outputs = node_output.shape[1]
    cdef intp_t n_trees = tree_starts.shape[0] - 1
    cdef intp_t row_chunk = max(<intp_t> MIN_CHUNK_ROWS,
                                min(<intp_t> MAX_CHUNK_ROWS, CHUNK_BYTES // (4 * n_features)))
    cdef intp_t group_start, group_end, chunk_start, chunk_size, tree, row, k, node
    cdef intp_t* leaves
    cdef int status
    if n_rows == 0:
        return 0
    if not per_tree:
        out[:, :] = 0.0
    leaves = <intp_t*> malloc(row_chunk * sizeof(intp_t))
    if leaves == NULL:
        raise MemoryError()
    with nogil:
        status = check_rows_finite(&X[0, 0], n_rows * n_features)
        group_start = 0
        while group_start < n_trees and status == 0:
            group_end = group_start + 1
            while (group_end < n_trees and tree_starts[group_end + 1] - tree_starts[group_start]
                   <= GROUP_NODES):
                group_end += 1
            chunk_start = 0
            while chunk_start < n_rows:
                chunk_size = min(row_chunk, n_rows - chunk_start)
                for tree in range(group_start, group_end):
                    find_leaves(nodes + tree_starts[tree], &X[chunk_start, 0], n_features,
                                chunk_size, leaves, False)
                    for row in range(chunk_size):
                        node = tree_starts[tree] + leaves[row]
                        if per_tree:
                            out[chunk_start + row, tree] = node_output[node, 0]
                        else:
                            for k in range(n_outputs):
                                out[chunk_start + row, k] += node_output[node, k]
                chunk_start += chunk_size
            group_start = group_end
    free(leaves)
    return status
