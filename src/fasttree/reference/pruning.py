"""Pruning of a :class:`~fasttree.reference.tree.ReferenceTree`, as test
oracles: cost-complexity pruning (Breiman et al., CART, chapter 3),
reduced-error pruning on validation rows (Quinlan 1987) and C4.5's
pessimistic pruning (Quinlan 1993, chapter 4).

For a tree T and a complexity parameter alpha, the cost of T is
R(T) + alpha |leaves(T)|, where R sums the risk of the leaves: a node's
impurity times its share of the root's weight. Collapsing an inner node t
into a leaf changes the cost by R(t) - R(T_t) - alpha (|leaves(T_t)| - 1), so
it pays as soon as alpha reaches t's effective alpha
g(t) = (R(t) - R(T_t)) / (|leaves(T_t)| - 1). Weakest-link pruning collapses
the node of least g, recomputes, and repeats; every quantity here is
recomputed from scratch at each step, by recursion.
"""

import math
from dataclasses import replace

import numpy as np

from .tree import TREE_LEAF, TREE_UNDEFINED, ReferenceTree

__all__ = ["binomial_upper_limit", "cost_complexity_path", "cost_complexity_prune",
           "pessimistic_prune", "reduced_error_prune"]


def _risk(tree, node_id):
    node = tree.nodes[node_id]
    return node.impurity * (node.weighted_n_node_samples / tree.nodes[0].weighted_n_node_samples)


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
            # g(t) >= 0 (a subtree's leaves hold at most its node's risk): a
            # negative difference is rounding.
            effective[node_id] = max(0.0, _risk(tree, node_id) - branch_risk) / (n_leaves - 1)
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
    return _collapse(tree, collapsed)


def _collapse(tree, collapsed):
    """The tree with the nodes in ``collapsed`` made leaves, renumbered."""
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


def _prediction(tree, node_id):
    value = tree.nodes[node_id].value
    return int(np.argmax(value)) if tree.is_classifier else float(np.ravel(value)[0])


def _prune_by_loss(tree, X, loss):
    """The tree with every node made a leaf whose ``loss(node_id, rows)``, for
    the rows of X reaching it, is at most its subtree's (the sum over its
    leaves as pruned below)."""
    collapsed = set()

    def subtree_loss(node_id, rows):
        node = tree.nodes[node_id]
        own = loss(node_id, rows)
        if node.is_leaf:
            return own
        left_rows = [row for row in rows if X[row, node.feature] <= node.threshold]
        right_rows = [row for row in rows if X[row, node.feature] > node.threshold]
        below = subtree_loss(node.left, left_rows) + subtree_loss(node.right, right_rows)
        if own <= below:
            collapsed.add(node_id)
            return own
        return below

    subtree_loss(0, list(range(X.shape[0])))
    return _collapse(tree, collapsed)


def reduced_error_prune(tree, X, y, weights):
    """Reduced-error pruning: bottom-up, a node becomes a leaf when the
    validation rows reaching it lose no more with the node's prediction than
    with its subtree's (as pruned below).

    Parameters
    ----------
    tree : ReferenceTree
    X : ndarray of shape (n_rows, n_features)
    y : ndarray
        Class indices (-1 for a label the tree does not know) or targets.
    weights : ndarray of float

    Returns
    -------
    ReferenceTree
    """
    def loss(node_id, rows):
        predicted = _prediction(tree, node_id)
        if tree.is_classifier:
            return float(sum(weights[row] for row in rows if y[row] != predicted))
        return float(sum(weights[row] * (predicted - y[row]) ** 2 for row in rows))

    return _prune_by_loss(tree, X, loss)


def binomial_upper_limit(errors, n, confidence):
    """U_CF(E, N) for whole counts: the p at which E or fewer errors in N
    trials have probability CF, found by bisection on the binomial sum."""
    if errors >= n:
        return 1.0

    def at_most(p):
        return sum(math.comb(n, k) * p ** k * (1.0 - p) ** (n - k) for k in range(errors + 1))

    low, high = 0.0, 1.0
    for _ in range(100):
        middle = (low + high) / 2.0
        if at_most(middle) > confidence:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


def pessimistic_prune(tree, X, y, confidence=0.25):
    """C4.5's pessimistic pruning (subtree replacement) with unit weights.

    The class counts of every node are recounted from the training rows
    (X, y), so that N and E are whole numbers; a node as a leaf is expected
    to make N * U_CF(E, N) errors, a subtree the sum over its leaves, and a
    node becomes a leaf when its estimate is at most its subtree's.

    Parameters
    ----------
    tree : ReferenceTree
        A classification tree grown on (X, y) with unit weights.
    X : ndarray of shape (n_rows, n_features)
    y : ndarray of class indices
    confidence : float

    Returns
    -------
    ReferenceTree
    """
    def estimate(node_id, rows):
        counts = np.bincount(y[rows], minlength=tree.n_classes) if rows else [0]
        n, errors = len(rows), len(rows) - int(np.max(counts))
        return n * binomial_upper_limit(errors, n, confidence) if n else 0.0

    return _prune_by_loss(tree, X, estimate)
