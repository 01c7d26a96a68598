# The walk layout of a tree: its nodes in preorder as the prediction walks
# read them, and what the general walk reads beside them.

from libc.stdint cimport int32_t, uint8_t, uint32_t

from ._tree cimport Node

cdef enum:
    # A Node's left_child at a leaf.
    LEAF_CHILD = -1


# A node as prediction reads it. Nodes are in preorder: the left child of a
# node is the node that follows it, so only the right child needs a link.
cdef struct WalkNode:
    int32_t column      # byte offset of the tested feature in a row
    float threshold     # x > threshold goes right; -inf at a leaf; at a subset or
                        # multiway node, its entry in the category bits (as Node)
    int32_t right_jump  # bytes from the following node to the right child;
                        # -sizeof(WalkNode) at a leaf, which then steps to itself;
                        # 0 at a multiway node (its children are in its table)
    int32_t node        # the node's index in the tree's own numbering


# What the general walk reads beside a tree's walk nodes: the fast walk
# tests thresholds on finite values only; rows with NaN, and trees with
# category sets or multiway nodes, take the general walk.
cdef struct SplitTests:
    const uint8_t* flags           # the node flags (_tree.pxd) of every walk node
    const uint32_t* category_bits  # the tree's category sets and branch tables
    const int32_t* node_position   # the walk position of every node: where a
                                   # multiway node's children are (NULL without any)
    bint general                   # some inner node tests a category set or is multiway
    bint refill                    # walk rows with walk_rows_refilled, not in lockstep
                                   # (paths of very different lengths)

# A walk (one tree's, or several trees' back to back) with what its split
# tests read, checked and summarised once when made: every prediction call
# takes it as it is, so a call on one row costs nothing per node.
cdef class WalkTests:
    cdef readonly object walk           # the WALK_DTYPE walk nodes
    cdef readonly object walk_flags     # uint8 node flags, in walk order
    cdef readonly object category_bits  # uint32 category sets and branch tables
    cdef readonly object node_position  # int32 walk positions, None without multiway nodes
    cdef const WalkNode* nodes          # the walk's first node
    cdef readonly Py_ssize_t n_nodes    # walk nodes
    cdef SplitTests tests               # pointers into the arrays above; refill False

# The first record of nodes, a non-empty contiguous 1-D array of NODE_DTYPE,
# or raises ValueError.
cdef const Node* checked_nodes(object nodes) except NULL

# The first record of walk, a non-empty contiguous 1-D array of WALK_DTYPE,
# or raises ValueError.
cdef const WalkNode* checked_walk(object walk) except NULL
