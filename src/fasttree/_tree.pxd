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
    # A node's value (class fractions or mean), either dense or sparse: a
    # deep node holds few of many classes, and its non-zero fractions cost
    # what it holds, not n_values.
    bint sparse_values
    double* value                     # dense: n_values per node; NULL when sparse
    int64_t* value_offsets            # sparse: node i's entries are
                                      # [value_offsets[i], value_offsets[i + 1])
    int32_t* value_index              # sparse: the value index of every entry
    double* value_data                # sparse: its value (never 0)
    intp_t value_count                # sparse: entries written
    intp_t value_capacity             # sparse: entries allocated
    intp_t n_values
    intp_t node_count
    intp_t capacity
    intp_t max_depth                  # deepest node, the root at depth 0
