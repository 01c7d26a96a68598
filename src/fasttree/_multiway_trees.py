"""Fitted trees of any number of children per node (C4.5-style multiway
nodes, missing values spread fractionally over the children): the leaves a
row reaches with their shares, and the node arrays after a prune. Both work
on a ``_structure.Tree`` through its node accessors.
"""

import numpy as np

from ._tree import FLAG_MISSING_LEFT


def leaf_mixture(tree, X):
    """The leaves each row reaches and their weights: a row follows every
    branch where its value is missing (or is a category absent from the
    node) with the branch's share of the node's training weight
    (``fractional`` trees), else the branch its value takes.

    Parameters
    ----------
    X : ndarray of float32, shape (n_rows, n_features)

    Returns
    -------
    rows, nodes : ndarray of intp
    shares : ndarray of float64
        Row ``rows[i]`` reaches leaf ``nodes[i]`` with weight ``shares[i]``
        (a row's weights sum to 1).
    """
    X = np.asarray(X, dtype=np.float32)
    found = []
    pending = [(0, np.arange(X.shape[0]), np.ones(X.shape[0]))]
    while pending:
        node, rows, share = pending.pop()
        children = tree.children(node)
        if children.size == 0:
            found.append((rows, np.full(rows.size, node), share))
            continue
        column = X[rows, tree.nodes["feature"][node]]
        missing = np.isnan(column)
        if tree.is_multiway[node]:
            codes, missing_child = tree.branches(node)
            position = np.full(rows.size, -1)
            for child, child_codes in enumerate(codes):
                position[np.isin(column, child_codes.astype(np.float32))] = child
            missing |= position < 0
        else:
            if tree.is_categorical[node]:  # a set of categories goes left
                inside = np.isin(column, tree.left_categories(node).astype(np.float32))
                # Values that are no code of the feature go with the missing ones.
                missing |= ~((column >= 0) & (column < tree.n_category_codes(node))
                             & (column == np.floor(column)))
                position = np.where(inside, 0, 1)
            else:
                position = np.where(column <= tree.nodes["threshold"][node], 0, 1)
            missing_child = 0 if tree.flags[node] & FLAG_MISSING_LEFT else 1
        fractions = (tree.branch_fractions(node) if tree.fractional
                     else np.eye(children.size)[missing_child])
        for child, child_node in enumerate(children):
            takes = (position == child) & ~missing
            spread = missing & (fractions[child] > 0)
            child_rows = np.concatenate([rows[takes], rows[spread]])
            if child_rows.size:
                pending.append((child_node, child_rows, np.concatenate(
                    [share[takes], share[spread] * fractions[child]])))
    rows, nodes, shares = (np.concatenate(parts) for parts in zip(*found))
    return rows, nodes, shares


def rebuilt_arrays(tree, collapsed):
    """The arrays of a tree of multiway nodes or fractional missing values
    whose nodes in ``collapsed`` become leaves: the kept nodes renumbered in
    preorder, their category sets, branch tables and fractions rewritten."""
    order, depth_of = [], {}
    pending = [(0, 0)]
    while pending:
        node, depth = pending.pop()
        order.append(node)
        depth_of[node] = depth
        if not collapsed[node]:
            pending.extend((child, depth + 1) for child in tree.children(node)[::-1])
    kept = np.array(order, dtype=np.intp)
    new_id = np.full(tree.node_count, -1, dtype=np.intp)
    new_id[kept] = np.arange(kept.size)
    nodes = tree.nodes[kept].copy()
    flags = tree.flags[kept].copy()
    words, fractions, offsets = [], [], [0]
    for position, node in enumerate(kept):
        children = [] if collapsed[node] else tree.children(node)
        if len(children) == 0:
            nodes[position] = (-1, -1, -2, -2.0)
            flags[position] = 0
        else:
            nodes["left_child"][position] = new_id[children[0]]
            nodes["right_child"][position] = new_id[children[-1]]
            if tree.is_categorical[node] and not tree.is_multiway[node]:
                side = int(tree.nodes["threshold"][node:node + 1].view(np.int32)[0])
                n_words = 1 + (int(tree.category_bits[side]) + 31) // 32
                nodes["threshold"][position:position + 1].view(np.int32)[0] = len(words)
                words += tree.category_bits[side:side + n_words].tolist()
            if tree.is_multiway[node]:
                table = tree.branch_table(node)
                n_children, n_codes = int(table[1]), int(table[0])
                nodes["threshold"][position:position + 1].view(np.int32)[0] = len(words)
                words += [n_codes, n_children, int(table[2]),
                          *new_id[children].tolist(),
                          *table[3 + n_children:3 + n_children + n_codes].tolist()]
            if tree.fractional:
                fractions.extend(tree.branch_fractions(node).tolist())
        offsets.append(offsets[-1] + len(children))
    arrays = {"nodes": nodes, "flags": flags,
              "category_bits": np.array(words, dtype=np.uint32),
              "max_depth": max(depth_of.values()),
              "impurity": tree.impurity[kept], "n_node_samples": tree.n_node_samples[kept],
              "weighted_n_node_samples": tree.weighted_n_node_samples[kept],
              "value": tree.node_values[kept]}
    if tree.fractional:
        arrays["branch_fractions"] = np.array(fractions, dtype=np.float64)
        arrays["fraction_offsets"] = np.array(offsets, dtype=np.int64)
    return arrays
