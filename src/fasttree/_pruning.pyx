# cython: language_level=3
"""Pruning of a fitted tree: cost-complexity (weakest-link) pruning, the
bottom-up collapse of error-based pruning (any number of children per
node), and the binary subtree pruning leaves."""

import numpy as np
cimport numpy as cnp

from libc.math cimport INFINITY

from ._tree cimport Node
from ._tree import NODE_DTYPE
from ._utils cimport intp_t

cnp.import_array()

cdef enum:
    LEAF_CHILD = -1


cdef const Node* linked_nodes(object nodes) except NULL:
    # The node records, with every child after its parent (as the builders
    # number them), so that a backward pass over the indices meets every
    # node after its children and no walk loops.
    if (not isinstance(nodes, np.ndarray) or nodes.dtype != NODE_DTYPE or nodes.ndim != 1
            or not nodes.flags.c_contiguous or nodes.shape[0] == 0):
        raise ValueError("nodes must be a non-empty C-contiguous array of NODE_DTYPE")
    cdef const Node* tree = <const Node*> cnp.PyArray_DATA(nodes)
    cdef intp_t n_nodes = nodes.shape[0], node
    for node in range(n_nodes):
        if tree[node].left_child == LEAF_CHILD:
            continue
        if not (node < tree[node].left_child < n_nodes
                and node < tree[node].right_child < n_nodes):
            raise ValueError("nodes must number every child after its parent")
    return tree


def cost_complexity_pruning(object nodes, const double[::1] impurity not None,
                            const double[::1] weighted_n_node_samples not None,
                            double ccp_alpha):
    """Breiman's weakest-link pruning, up to a complexity parameter.

    The risk of a node is its impurity times its share of the root's weight;
    a subtree's is the sum over its leaves. While the tree has inner nodes,
    the inner node whose collapse into a leaf adds the least risk per leaf
    removed (its effective alpha; the lowest node index on ties) is
    collapsed, as long as that alpha is at most ``ccp_alpha``.

    Parameters
    ----------
    nodes : ndarray of NODE_DTYPE
        Every child numbered after its parent.
    impurity, weighted_n_node_samples : ndarray of float64, one per node
    ccp_alpha : float
        ``inf`` for the whole pruning path, down to the root alone.

    Returns
    -------
    alphas : ndarray of float64
        0, then the effective alpha of every collapse in order.
    risks : ndarray of float64
        The total leaf risk of the full tree, then after every collapse.
    collapsed : ndarray of bool, one per node
        The inner nodes that pruning made leaves (some may lie below others).
    """
    cdef const Node* tree = linked_nodes(nodes)
    cdef intp_t n_nodes = nodes.shape[0]
    if impurity.shape[0] != n_nodes or weighted_n_node_samples.shape[0] != n_nodes:
        raise ValueError("impurity and weighted_n_node_samples need one value per node")
    if not ccp_alpha >= 0.0:
        raise ValueError(f"ccp_alpha must be >= 0; got {ccp_alpha!r}")
    # node_risk: the node as a leaf; branch_risk, n_leaves: its subtree as
    # the pruning so far has left it.
    cdef double[::1] node_risk = np.empty(n_nodes)
    cdef double[::1] branch_risk = np.zeros(n_nodes)
    cdef intp_t[::1] n_leaves = np.zeros(n_nodes, dtype=np.intp)
    cdef intp_t[::1] parent = np.full(n_nodes, -1, dtype=np.intp)
    cdef intp_t[::1] pending = np.empty(n_nodes, dtype=np.intp)
    # 1 for an inner node still in the tree: a candidate for collapse.
    cdef cnp.uint8_t[::1] candidate = np.zeros(n_nodes, dtype=np.uint8)
    collapsed_array = np.zeros(n_nodes, dtype=bool)
    cdef cnp.npy_bool[::1] collapsed = collapsed_array
    alphas_array = np.empty(n_nodes // 2 + 1)
    risks_array = np.empty(n_nodes // 2 + 1)
    cdef double[::1] alphas = alphas_array
    cdef double[::1] risks = risks_array
    cdef double root_weight = weighted_n_node_samples[0]
    cdef double weakest_alpha, alpha, added_risk
    cdef intp_t node, weakest, left, right, n_pending, removed_leaves, n_steps = 0
    with nogil:
        for node in range(n_nodes):
            # The weight's share first: a large impurity times a large weight
            # would overflow.
            node_risk[node] = (impurity[node] * (weighted_n_node_samples[node] / root_weight)
                               if root_weight > 0.0 else 0.0)
        for node in range(n_nodes - 1, -1, -1):
            if tree[node].left_child == LEAF_CHILD:
                n_leaves[node] = 1
                branch_risk[node] = node_risk[node]
            else:
                candidate[node] = 1
                left = tree[node].left_child
                right = tree[node].right_child
                parent[left] = node
                parent[right] = node
                n_leaves[node] = n_leaves[left] + n_leaves[right]
                branch_risk[node] = branch_risk[left] + branch_risk[right]
        alphas[0] = 0.0
        risks[0] = branch_risk[0]
        n_steps = 1
        while candidate[0]:
            weakest = -1
            weakest_alpha = INFINITY
            for node in range(n_nodes):
                if candidate[node]:
                    # A subtree's leaves never hold more risk than the node
                    # alone; rounding may say otherwise, by a trace: 0.
                    alpha = max(0.0, node_risk[node] - branch_risk[node]) / (
                        n_leaves[node] - 1)
                    if alpha < weakest_alpha:
                        weakest_alpha = alpha
                        weakest = node
            if weakest < 0 or weakest_alpha > ccp_alpha:
                break
            # The subtree below the weakest link leaves the tree.
            n_pending = 0
            pending[n_pending] = weakest
            n_pending += 1
            while n_pending > 0:
                n_pending -= 1
                node = pending[n_pending]
                candidate[node] = 0
                if tree[node].left_child != LEAF_CHILD:
                    pending[n_pending] = tree[node].left_child
                    pending[n_pending + 1] = tree[node].right_child
                    n_pending += 2
            collapsed[weakest] = True
            removed_leaves = n_leaves[weakest] - 1
            # At least 0, as the alpha: the risks of the path never fall.
            added_risk = max(0.0, node_risk[weakest] - branch_risk[weakest])
            node = weakest
            while node >= 0:
                n_leaves[node] -= removed_leaves
                branch_risk[node] += added_risk
                node = parent[node]
            # Exactly the node's own risk, not the sum above, so that its
            # ancestors' alphas are computed from what the tree now holds.
            if added_risk > 0.0:
                branch_risk[weakest] = node_risk[weakest]
            alphas[n_steps] = weakest_alpha
            risks[n_steps] = branch_risk[0]
            n_steps += 1
    return alphas_array[:n_steps].copy(), risks_array[:n_steps].copy(), collapsed_array


def collapse_bottom_up(const intp_t[::1] child_indptr not None,
                       const intp_t[::1] child_index not None,
                       const double[::1] leaf_loss not None):
    """The inner nodes whose loss as a leaf is at most their subtree's.

    Bottom-up, a subtree's loss is the sum over its leaves as pruned so far:
    a collapsed node counts with its own loss.

    Parameters
    ----------
    child_indptr, child_index : ndarray of intp
        Node i's children are ``child_index[child_indptr[i]:child_indptr[i + 1]]``
        (none at a leaf), every child numbered after its parent.
    leaf_loss : ndarray of float64, one per node
        The loss of each node were it a leaf.

    Returns
    -------
    ndarray of bool, one per node
    """
    cdef intp_t n_nodes = leaf_loss.shape[0], node, entry, child
    if child_indptr.shape[0] != n_nodes + 1 or child_indptr[0] != 0 or (
            child_indptr[n_nodes] != child_index.shape[0]):
        raise ValueError("the children lists do not match the nodes")
    for node in range(n_nodes):
        if child_indptr[node + 1] < child_indptr[node]:
            raise ValueError("the children lists do not match the nodes")
        for entry in range(child_indptr[node], child_indptr[node + 1]):
            if not node < child_index[entry] < n_nodes:
                raise ValueError("nodes must number every child after its parent")
    collapsed_array = np.zeros(n_nodes, dtype=bool)
    cdef cnp.npy_bool[::1] collapsed = collapsed_array
    cdef double[::1] subtree_loss = np.array(leaf_loss, dtype=np.float64)
    cdef double below
    with nogil:
        # A backward pass meets every node after its children.
        for node in range(n_nodes - 1, -1, -1):
            if child_indptr[node + 1] == child_indptr[node]:
                continue
            below = 0.0
            for entry in range(child_indptr[node], child_indptr[node + 1]):
                below += subtree_loss[child_index[entry]]
            if leaf_loss[node] <= below:
                collapsed[node] = True
            else:
                subtree_loss[node] = below
    return collapsed_array


def subtree_nodes(object nodes, const cnp.npy_bool[::1] collapsed not None):
    """The tree that remains when the nodes in ``collapsed`` become leaves.

    Parameters
    ----------
    nodes : ndarray of NODE_DTYPE
        Every child numbered after its parent.
    collapsed : ndarray of bool, one per node

    Returns
    -------
    pruned : ndarray of NODE_DTYPE
        The remaining nodes, numbered depth-first from the root, left
        subtree first.
    kept : ndarray of intp
        ``kept[i]`` is the index in ``nodes`` of pruned node i.
    max_depth : int
    """
    cdef const Node* tree = linked_nodes(nodes)
    cdef intp_t n_nodes = nodes.shape[0]
    if collapsed.shape[0] != n_nodes:
        raise ValueError("collapsed needs one flag per node")
    pruned_array = np.empty(n_nodes, dtype=NODE_DTYPE)
    kept_array = np.empty(n_nodes, dtype=np.intp)
    cdef Node* pruned = <Node*> cnp.PyArray_DATA(pruned_array)
    cdef intp_t[::1] kept = kept_array
    # pending holds (old index, new index of its parent, 1 if a left child,
    # depth) for every node still to place.
    cdef intp_t[:, ::1] pending = np.empty((n_nodes, 4), dtype=np.intp)
    cdef intp_t n_pending = 1, n_kept = 0, node, parent, depth, max_depth = 0
    cdef bint is_left
    pending[0, 0] = 0
    pending[0, 1] = -1
    pending[0, 2] = 0
    pending[0, 3] = 0
    with nogil:
        while n_pending > 0:
            n_pending -= 1
            node = pending[n_pending, 0]
            parent = pending[n_pending, 1]
            is_left = pending[n_pending, 2]
            depth = pending[n_pending, 3]
            max_depth = max(max_depth, depth)
            kept[n_kept] = node
            pruned[n_kept] = tree[node]
            if parent >= 0:
                if is_left:
                    pruned[parent].left_child = <int> n_kept
                else:
                    pruned[parent].right_child = <int> n_kept
            if tree[node].left_child == LEAF_CHILD or collapsed[node]:
                pruned[n_kept].left_child = LEAF_CHILD
                pruned[n_kept].right_child = LEAF_CHILD
                pruned[n_kept].feature = -2
                pruned[n_kept].threshold = -2.0
            else:
                # The right child is pushed first so that the left subtree is
                # numbered first.
                pending[n_pending, 0] = tree[node].right_child
                pending[n_pending, 1] = n_kept
                pending[n_pending, 2] = 0
                pending[n_pending, 3] = depth + 1
                pending[n_pending + 1, 0] = tree[node].left_child
                pending[n_pending + 1, 1] = n_kept
                pending[n_pending + 1, 2] = 1
                pending[n_pending + 1, 3] = depth + 1
                n_pending += 2
            n_kept += 1
    return pruned_array[:n_kept].copy(), kept_array[:n_kept].copy(), max_depth
