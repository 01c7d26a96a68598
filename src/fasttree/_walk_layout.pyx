# cython: language_level=3
"""The walk layout of a tree: its nodes in preorder as the prediction walks
read them (``WalkNode``), checked once when laid out; several trees' walks
back to back, for a forest; and ``WalkTests``, a walk with what its split
tests read."""

import numpy as np
cimport numpy as cnp

from libc.math cimport INFINITY
from libc.stdint cimport int32_t, uint8_t, uint32_t

from ._tree cimport (KIND_LEAF, KIND_MASK, KIND_MULTIWAY, KIND_SUBSET, MISSING_LEFT,
                     MISSING_SEEN, NO_BRANCH, Node, category_words, node_side)
from ._tree import NODE_DTYPE
from ._utils cimport intp_t

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

# Byte offsets live in int32 fields: the largest tree and widest row they
# can address.
MAX_WALK_NODES = (2 ** 31 - 1) // sizeof(WalkNode)
MAX_WALK_FEATURES = (2 ** 31 - 1) // sizeof(float)


cdef int check_branch_table(const uint32_t[::1] bits, int32_t side, Py_ssize_t node_id,
                            Py_ssize_t n_nodes) except -1:
    """Refuses a multiway node's branch table that would read out of bounds
    or link anywhere but to later nodes."""
    cdef Py_ssize_t n_words = bits.shape[0], n_children, n_codes, code, child
    if not (0 <= side and side + 3 <= n_words):
        raise ValueError("corrupt fasttree model: a branch table is out of range")
    n_codes, n_children = bits[side], bits[side + 1]
    if side + 3 + n_codes + n_children > n_words or n_children < 2 or n_children > n_nodes:
        raise ValueError("corrupt fasttree model: a branch table is out of range")
    if bits[side + 2] >= n_children:
        raise ValueError("corrupt fasttree model: a branch table's missing child is out of range")
    for child in range(n_children):
        if not node_id < bits[side + 3 + child] < n_nodes:
            raise ValueError("corrupt fasttree model: a child index is out of range")
    for code in range(n_codes):
        if bits[side + 3 + n_children + code] != NO_BRANCH and (
                bits[side + 3 + n_children + code] >= n_children):
            raise ValueError("corrupt fasttree model: a branch table's child is out of range")
    return 0


def walk_layout(object nodes, object flags, object category_bits, Py_ssize_t n_features):
    """The tree's nodes in preorder as WalkNode records.

    Parameters
    ----------
    nodes : ndarray of NODE_DTYPE
        A tree whose leaves have ``left_child == -1``. Links that do not make
        a tree, and features beyond ``n_features``, are refused.
    flags : ndarray of uint8, one per node
        The node flags (see ``_tree.pxd``); a kind that does not match the
        links, or a category set beyond ``category_bits``, is refused.
    category_bits : ndarray of uint32
        The tree's category sets.
    n_features : int
        Features of the rows the tree is walked with.

    Returns
    -------
    ndarray of WALK_DTYPE, one record per node
    """
    cdef const Node* tree = checked_nodes(nodes)
    cdef Py_ssize_t n_nodes = nodes.shape[0]
    cdef const uint8_t[::1] node_flags = flags
    cdef const uint32_t[::1] bits = category_bits
    cdef Py_ssize_t n_words = bits.shape[0], child
    cdef int32_t side
    if node_flags.shape[0] != n_nodes:
        raise ValueError("corrupt fasttree model: the node flags do not match the nodes")
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
        if (node_flags[node_id] & KIND_MASK == KIND_LEAF) != (tree[node_id].left_child
                                                              == LEAF_CHILD):
            raise ValueError("corrupt fasttree model: a node's kind does not match its links")
        if node_flags[node_id] & ~(KIND_MASK | MISSING_LEFT | MISSING_SEEN):
            raise ValueError("corrupt fasttree model: a node has unknown flags")
        if node_flags[node_id] & KIND_MASK == KIND_SUBSET:
            side = node_side(tree[node_id].threshold)
            if not (0 <= side < n_words and side + category_words(bits[side]) <= n_words):
                raise ValueError("corrupt fasttree model: a category set is out of range")
        if node_flags[node_id] & KIND_MASK == KIND_MULTIWAY:
            if not 0 <= tree[node_id].feature < n_features:
                raise ValueError("corrupt fasttree model: a split feature is out of range")
            side = node_side(tree[node_id].threshold)
            check_branch_table(bits, side, node_id, n_nodes)
            walk[position].column = <int32_t> (tree[node_id].feature * sizeof(float))
            walk[position].threshold = tree[node_id].threshold
            walk[position].right_jump = 0
            # Children pushed last first, so that the first is placed next.
            # A tree links each node once: more links pending than nodes
            # means a node is reached twice.
            if n_pending + bits[side + 1] > n_nodes:
                raise ValueError("corrupt fasttree model: a node is reached twice")
            for child in range(<Py_ssize_t> bits[side + 1] - 1, -1, -1):
                pending[n_pending] = bits[side + 3 + child]
                n_pending += 1
            position += 1
            continue
        if tree[node_id].left_child == LEAF_CHILD:
            walk[position].column = 0
            walk[position].threshold = -INFINITY
            walk[position].right_jump = -<int32_t> sizeof(WalkNode)
        else:
            if not (0 < tree[node_id].left_child < n_nodes
                    and 0 < tree[node_id].right_child < n_nodes):
                raise ValueError("corrupt fasttree model: a child index is out of range")
            if not 0 <= tree[node_id].feature < n_features:
                raise ValueError("corrupt fasttree model: a split feature is out of range")
            walk[position].column = <int32_t> (tree[node_id].feature * sizeof(float))
            walk[position].threshold = tree[node_id].threshold
            parent_of_right[tree[node_id].right_child] = position
            if n_pending + 2 > n_nodes:
                raise ValueError("corrupt fasttree model: a node is reached twice")
            pending[n_pending] = tree[node_id].right_child
            pending[n_pending + 1] = tree[node_id].left_child
            n_pending += 2
        position += 1
    if position != n_nodes:
        raise ValueError("corrupt fasttree model: a node is not reached from the root")
    return walk_array


def walk_depths(object walk):
    """The depth of every walk node (the root's is 0), through the binary
    links (a multiway node's children, reached through its table, count as
    depth 0: their trees take the general walk)."""
    cdef const WalkNode* nodes = checked_walk(walk)
    cdef Py_ssize_t n_nodes = walk.shape[0], position, right
    depth_array = np.zeros(n_nodes, dtype=np.intp)
    cdef intp_t[::1] depth = depth_array
    for position in range(n_nodes):
        if nodes[position].right_jump == -<int32_t> sizeof(WalkNode):
            continue
        if position + 1 < n_nodes:
            depth[position + 1] = depth[position] + 1
        right = position + 1 + nodes[position].right_jump // <int32_t> sizeof(WalkNode)
        if nodes[position].right_jump > 0 and right < n_nodes:
            depth[right] = depth[position] + 1
    return depth_array


def forest_walk(list walks not None, list nodes not None):
    """The walks of several trees back to back, each leaf's ``node`` being
    the leaf's number among its tree's leaves in node order (what a table of
    the tree's leaf values is indexed by).

    Parameters
    ----------
    walks : list of ndarray of WALK_DTYPE
        ``walk_layout`` of each tree.
    nodes : list of ndarray of NODE_DTYPE
        Each tree's nodes.

    Returns
    -------
    walk : ndarray of WALK_DTYPE
    tree_starts, leaf_starts : ndarray of intp, shape (n_trees + 1,)
        Tree t's walk nodes are ``walk[tree_starts[t]:tree_starts[t + 1]]``
        and its leaves are numbered from ``leaf_starts[t]`` on.
    """
    cdef Py_ssize_t n_trees = len(walks), tree, i, n_nodes, offset, n_leaves
    if len(nodes) != n_trees:
        raise ValueError("one walk and one node array per tree are needed")
    tree_starts = np.zeros(n_trees + 1, dtype=np.intp)
    leaf_starts = np.zeros(n_trees + 1, dtype=np.intp)
    cdef Py_ssize_t[::1] starts = tree_starts
    cdef Py_ssize_t[::1] leaf_offsets = leaf_starts
    cdef Py_ssize_t largest = 1
    for tree in range(n_trees):
        if walks[tree].shape[0] != nodes[tree].shape[0]:
            raise ValueError("a tree's walk and nodes differ in length")
        starts[tree + 1] = starts[tree] + walks[tree].shape[0]
        largest = max(largest, walks[tree].shape[0])
    walk_all = np.empty(starts[n_trees], dtype=WALK_DTYPE)
    cdef WalkNode* target = <WalkNode*> cnp.PyArray_DATA(walk_all) if starts[n_trees] else NULL
    cdef int32_t[::1] leaf_number = np.empty(largest, dtype=np.int32)
    cdef const WalkNode* source
    cdef const Node* tree_nodes
    cdef bint in_range = True
    for tree in range(n_trees):
        source = checked_walk(walks[tree])
        tree_nodes = checked_nodes(nodes[tree])
        n_nodes = walks[tree].shape[0]
        offset = starts[tree]
        with nogil:
            n_leaves = 0
            for i in range(n_nodes):
                leaf_number[i] = <int32_t> n_leaves
                n_leaves += tree_nodes[i].left_child == LEAF_CHILD
            for i in range(n_nodes):
                target[offset + i] = source[i]
                if not 0 <= source[i].node < n_nodes:
                    in_range = False
                    break
                if tree_nodes[source[i].node].left_child == LEAF_CHILD:
                    target[offset + i].node = leaf_number[source[i].node]
        if not in_range:
            raise ValueError("corrupt fasttree model: a walk node is out of range")
        leaf_offsets[tree + 1] = leaf_offsets[tree] + n_leaves
    return walk_all, tree_starts, leaf_starts


cdef class WalkTests:
    """A walk from ``walk_layout`` (or ``forest_walk``) with what its split
    tests read, checked and summarised once for every prediction after.

    Parameters
    ----------
    walk : ndarray of WALK_DTYPE
    walk_flags : ndarray of uint8
        The node flags in walk order.
    category_bits : ndarray of uint32
        The category sets and branch tables the walk nodes point into.
    node_position : ndarray of int32 or None
        Each node's walk position (None without multiway nodes).
    """

    def __cinit__(self, object walk, object walk_flags, object category_bits,
                  object node_position):
        cdef const uint8_t[::1] flags = walk_flags
        cdef const uint32_t[::1] bits = category_bits
        cdef const int32_t[::1] positions
        cdef Py_ssize_t node
        cdef bint multiway = False
        self.nodes = checked_walk(walk)
        self.n_nodes = walk.shape[0]
        if flags.shape[0] != self.n_nodes:
            raise ValueError("the walk flags do not match the walk nodes")
        # The arrays are held so that the pointers into them stay valid.
        self.walk, self.walk_flags, self.category_bits = walk, walk_flags, category_bits
        self.node_position = node_position
        self.tests.flags = &flags[0]
        self.tests.category_bits = &bits[0] if bits.shape[0] else NULL
        self.tests.node_position = NULL
        self.tests.general = False
        self.tests.refill = False
        for node in range(flags.shape[0]):
            if flags[node] & KIND_MASK >= KIND_SUBSET:
                self.tests.general = True
                multiway = multiway or flags[node] & KIND_MASK == KIND_MULTIWAY
        if self.tests.general and self.tests.category_bits == NULL:
            raise ValueError("the walk's category sets are missing")
        if multiway:
            if node_position is None:
                raise ValueError("a walk with multiway nodes needs its node positions")
            positions = node_position
            if positions.shape[0] != self.n_nodes:
                raise ValueError("the node positions do not match the walk nodes")
            self.tests.node_position = &positions[0]

    @property
    def nbytes(self):
        """Bytes of the arrays held."""
        return sum(array.nbytes for array in (self.walk, self.walk_flags, self.category_bits,
                                              self.node_position) if array is not None)


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
