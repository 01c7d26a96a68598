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
    # Rows taken through all trees before the next rows: a chunk of X stays
    # in cache while every tree reads it.
    ROW_CHUNK = 2048


cdef int check_rows_finite(const float* X, intp_t n_values) noexcept nogil:
    cdef const uint32_t* bits = <const uint32_t*> X
    cdef uint32_t exponent_all_ones = 0
    cdef intp_t i
    for i in range(n_values):
        exponent_all_ones |= (bits[i] & 0x7F800000u) == 0x7F800000u
    return exponent_all_ones != 0


def sum_tree_outputs(object walk, const intp_t[::1] tree_starts not None,
                     const double[:, ::1] node_output not None,
                     const float[:, ::1] X not None, double[:, ::1] out not None):
    """Adds, over all trees, the output row of the leaf each row of X reaches.

    Parameters
    ----------
    walk : ndarray of NODE_DTYPE
        The walk nodes (leaves loop to themselves) of all trees, one after
        another; child indices count from their tree's first node.
    tree_starts : ndarray of intp, shape (n_trees + 1,)
        Tree t's nodes are ``walk[tree_starts[t]:tree_starts[t + 1]]``.
    node_output : ndarray of float64, shape (n_nodes, n_outputs)
        What each node adds (class probabilities, a one-hot vote, a mean).
    X : ndarray of float32, shape (n_rows, n_features)
    out : ndarray of float64, shape (n_rows, n_outputs)
        Overwritten with the sums.

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
    cdef intp_t chunk_start, chunk_size, tree, row, k, node
    cdef intp_t* leaves
    cdef int status = 0
    if n_rows == 0:
        return 0
    out[:, :] = 0.0
    leaves = <intp_t*> malloc(ROW_CHUNK * sizeof(intp_t))
    if leaves == NULL:
        raise MemoryError()
    with nogil:
        chunk_start = 0
        while chunk_start < n_rows and status == 0:
            chunk_size = min(<intp_t> ROW_CHUNK, n_rows - chunk_start)
            status = check_rows_finite(&X[chunk_start, 0], chunk_size * n_features)
            for tree in range(n_trees):
                find_leaves(nodes + tree_starts[tree], &X[chunk_start, 0], n_features,
                            chunk_size, leaves, False)
                for row in range(chunk_size):
                    node = tree_starts[tree] + leaves[row]
                    for k in range(n_outputs):
                        out[chunk_start + row, k] += node_output[node, k]
            chunk_start += chunk_size
    free(leaves)
    return status


def each_tree_output(object walk, const intp_t[::1] tree_starts not None,
                     const double[::1] node_output not None,
                     const float[:, ::1] X not None, double[:, ::1] out not None):
    """Writes ``out[row, t]``: the scalar output of tree t's leaf for each row.

    Parameters are as for :func:`sum_tree_outputs`, with one output per
    node; ``out`` has shape (n_rows, n_trees). Returns 1 when X holds NaN or
    infinity, else 0.
    """
    cdef const Node* nodes = <const Node*> cnp.PyArray_DATA(walk)
    cdef intp_t n_rows = X.shape[0]
    cdef intp_t n_features = X.shape[1]
    cdef intp_t n_trees = tree_starts.shape[0] - 1
    cdef intp_t chunk_start, chunk_size, tree, row
    cdef intp_t* leaves
    cdef int status = 0
    if n_rows == 0:
        return 0
    leaves = <intp_t*> malloc(ROW_CHUNK * sizeof(intp_t))
    if leaves == NULL:
        raise MemoryError()
    with nogil:
        chunk_start = 0
        while chunk_start < n_rows and status == 0:
            chunk_size = min(<intp_t> ROW_CHUNK, n_rows - chunk_start)
            status = check_rows_finite(&X[chunk_start, 0], chunk_size * n_features)
            for tree in range(n_trees):
                find_leaves(nodes + tree_starts[tree], &X[chunk_start, 0], n_features,
                            chunk_size, leaves, False)
                for row in range(chunk_size):
                    out[chunk_start + row, tree] = node_output[tree_starts[tree] + leaves[row]]
            chunk_start += chunk_size
    free(leaves)
    return status
