"""Cost-complexity pruning (Breiman et al., CART, chapter 3) of a
:class:`~fasttree.reference.tree.ReferenceTree`, as a test oracle.

For a tree T and a complexity parameter alpha, the cost of T is
R(T) + alpha |leaves(T)|, where R sums the risk of the leaves: a node's
impurity times its share of the root's weight. Collapsing an inner node t
into a leaf changes the cost by R(t) - R(T_t) - alpha (|leaves(T_t)| - 1), so
it pays as soon as alpha reaches t's effective alpha
g(t) = (R(t) - R(T_t)) / (|leaves(T_t)| - 1). Weakest-link pruning collapses
the node of least g, recomputes, and repeats; every quantity here is
recomputed from scratch at each step, by recursion.
"""

from dataclasses import replace

from .tree import TREE_LEAF, TREE_UNDEFINED, ReferenceTree

__all__ = ["cost_complexity_path", "cost_complexity_prune"]


def _risk(tree, node_id):
    node = tree.nodes[node_id]
    return node.weighted_n_node_samples * node.impurity / tree.nodes[0].weighted_n_node_samples


def _branch(tree, node_id, collapsed):
    """(risk of the leaves, number of leaves) of the subtree at node_id."""
    node = tree.nodes[node_id]
    if node.is_leaf or node_id in collapsed:
        return _risk(tree, node_id), 1
    left_risk, left_leaves = _branch(tree, node.left, collapsed)
    right_risk, right_leaves = _branch(tree, node.right, collapsed)
    return left_risk + right_risk, left_leaves + right_leaves


def _inner_nodes(tree, node_id, collapsed):
    node = tree.nodes[node_id]
    if node.is_leaf or node_id in collapsed:
        return []
    return ([node_id] + _inner_nodes(tree, node.left, collapsed)
            + _inner_nodes(tree, node.right, collapsed))


def _weakest_links(tree, ccp_alpha):
    """The collapsed nodes, the alphas (0 first) and the risks (full tree first)."""
    collapsed = set()
    alphas = [0.0]
    risks = [_branch(tree, 0, collapsed)[0]]
    while True:
        candidates = _inner_nodes(tree, 0, collapsed)
        if not candidates:
            break
        effective = {}
        for node_id in candidates:
            branch_risk, n_leaves = _branch(tree, node_id, collapsed)
            effective[node_id] = (_risk(tree, node_id) - branch_risk) / (n_leaves - 1)
        weakest = min(candidates, key=lambda node_id: (effective[node_id], node_id))
        if effective[weakest] > ccp_alpha:
            break
        collapsed.add(weakest)
        alphas.append(effective[weakest])
        risks.append(_branch(tree, 0, collapsed)[0])
    return collapsed, alphas, risks


def cost_complexity_path(tree):
    """The effective alphas and total leaf risks of weakest-link pruning.

    Parameters
    ----------
    tree : ReferenceTree

    Returns
    -------
    alphas : list of float
        0, then the effective alpha of each collapse (the lowest node id on
        ties), until the root is a leaf.
    risks : list of float
        R of the full tree, then after each collapse.
    """
    _, alphas, risks = _weakest_links(tree, float("inf"))
    return alphas, risks


def cost_complexity_prune(tree, ccp_alpha):
    """The tree pruned while the weakest link's alpha is at most ``ccp_alpha``.

    Parameters
    ----------
    tree : ReferenceTree
    ccp_alpha : float

    Returns
    -------
    ReferenceTree
        Nodes renumbered in pre-order (left subtree first); ``tree`` is not
        changed.
    """
    collapsed, _, _ = _weakest_links(tree, ccp_alpha)
    nodes = []

    def copy(node_id):
        node = tree.nodes[node_id]
        new_id = len(nodes)
        if node.is_leaf or node_id in collapsed:
            nodes.append(replace(node, feature=TREE_UNDEFINED, threshold=float(TREE_UNDEFINED),
                                 left=TREE_LEAF, right=TREE_LEAF))
            return new_id
        nodes.append(None)
        left = copy(node.left)
        right = copy(node.right)
        nodes[new_id] = replace(node, left=left, right=right)
        return new_id

    copy(0)
    return ReferenceTree(nodes, tree.n_features, tree.n_classes, tree.criterion)
