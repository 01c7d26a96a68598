# The fitted tree: a flat node store and the builders that fill it.

from libc.stdint cimport int32_t, int64_t, uint32_t

from ._splitter cimport Splitter
from ._utils cimport intp_t


# What prediction reads, 16 bytes so that a node fits in a quarter cache line.
# The statistics of a node live in parallel arrays beside it (NodeStore).
cdef struct Node:
    int32_t left_child      # index of the left child, -1 at a leaf
    int32_t right_child     # index of the right child, -1 at a leaf
    int32_t feature         # feature tested, -2 at a leaf
    float threshold         # x <= threshold goes left


# A growable node store written by the builders without the GIL.
cdef struct NodeStore:
    Node* nodes
    double* impurity                  # impurity of every node
    int64_t* n_node_samples           # training rows that reached every node
    double* weighted_n_node_samples   # their total weight
    double* value                     # n_values per node: class fractions or mean
    intp_t n_values
    intp_t node_count
    intp_t capacity
    intp_t max_depth                  # deepest node, the root at depth 0
