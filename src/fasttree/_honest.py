"""Honest trees (Athey and Wager, 2018; grf and YDF have them): each tree's
drawn rows cut in two at random, one part choosing the splits, the other
estimating what the leaves hold (their values, a quantile forest's leaf
lists), so that the leaves do not favour the rows that shaped them."""

import numpy as np

# Each tree's cut is drawn from its seed and this stream.
HONEST_STREAM = 0x40E57


def honest_halves(seed, counts, fraction):
    """A tree's drawn rows (``counts`` > 0) cut at random: the rows that grow
    its splits and those that estimate its leaves, as draw counts of each
    (a row drawn twice stays in one part with both draws). The structure
    part gets ``round(fraction * n_drawn)`` rows, at least 1, and the other
    part at least 1 when two rows or more were drawn."""
    drawn = np.flatnonzero(counts > 0)
    n_structure = min(max(int(round(fraction * drawn.size)), 1),
                      max(drawn.size - 1, 1))
    order = np.random.default_rng([int(seed), HONEST_STREAM]).permutation(drawn.size)
    structure = np.zeros_like(counts)
    estimate = np.zeros_like(counts)
    chosen = drawn[order[:n_structure]]
    rest = drawn[order[n_structure:]]
    structure[chosen] = counts[chosen]
    estimate[rest] = counts[rest]
    return structure, estimate


def honest_values(tree, rows, target, weight):
    """``tree`` with every node's value the weighted mean of the targets of
    the rows (``weight`` > 0) that reach it; a node no such row reaches
    keeps the value its splits' rows gave it.

    Parameters
    ----------
    tree : Tree
        A regression tree that keeps every node's value.
    rows : ndarray or CSRRows
        The training rows, as ``tree.apply`` reads them.
    target : ndarray of shape (n_samples,) or (n_samples, n_outputs)
    weight : ndarray of shape (n_samples,)
    """
    used = np.flatnonzero(weight > 0)
    leaf_of_row = tree.leaf_numbers()[tree.apply(rows[used])]
    return leaf_means(tree, leaf_of_row, target.reshape(len(target), -1)[used], weight[used])


def leaf_means(tree, leaf_of_row, target, weight):
    """``tree`` with every node's values the weighted means of ``target``'s
    columns over the rows that reach it (a classifier's class fractions, for
    one-hot targets); a node that rows of positive weight do not reach keeps
    its values.

    Parameters
    ----------
    tree : Tree
        A tree that keeps every node's value.
    leaf_of_row : ndarray of intp, shape (n_rows,)
        Each row's leaf, numbered as ``Tree.leaf_numbers`` numbers them.
    target : ndarray of shape (n_rows, tree.n_values)
    weight : ndarray of shape (n_rows,)
    """
    n_leaves = tree.n_leaves
    node_weight = tree._summed_up(np.bincount(leaf_of_row, weights=weight, minlength=n_leaves))
    value = tree.node_values.copy()
    reached = node_weight > 0
    for column in range(target.shape[1]):
        leaf_sum = np.bincount(leaf_of_row, weights=weight * target[:, column],
                               minlength=n_leaves)
        value[reached, column] = tree._summed_up(leaf_sum)[reached] / node_weight[reached]
    return tree.with_node_values(value)
