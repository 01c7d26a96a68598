"""A quantile regression forest's predictions (Meinshausen, 2006), as an oracle.

Slow and written to be obviously correct. The trees are given as the leaf
every training row reaches in each and how often each tree drew each row;
a row to predict is given as its leaf in each tree (negative: the tree does
not count for it, as for a row of the tree's bag out of bag).

Rules a compiled quantile forest must reproduce exactly:

* tree ``t``'s entries in leaf ``l`` are the rows with ``leaves[t][i] == l``,
  each repeated ``counts[t][i]`` times, rows of zero weight left out, in
  ascending rank (the row's position in a stable sort of y);
* an entry weighs its row's weight (1 without weights) over the total of
  its leaf's entries, summed in that order (``tree_weighted``, each tree
  weighing 1: Meinshausen's forest), or its row's weight alone; a tree
  counts when its leaf has entries;
* a row's entries from all the trees that count are merged by (rank, tree)
  and summed in that order;
* entry ``i`` of the merge sits at
  ``(S_{i-1} + 0.5 * w_i - 0.5 * w_1) / (T - 0.5 * (w_1 + w_m))``, with
  ``S`` the running sum of the weights, ``T`` the total weight (the sum
  over the trees that count, in tree order, of each leaf's total over its
  divisor: the number of those trees when each weighs 1) and
  ``m`` the last entry; quantile ``q`` is read between the last entry at
  or before ``q`` and the next one;
* means and quantile ranks sum each tree's leaf in list order, over the
  leaf's divisor, then over the trees in tree order, and divide by ``T``.
"""

import math

import numpy as np

__all__ = ["INTERPOLATIONS", "RANK_KINDS", "leaf_entries", "quantile_forest_means",
           "quantile_forest_predict", "quantile_forest_ranks", "weighted_quantiles"]

INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")
RANK_KINDS = ("weak", "strict", "mean", "rank")


def leaf_entries(leaves, counts, y, sample_weight=None):
    """Every tree's leaf lists.

    Parameters
    ----------
    leaves : array-like of int, shape (n_trees, n_samples)
        The leaf each training row reaches in each tree.
    counts : array-like of int, shape (n_trees, n_samples)
        How often each tree drew each row (1 for every row without a bootstrap).
    y : array-like of float, shape (n_samples,)
    sample_weight : array-like of float, shape (n_samples,), optional

    Returns
    -------
    list of dict
        Per tree, leaf -> list of (rank, value, weight), ascending in rank.
    """
    y = np.asarray(y, dtype=np.float64)
    weights = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, float)
    rank_of_row = np.empty(len(y), dtype=np.int64)
    rank_of_row[np.argsort(y, kind="stable")] = np.arange(len(y))
    trees = []
    for tree_leaves, tree_counts in zip(np.asarray(leaves), np.asarray(counts)):
        lists = {}
        for row in range(len(y)):
            if weights[row] <= 0:
                continue
            for _ in range(int(tree_counts[row])):
                lists.setdefault(int(tree_leaves[row]), []).append(
                    (int(rank_of_row[row]), float(y[row]), float(weights[row])))
        trees.append({leaf: sorted(items) for leaf, items in lists.items()})
    return trees


def _divisor(total, tree_weighted):
    """What a leaf's entry weights are divided by."""
    return total if tree_weighted else 1.0


def _row_items(trees, row_leaves, tree_weighted=True):
    """A row's merged entries, (rank, tree, weight, value), and their total weight."""
    items = []
    total_weight = 0.0
    for tree, (lists, leaf) in enumerate(zip(trees, row_leaves)):
        entries = lists.get(int(leaf), []) if leaf >= 0 else []
        if not entries:
            continue
        total = 0.0
        for _, _, weight in entries:
            total += weight
        divisor = _divisor(total, tree_weighted)
        total_weight += total / divisor
        items.extend((rank, tree, weight / divisor, value) for rank, value, weight in entries)
    items.sort(key=lambda item: (item[0], item[1]))
    return items, total_weight


def weighted_quantiles(values, weights, quantiles, total_weight, interpolation="linear"):
    """Quantiles of ``values`` (ascending) of ``weights`` at the positions the
    module's rules give, ``total_weight`` the total the weights are shares of."""
    if interpolation not in INTERPOLATIONS:
        raise ValueError(f"unknown interpolation {interpolation!r}")
    if not values:
        return [math.nan] * len(quantiles)
    first, last = weights[0], weights[-1]
    scale = float(total_weight) - 0.5 * (first + last)
    positions = []
    running = 0.0
    for index, weight in enumerate(weights):
        positions.append(0.0 if index == 0 else (running + 0.5 * weight - 0.5 * first) / scale)
        running += weight
    out = []
    for q in quantiles:
        i = max(index for index, position in enumerate(positions) if position <= q)
        if i == len(values) - 1:
            out.append(values[i])
            continue
        low, high = values[i], values[i + 1]
        fraction = (q - positions[i]) / (positions[i + 1] - positions[i])
        if fraction <= 0.0 or interpolation == "lower":
            out.append(low)
        elif interpolation == "higher":
            out.append(high)
        elif interpolation == "midpoint":
            out.append(0.5 * (low + high))
        elif interpolation == "nearest":
            out.append(high if fraction > 0.5 else low)
        else:
            out.append(low + (high - low) * fraction)
    return out


def quantile_forest_predict(trees, row_leaves, quantiles, interpolation="linear",
                            tree_weighted=True, pooled=True):
    """Quantiles of every row.

    Parameters
    ----------
    trees : list of dict
        From :func:`leaf_entries`.
    row_leaves : array-like of int, shape (n_rows, n_trees)
        Each row's leaf in every tree; negative where the tree does not count.
    quantiles : list of float
        In [0, 1], in any order.
    interpolation : {"linear", "lower", "higher", "midpoint", "nearest"}
    tree_weighted : bool
        Each tree weighs 1 (Meinshausen), or each entry its row's weight.
    pooled : bool
        The quantiles of all the row's entries, or else the mean over the
        trees that count (summed in tree order) of each tree's quantiles of
        its own leaf's entries.

    Returns
    -------
    ndarray of shape (n_rows, n_quantiles)
        NaN for a row no tree counts for.
    """
    out = []
    for leaves in np.asarray(row_leaves):
        if pooled:
            items, total_weight = _row_items(trees, leaves, tree_weighted)
            out.append(weighted_quantiles([item[3] for item in items],
                                          [item[2] for item in items], list(quantiles),
                                          total_weight, interpolation))
            continue
        sums, n_counted = [0.0] * len(quantiles), 0
        for tree, leaf in enumerate(leaves):
            alone = [-1] * len(leaves)
            alone[tree] = leaf
            items, total_weight = _row_items(trees, alone, tree_weighted)
            if not items:
                continue
            tree_quantiles = weighted_quantiles([item[3] for item in items],
                                                [item[2] for item in items],
                                                list(quantiles), total_weight, interpolation)
            sums = [total + value for total, value in zip(sums, tree_quantiles)]
            n_counted += 1
        out.append([total / n_counted if n_counted else math.nan for total in sums])
    return np.array(out, dtype=np.float64).reshape(len(out), len(quantiles))


def _per_tree_sums(trees, leaves, per_leaf, tree_weighted):
    """The sum over the trees that count of ``per_leaf(entries)`` over the
    leaf's divisor, and the total weight."""
    total, total_weight = 0.0, 0.0
    for lists, leaf in zip(trees, leaves):
        entries = lists.get(int(leaf), []) if leaf >= 0 else []
        if not entries:
            continue
        leaf_weight = 0.0
        for _, _, weight in entries:
            leaf_weight += weight
        divisor = _divisor(leaf_weight, tree_weighted)
        total += per_leaf(entries) / divisor
        total_weight += leaf_weight / divisor
    return total, total_weight


def quantile_forest_means(trees, row_leaves, tree_weighted=True):
    """Every row's weighted mean of the targets in its leaves (NaN: no tree counts)."""
    out = []
    for leaves in np.asarray(row_leaves):
        def leaf_sum(entries):
            total = 0.0
            for _, value, weight in entries:
                total += weight * value
            return total
        total, total_weight = _per_tree_sums(trees, leaves, leaf_sum, tree_weighted)
        out.append(total / total_weight if total_weight > 0 else math.nan)
    return np.array(out, dtype=np.float64)


def quantile_forest_ranks(trees, row_leaves, y, kind="rank", tree_weighted=True):
    """Every row's quantile rank of ``y[row]`` among the targets in its leaves."""
    if kind not in RANK_KINDS:
        raise ValueError(f"unknown kind {kind!r}")
    out = []
    for leaves, value in zip(np.asarray(row_leaves), np.asarray(y, dtype=np.float64)):
        n_equal = sum(1 for lists, leaf in zip(trees, leaves) if leaf >= 0
                      for _, target, _ in lists.get(int(leaf), []) if target == value)

        def below(strict):
            def leaf_sum(entries):
                total = 0.0
                for _, target, weight in entries:
                    if target < value or (not strict and target == value):
                        total += weight
                return total
            return leaf_sum
        weak, total_weight = _per_tree_sums(trees, leaves, below(strict=False), tree_weighted)
        strict, _ = _per_tree_sums(trees, leaves, below(strict=True), tree_weighted)
        if total_weight <= 0 or math.isnan(value):
            out.append(math.nan)
            continue
        weak /= total_weight
        strict /= total_weight
        mean = 0.5 * (weak + strict)
        out.append({"weak": weak, "strict": strict, "mean": mean,
                    "rank": mean + (0.5 * (weak - strict) / n_equal if n_equal else 0.0)}[kind])
    return np.array(out, dtype=np.float64)
