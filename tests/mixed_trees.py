"""Comparing a fitted tree with ``fasttree.reference.mixed``'s, node by node
(numeric thresholds, category sets, missing-value directions)."""

import numpy as np

from fasttree.reference import impurity
from fasttree.reference.mixed import MixedSplit
from tolerances import assert_rounding_close, data_scale


def assert_same_tree(estimator, oracle, X, y, weights, criterion, tied_nodes=None):
    """Walk both trees from the root; every pair of nodes must hold the same
    weight and value and make the same split, except where two different
    splits tie up to rounding (pure children both ways, in small nodes): the
    oracle's improvement of the estimator's split must then equal its best,
    and the subtrees below are not compared. A leaf where the oracle splits
    is a tie too if the oracle's split improves nothing up to rounding.
    Returns the number of ties; the estimator's tied nodes are appended to
    the list ``tied_nodes`` if one is given."""
    tree = estimator.tree_
    tied_nodes = [] if tied_nodes is None else tied_nodes
    regression = oracle.n_classes is None
    ties = 0
    pending = [(0, 0, np.arange(X.shape[0]))]
    while pending:
        node_id, oracle_id, rows = pending.pop()
        node = oracle.nodes[oracle_id]
        assert_rounding_close(tree.weighted_n_node_samples[node_id],
                              node.weighted_n_node_samples,
                              scale=tree.weighted_n_node_samples[0])
        value = tree.value[node_id, 0, 0] if regression else tree.value[node_id, 0]
        assert_rounding_close(value, node.value, scale=data_scale(y) if regression else 1.0)
        if node.split is None:
            assert tree.children_left[node_id] == -1
            continue
        if tree.children_left[node_id] == -1:
            # The oracle splits whenever it can; the estimator not when the
            # improvement is below zero by more than float64 epsilon, which a
            # split of zero improvement (misclassification, where every
            # child keeps the node's majority) can round to.
            assert_rounding_close(node.split.improvement, 0.0,
                                  scale=data_scale(y) ** 2 if regression else 1.0)
            ties += 1
            tied_nodes.append(node_id)
            continue
        goes_left = node.split.goes_left(X[rows, node.split.feature])
        if not same_split(tree, node_id, node.split):
            ours = split_of(tree, node_id).goes_left(X[rows, tree.feature[node_id]])
            assert_rounding_close(improvement(criterion, y[rows], weights[rows], ours),
                                  node.split.improvement)
            ties += 1
            tied_nodes.append(node_id)
            continue
        pending.append((tree.children_left[node_id], node.left, rows[goes_left]))
        pending.append((tree.children_right[node_id], node.right, rows[~goes_left]))
    return ties


def rows_clear_of(estimator, tied_nodes, X):
    """Whether each row of X reaches only leaves outside the subtrees of the
    estimator's ``tied_nodes`` (where its tree and the oracle's part ways):
    such a row takes matched splits only, so the two trees must predict it
    alike. A row that spreads over several branches (a missing value in a
    ``fractional`` tree) must keep clear along all of them."""
    tree = estimator.tree_
    below, pending = set(), list(tied_nodes)
    while pending:
        node = pending.pop()
        below.add(int(node))
        pending.extend(tree.children(node).tolist())
    rows, leaves, _ = tree.leaf_mixture(estimator._validate_X_for_predict(X))
    clear = np.ones(X.shape[0], dtype=bool)
    clear[rows[np.isin(leaves, sorted(below))]] = False
    return clear


def same_split(tree, node_id, split):
    """Whether the estimator's node makes the oracle's split. A category
    set covers every code of the feature: those absent from the node go with
    the missing values."""
    if (tree.feature[node_id] != split.feature
            or tree.missing_go_to_left[node_id] != split.missing_left
            or tree.is_categorical[node_id] != split.is_categorical):
        return False
    if not split.is_categorical:
        return np.float32(tree.threshold[node_id]) == split.threshold
    all_codes = set(range(tree.n_category_codes(node_id)))
    expected = set(split.left_categories)
    if split.missing_left:
        expected |= all_codes - set(split.present_categories)
    return set(tree.left_categories(node_id).tolist()) == expected


def split_of(tree, node_id):
    """The estimator's split at a node as the oracle's MixedSplit."""
    if tree.is_categorical[node_id]:
        return MixedSplit(feature=int(tree.feature[node_id]), threshold=None,
                          left_categories=frozenset(tree.left_categories(node_id).tolist()),
                          present_categories=frozenset(range(tree.n_category_codes(node_id))),
                          missing_left=bool(tree.missing_go_to_left[node_id]), improvement=0.0)
    return MixedSplit(feature=int(tree.feature[node_id]),
                      threshold=np.float32(tree.threshold[node_id]), left_categories=None,
                      present_categories=None,
                      missing_left=bool(tree.missing_go_to_left[node_id]), improvement=0.0)


def improvement(criterion, y, weights, goes_left):
    total = weights.sum()
    return (impurity(criterion, y, weights)
            - weights[goes_left].sum() / total
            * impurity(criterion, y[goes_left], weights[goes_left])
            - weights[~goes_left].sum() / total
            * impurity(criterion, y[~goes_left], weights[~goes_left]))
